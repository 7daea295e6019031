// Starts what the end-to-end tests drive: a real creativeops server built from
// this checkout (on a free loopback port, over a fresh SQLite data dir) and a
// local webhook receiver. CREATIVEOPS_E2E_URL and CREATIVEOPS_E2E_KEY point the
// tests at a server you started yourself instead (e.g. `npm run dev`).
import { spawn, execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer as createHTTPServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

export async function withTimeout(promise, ms, what) {
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

/** Polls fn until it returns a truthy value, or fails after ms. */
export async function eventually(fn, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not true after ${ms} ms`);
    await sleep(200);
  }
}

/**
 * A c2sp.org/tlog-witness stand-in for the IP log: it cosigns every checkpoint
 * posted to /add-checkpoint (cosignature/v1, Ed25519 with node:crypto), without
 * the checks of a real witness (litewitness runs in the Go tests). Its key is
 * new each run.
 */
export async function startWitness() {
  const { createHash, generateKeyPairSync, sign } = await import("node:crypto");
  const name = "witness.e2e.example/w1";
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const pub = Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url");
  const key = Buffer.concat([Buffer.from([4]), pub]);
  const hash = createHash("sha256").update(name + "\n").update(key).digest().subarray(0, 4);
  const verifierKey = `${name}+${hash.toString("hex")}+${key.toString("base64")}`;
  let cosigned = 0;
  const server = createHTTPServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const note = body.slice(body.indexOf("\n\n") + 2);
      if (req.method !== "POST" || req.url !== "/add-checkpoint" || !note) {
        res.writeHead(400).end("bad request\n");
        return;
      }
      const text = note.slice(0, note.lastIndexOf("\n\n") + 1);
      const time = BigInt(Math.floor(Date.now() / 1000));
      const sig = sign(null, Buffer.from(`cosignature/v1\ntime ${time}\n${text}`), privateKey);
      const t = Buffer.alloc(8);
      t.writeBigUInt64BE(time);
      cosigned++;
      res.writeHead(200).end(`\u2014 ${name} ${Buffer.concat([hash, t, sig]).toString("base64")}\n`);
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { name, verifierKey, url, cosigned: () => cosigned, stop: () => new Promise((ok) => server.close(ok)) };
}

/** Builds the binary (or takes CREATIVEOPS_TEST_BINARY) and starts `serve` (with extra flags). */
export async function startServer(extraArgs = []) {
  if (process.env.CREATIVEOPS_E2E_URL) {
    if (!process.env.CREATIVEOPS_E2E_KEY) throw new Error("CREATIVEOPS_E2E_KEY: needed with CREATIVEOPS_E2E_URL (a key with every scope)");
    return { baseUrl: process.env.CREATIVEOPS_E2E_URL.replace(/\/+$/, ""), apiKey: process.env.CREATIVEOPS_E2E_KEY, bin: process.env.CREATIVEOPS_TEST_BINARY, stop: async () => {}, logs: () => "" };
  }
  const dir = await mkdtemp(join(tmpdir(), "creativeops-e2e-"));
  const bin = process.env.CREATIVEOPS_TEST_BINARY || join(dir, "creativeops");
  if (!process.env.CREATIVEOPS_TEST_BINARY) {
    await withTimeout(
      run("go", ["build", "-o", bin, "./cmd/creativeops"], {
        cwd: repoRoot,
        env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ""} -buildvcs=false`.trim() },
      }),
      600_000,
      "go build",
    );
  }
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // Data dir outside the temporary directory's cleanup race: removed in stop().
  const child = spawn(
    bin,
    [
      "serve",
      "--http-addr", `127.0.0.1:${port}`,
      "--data-dir", dir,
      "--allow-insecure-webhooks",
      "--log-format", "text",
      "--analytics-flush-interval", "1s",
      "--webhook-retry-schedule", "0s,1s,1s",
      ...extraArgs,
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
          if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${stderr}`);
          try {
            if ((await fetch(`${baseUrl}/readyz`)).ok) return;
          } catch {
            // not listening yet
          }
          await sleep(100);
        }
      })(),
      60_000,
      "server readiness",
    );
    const apiKey = await eventually(
      async () => /co_live_[0-9A-Za-z]+/.exec(await readFile(join(dir, "bootstrap-key"), "utf8").catch(() => ""))?.[0],
      10_000,
      "bootstrap key",
    );
    return { baseUrl, apiKey, bin, stop, logs: () => stderr };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A webhook endpoint on loopback that answers 204 and keeps what it received. */
export async function startReceiver() {
  const received = [];
  const server = createHTTPServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${server.address().port}/hooks/creativeops`, received, stop: () => new Promise((ok) => server.close(ok)) };
}

/** A REST call with an API key (to set up and check what the browser did). */
export async function rest(server, method, path, body, key = server.apiKey) {
  const res = await fetch(server.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
