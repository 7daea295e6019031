// checkExternalTimestamps against a certificate issued by the Go server
// with tokens from real RFC 3161 authorities (`openssl ts -reply`, each
// with a CA of its own): fixtures/external/, written by the Go test (make client-fixtures:
// TestExternalTimestampAuthorities (cmd/creativeops) with
// CREATIVEOPS_WRITE_FIXTURES=1).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromJson } from "@bufbuild/protobuf";
import * as client from "@creativeops/client";

const here = fileURLToPath(new URL(".", import.meta.url));
const dir = join(here, "fixtures/external");

async function load() {
  const json = JSON.parse(await readFile(join(dir, "bundle.json"), "utf8"));
  const cas = await Promise.all([1, 2, 3].map((i) => readFile(join(dir, `tsa${i}-ca.pem`), "utf8")));
  return { json, cert: fromJson(client.CertificateSchema, json), cas };
}

test("external tokens verify with their authorities' CAs; a pending one is skipped", async () => {
  const { cert, cas } = await load();
  const checks = await client.checkExternalTimestamps(cert, cas.slice(0, 2));
  assert.deepEqual(
    checks.map((c) => c.name),
    ["external_timestamp[1]", "external_timestamp[2]", "external_timestamp[3]"],
  );
  assert.ok(checks[0].ok && !checks[0].skipped, checks[0].detail);
  assert.ok(checks[1].ok && !checks[1].skipped, checks[1].detail);
  assert.match(checks[0].detail, /within 300 s of the record's time/);
  assert.ok(checks[2].ok && checks[2].skipped);
  assert.match(checks[2].detail, /pending/);
  // The registry's own checks still pass on the same bundle.
  assert.deepEqual((await client.checkCertificate(cert)).filter((c) => !c.ok).map((c) => c.name), []);
});

test("a token needs its own authority's CA; without CAs nothing is reported verified", async () => {
  const { cert, cas } = await load();
  const onlyFirst = await client.checkExternalTimestamps(cert, [cas[0]]);
  assert.ok(onlyFirst[0].ok);
  assert.ok(!onlyFirst[1].ok);
  const neverSeen = await client.checkExternalTimestamps(cert, [cas[2]]);
  assert.deepEqual(neverSeen.filter((c) => !c.ok).map((c) => c.name), ["external_timestamp[1]", "external_timestamp[2]"]);
  const none = await client.checkExternalTimestamps(cert, []);
  assert.ok(none.every((c) => c.ok && c.skipped));
  assert.match(none[0].detail, /^UNCHECKED/);
});

test("a changed record, token or displayed time fails", async () => {
  const { json, cas } = await load();
  const run = async (mutate) => {
    const j = structuredClone(json);
    mutate(j);
    return client.checkExternalTimestamps(fromJson(client.CertificateSchema, j), cas.slice(0, 2));
  };
  const rec = await run((j) => (j.record = Buffer.from(Buffer.from(j.record, "base64").toString().replace('"title":"', '"title":"X')).toString("base64")));
  assert.ok(!rec[0].ok);
  assert.match(rec[0].detail, /record hashes to/);
  const tok = await run((j) => {
    const t = Buffer.from(j.external_timestamps[0].token, "base64");
    t[t.length - 5] ^= 1;
    j.external_timestamps[0].token = t.toString("base64");
  });
  assert.ok(!tok[0].ok);
  const shown = await run((j) => (j.external_timestamps[0].gen_time = "2001-01-01T00:00:00Z"));
  assert.match(shown[0].detail, /bundle shows/);
});

// An authority as real ones are: RSA (PKCS#1 v1.5, SHA-256) through an
// intermediate CA that the token embeds; only its root is given.
async function loadRSA() {
  const json = JSON.parse(await readFile(join(dir, "bundle-rsa.json"), "utf8"));
  const root = await readFile(join(dir, "tsa4-ca.pem"), "utf8");
  const unrelated = await readFile(join(dir, "tsa3-ca.pem"), "utf8");
  return { json, root, unrelated };
}

function readTLV(buf, pos = 0) {
  let len = buf[pos + 1];
  let hdr = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let k = 0; k < n; k++) len = len * 256 + buf[pos + 2 + k];
    hdr += n;
  }
  return { tag: buf[pos], raw: buf.subarray(pos, pos + hdr + len), value: buf.subarray(pos + hdr, pos + hdr + len) };
}

function items(value) {
  const out = [];
  for (let pos = 0; pos < value.length; ) {
    const t = readTLV(value, pos);
    out.push(t);
    pos += t.raw.length;
  }
  return out;
}

function tlv(tag, ...parts) {
  const content = Buffer.concat(parts);
  const n = content.length;
  if (n < 0x80) return Buffer.concat([Buffer.from([tag, n]), content]);
  const len = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) len.unshift(v & 0xff);
  return Buffer.concat([Buffer.from([tag, 0x80 | len.length, ...len]), content]);
}

