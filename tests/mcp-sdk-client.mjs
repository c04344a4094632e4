// mcp-sdk-client.mjs: drives `chokepoint mcp` with the official MCP
// TypeScript SDK's client (@modelcontextprotocol/sdk) over stdio.
//
// Copyright 2026 The Chokepoint authors
// SPDX-License-Identifier: GPL-3.0-or-later
//
// Usage: node mcp-sdk-client.mjs CHOKEPOINT ROOT CAPTURE. The SDK checks
// every reply against its own schemas of the protocol (zod): the
// initialize result, the tool list and each call result. Prints one JSON
// object with what it got, for test-mcp-sdk.py to check.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [chokepoint, root, capture] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: chokepoint,
  args: ["mcp", "--root", root],
  stderr: "ignore",
});
const client = new Client({ name: "chokepoint-test-sdk", version: "1.0.0" });
await client.connect(transport);

const out = {
  server: client.getServerVersion(),
  tools: (await client.listTools()).tools.map((t) => t.name),
};
await client.ping();
const summary = await client.callTool({ name: "capture_summary", arguments: { path: capture } });
out.summary = summary.structuredContent;
out.summary_is_error = summary.isError;
const page = await client.callTool({ name: "lane_slices", arguments: { path: capture, lane: 0, limit: 3 } });
out.page = page.structuredContent;
const refused = await client.callTool({ name: "capture_summary", arguments: { path: "/etc/passwd" } });
out.refused = { isError: refused.isError, text: refused.content[0].text };
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
  out.unknown_tool = "accepted";
} catch (e) {
  out.unknown_tool = e.code;
}
await client.close();
console.log(JSON.stringify(out));
