// A client no one here wrote: the official MCP TypeScript SDK drives mdqs
// over both transports as an agent would (mdqs mcp on stdio, /mcp by URL
// with a bearer token), lists and calls every tool and checks the answers;
// then the MCP conformance suite runs against /mcp, through a proxy that
// adds the bearer token (the suite has no option for one), with a
// baseline of the checks that need the suite's own fixture tools.
//
//   node check.mjs --bin ../../mdqs --addr 127.0.0.1:8080 --token TOKEN [--conformance-out DIR]
//
// Exits 1 when anything fails. .ci/mcp.sh runs it against a demo server.

import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
for (const need of ["bin", "addr", "token"]) {
  if (!args[need]) {
    console.error(`usage: node check.mjs --bin MDQS --addr HOST:PORT --token TOKEN (missing --${need})`);
    process.exit(2);
  }
}

// Every tool mdqs lists, each called below.
const tools = [
  "block_members", "corporate_actions", "cross_section", "dragon_tiger", "etfs", "financial_reports", "hot_rank", "index_members",
  "kline", "limit_ladder", "limit_pool", "news_search", "quotes", "run_screen", "search_stocks", "sector_movements", "sector_ranking",
];

// calls of every tool a demo market answers; day is a finished session.
const calls = (day) => [
  ["sector_ranking", { limit: 5 }, "main_net"],
  ["sector_movements", { type: "concept", sort: "main_net" }, "board_name"],
  ["kline", { code: "600519", indicators: "ma5,macd", limit: 30 }, "macd_hist"],
  ["kline", { code: "sh600519", adjust: "hfq", start: day, end: day }, "close"],
  ["quotes", { codes: ["600519.SH", "000001"] }, "600519.SH"],
  ["etfs", { sort: "amount", limit: 3 }, "iopv"],
  ["search_stocks", { query: "银行" }, "银行"],
  ["block_members", { block: "沪深300" }, ".S"],
  ["corporate_actions", { code: "600519.SH" }, "除权除息"],
  ["run_screen", { expression: "pct > -100 && amount > 0", sort: "-amount", limit: 5 }, "amount"],
  ["news_search", { limit: 3 }, "published_at"],
  ["hot_rank", { limit: 5 }, "heat"],
  ["financial_reports", { codes: ["600519.SH"] }, "net_profit"],
  ["limit_ladder", { date: day }, ""],
  ["limit_pool", { kind: "up", date: day }, ""],
  ["dragon_tiger", { date: day }, ""],
  ["index_members", { index: "000300.SH" }, "since"],
  ["cross_section", { date: day, sort: "pct", limit: 10 }, "pct"],
];

