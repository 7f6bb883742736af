"""The tools: each group of tool definitions, the helpers only tools use (reading
inputs, rendering answers as JSON text), and the MCP resources.  Imports every
other layer of the domain; nothing in the domain imports it."""
