// The built package loads as ESM and as CommonJS, with the same API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as esm from "@creativeops/client";

const require = createRequire(import.meta.url);

test("ESM and CommonJS builds export the same names", () => {
  const cjs = require("@creativeops/client");
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
  for (const name of ["CreativeOps", "CreativeOpsError", "verifyWebhook", "WebhookVerificationError", "CreatorSchema", "CreatorsService"]) {
    assert.ok(name in esm, name);
  }
  assert.equal(require.resolve("@creativeops/client").includes("/dist/cjs/"), true);
});

test("bad options name the option", () => {
  assert.throws(() => new esm.CreativeOps({ apiKey: "", baseUrl: "http://x" }), /apiKey: required/);
  assert.throws(() => new esm.CreativeOps({ apiKey: "k", baseUrl: "localhost:8080" }), /baseUrl: must be an http/);
  assert.throws(() => new esm.CreativeOps({ apiKey: "k", baseUrl: "http://x", transport: "websocket" }), /transport: must be/);
});
