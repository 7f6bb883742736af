// Drives `zpm serve` with the official TypeScript SDK client:
//   node check.mjs COMMAND ARGS...
// The client validates every structured result against the tool's
// outputSchema (a mismatch throws). Prints one JSON object describing what
// it saw; exits non-zero on any failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const CHAIN = 1000;
const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "ignore" });
const client = new Client({ name: "zpm-ts-check", version: "1.0.0" });
await client.connect(transport);

async function ok(name, args, meta) {
  const result = await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result;
}

const logged = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logged.push(n.params));
const updated = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));

const listed = await client.listTools();
const declared = listed.tools.filter((t) => t.outputSchema).map((t) => t.name).sort();

await ok("define_rule", { head: "chain(X)", body: "link(X, Y), chain(Y)" });
await ok("define_rule", { head: "path(X, Y)", body: "link(X, Y)" });
await ok("remember_fact", { fact: `chain(n${CHAIN})` });
await ok("assume_fact", { fact: "guess(a)", assumption: "hunch" });
for (let i = 0; i < CHAIN; i++) await ok("remember_fact", { fact: `link(n${i}, n${i + 1})` });

const calls = [
  ["query_logic", { goal: "link(n0, X)" }],
  ["get_knowledge_schema", {}],
  ["get_kb_overview", {}],
  ["list_memories", {}],
  ["list_assumptions", {}],
  ["get_belief_status", { fact: "guess(a)" }],
  ["get_justification", { assumption: "hunch" }],
  ["find_predicate_references", { functor: "link", arity: 2 }],
  ["rename_predicate", { old_functor: "link", new_functor: "edge", dry_run: true }],
  ["trace_dependency", { start_node: "n0" }],
  ["verify_consistency", {}],
  ["explain_why", { fact: "chain(n0)" }],
];
const structured = {};
for (const [name, args] of calls) {
  const result = await ok(name, args);
  if (typeof result.structuredContent !== "object") throw new Error(`${name}: no structuredContent`);
  structured[name] = result.structuredContent;
}

// ping answers while a call runs; a cancelled call stops and the next one starts at once.
const controller = new AbortController();
const runaway = client
  .callTool({ name: "query_logic", arguments: { goal: "repeat, fail" } }, undefined, {
    signal: controller.signal,
    timeout: 120000,
  })
  .then(() => "answered", (error) => (controller.signal.aborted ? "cancelled" : String(error)));
await new Promise((resolve) => setTimeout(resolve, 300));
let started = performance.now();
await client.ping();
const pingMs = performance.now() - started;
started = performance.now();
controller.abort();
const next = await ok("query_logic", { goal: "guess(X)" });
const nextMs = performance.now() - started;

// Resources: list, templates, read, subscribe.
const resources = (await client.listResources()).resources.map((r) => r.uri);
const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
const watched = "zpm://memories/default/predicates/guess/1";
await client.subscribeResource({ uri: watched });
await ok("remember_fact", { fact: "guess(b)" });
const clauses = (await client.readResource({ uri: watched })).contents[0].text;

// Progress of a restore reaches the client, and its info log line the client
// that asked for info. (The SDK runs notification handlers a microtask late:
// a progress notification read in the same chunk as the answer misses the
// per-call `onprogress` callback, so the notifications are recorded here.)
await ok("save_snapshot", { name: "all" });
await client.setLoggingLevel("info");
const progress = [];
client.setNotificationHandler(ProgressNotificationSchema, (n) => {
  if (n.params.progressToken === "restore") progress.push(n.params.progress);
});
await ok("restore_snapshot", { name: "all" }, { progressToken: "restore" });
await client.ping();

console.log(
  JSON.stringify({
    resources,
    templates,
    clauses,
    updated,
    progress,
    logged: logged.map((entry) => `${entry.level} ${entry.data}`),
    declared,
    explainNodes: structured.explain_why.nodes.length,
    answers: structured.query_logic,
    runaway: await runaway,
    next: next.content[0].text,
    pingMs,
    nextMs,
  }),
);
await client.close();
