// The client against a real server, over each transport: Connect and
// gRPC-Web (what a browser speaks) and native gRPC (Node).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { clone as cloneMessage } from "@bufbuild/protobuf";
import { connect as netConnect, createServer as createNetServer } from "node:net";
import {
  APIConnectionError,
  CertificateSchema,
  CertificateVerificationError,
  CreativeOps,
  CreativeOpsError,
  responseInfo,
  timestampDate,
  verifyCertificate,
  verifyWebhook,
} from "@creativeops/client";
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

/**
 * A TCP proxy to the server that, once drop() is called, resets the
 * connection that carries the next bytes a client sends (a request that
 * may have reached a server), whichever pooled connection it travels on.
 * With newConnectionsOnly (HTTP/2: one connection per client, which may
 * send frames of its own at any time) only connections opened after drop()
 * are reset.
 */
async function startDroppingProxy(target, { newConnectionsOnly = false } = {}) {
  const { hostname, port } = new URL(target);
  const state = { drops: 0, dropped: 0, armed: 0 };
  let accepted = 0;
  const sockets = new Set();
  const track = (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => {});
  };
  const proxy = createNetServer((sock) => {
    const n = ++accepted;
    track(sock);
    const up = netConnect(Number(port), hostname);
    track(up);
    up.on("close", () => sock.destroy());
    sock.on("close", () => up.destroy());
    up.pipe(sock);
    sock.on("data", (chunk) => {
      if (state.drops > 0 && (!newConnectionsOnly || n > state.armed)) {
        state.drops--;
        state.dropped++;
        sock.resetAndDestroy();
        up.destroy();
        return;
      }
      up.write(chunk);
    });
  });
  await new Promise((ok) => proxy.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${proxy.address().port}`,
    state,
    drop() {
      state.drops = 1;
      state.armed = accepted;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((ok) => proxy.close(ok));
    },
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

    test("update, find by email, export and erase a creator", async () => {
      const co = client();
      const email = `Ada-${unique()}-${transport}@Example.com`;
      const c = await co.creators.create({ name: "Ada Quinn", email, vertical: "music", metadata: { label: "Night Owl", tier: "gold" } });
      assert.equal(c.revision, 1);
      assert.equal((await co.creators.findByEmail(email.toLowerCase()))?.id, c.id);
      assert.equal(await co.creators.findByEmail(`nobody-${email}`), undefined);
      const since = [];
      // timestampDate rounds to the millisecond: a millisecond earlier is at or before created_at.
      const after = new Date(timestampDate(c.createdAt).getTime() - 1);
      for await (const x of co.creators.list({ email, createdAfter: after })) since.push(x.id);
      assert.deepEqual(since, [c.id]);

      const u = await co.creators.update(c.id, { name: "Ada Lovelace", metadata: { tier: null, city: "Lyon" }, revision: 1 });
      assert.equal(u.name, "Ada Lovelace");
      assert.equal(u.email, email);
      assert.equal(u.revision, 2);
      assert.deepEqual(u.metadata, { label: "Night Owl", city: "Lyon" });
      await assert.rejects(co.creators.update(c.id, { name: "Stale", revision: 1 }), (e) => e instanceof CreativeOpsError && e.reason === "REVISION_MISMATCH");
      const cleared = await co.creators.update(c.id, { clearMetadata: true });
      assert.equal(cleared.metadata, undefined);
      assert.equal(cleared.name, "Ada Lovelace");

      const doc = await co.creators.export(c.id);
      assert.equal(doc.creator?.id, c.id);
      const types = new Set(doc.events.map((e) => e.type));
      assert.ok(types.has("creator.created") && types.has("creator.updated"), [...types].join(","));

      await co.creators.erase(c.id);
      await assert.rejects(co.creators.get(c.id), (e) => e instanceof CreativeOpsError && e.httpStatus === 404);
      await assert.rejects(co.creators.export(c.id), (e) => e instanceof CreativeOpsError && e.httpStatus === 404);
      assert.equal(await co.creators.findByEmail(email), undefined);
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

    test("webhooks: update, disable, enable and rotate the secret; both secrets verify", async () => {
      const co = client();
      const receiver = await startReceiver();
      try {
        const wh = await co.webhooks.create({ url: "http://127.0.0.1:9/none", events: ["ip.registered"] });
        const oldSecret = wh.secret ?? "";
        const updated = await co.webhooks.update(wh.id, { url: receiver.url, events: ["webhook.test", "creator.created"], description: "CRM" });
        assert.equal(updated.url, receiver.url);
        assert.equal(updated.description, "CRM");
        assert.deepEqual(updated.events, ["webhook.test", "creator.created"]);
        const masked = await co.webhooks.update(wh.id, { description: "", url: "http://127.0.0.1:9/ignored", updateMask: { paths: ["description"] } });
        assert.equal(masked.description, "");
        assert.equal(masked.url, receiver.url, "a field outside the mask is kept");
        const bad = await co.webhooks.update(wh.id, { url: "ftp://example.com" }).catch((e) => e);
        assert.equal(bad.httpStatus, 400);
        assert.ok(bad.fieldViolations.some((v) => v.field === "url"), JSON.stringify(bad.fieldViolations));

        const disabled = await co.webhooks.disable(wh.id);
        assert.equal(disabled.status, "disabled");
        assert.ok(disabled.disabledAt);
        assert.equal((await co.webhooks.test(wh.id).catch((e) => e)).reason, "WEBHOOK_DISABLED");
        assert.equal((await co.webhooks.enable(wh.id)).status, "active");

        const rotated = await co.webhooks.rotateSecret(wh.id);
        const newSecret = rotated.secret ?? "";
        assert.match(newSecret, /^whsec_/);
        assert.notEqual(newSecret, oldSecret);
        await co.webhooks.test(wh.id);
        const d = await receiver.next();
        assert.equal((await verifyWebhook(d.body, d.headers, newSecret)).data.id, wh.id);
        assert.equal((await verifyWebhook(d.body, d.headers, [newSecret, oldSecret])).data.id, wh.id);
        if (rotated.previousSecretExpiresAt) {
          // The server's grace period: both signatures, either secret verifies.
          assert.equal(String(d.headers["webhook-signature"]).split(" ").length, 2);
          await verifyWebhook(d.body, d.headers, oldSecret);
        }
        await co.webhooks.delete(wh.id);
      } finally {
        await receiver.close();
      }
    });

    test("events: list with filters, after an event, and get", async () => {
      const co = client();
      const made = [];
      for (let i = 0; i < 3; i++) {
        made.push((await co.creators.create({ name: "Evt", email: `evt-${randomUUID()}@example.com`, vertical: "music" })).id);
      }
      const firstPage = [];
      for await (const e of co.events.list({ types: ["creator.created"], objectId: made[0] })) firstPage.push(e);
      assert.equal(firstPage.length, 1);
      const first = firstPage[0];
      assert.equal(first.type, "creator.created");
      assert.equal(first.objectId, made[0]);
      assert.equal(first.data?.fields?.id?.kind?.value ?? first.data?.id, made[0]);
      assert.equal((await co.events.get(first.id)).id, first.id);
      const after = [];
      for await (const e of co.events.list({ types: ["creator.created"], after: first.id, pageSize: 1 })) after.push(e.objectId);
      assert.deepEqual(after.slice(0, 2), made.slice(1));
      const recent = [];
      for await (const e of co.events.list({ types: ["creator.created"], createdAfter: new Date(Date.now() - 300_000) })) recent.push(e.objectId);
      assert.ok(made.every((id) => recent.includes(id)));
      assert.equal((await co.events.get("evt_01k3zw0e2f4g6h8j0k2m4n6p8q").catch((e) => e)).httpStatus, 404);
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

    test("a read is retried after a dropped connection; a POST without a key is not", async () => {
      const proxy = await startDroppingProxy(server.baseUrl, { newConnectionsOnly: transport === "grpc" });
      try {
        const attempts = [];
        const counting = (next) => async (req) => {
          attempts.push(req.method.name);
          return next(req);
        };
        // A client per step: over gRPC each has its own HTTP/2 connection.
        const via = (opts = {}) => client({ baseUrl: proxy.url, retry: { initialDelayMs: 10 }, interceptors: [counting], ...opts });
        proxy.drop();
        const verticals = await via().engine.listVerticals();
        assert.ok(verticals.length >= 24);
        assert.equal(proxy.state.dropped, 1);
        assert.deepEqual(attempts, ["ListVerticals", "ListVerticals"], "retried once, then answered");

        // Without generated keys a POST is keyless: after a drop it may
        // have run, so it is not sent again.
        attempts.length = 0;
        proxy.drop();
        const email = `drop-${unique()}-${transport}@example.com`;
        const e = await via({ autoIdempotencyKeys: false }).creators.create({ name: "Dropped", email, vertical: "music" }).catch((x) => x);
        assert.ok(e instanceof APIConnectionError, String(e));
        assert.equal(e.httpStatus, 0);
        assert.equal(e.status, "UNAVAILABLE");
        assert.equal(e.requestId, "");
        assert.deepEqual(attempts, ["CreateCreator"], "a keyless POST is sent once");
        assert.equal(proxy.state.dropped, 2);

        // With a key it is safe to repeat: retried, and made once.
        attempts.length = 0;
        proxy.drop();
        const created = await via({ autoIdempotencyKeys: false }).creators.create({ name: "Kept", email, vertical: "music" }, { idempotencyKey: randomUUID() });
        assert.equal(created.email, email);
        assert.deepEqual(attempts, ["CreateCreator", "CreateCreator"]);
        assert.equal(proxy.state.dropped, 3);

        // A generated key (the default) makes every POST repeatable.
        attempts.length = 0;
        proxy.drop();
        await via().creators.create({ name: "Auto", email: `auto-${unique()}-${transport}@example.com`, vertical: "music" });
        assert.deepEqual(attempts, ["CreateCreator", "CreateCreator"]);
        assert.equal(proxy.state.dropped, 4);
      } finally {
        await proxy.close();
      }
    });

    test("idempotencyKey: the same key twice makes one resource", async () => {
      const co = client();
      const key = `create-${randomUUID()}`;
      const req = { name: "Once", email: `once-${unique()}-${transport}@example.com`, vertical: "music" };
      const a = await co.creators.create(req, { idempotencyKey: key });
      const b = await co.creators.create(req, { idempotencyKey: key });
      assert.equal(b.id, a.id, "the second call is answered with the first one's creator");
      // Under another key the same request runs again: the email is taken.
      const c = await co.creators.create(req, { idempotencyKey: `create-${randomUUID()}` }).catch((x) => x);
      assert.ok(c instanceof CreativeOpsError && c.httpStatus === 409 && c.reason === "DUPLICATE_EMAIL", String(c));
      await assert.rejects(co.creators.create(req, { idempotencyKey: "" }), (x) => x instanceof TypeError && /idempotencyKey/.test(x.message));
    });

    test("headers reach the server; responseInfo has the request id and rate limit of a result", async () => {
      const co = client();
      const mine = `req_mine_${unique()}`;
      const creator = await co.creators.create(
        { name: "Info", email: `info-${unique()}-${transport}@example.com`, vertical: "music" },
        { headers: { "X-Request-Id": mine } },
      );
      const info = responseInfo(creator);
      assert.equal(info?.requestId, mine, "the server took the request id sent and answered with it");
      assert.ok(info.rateLimit, "RateLimit header read");
      assert.ok(info.rateLimit.limit >= 1 && info.rateLimit.remaining < info.rateLimit.limit, JSON.stringify(info.rateLimit));
      assert.ok(Number.isInteger(info.rateLimit.resetSeconds) && info.rateLimit.resetSeconds >= 0);

      const got = await co.creators.get(creator.id);
      assert.match(responseInfo(got)?.requestId ?? "", /^req_/);
      assert.notEqual(responseInfo(got).requestId, mine);
      const verticals = await co.engine.listVerticals();
      assert.match(responseInfo(verticals)?.requestId ?? "", /^req_/, "an unwrapped array answers too");
      for await (const c of co.creators.list({ vertical: "music", pageSize: 1 })) {
        assert.match(responseInfo(c)?.requestId ?? "", /^req_/, "a listed item answers with its page's");
        break;
      }
      assert.equal(responseInfo({}), undefined);
    });

    test("a timeout of a call is per attempt, and names the field when bad", async () => {
      const co = client();
      await assert.rejects(co.creators.get("cr_x", { timeoutMs: -1 }), (x) => x instanceof TypeError && /timeoutMs/.test(x.message));
      assert.throws(() => client({ timeoutMs: 0 }), /timeoutMs/);
      // A generous timeout does not get in the way.
      assert.ok((await co.engine.listVerticals({ timeoutMs: 30_000 })).length >= 24);
    });

    test("verifyCertificate: a live certificate verifies against the service's keys; tampered ones do not", async () => {
      const co = client();
      const creator = await co.creators.create({ name: "Verif", email: `verif-${unique()}-${transport}@example.com`, vertical: "publishing" });
      const work = new TextEncoder().encode(`manuscript ${randomUUID()}`);
      const hash = createHash("sha256").update(work).digest("hex");
      const rec = await co.ip.register({ creatorId: creator.id, title: "Proof", type: "book", contentHash: hash });
      const cert = await co.ip.getCertificate(rec.certificateId);
      const keys = await co.ip.getKeys();
      const claims = await verifyCertificate(cert, keys, { work });
      assert.equal(claims.certificateId, rec.certificateId);
      assert.equal(claims.id, rec.id);
      assert.equal(claims.title, "Proof");
      assert.equal(claims.contentHash, `sha256:${hash}`);
      assert.equal(claims.timestamp.getTime(), Math.floor(timestampDate(rec.timestamp).getTime() / 1000) * 1000);
      assert.equal(claims.logIndex, rec.logIndex);
      assert.match(claims.tokenSerial, /^\d+$/);
      assert.deepEqual(
        claims.checks.map((c) => c.name),
        ["bundle_format", "work_hash", "record", "content_hash", "timestamp_token", "timestamp_imprint", "timestamp_time", "checkpoint_signature", "log_inclusion", "trust_anchors"],
      );
      assert.equal((await co.ip.verifyCertificate(rec.certificateId)).certificateId, rec.certificateId, "the convenience fetches and verifies");
      assert.equal((await co.ip.verifyCertificate(rec.certificateId, { keys, work })).title, "Proof");

      const failed = async (c, k = keys, w = work) => {
        const e = await verifyCertificate(c, k, { work: w }).catch((x) => x);
        assert.ok(e instanceof CertificateVerificationError, String(e));
        assert.ok(!(e instanceof CreativeOpsError), "not an API error");
        return e;
      };
      const clone = () => cloneMessage(CertificateSchema, cert);
      const withToken = (mutate) => {
        const c = clone();
        c.token = new Uint8Array(cert.token);
        mutate(c.token);
        return c;
      };
      const indexOf = (bytes, needle) => Buffer.from(bytes).indexOf(Buffer.from(needle));
      // The token's signature: its last byte is inside the ECDSA signature.
      // A failed token leaves its imprint and time unchecked: failed too.
      const tokenFailed = ["timestamp_token", "timestamp_imprint", "timestamp_time"];
      let e = await failed(withToken((t) => (t[t.length - 1] ^= 1)));
      assert.deepEqual(e.failed, tokenFailed);
      assert.match(e.checks.find((c) => c.name === "timestamp_token").detail, /signature does not verify/);
      // The TSTInfo's time, covered by the signed message digest.
      e = await failed(withToken((t) => {
        const i = indexOf(t, [0x18, 0x0f]) + 2; // GeneralizedTime YYYYMMDDhhmmssZ
        t[i + 3] = t[i + 3] === 0x30 ? 0x31 : 0x30;
      }));
      assert.match(e.checks.find((c) => c.name === "timestamp_token").detail, /message digest/);
      // The ESS attribute's hash of the TSA certificate.
      const tsaDer = Buffer.from(keys.tsaCertificatePem.replace(/-----[^-]+-----|\s/g, ""), "base64");
      const essHash = createHash("sha256").update(tsaDer).digest();
      e = await failed(withToken((t) => (t[indexOf(t, essHash)] ^= 1)));
      assert.match(e.checks.find((c) => c.name === "timestamp_token").detail, /ESS/);
      // Another root: the TSA certificate is not issued by it.
      e = await failed(Object.assign(clone(), { tsaRootPem: keys.tsaCertificatePem }), { ...keys, tsaRootPem: keys.tsaCertificatePem });
      assert.match(e.checks.find((c) => c.name === "timestamp_token").detail, /not issued by the TSA root/);
      // Another policy than the token's.
      e = await failed(Object.assign(clone(), { tsaPolicyOid: "1.2.3.4" }));
      assert.deepEqual(e.failed, tokenFailed);
      assert.match(e.checks.find((c) => c.name === "timestamp_token").detail, /policy/);
      // Another record: the imprint, the time and the log disagree with it.
      const other = clone();
      const recJSON = JSON.parse(new TextDecoder().decode(cert.record));
      recJSON.timestamp = "2020-01-01T00:00:00Z";
      other.record = new TextEncoder().encode(JSON.stringify(recJSON));
      other.timestamp = { seconds: 1577836800n, nanos: 0 };
      e = await failed(other);
      assert.deepEqual(e.failed, ["timestamp_imprint", "timestamp_time", "log_inclusion"]);
      // The displayed title, the work, the checkpoint.
      assert.deepEqual((await failed(Object.assign(clone(), { title: "Other" }))).failed, ["record"]);
      assert.deepEqual((await failed(cert, keys, new TextEncoder().encode("other"))).failed, ["work_hash"]);
      const cp = clone();
      cp.checkpoint = cert.checkpoint.replace(/\n(\d+)\n/, (_, n) => `\n${Number(n) + 1}\n`);
      assert.deepEqual((await failed(cp)).failed, ["checkpoint_signature", "log_inclusion"]);
      // Keys other than the bundle's: pinning fails.
      const logKeys = keys.logKeys.map((k) => ({ ...k, verifierKey: k.verifierKey.replace(/\+[0-9a-f]{8}\+/, "+00000000+") }));
      assert.deepEqual((await failed(cert, { ...keys, logKeys })).failed, ["trust_anchors"]);
      assert.deepEqual((await failed(cert, { ...keys, tsaRootPem: keys.tsaCertificatePem })).failed, ["trust_anchors"]);
      await assert.rejects(verifyCertificate(cert, undefined), (x) => x instanceof TypeError && /keys/.test(x.message));
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
