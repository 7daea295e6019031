// Unit tests of offline certificate verification (src/certificates.ts), in
// Node's Web Crypto: RFC 6962 inclusion proofs against an independent
// Merkle tree built here, signed notes signed here with fresh Ed25519 keys,
// and a certificate bundle issued by the Go server (fixtures/), RFC 3161
// token included. live.test.mjs verifies a live server's certificates.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromJson } from "@bufbuild/protobuf";
import * as client from "@creativeops/client";

const here = fileURLToPath(new URL(".", import.meta.url));
const v = { ...client, verifyCertificate: (c, work) => client.checkCertificate(c, work === undefined ? {} : { work }) };

const sha = (...parts) => createHash("sha256").update(Buffer.concat(parts)).digest();
const leaf = (d) => sha(Buffer.from([0]), d);
const node = (l, r) => sha(Buffer.from([1]), l, r);

// RFC 6962 §2.1: MTH and PATH, written from the RFC, recursively.
function mth(leaves) {
  if (leaves.length === 1) return leaf(leaves[0]);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return node(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}
function path(m, leaves) {
  if (leaves.length === 1) return [];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return m < k ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))] : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}

test("inclusion proofs of every entry of trees of 1 to 33 leaves lead to the tree's root", async () => {
  for (let n = 1; n <= 33; n++) {
    const leaves = Array.from({ length: n }, (_, i) => Buffer.from(`record ${i}`));
    const root = mth(leaves);
    for (let m = 0; m < n; m++) {
      const got = await v.rootFromInclusionProof(BigInt(m), BigInt(n), await v.leafHash(leaves[m]), path(m, leaves));
      assert.equal(Buffer.from(got).toString("hex"), root.toString("hex"), `n=${n} m=${m}`);
    }
  }
});

test("a proof with a changed hash, the wrong length or the wrong index does not lead to the root", async () => {
  const leaves = Array.from({ length: 11 }, (_, i) => Buffer.from(`r${i}`));
  const root = mth(leaves).toString("hex");
  const proof = path(6, leaves);
  const lh = await v.leafHash(leaves[6]);
  const bad = proof.map((p, i) => (i === 1 ? Buffer.from(p.map((b, j) => (j === 0 ? b ^ 1 : b))) : p));
  assert.notEqual(Buffer.from(await v.rootFromInclusionProof(6n, 11n, lh, bad)).toString("hex"), root);
  assert.notEqual(Buffer.from(await v.rootFromInclusionProof(7n, 11n, lh, proof)).toString("hex"), root);
  await assert.rejects(v.rootFromInclusionProof(6n, 11n, lh, proof.slice(1)), /too short/);
  await assert.rejects(v.rootFromInclusionProof(6n, 11n, lh, [...proof, proof[0]]), /too long/);
  await assert.rejects(v.rootFromInclusionProof(11n, 11n, lh, proof), /outside tree/);
});

// A signed note as golang.org/x/mod/sumdb/note writes it.
function signedCheckpoint(origin, size, root) {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const pub = Buffer.concat([Buffer.from([1]), publicKey.export({ format: "der", type: "spki" }).subarray(-32)]);
  const hash = sha(Buffer.from(origin + "\n"), pub).subarray(0, 4);
  const text = `${origin}\n${size}\n${root.toString("base64")}\n`;
  const sig = sign(null, Buffer.from(text), privateKey);
  return {
    key: `${origin}+${hash.toString("hex")}+${pub.toString("base64")}`,
    note: `${text}\n\u2014 ${origin} ${Buffer.concat([hash, sig]).toString("base64")}\n`,
  };
}

test("checkpoints signed with 40 fresh keys open, whatever characters their base64 holds", async () => {
  const root = sha(Buffer.from("root"));
  let plus = 0;
  for (let i = 0; i < 40; i++) {
    const { key, note } = signedCheckpoint("example.com/log", 42 + i, root);
    if (key.split("+").length > 3) plus++;
    const cp = await v.openCheckpoint(note, key);
    assert.equal(cp.origin, "example.com/log");
    assert.equal(cp.size, BigInt(42 + i));
    assert.equal(Buffer.from(cp.root).toString("hex"), root.toString("hex"));
  }
  assert.ok(plus > 0, "some keys had a + in their base64");
});

