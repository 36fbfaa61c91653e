// Reads files back with DuckDB, a reader no one here wrote: mdqs export's
// Parquet and CSV files, for .ci/export.sh to hold against the API.
//
//   node check.mjs QUERIES.json > RESULTS.json
//
// QUERIES.json is a list of {"name": ..., "sql": ...}; RESULTS.json maps
// each name to its rows (objects), with BIGINT and HUGEINT as strings and
// DECIMAL as numbers (getRowObjectsJson), plus "version" (DuckDB's).
import { readFileSync } from "node:fs";
import { DuckDBInstance } from "@duckdb/node-api";

const queries = JSON.parse(readFileSync(process.argv[2], "utf8"));
const instance = await DuckDBInstance.create(":memory:");
const conn = await instance.connect();
const out = {};
for (const { name, sql } of queries) {
  try {
    const reader = await conn.runAndReadAll(sql);
    out[name] = reader.getRowObjectsJson();
  } catch (err) {
    console.error(`${name}: ${err.message}\n${sql}`);
    process.exit(1);
  }
}
out.version = (await conn.runAndReadAll("SELECT version() AS v")).getRowObjectsJson()[0].v;
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
