// The client against a real server, over each transport: Connect and
// gRPC-Web (what a browser speaks) and native gRPC (Node).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { CreativeOps, CreativeOpsError, timestampDate, verifyWebhook } from "@creativeops/client";
import { startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const transports = ["connect", "grpc-web", "grpc"];

/** A receiver of webhook deliveries on loopback; next() resolves with the next request. */
async function startReceiver() {
  const waiting = [];
  const received = [];
  const http = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(204).end();
      const delivery = { headers: req.headers, body: Buffer.concat(chunks) };
      const w = waiting.shift();
      if (w) w(delivery);
      else received.push(delivery);
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

for (const transport of transports) {
  describe(`over ${transport}`, () => {
    const client = (opts = {}) => new CreativeOps({ apiKey: server.apiKey, baseUrl: server.baseUrl, transport, ...opts });
    const unique = () => randomUUID().slice(0, 8);

    test("create a creator, get it, list it page by page", async () => {
      const listCalls = [];
      const co = client({
        interceptors: [
          (next) => async (req) => {
            if (req.method.name === "ListCreators") listCalls.push(req.message.pageToken);
            return next(req);
          },
        ],
      });
      const vertical = "podcasting";
      const tag = unique();
      const created = [];
      for (let i = 0; i < 3; i++) {
        created.push(
          await co.creators.create({
            name: `Host ${i} ${tag}`,
            email: `host${i}-${tag}-${transport}@example.com`,
            vertical,
            metadata: { tag, i },
          }),
        );
      }
      const c = created[0];
      assert.match(c.id, /^cr_[0-9a-z]{26}$/);
      assert.equal(c.status, "active");
      assert.deepEqual(c.metadata, { tag, i: 0 });

      const got = await co.creators.get(c.id);
      assert.equal(got.email, c.email);
      assert.deepEqual(got.metadata, { tag, i: 0 });

      const seen = [];
      for await (const cr of co.creators.list({ vertical, pageSize: 2 })) {
        if (cr.metadata?.tag === tag) seen.push(cr.id);
      }
      assert.deepEqual(seen.sort(), created.map((x) => x.id).sort());
      assert.ok(listCalls.length >= 2, `followed next_page_token over ${listCalls.length} pages`);
      assert.equal(listCalls[0], "");
      assert.ok(listCalls.slice(1).every((t) => t !== ""), "later pages are asked for with a token");
    });

    test("run release-strategy synchronously", async () => {
      const job = await client().engine.run({
        vertical: "music",
        workflow: "release-strategy",
        context: { artist: "Nova Reyes", genre: "indie pop", releaseDate: "2027-03-03" },
      });
      assert.equal(job.status, "completed");
      assert.equal(job.progress, 100);
      assert.equal(typeof job.result?.strategy, "string");
      assert.ok(Array.isArray(job.result?.recommendations));
    });

    test("run release-strategy asynchronously and poll it to completion", async () => {
      const co = client();
      const queued = await co.engine.run({
        vertical: "music",
        workflow: "release-strategy",
        context: { artist: "Nova Reyes", genre: "indie pop", release_date: "2027-03-03" },
        async: true,
      });
      assert.match(queued.id, /^job_/);
      assert.ok(["queued", "processing", "completed"].includes(queued.status), queued.status);
      const done = await co.engine.waitForJob(queued.id, { intervalMs: 100, timeoutMs: 60_000 });
      assert.equal(done.status, "completed");
      assert.equal(typeof done.result?.strategy, "string");
    });

    test("register a work and fetch its certificate", async () => {
      const co = client();
      const creator = await co.creators.create({ name: "Ink", email: `ink-${unique()}@example.com`, vertical: "publishing" });
      const hash = createHash("sha256").update(`book ${randomUUID()}`).digest("hex");
      const rec = await co.ip.register({ creatorId: creator.id, title: "The Long Night", type: "book", contentHash: hash });
      assert.equal(rec.status, "registered");
      assert.equal(rec.contentHash, `sha256:${hash}`);
      assert.equal(typeof rec.logIndex, "bigint");
      const cert = await co.ip.getCertificate(rec.certificateId);
      assert.equal(cert.certificateId, rec.certificateId);
      assert.equal(cert.contentHash, rec.contentHash);
      assert.ok(cert.token.length > 100, "carries the RFC 3161 token");
      assert.match(cert.checkpoint, /\n/);
      const token = await co.ip.getCertificateToken(rec.certificateId);
      assert.equal(token[0], 0x30, "DER SEQUENCE");
      assert.deepEqual(token, cert.token);

      const dup = await co.ip.register({ creatorId: creator.id, title: "Again", type: "book", contentHash: hash }).catch((e) => e);
      assert.ok(dup instanceof CreativeOpsError);
      assert.equal(dup.httpStatus, 409);
      assert.equal(dup.reason, "DUPLICATE_CONTENT");
    });

    test("a webhook delivery verifies with verifyWebhook", async () => {
      const co = client();
      const receiver = await startReceiver();
      try {
        const wh = await co.webhooks.create({ url: receiver.url, events: ["webhook.test"] });
        assert.match(wh.secret ?? "", /^whsec_/);
        await co.webhooks.test(wh.id);
        const d = await receiver.next();
        const event = await verifyWebhook(d.body, d.headers, wh.secret ?? "");
        assert.equal(event.type, "webhook.test");
        assert.equal(event.data.id, wh.id);
        assert.equal(d.headers["webhook-id"], event.id);
        await assert.rejects(verifyWebhook(Buffer.concat([d.body, Buffer.from(" ")]), d.headers, wh.secret ?? ""), /no v1 signature matches/);

        // A secret of one's own is used as its raw bytes.
        const raw = `raw-secret-${randomUUID()}`;
        const wh2 = await co.webhooks.create({ url: receiver.url, events: ["webhook.test"], secret: raw });
        assert.equal(wh2.secret, undefined, "a supplied secret is never returned");
        await co.webhooks.test(wh2.id);
        const d2 = await receiver.next();
        assert.equal((await verifyWebhook(d2.body, d2.headers, raw)).data.id, wh2.id);
        await co.webhooks.delete(wh.id);
        await co.webhooks.delete(wh2.id);
      } finally {
        await receiver.close();
      }
    });

    test("the other resource methods reach their RPCs", async () => {
      const co = client();
      const verticals = await co.engine.listVerticals();
      assert.ok(verticals.length >= 24);
      const workflows = await co.engine.listWorkflows({ vertical: "music" });
      assert.ok(workflows.some((w) => w.id === "release-strategy"));
      assert.equal((await co.engine.getWorkflow("release-strategy")).vertical, "music");
      const job = await co.engine.run({ vertical: "music", workflow: "release-strategy", context: { artist: "A", genre: "pop", release_date: "2027-03-05" } });
      let listed = false;
      for await (const j of co.engine.listJobs({ status: "completed", workflow: "release-strategy", pageSize: 50 })) {
        if (j.id === job.id) {
          listed = true;
          break;
        }
      }
      assert.ok(listed, "listJobs finds the job");
      const cancel = await co.engine.cancelJob(job.id).catch((e) => e);
      assert.equal(cancel.httpStatus, 409, "a finished job cannot be canceled");

      const creator = await co.creators.create({ name: "Cat", email: `cat-${unique()}@example.com`, vertical: "visual-art" });
      const hash = createHash("sha256").update(randomUUID()).digest("hex");
      const rec = await co.ip.register({ creatorId: creator.id, title: "Blue", type: "artwork", contentHash: `sha256:${hash.toUpperCase()}` });
      const found = [];
      for await (const r of co.ip.catalog({ creatorId: creator.id, registeredAfter: new Date(Date.now() - 3_600_000) })) found.push(r.id);
      assert.deepEqual(found, [rec.id]);
      const none = [];
      for await (const r of co.ip.catalog({ creatorId: creator.id, registeredBefore: new Date(Date.now() - 3_600_000) })) none.push(r.id);
      assert.deepEqual(none, []);
      assert.equal((await co.ip.getRecord(rec.id)).title, "Blue");
      const cp = await co.ip.getCheckpoint();
      assert.ok(cp.treeSize >= 1n);
      assert.equal((await co.ip.getConsistencyProof(1, cp.treeSize)).to, cp.treeSize);
      assert.match((await co.ip.getKeys()).tsaRootPem, /BEGIN CERTIFICATE/);

      const before = Date.now();
      const key = await co.keys.create({ name: `k-${transport}`, scopes: ["analytics:read"] });
      let keyListed = false;
      for await (const k of co.keys.list()) keyListed ||= k.id === key.id;
      assert.ok(keyListed);
      const rotated = await co.keys.rotate(key.id, { gracePeriodSeconds: 90 });
      assert.notEqual(rotated.secret, key.secret);
      const elapsed = Date.now() - before;
      // Server times only: the old secret expires 90 s after the rotation,
      // which came after the key's creation by less than `elapsed`.
      const graceMs = timestampDate(rotated.previousSecretExpiresAt) - timestampDate(key.createdAt);
      assert.ok(graceMs >= 89_000 && graceMs <= 91_000 + elapsed, `grace period of 90 s: ${graceMs} ms`);
      await co.keys.revoke(key.id);
      const revoked = await client({ apiKey: rotated.secret }).analytics.usage().catch((e) => e);
      assert.equal(revoked.httpStatus, 401);
      const audited = [];
      for await (const e of co.audit.list({ targetId: key.id, pageSize: 1 })) audited.push(e);
      assert.deepEqual(audited.map((e) => e.action), ["key.revoked", "key.rotated", "key.created"]);
      assert.ok(audited.every((e) => e.origin.transport === transport && e.actor.startsWith("key_")), JSON.stringify(audited.map((e) => e.origin)));
      const created = [];
      for await (const e of co.audit.list({ targetId: key.id, action: "key.created", from: new Date(before - 60_000) })) created.push(e);
      assert.equal(created.length, 1);
      assert.equal(created[0].details.scopes, "analytics:read");

      const wh = await co.webhooks.create({ url: "http://127.0.0.1:9/none", events: ["*"] });
      let whListed = false;
      for await (const w of co.webhooks.list({ pageSize: 1 })) whListed ||= w.id === wh.id;
      assert.ok(whListed);
      assert.equal((await co.webhooks.get(wh.id)).secret, undefined);
      const d = await co.webhooks.test(wh.id);
      const ds = [];
      for await (const x of co.webhooks.deliveries(wh.id)) ds.push(x.id);
      assert.ok(ds.includes(d.id));
      const again = await co.webhooks.redeliver(wh.id, d.id).catch((e) => e);
      assert.ok(again.webhookId === wh.id || again.httpStatus === 409, String(again));
      await co.webhooks.delete(wh.id);
      assert.equal((await co.webhooks.get(wh.id).catch((e) => e)).httpStatus, 404);

      const usage = await co.analytics.usage({ from: new Date(Date.now() - 3_600_000), granularity: "minute" });
      assert.equal(usage.granularity, "minute");
    });

    test("OAuth clients: create, list, get, token with client_secret_basic, rotate, delete", async () => {
      const co = client();
      /** POST /oauth/token with client_secret_basic (RFC 6749 2.3.1: form-urlencoded id and secret). */
      const token = (id, secret) =>
        fetch(`${server.baseUrl}/oauth/token`, {
          method: "POST",
          headers: {
            Authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`,
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body: "grant_type=client_credentials",
        });
      const accessToken = async (id, secret) => {
        const res = await token(id, secret);
        const body = await res.json();
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(body.token_type.toLowerCase(), "bearer");
        return body.access_token;
      };

      const oc = await co.oauthClients.create({ name: `oc-${transport}-${unique()}`, scopes: ["analytics:read"], tokenLifetimeSeconds: 120 });
      assert.match(oc.id, /^oc_/);
      assert.match(oc.secret ?? "", /^co_oauth_/);
      assert.ok(oc.secret.startsWith(oc.prefix), "prefix is the secret's start");
      assert.deepEqual(oc.scopes, ["analytics:read"]);
      assert.equal(oc.tokenLifetime?.seconds, 120n);
      assert.equal(oc.revokedAt, undefined);

      const listed = [];
      for await (const c of co.oauthClients.list({ pageSize: 1 })) listed.push(c);
      const mine = listed.find((c) => c.id === oc.id);
      assert.ok(mine, "listed across pages of one");
      assert.equal(mine.secret, undefined, "a listing never carries the secret");
      const got = await co.oauthClients.get(oc.id);
      assert.equal(got.name, oc.name);
      assert.equal(got.secret, undefined);

      // The secret buys a token that calls the API over this transport, within the client's scopes.
      const first = await accessToken(oc.id, oc.secret);
      const asClient = client({ apiKey: first });
      assert.equal((await asClient.analytics.usage()).granularity, "hour");
      const denied = await asClient.creators.create({ name: "N", email: `n-${unique()}@example.com`, vertical: "music" }).catch((e) => e);
      assert.ok(denied instanceof CreativeOpsError && denied.httpStatus === 403 && denied.reason === "MISSING_SCOPE", String(denied));

      // Rotation with no grace: the old secret stops, the new one works, issued tokens stay valid.
      const rotated = await co.oauthClients.rotate(oc.id, { gracePeriodSeconds: 0 });
      assert.equal(rotated.id, oc.id);
      assert.match(rotated.secret ?? "", /^co_oauth_/);
      assert.notEqual(rotated.secret, oc.secret);
      assert.equal((await token(oc.id, oc.secret)).status, 401, "old secret after a rotation without grace");
      const second = await accessToken(oc.id, rotated.secret);
      assert.equal((await asClient.analytics.usage()).granularity, "hour", "a token issued before the rotation");

      // Deletion: secrets refused at once, tokens within a second.
      await co.oauthClients.delete(oc.id);
      assert.ok((await co.oauthClients.get(oc.id)).revokedAt, "revoked_at set");
      assert.equal((await token(oc.id, rotated.secret)).status, 401, "secret after deletion");
      let refused;
      for (let i = 0; i < 30 && refused === undefined; i++) {
        refused = await client({ apiKey: second }).analytics.usage().then(
          () => undefined,
          (e) => e,
        );
        if (refused === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(refused instanceof CreativeOpsError && refused.httpStatus === 401, `token after deletion: ${refused}`);

      // Bad input is named; an unknown id is a 404.
      const bad = await co.oauthClients.create({ name: "x", scopes: [] }).catch((e) => e);
      assert.ok(bad instanceof CreativeOpsError && bad.httpStatus === 400, String(bad));
      assert.ok(bad.fieldViolations.some((v) => v.field === "scopes"), JSON.stringify(bad.fieldViolations));
      const missing = await co.oauthClients.get("oc_01jzzzzzzzzzzzzzzzzzzzzzzz").catch((e) => e);
      assert.ok(missing instanceof CreativeOpsError && missing.httpStatus === 404, String(missing));
    });

    test("errors carry the AIP-193 fields and the request id", async () => {
      const co = client();
      const nf = await co.creators.get("cr_01kaaaaaaaaaaaaaaaaaaaaaaa").catch((e) => e);
      assert.ok(nf instanceof CreativeOpsError, String(nf));
      assert.equal(nf.httpStatus, 404);
      assert.equal(nf.status, "NOT_FOUND");
      assert.match(nf.requestId, /.+/);

      const bad = await co.creators.create({ name: "X", email: "not-an-email", vertical: "music" }).catch((e) => e);
      assert.ok(bad instanceof CreativeOpsError);
      assert.equal(bad.httpStatus, 400);
      assert.equal(bad.status, "INVALID_ARGUMENT");
      assert.deepEqual(bad.fieldViolations.map((v) => v.field), ["email"]);

      const unauth = await client({ apiKey: "co_live_notarealkey" }).creators.get("cr_x").catch((e) => e);
      assert.ok(unauth instanceof CreativeOpsError);
      assert.equal(unauth.httpStatus, 401);
      assert.equal(unauth.status, "UNAUTHENTICATED");
    });

    test("a 429 is retried after Retry-After, with the same Idempotency-Key", async () => {
      const admin = client();
      const limited = await admin.keys.create({
        name: `limited-${transport}`,
        scopes: ["creators:write", "creators:read"],
        // One token per 4 s: the create right after the first call finds the
        // bucket empty even on a slow, busy machine.
        rateLimit: { requestsPerSecond: 0.25, burst: 1 },
      });
      assert.match(limited.secret ?? "", /^co_live_/);
      const attempts = [];
      const co = client({
        apiKey: limited.secret,
        interceptors: [
          (next) => async (req) => {
            const a = { method: req.method.name, key: req.header.get("idempotency-key"), outcome: "ok" };
            attempts.push(a);
            try {
              return await next(req);
            } catch (e) {
              a.outcome = e.code; // Connect code: 8 is RESOURCE_EXHAUSTED
              throw e;
            }
          },
        ],
      });
      const email = `limited-${unique()}@example.com`;
      await co.creators.get("cr_01kaaaaaaaaaaaaaaaaaaaaaaa").catch(() => {}); // spends the one token
      const created = await co.creators.create({ name: "Limited", email, vertical: "music" });
      assert.equal(created.email, email);
      const creates = attempts.filter((a) => a.method === "CreateCreator");
      // Exactly one retry: it waited the whole Retry-After (a ceiling of the
      // refill time), where backoff alone (0.5 s, 1 s, 2 s) would try again
      // too early and more often.
      assert.equal(creates.length, 2, `attempts: ${JSON.stringify(attempts)}`);
      assert.equal(creates[0].outcome, 8);
      assert.equal(creates.at(-1).outcome, "ok");
      assert.match(creates[0].key, /^[0-9a-f-]{36}$/);
      assert.ok(creates.every((a) => a.key === creates[0].key), "one key for every attempt");

      // Without retries the 429 surfaces, with its Retry-After.
      const noRetry = client({ apiKey: limited.secret, retry: { maxRetries: 0 } });
      await noRetry.creators.get(created.id).catch(() => {});
      const e = await noRetry.creators.get(created.id).catch((x) => x);
      assert.ok(e instanceof CreativeOpsError, String(e));
      assert.equal(e.httpStatus, 429);
      assert.equal(e.reason, "RATE_LIMITED");
      assert.ok(e.retryAfter >= 1, `retryAfter ${e.retryAfter}`);
      assert.equal(e.metadata.key_id, limited.id, "ErrorInfo metadata");
      assert.equal(e.metadata.retry_after_seconds, String(e.retryAfter));
    });
  });
}
