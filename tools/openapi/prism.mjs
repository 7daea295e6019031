// Checks the served OpenAPI document against the server with a third-party
// validator: Stoplight Prism's proxy (https://github.com/stoplightio/prism)
// in front of a live server, validating every request and response of real
// traffic. The traffic is the TypeScript client's walk over every operation
// of the document (clients/typescript/test/openapi/operations.ts, compiled
// here), so an operation added to the document is driven as soon as that
// walk calls it (its own test fails until it does).
//
// Fails on any violation Prism reports, on an operation of the document the
// walk did not call, or on a call that failed. make check-openapi-traffic
// runs it; CREATIVEOPS_TEST_BINARY names a built server (else it is built),
// OPENAPI_DOC another document to check, PRISM_ERRORS=0 lets traffic go on
// past violations (to count them all), PRISM_LOG a file for Prism's log.
import { spawn, execFile } from "node:child_process";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { startServer } from "../../clients/typescript/test/server.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = resolve(here, "../..");
const tsClient = join(repo, "clients/typescript");
const docPath = resolve(process.env.OPENAPI_DOC || join(repo, "gen/openapi/openapi.json"));
const failFast = process.env.PRISM_ERRORS !== "0";
const run = promisify(execFile);

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

// Prism's log, one line per message; a violation is a line of its
// VALIDATOR naming one.
const log = [];
function startPrism(upstream, port) {
  const args = ["proxy", docPath, upstream, "--port", String(port), "--host", "127.0.0.1", "--errors", String(failFast)];
  const child = spawn(join(here, "node_modules/.bin/prism"), args, { stdio: ["ignore", "pipe", "pipe"] });
  let buffered = "";
  const ready = new Promise((ok, fail) => {
    const onData = (chunk) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop();
      for (const raw of lines) {
        // eslint-disable-next-line no-control-regex
        const line = raw.replace(/\x1b\[[0-9;]*m/g, "");
        log.push(line);
        if (line.includes("Prism is listening")) ok();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => fail(new Error(`prism exited (${code}):\n${log.join("\n")}`)));
    setTimeout(() => fail(new Error(`prism did not start in 60 s:\n${log.join("\n")}`)), 60_000).unref();
  });
  return { child, ready };
}

const doc = JSON.parse(await readFile(docPath, "utf8"));
const documented = Object.values(doc.paths)
  .flatMap((item) => Object.values(item).map((op) => op.operationId))
  .sort();

const server = await startServer();
const out = await mkdtemp(join(tmpdir(), "creativeops-prism-"));
let prism;
let failure;
let called = [];
try {
  const port = await freePort();
  prism = startPrism(server.baseUrl, port);
  await prism.ready;
  await run(process.execPath, [join(tsClient, "node_modules/typescript/bin/tsc"), "-p", join(tsClient, "test/openapi/tsconfig.json"), "--noEmit", "false", "--outDir", out], {
    cwd: tsClient,
    timeout: 180_000,
  });
  await writeFile(join(out, "package.json"), JSON.stringify({ type: "module" }));
  await symlink(join(tsClient, "node_modules"), join(out, "node_modules"));
  const { everyOperation } = await import(pathToFileURL(join(out, "operations.js")).href);
  try {
    called = await everyOperation(`http://127.0.0.1:${port}`, server.apiKey, Math.random().toString(36).slice(2, 10));
  } catch (err) {
    failure = err;
  }
} finally {
  prism?.child.kill();
  await server.stop();
  await rm(out, { recursive: true, force: true });
}

if (process.env.PRISM_LOG) await writeFile(process.env.PRISM_LOG, log.join("\n") + "\n");
const violations = log.filter((l) => /Violation: /.test(l));
const requests = log.filter((l) => /Request received/.test(l)).length;
const missed = documented.filter((id) => !called.includes(id));
console.log(`prism: ${requests} requests over ${new Set(called).size} of ${documented.length} operations of ${docPath}; ${violations.length} violations`);
for (const v of violations) console.log(`  ${v.trim()}`);
if (missed.length > 0) console.log(`operations not driven: ${missed.join(", ")}`);
if (failure) console.log(`traffic failed: ${failure.message}`);
if (violations.length > 0 || missed.length > 0 || failure) {
  process.exit(1);
}
