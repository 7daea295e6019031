// Session (cookie + X-CSRF-Token) authentication, against a local HTTP server
// that records what the client sends: no live creativeops server needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { CreativeOps } from "@creativeops/client";

async function recorder() {
  const seen = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(req.url.endsWith("/ListVerticals") ? '{"verticals":[{"key":"music","name":"Music"}],"total":1}' : '{"id":"key_1","name":"ci"}');
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { seen, server, baseUrl: `http://127.0.0.1:${server.address().port}` };
}

test("csrfToken sends X-CSRF-Token and no Authorization header", async (t) => {
  const { seen, server, baseUrl } = await recorder();
  t.after(() => server.close());
  const co = new CreativeOps({ csrfToken: "csrf-123", baseUrl });
  const verticals = await co.engine.listVerticals();
  assert.equal(verticals[0].key, "music");
  await co.keys.create({ name: "ci", scopes: ["engine:run"] });
  assert.equal(seen.length, 2);
  for (const r of seen) {
    assert.equal(r.headers["x-csrf-token"], "csrf-123");
    assert.equal(r.headers.authorization, undefined);
  }
  assert.equal(seen[0].url, "/creativeops.v1.EngineService/ListVerticals");
  // POSTs keep their Idempotency-Key under session auth too.
  assert.match(seen[1].headers["idempotency-key"], /^[0-9a-f-]{36}$/);
});

test("apiKey still sends the bearer token and no CSRF header", async (t) => {
  const { seen, server, baseUrl } = await recorder();
  t.after(() => server.close());
  await new CreativeOps({ apiKey: "co_live_x", baseUrl }).engine.listVerticals();
  assert.equal(seen[0].headers.authorization, "Bearer co_live_x");
  assert.equal(seen[0].headers["x-csrf-token"], undefined);
});

test("exactly one of apiKey and csrfToken", () => {
  assert.throws(() => new CreativeOps({ baseUrl: "http://x" }), /apiKey: required/);
  assert.throws(() => new CreativeOps({ apiKey: "k", csrfToken: "c", baseUrl: "http://x" }), /apiKey, csrfToken: give one, not both/);
  assert.throws(() => new CreativeOps({ csrfToken: "", baseUrl: "http://x" }), /csrfToken: must be a non-empty string/);
});
