// The browser suite: the scenarios of test/browser/page.ts, bundled with
// esbuild from the package's browser build, run in Debian's Chromium
// (driven by playwright-core) against a live server over Connect and
// gRPC-Web. The page is served from the API's own origin for the
// scenarios, and from a second origin — allowed by --cors-allowed-origins —
// and a third, not allowed, for the cross-origin calls.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { startServer } from "./server.mjs";

const executablePath = process.env.CREATIVEOPS_CHROMIUM || "/usr/bin/chromium";
// Outside CI a machine without Chromium skips the suite; in CI it fails.
const skip = !existsSync(executablePath) && !process.env.CI ? `no Chromium at ${executablePath} (apt-get install chromium)` : false;
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const SCENARIO_TIMEOUT = 90_000;
const transports = ["connect", "grpc-web"];
const html = '<!doctype html><meta charset="utf-8"><title>creativeops browser suite</title><script type="module" src="bundle.js"></script>';

let server, pages, browser, bundle, meta;
const consoleLines = [];

/** A loopback port nothing listens on. */
async function closedPort() {
  const s = createNetServer();
  await new Promise((ok) => s.listen(0, "127.0.0.1", ok));
  const { port } = s.address();
  await new Promise((ok) => s.close(ok));
  return port;
}

/** Serves the page and its bundle on a loopback port of its own: a second origin. */
async function startPageServer() {
  const http = createServer((req, res) => {
    if (req.url === "/bundle.js") res.writeHead(200, { "Content-Type": "text/javascript" }).end(bundle);
    else if (req.url === "/" || req.url === "/index.html") res.writeHead(200, { "Content-Type": "text/html" }).end(html);
    else res.writeHead(404).end();
  });
  await new Promise((ok) => http.listen(0, "127.0.0.1", ok));
  return { port: http.address().port, close: () => new Promise((ok) => http.close(ok)) };
}

/** A receiver of webhook deliveries on loopback; next() resolves with the next one. */
async function startReceiver() {
  const waiting = [];
  const received = [];
  const http = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(204).end();
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const d = { headers, body: Buffer.concat(chunks).toString("utf8") };
      const w = waiting.shift();
      if (w) w(d);
      else received.push(d);
    });
  });
  await new Promise((ok) => http.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${http.address().port}/hook`,
    next(ms = 20_000) {
      const ready = received.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((ok, fail) => {
        const t = setTimeout(() => fail(new Error(`no webhook delivery within ${ms} ms`)), ms);
        waiting.push((d) => {
          clearTimeout(t);
          ok(d);
        });
      });
    },
    close: () => new Promise((ok) => http.close(ok)),
  };
}

async function openPage(url, route) {
  const page = await browser.newPage();
  page.on("console", (m) => consoleLines.push(`[${url}] ${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => consoleLines.push(`[${url}] page error: ${e.message}`));
  if (route) {
    // The API's own origin: the page and its bundle are answered by the
    // runner, every other request goes to the server.
    await page.route(`${route}*`, (r) =>
      r.fulfill(r.request().url().endsWith("/bundle.js") ? { contentType: "text/javascript", body: bundle } : { contentType: "text/html", body: html }),
    );
  }
  await page.goto(url);
  await page.waitForFunction(() => typeof globalThis.scenarios === "object", null, { timeout: 30_000 });
  return page;
}

/** Runs one scenario in a page and returns its result; a failed check fails the test with the browser's message. */
function inBrowser(page, name, ...args) {
  return page.evaluate(([n, a]) => globalThis.scenarios[n](...a), [name, args]);
}