let failures = 0;
const fail = (msg) => {
  failures++;
  console.log(`FAIL ${msg}`);
};
const text = (res) => (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");

async function suite(name, transport) {
  const started = Date.now();
  const client = new Client({ name: "mdqs-mcp-check", version: "1.0.0" });
  await client.connect(transport);
  const info = client.getServerVersion();
  if (info?.name !== "mdqs") fail(`${name}: server info ${JSON.stringify(info)}`);
  if (!(client.getInstructions() || "").includes("as_of")) fail(`${name}: no instructions about as_of`);

  const listed = (await client.listTools()).tools;
  const names = listed.map((t) => t.name).sort();
  if (JSON.stringify(names) !== JSON.stringify(tools)) fail(`${name}: tools/list ${names}`);
  const size = JSON.stringify({ tools: listed }).length;
  console.log(`${name}: tools/list ${listed.length} tools, ${size} bytes as this client holds it`);
  for (const t of listed) {
    if (!t.annotations?.readOnlyHint) fail(`${name}: ${t.name} not read-only`);
    for (const req of t.inputSchema.required || []) {
      const p = t.inputSchema.properties[req];
      if (p.default === undefined && !(p.examples || []).length) fail(`${name}: ${t.name}.${req} is required without default or examples`);
    }
  }

  // Resources: the calendar gives the day the calls ask about.
  const read = async (uri) => (await client.readResource({ uri })).contents[0].text;
  const cal = JSON.parse(await read("mdqs://calendar"));
  const past = cal.trading_days.filter((d) => d < cal.today);
  const day = past[past.length - 2];
  for (const [uri, want] of [["mdqs://codes", "600519.SH"], ["mdqs://screener", "main_net"], ["mdqs://calendar/2026", '"2026-10-01"']]) {
    if (!(await read(uri)).includes(want)) fail(`${name}: ${uri} does not say ${want}`);
  }
  const resources = (await client.listResources()).resources.map((r) => r.uri).sort();
  if (JSON.stringify(resources) !== JSON.stringify(["mdqs://calendar", "mdqs://codes", "mdqs://screener"])) fail(`${name}: resources ${resources}`);

  const called = new Set();
  for (const [tool, input, want] of calls(day)) {
    const t0 = Date.now();
    const res = await client.callTool({ name: tool, arguments: input });
    const body = text(res);
    const sc = res.structuredContent || {};
    if (res.isError) {
      fail(`${name}: ${tool}(${JSON.stringify(input)}) is a tool error: ${body}`);
      continue;
    }
    called.add(tool);
    if (!sc.source || !sc.as_of || !Array.isArray(sc.rows) || !Array.isArray(sc.columns) || sc.count !== sc.rows.length || sc.rows.length > 200) {
      fail(`${name}: ${tool} structured content ${JSON.stringify(sc).slice(0, 300)}`);
    }
    if (!body.startsWith(`${tool} · source ${sc.source} · as_of `) || !body.includes(want)) {
      fail(`${name}: ${tool} text ${JSON.stringify(body.slice(0, 300))} does not say ${want}`);
    }
    console.log(`${name}: ${tool} ok: ${sc.count} of ${sc.total} rows, source ${sc.source}, as_of ${sc.as_of} (${Date.now() - t0} ms)`);
  }
  for (const t of tools) if (!called.has(t)) fail(`${name}: ${t} was never answered`);

  // Bad input is a tool error, never a protocol error: the API's refusal,
  // and the schema's.
  for (const [tool, input, want] of [
    ["kline", { code: "nope" }, "HTTP 400 missing or invalid params"],
    ["kline", { code: "600519", freq: "W" }, "freq"],
    ["quotes", { codes: [] }, "codes"],
  ]) {
    const res = await client.callTool({ name: tool, arguments: input });
    if (!res.isError || !text(res).includes(want)) fail(`${name}: ${tool}(${JSON.stringify(input)}) = ${text(res)}; want a tool error saying ${want}`);
  }
  await client.close();
  console.log(`${name}: done in ${Date.now() - started} ms`);
}

// The conformance suite cannot send a bearer token: this proxy adds it,
// and passes everything else (Host and Origin included) as it came, so
// the suite's DNS rebinding check meets the server's own checks.
function tokenProxy(addr, token) {
  const [host, port] = [addr.slice(0, addr.lastIndexOf(":")), Number(addr.slice(addr.lastIndexOf(":") + 1))];
  const server = http.createServer((req, res) => {
    const up = http.request({ host, port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } }, (ur) => {
      res.writeHead(ur.statusCode, ur.headers);
      ur.pipe(res);
    });
    up.on("error", (e) => {
      res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(up);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function run(cmd, argv) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { stdio: "inherit", cwd: here });
    child.on("exit", (code) => resolve(code));
  });
}

const env = { ...process.env };
await suite("stdio", new StdioClientTransport({ command: args.bin, args: ["mcp", "-addr", args.addr], env, stderr: "inherit" }));
await suite("http", new StreamableHTTPClientTransport(new URL(`http://${args.addr}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${args.token}` } } }));

const proxy = await tokenProxy(args.addr, args.token);
const url = `http://localhost:${proxy.address().port}/mcp`;
console.log(`conformance: @modelcontextprotocol/conformance against ${url} (a proxy adding the bearer token to ${args.addr})`);
const suiteArgs = [path.join(here, "node_modules/@modelcontextprotocol/conformance/dist/index.js"), "server", "--url", url,
  "--expected-failures", path.join(here, "conformance-baseline.yml")];
if (args["conformance-out"]) suiteArgs.push("-o", args["conformance-out"]);
const code = await run(process.execPath, suiteArgs);
proxy.closeAllConnections();
proxy.close();
if (code !== 0) fail(`conformance: exit ${code}`);

if (failures > 0) {
  console.log(`mcp-check: ${failures} failure(s)`);
  process.exit(1);
}
console.log("mcp-check: every check passed");
// The proxy's keep-alive connections to mdqs would hold the process open.
process.exit(0);
