// Drives `zpm serve --http` with the official TypeScript SDK client over
// Streamable HTTP:   node http_check.mjs URL TOKEN
// Lists the tools, stores a fact and queries it; prints one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "zpm-ts-http-check", version: "1.0.0" });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((t) => t.name);
const stored = await client.callTool({ name: "remember_fact", arguments: { fact: "p(ts)" } });
const answers = await client.callTool({ name: "query_logic", arguments: { goal: "p(X)" } });
await transport.terminateSession();
await client.close();
console.log(
  JSON.stringify({
    tools,
    stored: stored.content[0].text,
    answers: answers.structuredContent,
  }),
);
