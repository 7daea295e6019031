// checkExternalTimestamps against a certificate issued by the Go server
// with tokens from real RFC 3161 authorities (`openssl ts -reply`, each
// with a CA of its own): fixtures/external/, written by the Go test
// TestExternalTimestampAuthorities (cmd/creativeops) with
// CREATIVEOPS_WRITE_FIXTURES=1.
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