test("a checkpoint with a changed line, another key or no signature is refused", async () => {
  const root = sha(Buffer.from("root"));
  const { key, note } = signedCheckpoint("example.com/log", 7, root);
  await assert.rejects(v.openCheckpoint(note.replace("\n7\n", "\n8\n"), key), /does not verify/);
  const other = signedCheckpoint("example.com/log", 7, root);
  await assert.rejects(v.openCheckpoint(note, other.key), /not signed by example.com\/log/);
  await assert.rejects(v.openCheckpoint(note.slice(0, note.indexOf("\n\n") + 2), key), /not signed by/);
  await assert.rejects(v.openCheckpoint(note, key.replace(/\+[0-9a-f]{8}\+/, "+00000000+")), /hash does not match/);
});

async function fixture() {
  const json = JSON.parse(await readFile(join(here, "fixtures/bundle.json"), "utf8"));
  return { cert: fromJson(client.CertificateSchema, json), json, work: await readFile(join(here, "fixtures/work.txt")) };
}

test("a bundle issued by the server verifies, with its work", async () => {
  const { cert, work } = await fixture();
  const checks = await v.verifyCertificate(cert, new Uint8Array(work));
  assert.deepEqual(
    checks.filter((c) => !c.ok).map((c) => c.name),
    [],
  );
  const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
  assert.match(byName.log_inclusion.detail, /^record is entry \d+ of \d+$/);
  assert.match(byName.timestamp_token.detail, /^signed by "creativeops IP registry TSA .*" under policy 1\.3\.6\.1\.4\.1\.32473\.1\.1, serial \d+$/);
  assert.ok(!byName.work_hash.skipped);
  assert.deepEqual(
    checks.map((c) => c.name),
    ["bundle_format", "work_hash", "record", "content_hash", "timestamp_token", "timestamp_imprint", "timestamp_time", "checkpoint_signature", "log_inclusion"],
  );
  const without = await v.verifyCertificate(cert);
  assert.equal(without.find((c) => c.name === "work_hash").skipped, true);
});

test("a changed field, record, proof or checkpoint fails the check it concerns", async () => {
  const { json, work } = await fixture();
  const tampered = async (mutate) => {
    const j = structuredClone(json);
    mutate(j);
    const checks = await v.verifyCertificate(fromJson(client.CertificateSchema, j), new Uint8Array(work));
    return checks.filter((c) => !c.ok).map((c) => c.name);
  };
  assert.deepEqual(await tampered((j) => (j.title = "Another Title")), ["record"]);
  assert.deepEqual(await tampered((j) => (j.timestamp = "2020-01-01T00:00:00Z")), ["record"]);
  const rec = (j, f) => (j.record = Buffer.from(f(Buffer.from(j.record, "base64").toString())).toString("base64"));
  assert.deepEqual(
    await tampered((j) => rec(j, (r) => r.replace(/"title":"[^"]*"/, '"title":"Another Title"'))),
    ["record", "timestamp_imprint", "log_inclusion"],
  );
  assert.deepEqual(await tampered((j) => (j.inclusion_proof = j.inclusion_proof.slice(1))), ["log_inclusion"]);
  assert.deepEqual(await tampered((j) => (j.tree_size = String(Number(j.tree_size) + 1))), ["log_inclusion"]);
  assert.deepEqual(await tampered((j) => (j.checkpoint = j.checkpoint.replace(/\n(\d+)\n/, (_, n) => `\n${Number(n) + 1}\n`))), ["checkpoint_signature", "log_inclusion"]);
  const other = await v.verifyCertificate(fromJson(client.CertificateSchema, json), new TextEncoder().encode("other"));
  assert.deepEqual(other.filter((c) => !c.ok).map((c) => c.name), ["work_hash"]);
});

test("the fixture's timestamp token verifies, and says what it stamped", async () => {
  const { cert } = await fixture();
  const t = await client.verifyTimestampToken(cert.token, cert.tsaRootPem);
  assert.equal(t.policy, "1.3.6.1.4.1.32473.1.1");
  assert.equal(Buffer.from(t.digest).toString("hex"), createHash("sha256").update(cert.record).digest("hex"));
  assert.match(t.signer, /^creativeops IP registry TSA /);
  await assert.rejects(client.verifyTimestampToken(cert.token.subarray(0, 100), cert.tsaRootPem), /DER: truncated|malformed/);
  await assert.rejects(client.verifyTimestampToken(cert.token, "no pem"), /no CERTIFICATE/);
});