/** The token's embedded certificates, and a function rebuilding the token with other ones. */
function tokenCerts(token) {
  const resp = items(readTLV(token).value);
  const ci = items(resp[1].value);
  const sd = items(readTLV(ci[1].value).value);
  assert.equal(sd[3].tag, 0xa0);
  const certs = items(sd[3].value).map((c) => Buffer.from(c.raw));
  const rebuild = (kept) => {
    const sdRaw = tlv(0x30, ...sd.slice(0, 3).map((t) => t.raw), tlv(0xa0, ...kept), ...sd.slice(4).map((t) => t.raw));
    return tlv(0x30, resp[0].raw, tlv(0x30, ci[0].raw, tlv(0xa0, sdRaw)), ...resp.slice(2).map((t) => t.raw));
  };
  return { certs, rebuild };
}

async function checkRSA(json, cas, token) {
  const j = structuredClone(json);
  if (token) j.external_timestamps[0].token = Buffer.from(token).toString("base64");
  return client.checkExternalTimestamps(fromJson(client.CertificateSchema, j), cas);
}

test("an RSA token through an intermediate CA verifies with the authority's root", async () => {
  const { json, root } = await loadRSA();
  const [check] = await checkRSA(json, [root]);
  assert.ok(check.ok && !check.skipped, check.detail);
  assert.match(check.detail, /signed by "Delta TSA"/);
  assert.match(check.detail, /within 300 s of the record's time/);
});

test("an RSA token fails with an unrelated CA", async () => {
  const { json, unrelated } = await loadRSA();
  const [check] = await checkRSA(json, [unrelated]);
  assert.ok(!check.ok);
  assert.match(check.detail, /not issued by the TSA root/);
});

test("an RSA token fails without its intermediate CA", async () => {
  const { json, root } = await loadRSA();
  const { certs, rebuild } = tokenCerts(Buffer.from(json.external_timestamps[0].token, "base64"));
  const { X509Certificate } = await import("node:crypto");
  const kept = certs.filter((c) => !new X509Certificate(c).ca);
  assert.equal(kept.length, certs.length - 1, "the token embeds one intermediate");
  // The rebuilt token with every certificate still verifies: the surgery itself is sound.
  assert.ok((await checkRSA(json, [root], rebuild(certs)))[0].ok);
  const [check] = await checkRSA(json, [root], rebuild(kept));
  assert.ok(!check.ok);
  assert.match(check.detail, /not issued by the TSA root/);
});

test("an RSA token with a flipped signature byte fails, in the token or in a certificate", async () => {
  const { json, root } = await loadRSA();
  const token = Buffer.from(json.external_timestamps[0].token, "base64");
  const flipped = Buffer.from(token);
  flipped[flipped.length - 5] ^= 1; // inside the SignerInfo's RSA signature, the token's last field
  const [sig] = await checkRSA(json, [root], flipped);
  assert.ok(!sig.ok);
  assert.match(sig.detail, /signature does not verify/);
  // The intermediate's own signature, by the root.
  const { certs, rebuild } = tokenCerts(token);
  const { X509Certificate } = await import("node:crypto");
  const bad = certs.map((c) => {
    if (!new X509Certificate(c).ca) return c;
    const b = Buffer.from(c);
    b[b.length - 3] ^= 1;
    return b;
  });
  const [chain] = await checkRSA(json, [root], rebuild(bad));
  assert.ok(!chain.ok);
  assert.match(chain.detail, /intermediate CA certificate signature does not verify with the TSA root/);
});

test("an RSA token through an intermediate that is not a CA fails", async () => {
  const { json } = await loadRSA();
  const root = await readFile(join(dir, "tsa5-ca.pem"), "utf8");
  const [check] = await checkRSA(json, [root], await readFile(join(dir, "rsa-notca.tsr")));
  assert.ok(!check.ok);
  assert.match(check.detail, /intermediate certificate in the token is not a CA/);
});

test("an RSA TSA certificate must verify with its intermediate's key", async () => {
  // The intermediate with another public key (a byte of its modulus
  // flipped): the TSA certificate's signature no longer verifies with it.
  const { json, root } = await loadRSA();
  const { certs, rebuild } = tokenCerts(Buffer.from(json.external_timestamps[0].token, "base64"));
  const { X509Certificate } = await import("node:crypto");
  const bad = certs.map((c) => {
    const x = new X509Certificate(c);
    if (!x.ca) return c;
    const modulus = Buffer.from(x.publicKey.export({ format: "jwk" }).n, "base64url");
    const b = Buffer.from(c);
    b[b.indexOf(modulus) + modulus.length / 2] ^= 1;
    return b;
  });
  const [check] = await checkRSA(json, [root], rebuild(bad));
  assert.ok(!check.ok);
  assert.match(check.detail, /does not verify with its intermediate CA/);
});
