// The certificate verifier the catalog page runs is the client library's
// (clients/typescript/src/certificates.ts, tested there), compiled from its
// sources with the dashboard's own dependencies, as Vite builds it: a bundle
// issued by the server (fixtures/) passes every check, RFC 3161 token
// included, and a changed field fails.
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
  const out = join(await mkdtemp(join(tmpdir(), "dashboard-verify-")), "entry.mjs");
  await build({
    stdin: {
      contents: `export { checkCertificate, checkExternalTimestamps, CertificateSchema } from "@creativeops/client";\nexport { fromJson } from "@bufbuild/protobuf";`,
      resolveDir: join(here, ".."),
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    alias: { "@creativeops/client": join(here, "../../clients/typescript/src/index.ts") },
    nodePaths: [join(here, "../node_modules")],
    outfile: out,
    logLevel: "warning",
  });
  lib = await import(pathToFileURL(out).href);
});

test("a server-issued bundle passes every check in the dashboard's build of the verifier", async () => {
  const json = JSON.parse(await readFile(join(here, "fixtures/bundle.json"), "utf8"));
  const work = new Uint8Array(await readFile(join(here, "fixtures/work.txt")));
  const checks = await lib.checkCertificate(lib.fromJson(lib.CertificateSchema, json), { work });
  assert.deepEqual(checks.filter((c) => !c.ok).map((c) => c.name), []);
  assert.deepEqual(checks.filter((c) => c.skipped).map((c) => c.name), []);
  assert.ok(checks.some((c) => c.name === "timestamp_token" && c.ok));
  const tampered = await lib.checkCertificate(lib.fromJson(lib.CertificateSchema, { ...json, title: "Another Title" }), { work });
  assert.deepEqual(tampered.filter((c) => !c.ok).map((c) => c.name), ["record"]);
});

test("the dashboard's build checks a certificate's independent timestamps with their authorities' CAs", async () => {
  const dir = join(here, "../../clients/typescript/test/fixtures/external");
  const json = JSON.parse(await readFile(join(dir, "bundle.json"), "utf8"));
  const cas = await Promise.all([1, 2, 3].map((i) => readFile(join(dir, `tsa${i}-ca.pem`), "utf8")));
  const cert = lib.fromJson(lib.CertificateSchema, json);
  const checks = await lib.checkExternalTimestamps(cert, cas.slice(0, 2));
  assert.deepEqual(
    checks.map((c) => [c.name, c.ok, Boolean(c.skipped)]),
    [
      ["external_timestamp[1]", true, false],
      ["external_timestamp[2]", true, false],
      ["external_timestamp[3]", true, true],
    ],
  );
  const unrelated = await lib.checkExternalTimestamps(cert, [cas[2]]);
  assert.deepEqual(unrelated.filter((c) => !c.ok).map((c) => c.name), ["external_timestamp[1]", "external_timestamp[2]"]);
});
