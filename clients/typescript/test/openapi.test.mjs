// A client generated from the OpenAPI document (openapi-typescript types +
// openapi-fetch) calls every operation with no casts, compiles under
// tsc --strict, and works against a live server.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { startServer } from "./server.mjs";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const source = join(pkg, "test/openapi/operations.ts");
const tsc = join(pkg, "node_modules/typescript/bin/tsc");
const run = promisify(execFile);

const documentOperations = async () => {
  const doc = JSON.parse(await readFile(join(pkg, "../../gen/openapi/openapi.json"), "utf8"));
  return Object.values(doc.paths)
    .flatMap((item) => Object.values(item).map((op) => op.operationId))
    .sort();
};

let out;
let server;
before(async () => {
  out = await mkdtemp(join(tmpdir(), "creativeops-openapi-"));
  server = await startServer();
});
after(async () => {
  await server?.stop();
  if (out) await rm(out, { recursive: true, force: true });
});

test("the source calls every operation of the document, without casts", async () => {
  const text = await readFile(source, "utf8");
  for (const id of await documentOperations()) {
    assert.ok(text.includes(`op("${id}")`), `operations.ts does not call ${id}`);
  }
  const code = text.replace(/\/\/.*$/gm, "");
  assert.doesNotMatch(code, /\bas\s+(unknown|any|[A-Z{])|<any>|@ts-(ignore|expect-error|nocheck)|: any\b/, "no casts, no any");
});

test("it compiles under tsc --strict and every operation succeeds against the server", async () => {
  // Compile to a temporary directory with the project's strict settings.
  await run(process.execPath, [tsc, "-p", join(pkg, "test/openapi/tsconfig.json"), "--noEmit", "false", "--outDir", out], {
    cwd: pkg,
    timeout: 120_000,
  });
  await writeFile(join(out, "package.json"), JSON.stringify({ type: "module" }));
  // openapi-fetch is resolved from the package's node_modules.
  await run("ln", ["-s", join(pkg, "node_modules"), join(out, "node_modules")]);
  const { everyOperation } = await import(pathToFileURL(join(out, "operations.js")).href);
  const called = await everyOperation(server.baseUrl, server.apiKey, Math.random().toString(36).slice(2, 10));
  assert.deepEqual([...called].sort(), await documentOperations());
});
