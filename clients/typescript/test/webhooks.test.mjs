import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { verifyWebhook, WebhookVerificationError } from "@creativeops/client";

// Signs like webhooks/signing.go, with node:crypto rather than Web Crypto,
// so the two implementations check each other.
function sign(keyBytes, id, ts, body) {
  return "v1," + createHmac("sha256", keyBytes).update(`${id}.${ts}.${body}`).digest("base64");
}

const keyBytes = randomBytes(24);
const whsec = "whsec_" + keyBytes.toString("base64");
const body = JSON.stringify({ id: "evt_01", type: "webhook.test", timestamp: "2026-01-01T00:00:00Z", data: { id: "wh_1" } });
const now = new Date("2026-11-23T12:00:00Z");
const ts = String(Math.floor(now.getTime() / 1000));
const headers = (sig, t = ts) => ({ "webhook-id": "evt_01", "webhook-timestamp": t, "webhook-signature": sig });

test("a whsec_ secret verifies and returns the event", async () => {
  const ev = await verifyWebhook(body, headers(sign(keyBytes, "evt_01", ts, body)), whsec, { now });
  assert.equal(ev.type, "webhook.test");
  assert.equal(ev.data.id, "wh_1");
});

test("a raw secret is used as its UTF-8 bytes", async () => {
  const raw = "a-secret-of-my-own-1234";
  const sig = sign(Buffer.from(raw, "utf8"), "evt_01", ts, body);
  await verifyWebhook(body, headers(sig), raw, { now });
  // The same string taken as whsec_ base64 would be a different key.
  await assert.rejects(verifyWebhook(body, headers(sig), "whsec_" + Buffer.from(raw).toString("base64") + "x", { now }), WebhookVerificationError);
});

test("bytes and a Headers object work too", async () => {
  const h = new Headers(headers(sign(keyBytes, "evt_01", ts, body)));
  await verifyWebhook(new TextEncoder().encode(body), h, whsec, { now });
});

test("any matching v1 entry of several is accepted", async () => {
  const other = sign(randomBytes(24), "evt_01", ts, body);
  const good = sign(keyBytes, "evt_01", ts, body);
  await verifyWebhook(body, headers(`v1a,xyz ${other} ${good}`), whsec, { now });
});

test("several secrets: any one matching any signature verifies", async () => {
  const oldKey = randomBytes(24);
  const oldWhsec = "whsec_" + oldKey.toString("base64");
  const onlyNew = headers(sign(keyBytes, "evt_01", ts, body));
  // A receiver switching to a rotated secret holds both.
  await verifyWebhook(body, onlyNew, [oldWhsec, whsec], { now });
  await assert.rejects(verifyWebhook(body, onlyNew, [oldWhsec], { now }), /no v1 signature matches/);
  await assert.rejects(verifyWebhook(body, onlyNew, [], { now }), WebhookVerificationError);
  // During the grace period a delivery carries both signatures: either secret verifies.
  const both = headers(`${sign(keyBytes, "evt_01", ts, body)} ${sign(oldKey, "evt_01", ts, body)}`);
  await verifyWebhook(body, both, oldWhsec, { now });
  await verifyWebhook(body, both, whsec, { now });
});

test("a changed body, id or timestamp is rejected", async () => {
  const sig = sign(keyBytes, "evt_01", ts, body);
  await assert.rejects(verifyWebhook(body.replace("wh_1", "wh_2"), headers(sig), whsec, { now }), /no v1 signature matches/);
  await assert.rejects(
    verifyWebhook(body, { ...headers(sig), "webhook-id": "evt_02" }, whsec, { now }),
    /no v1 signature matches/,
  );
  const later = String(Number(ts) + 1);
  await assert.rejects(verifyWebhook(body, headers(sig, later), whsec, { now }), /no v1 signature matches/);
});

test("the wrong secret is rejected", async () => {
  const sig = sign(keyBytes, "evt_01", ts, body);
  await assert.rejects(verifyWebhook(body, headers(sig), "whsec_" + randomBytes(24).toString("base64"), { now }), WebhookVerificationError);
});

test("timestamps outside the tolerance are rejected, both ways", async () => {
  for (const delta of [-301, 301]) {
    const t = String(Number(ts) + delta);
    const sig = sign(keyBytes, "evt_01", t, body);
    await assert.rejects(verifyWebhook(body, headers(sig, t), whsec, { now }), /webhook-timestamp: more than 300 s/);
  }
  const t = String(Number(ts) - 299);
  await verifyWebhook(body, headers(sign(keyBytes, "evt_01", t, body), t), whsec, { now });
});

test("missing or malformed headers name the header", async () => {
  await assert.rejects(verifyWebhook(body, {}, whsec, { now }), /missing webhook-id/);
  await assert.rejects(verifyWebhook(body, headers("v1,abc", "12a"), whsec, { now }), /webhook-timestamp: not a Unix time/);
  await assert.rejects(verifyWebhook(body, headers("v1,abc"), "", { now }), /secret: empty/);
});