describe("in Chromium", { skip }, () => {
  let pageServer, receiver;
  before(async () => {
    const out = await build({
      entryPoints: [fileURLToPath(new URL("browser/page.ts", import.meta.url))],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "chrome120",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    bundle = out.outputFiles[0].text;
    meta = out.metafile;
    pageServer = await startPageServer();
    const allowed = `http://127.0.0.1:${pageServer.port}`;
    server = await startServer({ args: ["--cors-allowed-origins", allowed] });
    receiver = await startReceiver();
    browser = await chromium.launch({ executablePath, args: CHROMIUM_FLAGS, timeout: 60_000 });
    const apiOrigin = `${server.baseUrl}/__browser_suite__/`;
    pages = {
      same: await openPage(`${apiOrigin}index.html`, apiOrigin),
      allowed: await openPage(`${allowed}/`),
      // localhost and 127.0.0.1 are different origins: this one is not allowed.
      refused: await openPage(`http://localhost:${pageServer.port}/`),
    };
  });
  after(async () => {
    if (consoleLines.length && process.env.CREATIVEOPS_BROWSER_LOG) console.error(consoleLines.join("\n"));
    await browser?.close();
    await receiver?.close();
    await pageServer?.close();
    await server?.stop();
  });

  test("the page runs the package's browser build, without Node modules", () => {
    const inputs = Object.keys(meta.inputs);
    assert.ok(inputs.some((f) => /(^|\/)dist\/esm\/client\.js$/.test(f)), `bundled from dist/esm: ${inputs.filter((f) => !f.includes("node_modules")).join(", ")}`);
    assert.ok(!inputs.some((f) => f.includes("connect-node")), "no @connectrpc/connect-node in a browser bundle");
  });

  for (const transport of transports) {
    describe(`over ${transport}`, () => {
      const cfg = () => ({ baseUrl: server.baseUrl, apiKey: server.apiKey, transport });
      const opts = { timeout: SCENARIO_TIMEOUT };

      test("create a creator, get it, list it page by page", opts, async () => {
        const r = await inBrowser(pages.same, "creators", cfg());
        assert.ok(r.pages >= 2);
      });
      test("run release-strategy synchronously", opts, async () => {
        const r = await inBrowser(pages.same, "runSync", cfg());
        assert.match(r.strategy, /Nova Reyes/);
      });
      test("run release-strategy asynchronously and poll it to completion", opts, async () => {
        const r = await inBrowser(pages.same, "runAsync", cfg());
        assert.match(r.id, /^job_/);
      });
      test("register a work and fetch its certificate", opts, async () => {
        const r = await inBrowser(pages.same, "registerWork", cfg());
        assert.match(r.certificateId, /^cert_/);
      });
      test("a webhook delivery verifies with verifyWebhook in the browser", opts, async () => {
        const wh = await inBrowser(pages.same, "webhookCreate", cfg(), receiver.url);
        const d = await receiver.next();
        assert.equal(d.headers["webhook-id"] !== undefined, true);
        const r = await inBrowser(pages.same, "webhookVerify", cfg(), d.body, d.headers, wh.secret, wh.id);
        assert.equal(r.eventId, d.headers["webhook-id"]);
      });
      test("404, 400 and 401 are typed errors with the request id", opts, async () => {
        const r = await inBrowser(pages.same, "errors", cfg());
        assert.match(r.requestId, /^req_/);
      });
      test("a 429 is retried after Retry-After, with the same Idempotency-Key", opts, async () => {
        const r = await inBrowser(pages.same, "retry429", cfg());
        assert.ok(r.retryAfter >= 1);
      });
      test("a page of an allowed origin calls the API cross-origin", opts, async () => {
        const r = await inBrowser(pages.allowed, "crossOrigin", cfg());
        assert.equal(r.origin, `http://127.0.0.1:${new URL(pages.allowed.url()).port}`);
        assert.notEqual(r.origin, server.baseUrl, "a second origin");
      });
      test("a page of an origin not allowed cannot read the answers", opts, async () => {
        const r = await inBrowser(pages.refused, "refusedOrigin", cfg());
        // The browser gives the script a network error and nothing of the
        // answer: a connection error, never the server's 404.
        assert.deepEqual(
          { httpStatus: r.httpStatus, name: r.name, connection: r.connection, status: r.status },
          { httpStatus: 0, name: "APIConnectionError", connection: true, status: "UNAVAILABLE" },
          JSON.stringify(r),
        );
      });
      test("an unreachable server is an APIConnectionError, after the read's retries", opts, async () => {
        const r = await inBrowser(pages.same, "unreachable", cfg(), `http://127.0.0.1:${await closedPort()}`);
        assert.deepEqual(r, { httpStatus: 0, name: "APIConnectionError", connection: true, status: "UNAVAILABLE", attempts: 3 });
      });
    });
  }
});
