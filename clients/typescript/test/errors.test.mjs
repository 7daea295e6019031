// Failures with no HTTP answer, against local stand-ins for a server: a
// port nothing listens on and servers that never answer. They are
// APIConnectionError and APITimeoutError, retried when the request is
// safe to repeat.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createServer as createH2Server } from "node:http2";
import { createServer as createNetServer } from "node:net";
import { APIConnectionError, APITimeoutError, CreativeOps, CreativeOpsError } from "@creativeops/client";

/** A loopback port nothing listens on. */
async function closedPort() {
  const s = createNetServer();
  await new Promise((ok) => s.listen(0, "127.0.0.1", ok));
  const { port } = s.address();
  await new Promise((ok) => s.close(ok));
  return port;
}

/** A server that reads requests and never answers (HTTP/1.1, or HTTP/2 without TLS for gRPC). */
async function stallingServer(h2) {
  const requests = [];
  const s = h2 ? createH2Server() : createServer();
  s.on(h2 ? "stream" : "request", (...args) => {
    args[0].on("error", () => {}); // the stream or request, torn down when the client gives up
    requests.push(h2 ? args[1][":path"] : args[0].url);
  });
  const sessions = new Set();
  s.on(h2 ? "session" : "connection", (x) => sessions.add(x));
  await new Promise((ok) => s.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${s.address().port}`,
    requests,
    close: () => {
      for (const x of sessions) x.destroy();
      return new Promise((ok) => s.close(ok));
    },
  };
}

const counting = (attempts) => (next) => async (req) => {
  attempts.push(req.method.name);
  return next(req);
};

for (const transport of ["connect", "grpc-web", "grpc"]) {
  describe(`over ${transport}`, () => {
    let stall;
    before(async () => {
      stall = await stallingServer(transport === "grpc");
    });
    after(() => stall.close());
    const client = (baseUrl, attempts, opts = {}) =>
      new CreativeOps({ apiKey: "co_live_test", baseUrl, transport, retry: { maxRetries: 2, initialDelayMs: 10 }, interceptors: [counting(attempts)], ...opts });

    test("a refused connection is an APIConnectionError, after the retries of a read", async () => {
      const attempts = [];
      const e = await client(`http://127.0.0.1:${await closedPort()}`, attempts).creators.get("cr_x").catch((x) => x);
      assert.ok(e instanceof APIConnectionError && e instanceof CreativeOpsError, String(e));
      assert.ok(!(e instanceof APITimeoutError));
      assert.equal(e.name, "APIConnectionError");
      assert.equal(e.httpStatus, 0);
      assert.equal(e.status, "UNAVAILABLE");
      assert.equal(e.requestId, "");
      assert.equal(e.code, undefined, "no code property: httpStatus and status say it");
      assert.match(e.message, /could not reach the API: .*ECONNREFUSED/);
      assert.deepEqual(attempts, ["GetCreator", "GetCreator", "GetCreator"]);
    });

    test("a refused POST without a key is retried too: it never left", async () => {
      const attempts = [];
      const co = client(`http://127.0.0.1:${await closedPort()}`, attempts, { autoIdempotencyKeys: false });
      const e = await co.creators.create({ name: "N", email: "n@example.com", vertical: "music" }).catch((x) => x);
      assert.ok(e instanceof APIConnectionError, String(e));
      assert.deepEqual(attempts, ["CreateCreator", "CreateCreator", "CreateCreator"]);
    });

    test("a server that does not answer in timeoutMs is an APITimeoutError, per attempt", async () => {
      const attempts = [];
      const before = stall.requests.length;
      const started = Date.now();
      const e = await client(stall.url, attempts).creators.get("cr_x", { timeoutMs: 150 }).catch((x) => x);
      const elapsed = Date.now() - started;
      assert.ok(e instanceof APITimeoutError && e instanceof APIConnectionError, String(e));
      assert.equal(e.name, "APITimeoutError");
      assert.equal(e.httpStatus, 0);
      assert.equal(e.status, "DEADLINE_EXCEEDED");
      assert.match(e.message, /no answer within 150 ms/);
      assert.deepEqual(attempts, ["GetCreator", "GetCreator", "GetCreator"], "each attempt has its own 150 ms");
      assert.equal(stall.requests.length - before, 3, "the server saw three requests");
      assert.ok(elapsed >= 3 * 150, `${elapsed} ms`);

      // The client's timeoutMs applies when the call gives none.
      const attempts2 = [];
      const e2 = await client(stall.url, attempts2, { timeoutMs: 100, retry: { maxRetries: 0 } }).engine.listVerticals().catch((x) => x);
      assert.ok(e2 instanceof APITimeoutError, String(e2));
      assert.deepEqual(attempts2, ["ListVerticals"]);
    });

    test("a POST without a key that timed out is not sent again: it may have run", async () => {
      const attempts = [];
      const co = client(stall.url, attempts, { autoIdempotencyKeys: false });
      const e = await co.creators.create({ name: "N", email: "n@example.com", vertical: "music" }, { timeoutMs: 100 }).catch((x) => x);
      assert.ok(e instanceof APITimeoutError, String(e));
      assert.deepEqual(attempts, ["CreateCreator"]);
    });

    test("the caller's abort is a cancellation, not retried and not a connection error", async () => {
      const attempts = [];
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 100);
      const e = await client(stall.url, attempts).creators.get("cr_x", { signal: ac.signal }).catch((x) => x);
      assert.ok(e instanceof CreativeOpsError && !(e instanceof APIConnectionError), String(e));
      assert.equal(e.status, "CANCELLED");
      assert.equal(e.httpStatus, 0);
      assert.deepEqual(attempts, ["GetCreator"]);
    });
  });
}
