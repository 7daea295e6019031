// Starts a real creativeops server for the live tests: built from this
// repository, on a free loopback port, over a fresh SQLite data dir.
import { spawn, execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
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

async function withTimeout(promise, ms, what) {
  let t;
  const timeout = new Promise((_, fail) => {
    t = setTimeout(() => fail(new Error(`${what}: no result after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(t);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Builds and starts the server. The admin key comes from
 * <data-dir>/bootstrap-key when the server writes one, else from the
 * co_live_ key its first start prints on stderr. args are added to the
 * serve command line.
 */
export async function startServer({ args = [] } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "creativeops-ts-"));
  const bin = process.env.CREATIVEOPS_TEST_BINARY || join(dir, "creativeops");
  if (!process.env.CREATIVEOPS_TEST_BINARY) {
    await withTimeout(
      run("go", ["build", "-o", bin, "./cmd/creativeops"], {
        cwd: repoRoot,
        env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ""} -buildvcs=false`.trim() },
      }),
      300_000,
      "go build",
    );
  }
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(
    bin,
    [
      "serve",
      "--http-addr", `127.0.0.1:${port}`,
      "--data-dir", dir,
      "--database-url", `sqlite://${join(dir, "creativeops.db")}`,
      "--allow-insecure-webhooks",
      "--log-format", "text",
      "--webhook-retry-schedule", "0s,1s,1s",
      "--public-url", baseUrl,
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  child.stdout.resume();
  const exited = new Promise((ok) => child.once("exit", (code, signal) => ok({ code, signal })));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      try {
        await withTimeout(exited, 15_000, "server shutdown");
      } catch {
        child.kill("SIGKILL");
        await exited;
      }
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await withTimeout(
      (async () => {
        for (;;) {
          if (child.exitCode !== null) {
            throw new Error(`server exited with ${child.exitCode}:\n${stderr}`);
          }
          try {
            const res = await fetch(`${baseUrl}/readyz`);
            if (res.ok) return;
          } catch {
            // not listening yet
          }
          await sleep(100);
        }
      })(),
      60_000,
      "server readiness",
    );
    const apiKey = await withTimeout(
      (async () => {
        for (;;) {
          try {
            const text = await readFile(join(dir, "bootstrap-key"), "utf8");
            const k = /co_live_[0-9A-Za-z]+/.exec(text)?.[0];
            if (k) return k;
          } catch {
            // not written (yet, or by this version of the server)
          }
          const m = /co_live_[0-9A-Za-z]+/.exec(stderr);
          if (m) return m[0];
          await sleep(50);
        }
      })(),
      10_000,
      "bootstrap key",
    );
    return { baseUrl, apiKey, stop, logs: () => stderr };
  } catch (err) {
    await stop();
    throw err;
  }
}
