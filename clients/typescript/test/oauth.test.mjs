// OAuth 2.0 client credentials from a non-Go client: oauth4webapi (a
// certified OAuth client library) discovers the server from its RFC 8414
// metadata, obtains tokens with client_secret_basic, client_secret_post and
// private_key_jwt, and the tokens call REST and native gRPC like an API key.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { CreativeOps, CreativeOpsError } from "@creativeops/client";
import { startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const insecure = { [oauth.allowInsecureRequests]: true }; // the test server is plain http on loopback

async function admin(method, path, body) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${server.apiKey}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function discover() {
  const issuer = new URL(server.baseUrl);
  const res = await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure });
  return oauth.processDiscoveryResponse(issuer, res);
}

test("client credentials by every client authentication method, then REST and gRPC", async () => {
  const as = await discover();
  assert.equal(as.token_endpoint, `${server.baseUrl}/oauth/token`);
  assert.deepEqual(as.grant_types_supported, ["client_credentials"]);

  const creator = await admin("POST", "/v1/creators", { name: "Node Client", email: "node@example.com", vertical: "music" });
  const withSecret = await admin("POST", "/v1/oauth/clients", { name: "node", scopes: ["creators:read"] });

  const { privateKey, publicKey } = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const jwk = { ...(await crypto.subtle.exportKey("jwk", publicKey)), kid: "node-1", alg: "ES256", use: "sig" };
  delete jwk.key_ops;
  delete jwk.ext;
  const withKey = await admin("POST", "/v1/oauth/clients", { name: "node-pkjwt", scopes: ["creators:read"], jwks: { keys: [jwk] } });

  const methods = {
    client_secret_basic: [withSecret.id, oauth.ClientSecretBasic(withSecret.secret)],
    client_secret_post: [withSecret.id, oauth.ClientSecretPost(withSecret.secret)],
    private_key_jwt: [withKey.id, oauth.PrivateKeyJwt({ key: privateKey, kid: "node-1" })],
  };
  for (const [name, [clientId, auth]] of Object.entries(methods)) {
    const client = { client_id: clientId };
    const res = await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams({ scope: "creators:read keys:admin" }), insecure);
    const token = await oauth.processClientCredentialsResponse(as, client, res);
    assert.equal(token.token_type, "bearer", name);
    assert.equal(token.scope, "creators:read", `${name}: scopes narrowed to the client's`);
    assert.ok(token.expires_in > 0 && token.expires_in <= 3600, name);

    // REST
    const rest = await fetch(`${server.baseUrl}/v1/creators/${creator.id}`, { headers: { Authorization: `Bearer ${token.access_token}` } });
    assert.equal(rest.status, 200, `${name}: REST`);
    // Native gRPC through the TypeScript client, the token in place of a key.
    const co = new CreativeOps({ apiKey: token.access_token, baseUrl: server.baseUrl, transport: "grpc" });
    assert.equal((await co.creators.get(creator.id)).name, "Node Client", `${name}: gRPC`);
    // A scope the client lacks: 403 over REST, PermissionDenied over gRPC.
    const write = await fetch(`${server.baseUrl}/v1/creators`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token.access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "N", email: "n@example.com", vertical: "music" }),
    });
    assert.equal(write.status, 403, `${name}: write without the scope`);
    await assert.rejects(co.creators.create({ name: "N", email: "n2@example.com", vertical: "music" }), (e) => e instanceof CreativeOpsError && e.httpStatus === 403 && e.reason === "MISSING_SCOPE", name);
  }
});

test("introspection and revocation", async () => {
  const as = await discover();
  const c = await admin("POST", "/v1/oauth/clients", { name: "node-revoke", scopes: ["creators:read"] });
  const client = { client_id: c.id };
  const auth = oauth.ClientSecretBasic(c.secret);
  const token = await oauth.processClientCredentialsResponse(
    as,
    client,
    await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams(), insecure),
  );
  const active = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, token.access_token, insecure));
  assert.equal(active.active, true);
  assert.equal(active.client_id, c.id);

  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, token.access_token, insecure));
  const res = await fetch(`${server.baseUrl}/v1/creators`, { headers: { Authorization: `Bearer ${token.access_token}` } });
  assert.equal(res.status, 401);
  const inactive = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, token.access_token, insecure));
  assert.equal(inactive.active, false);

  // A wrong secret is invalid_client.
  const bad = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic("co_oauth_wrong"), new URLSearchParams(), insecure);
  assert.equal(bad.status, 401);
  assert.ok(bad.headers.get("www-authenticate")?.startsWith("Basic "));
  assert.equal((await bad.clone().json()).error, "invalid_client");
  await assert.rejects(oauth.processClientCredentialsResponse(as, client, bad), (e) => e instanceof oauth.WWWAuthenticateChallengeError && e.cause[0]?.scheme === "basic");
});
