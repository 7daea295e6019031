// The certificate page checks witness cosignatures with Web Crypto
// (src/cosignatures.ts): a checkpoint cosigned by torchwood's cosignature
// signer (fixtures/cosigned-checkpoint.json, written by a Go test) verifies
// under the witness's key, is missing under another witness's, and an
// altered checkpoint fails.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
let lib;

before(async () => {
  const out = join(await mkdtemp(join(tmpdir(), "dashboard-cosig-")), "entry.mjs");
  await build({
    entryPoints: [join(here, "../src/cosignatures.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    outfile: out,
    logLevel: "warning",
  });
  lib = await import(pathToFileURL(out).href);
});

test("a witness cosignature verifies in the browser's Ed25519", async () => {
  const f = JSON.parse(await readFile(join(here, "fixtures/cosigned-checkpoint.json"), "utf8"));
  const witness = { name: "witness.example/fixture", verifierKey: f.witness_key };
  const other = { name: "witness.example/other", verifierKey: f.other_witness_key };
  const [ok, missing] = await lib.checkCosignatures(f.checkpoint, [witness, other]);
  assert.equal(ok.result, "valid", ok.detail);
  assert.ok(ok.time instanceof Date && ok.time.getTime() > Date.parse("2020-01-01"), String(ok.time));
  assert.equal(missing.result, "missing");

  const altered = f.checkpoint.replace("\n7\n", "\n8\n");
  const [bad] = await lib.checkCosignatures(altered, [witness]);
  assert.equal(bad.result, "invalid");

  // The log's own key is not a witness key.
  const [notWitness] = await lib.checkCosignatures(f.checkpoint, [{ name: "log", verifierKey: f.log_verifier_key }]);
  assert.equal(notWitness.result, "invalid");
  assert.match(notWitness.detail, /cosignature\/v1/);
});
