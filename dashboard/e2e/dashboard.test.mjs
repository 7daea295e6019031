// End to end: headless Chromium (playwright-core, CHROMIUM or /usr/bin/chromium)
// drives the dashboard served by a live server. Tests run in order and share
// one server; each leaves a screenshot in e2e/screenshots/.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { chromium } from "playwright-core";
import { eventually, rest, startReceiver, startServer, startWitness } from "./server.mjs";

const shots = fileURLToPath(new URL("./screenshots/", import.meta.url));
const run = promisify(execFile);

let server;
let receiver;
let witness;
let browser;
let context;
let page;
/** Console errors and CSP violations seen in any page: the suite fails on any. */
const pageErrors = [];

async function newPage(ctx) {
  const p = await ctx.newPage();
  p.on("console", (m) => {
    if (m.type() === "error" && !/the server responded with a status of 4\d\d/.test(m.text())) pageErrors.push(m.text());
  });
  p.on("pageerror", (e) => pageErrors.push(String(e)));
  return p;
}

// CREATIVEOPS_E2E_DOCS=<dir> also writes the pages docs/dashboard.md shows, viewport only (small files).
const docsDir = process.env.CREATIVEOPS_E2E_DOCS;
const docShots = new Set(["signin", "usage", "keys", "webhook-deliveries", "workflow-result", "catalog", "certificate-verified", "phone-menu"]);

async function shot(p, name) {
  await p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  if (docsDir && docShots.has(name)) await p.screenshot({ path: join(docsDir, `${name}.png`) });
}

async function signIn(p, key) {
  await p.goto(server.baseUrl + "/dashboard/");
  const input = p.getByLabel("API key");
  await input.waitFor();
  // Keyboard only: focus, type, Enter.
  await input.focus();
  await p.keyboard.type(key);
  await p.keyboard.press("Enter");
  await p.getByRole("button", { name: "Sign out" }).waitFor();
}

async function open(p, path) {
  await p.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: path }).click();
}

before(async () => {
  await mkdir(shots, { recursive: true });
  if (docsDir) await mkdir(docsDir, { recursive: true });
  // A server started by hand (CREATIVEOPS_E2E_URL) has its own witnesses, if any.
  if (!process.env.CREATIVEOPS_E2E_URL) witness = await startWitness();
  [server, receiver] = await Promise.all([startServer(witness ? ["--witness", `${witness.verifierKey}@${witness.url}`] : []), startReceiver()]);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.baseUrl });
  page = await newPage(context);
});

after(async () => {
  await browser?.close();
  await receiver?.stop();
  if (process.exitCode && server) process.stderr.write(server.logs().slice(-4000));
  await server?.stop();
  await witness?.stop();
});

test("the server serves this checkout's build of the UI", async () => {
  const built = await readFile(fileURLToPath(new URL("../dist/index.html", import.meta.url)), "utf8");
  const served = await (await fetch(server.baseUrl + "/dashboard/")).text();
  assert.equal(served, built, "the binary embeds another dashboard/dist: run make dashboard, then rebuild the binary");
});

test("every dashboard response carries the security headers", async () => {
  for (const path of ["/dashboard/", "/dashboard/keys/some/deep/route"]) {
    const res = await fetch(server.baseUrl + path);
    assert.equal(res.status, 200, path);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get("referrer-policy"), "no-referrer");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    const html = await res.text();
    // No inline script or style: every <script> has a src, no style attributes.
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
    assert.doesNotMatch(html, /\sstyle=/);
  }
});

test("a wrong key is refused with the server's message", async () => {
  await page.goto(server.baseUrl + "/dashboard/");
  await page.getByLabel("API key").fill("co_live_notakey");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("alert").filter({ hasText: "Sign-in failed" }).waitFor();
  await shot(page, "signin-error");
});

test("sign in with the key: a session cookie the page cannot read, the key in no storage", async () => {
  await signIn(page, server.apiKey);
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === "creativeops_session");
  assert.ok(session, "session cookie set");
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, "Strict");
  const seen = await page.evaluate(() => ({
    cookie: document.cookie,
    local: JSON.stringify(localStorage),
    sessionStorage: JSON.stringify(sessionStorage),
  }));
  assert.doesNotMatch(seen.cookie, /creativeops_session/);
  for (const v of [seen.local, seen.sessionStorage, session.value]) assert.ok(!v.includes(server.apiKey), "key stored in the browser");
  await shot(page, "usage-empty");
});

let createdKey;

test("create a key with scopes, expiry and rate limit: secret shown once, key listed", async () => {
  await open(page, "API keys");
  await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
  await page.getByLabel("Name").fill("e2e-mobile");
  await page.locator('input[name="scopes"][value="engine:run"]').check();
  await page.locator('input[name="scopes"][value="engine:read"]').check();
  await page.getByLabel("Expires (optional)").fill("2099-12-31");
  await page.getByLabel("Rate limit, requests/s (optional)").fill("5");
  await page.getByLabel("Burst (optional)").fill("10");
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.getByTestId("secret").textContent()).trim();
  assert.match(secret, /^co_live_/);
  await page.getByRole("button", { name: "Copy" }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
  const row = page.locator("tr", { hasText: "e2e-mobile" });
  await row.waitFor();
  assert.match(await row.textContent(), /engine:run, engine:read/);
  assert.match(await row.textContent(), /active/);
  createdKey = { secret, id: await row.getAttribute("data-key-id") };
  // The key works, with what it was given.
  const list = await rest(server, "GET", "/v1/keys");
  const k = list.body.keys.find((x) => x.id === createdKey.id);
  assert.deepEqual(k.rate_limit, { requests_per_second: 5, burst: 10 });
  assert.match(k.expires_at, /^2099-12-31/);
  assert.equal((await rest(server, "GET", "/v1/engine/verticals", undefined, secret)).status, 200);
  await shot(page, "keys");
});

test("rotate with a grace period, then revoke after confirming", async () => {
  const row = page.locator(`tr[data-key-id="${createdKey.id}"]`);
  await row.getByRole("button", { name: "Rotate" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("The old secret keeps working for").selectOption("3600");
  await dialog.getByRole("button", { name: "Rotate" }).click();
  const rotated = await eventually(async () => {
    const s = (await page.getByTestId("secret").textContent()).trim();
    return s !== createdKey.secret && s;
  }, 10_000, "the rotated secret is shown");
  assert.match(rotated, /^co_live_/);
  // Both secrets work during the grace period.
  assert.equal((await rest(server, "GET", "/v1/engine/verticals", undefined, rotated)).status, 200);
  assert.equal((await rest(server, "GET", "/v1/engine/verticals", undefined, createdKey.secret)).status, 200);
  await row.getByText("old secret until").waitFor();

  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  assert.match(await row.textContent(), /active/, "cancel keeps the key");
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
  await row.locator(".status.revoked").waitFor();
  assert.equal((await rest(server, "GET", "/v1/engine/verticals", undefined, rotated)).status, 401);
  await shot(page, "keys-revoked");
});

test("OAuth clients: create, get a token with the secret, rotate, revoke (when the server has them)", async (t) => {
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  if ((await rest(server, "GET", "/v1/oauth/clients?page_size=1")).status === 404) {
    // A server without OAuth client management: no page for it, not a dead one.
    assert.equal(await nav.getByRole("link", { name: "OAuth clients" }).count(), 0);
    t.skip("this server has no /v1/oauth/clients");
    return;
  }
  const token = (id, secret) =>
    fetch(server.baseUrl + "/oauth/token", {
      method: "POST",
      headers: { authorization: "Basic " + Buffer.from(`${id}:${secret}`).toString("base64"), "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
  // The page goes through the TypeScript client (Connect), not hand-written REST calls.
  const calls = [];
  const onRequest = (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/v1/oauth/") || path.startsWith("/creativeops.v1.OAuthClientsService/")) calls.push(`${r.method()} ${path}`);
  };
  page.on("request", onRequest);
  t.after(() => page.off("request", onRequest));
  await open(page, "OAuth clients");
  await page.getByText("No OAuth clients yet.").waitFor();
  await page.getByLabel("Name", { exact: true }).fill("e2e-billing");
  await page.locator('input[name="scopes"][value="creators:read"]').check();
  await page.getByLabel("Token lifetime, seconds (optional)").fill("600");
  await page.getByRole("button", { name: "Create client" }).click();
  const secret = (await page.getByTestId("oauth-secret").textContent()).trim();
  const row = page.locator("tr[data-client-id]", { hasText: "e2e-billing" });
  await row.waitFor();
  const id = await row.getAttribute("data-client-id");
  assert.match(await row.textContent(), /creators:read/);
  assert.equal((await token(id, secret)).status, 200, "the secret shown gets a token");
  await shot(page, "oauth-clients");

  await row.getByRole("button", { name: "Rotate" }).click();
  await page.getByRole("dialog").getByLabel("The old secret keeps working for").selectOption("0");
  await page.getByRole("dialog").getByRole("button", { name: "Rotate" }).click();
  const rotated = await eventually(async () => {
    const s = (await page.getByTestId("oauth-secret").textContent()).trim();
    return s !== secret && s;
  }, 10_000, "the rotated secret is shown");
  assert.equal((await token(id, rotated)).status, 200);
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
  await eventually(async () => (await row.count()) === 0 || /revoked/.test(await row.textContent()), 10_000, "client revoked");
  assert.notEqual((await token(id, rotated)).status, 200, "a revoked client gets no token");
  const rpcs = new Set(calls.filter((c) => c.startsWith("POST /creativeops.v1.OAuthClientsService/")).map((c) => c.split("/").pop()));
  for (const m of ["ListOAuthClients", "CreateOAuthClient", "RotateOAuthClient", "DeleteOAuthClient"]) assert.ok(rpcs.has(m), `${m} through the client: ${calls}`);
  assert.deepEqual(
    calls.filter((c) => c.includes(" /v1/oauth/") && c !== "GET /v1/oauth/clients"),
    [],
    "no REST calls besides the page's availability probe",
  );
});

test("webhook to a local receiver: URL checked before saving, test sent, delivery succeeded", async () => {
  await open(page, "Webhooks");
  await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
  await page.getByText("No endpoints yet").waitFor();
  // A URL the browser can tell is wrong is refused before any call.
  await page.getByLabel("Endpoint URL").fill("ftp://example.com/x");
  await page.locator('input[name="events"][value="webhook.test"]').check();
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await page.getByText("url: must use https").waitFor();
  assert.equal((await rest(server, "GET", "/v1/webhooks")).body.webhooks.length, 0);

  await page.getByLabel("Endpoint URL").fill(receiver.url);
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const secret = (await page.locator(".secret .secret-value").textContent()).trim();
  assert.match(secret, /^whsec_/);
  await page.getByRole("link", { name: "Open the endpoint to send a test" }).click();
  await page.getByText("No deliveries yet").waitFor();
  await page.getByRole("button", { name: "Send test event" }).click();
  const row = page.locator("tr[data-delivery-id]").first();
  await eventually(async () => /succeeded/.test((await row.textContent().catch(() => "")) ?? ""), 20_000, "delivery succeeded");
  assert.match(await row.textContent(), /webhook\.test/);
  assert.match(await row.textContent(), /204/);
  // The receiver got it, signed with the secret the page showed once.
  const got = receiver.received.at(-1);
  assert.ok(got, "receiver got a delivery");
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const sig = createHmac("sha256", key).update(`${got.headers["webhook-id"]}.${got.headers["webhook-timestamp"]}.${got.body}`).digest("base64");
  assert.ok(got.headers["webhook-signature"].split(" ").includes(`v1,${sig}`), "signature verifies");
  assert.equal(JSON.parse(got.body).type, "webhook.test");

  await row.getByRole("button", { name: "Redeliver" }).click();
  await eventually(async () => receiver.received.length >= 2, 20_000, "redelivery arrived");
  // The page follows pending deliveries until they settle.
  await eventually(async () => (await page.locator("tr[data-delivery-id] .status.succeeded").count()) === 2, 20_000, "both deliveries shown as succeeded");
  await shot(page, "webhook-deliveries");
});

test("run a workflow from its generated form and see its timeline", async () => {
  await open(page, "Workflows");
  await page.getByLabel("Vertical").selectOption("music");
  await page.getByRole("link", { name: "Release strategy" }).first().click().catch(async () => {
    // Names are the engine's: fall back to the id.
    await page.goto(server.baseUrl + "/dashboard/workflows/release-strategy");
  });
  const form = page.getByRole("form", { name: "Run context" });
  await form.waitFor();
  // Prefilled from the example.
  const artist = form.getByLabel(/^artist/);
  assert.notEqual(await artist.inputValue(), "");
  await artist.fill("Ada Lindqvist");
  await shot(page, "workflow-form");
  await form.getByRole("button", { name: "Run", exact: true }).click();
  const timeline = page.getByTestId("timeline");
  await timeline.waitFor({ timeout: 30_000 });
  const milestones = await timeline.locator("li").count();
  assert.ok(milestones >= 3, `timeline has ${milestones} milestones`);
  // The plan is for what the form held, not the example.
  assert.match(await page.locator(".strategy").textContent(), /Ada Lindqvist/);
  assert.ok((await page.locator(".recs li").count()) >= 1, "recommendations listed");
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download JSON" }).click();
  const file = await (await download).path();
  const saved = JSON.parse(await readFile(file, "utf8"));
  assert.equal(saved.workflow, "release-strategy");
  assert.ok(saved.result.timeline.milestones.length === milestones);
  await page.locator("#job-title").scrollIntoViewIfNeeded();
  await shot(page, "workflow-result");

  // In the background: queued, then followed to completion.
  await form.getByRole("button", { name: "Run in background" }).click();
  await page.locator("#job-title").waitFor();
  await eventually(async () => (await page.locator("section .status").first().textContent()) === "completed", 30_000, "async job completed");
  await timeline.waitFor();
});

test("a workflow form with a bad value shows the server's field error", async () => {
  const form = page.getByRole("form", { name: "Run context" });
  // Past the schema's limit, which only the server checks here.
  await form.getByLabel(/^genre/).fill("x".repeat(500));
  await form.getByRole("button", { name: "Run", exact: true }).click();
  const alert = page.getByRole("alert").filter({ hasText: "The run did not start" });
  await alert.waitFor();
  assert.match(await alert.textContent(), /INVALID_ARGUMENT/);
});

test("usage chart renders with data", async () => {
  await open(page, "Usage");
  await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
  await page.getByLabel("Granularity", { exact: true }).selectOption("minute");
  await page.getByLabel("Range", { exact: true }).selectOption("1h");
  // Usage is flushed every second in this server; reload until it shows.
  await eventually(
    async () => {
      await page.getByLabel("Granularity", { exact: true }).selectOption("hour");
      await page.getByLabel("Granularity", { exact: true }).selectOption("minute");
      await page.getByTestId("total-requests").waitFor();
      return Number(await page.getByTestId("total-requests").textContent()) > 0;
    },
    20_000,
    "usage has requests",
  );
  const bars = await page.locator(".chart rect.s-req").count();
  assert.ok(bars >= 1, `chart has ${bars} request bars`);
  assert.match(await page.locator(".chart svg").first().getAttribute("aria-label"), /Requests: total [1-9]/);
  assert.ok((await page.locator("table tbody tr").count()) >= 1, "per-route table has rows");
  // Filter by a key: the revoked key made a few requests too.
  const option = (await page.locator("#usage-key option").allTextContents()).find((t) => t.startsWith("e2e-mobile"));
  await page.getByLabel("Key", { exact: true }).selectOption({ label: option });
  await page.getByTestId("total-requests").waitFor();
  await shot(page, "usage");
});

let work;
let cert;

test("IP catalog: search, open a certificate, verify it in the browser", async () => {
  const creator = await rest(server, "POST", "/v1/creators", { name: "Nova Reyes", email: "nova@example.com", vertical: "music" });
  work = Buffer.from("The Long Night, draft 3\n" + Date.now());
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256").update(work).digest("hex");
  for (const [i, title] of ["Morning Light", "The Long Night", "Paper Boats"].entries()) {
    const body = { creator_id: creator.body.id, title, type: "book", content_hash: i === 1 ? hash : createHash("sha256").update(title).digest("hex") };
    const r = await rest(server, "POST", "/v1/ip/register", body);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    if (i === 1) cert = r.body.certificate_id;
  }
  // The witness cosigns the log's checkpoints; certificates carry its
  // cosignature once it cosigned a tree holding the record.
  if (witness) await eventually(async () => (await rest(server, "GET", "/v1/ip/keys")).body.witnesses?.[0]?.cosigned_size === "3", 15_000, "witness cosigned the log");
  await open(page, "IP catalog");
  await page.getByLabel("Title contains").fill("long");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByText("1 matching records").waitFor();
  await shot(page, "catalog");
  await page.getByRole("link", { name: "The Long Night" }).click();
  await page.getByRole("heading", { name: "Certificate of “The Long Night”" }).waitFor();
  await page.getByLabel("The work's file (optional)").setInputFiles({ name: "draft.txt", mimeType: "text/plain", buffer: work });
  await page.getByRole("button", { name: "Verify", exact: true }).click();
  const summary = page.getByTestId("verify-summary");
  await summary.waitFor();
  assert.equal(await summary.textContent(), "Every check the browser made passed.");
  for (const name of ["work_hash", "record", "content_hash", "timestamp_token", "timestamp_imprint", "timestamp_time", "checkpoint_signature", "log_inclusion"]) {
    assert.equal(await page.locator(`[data-check="${name}"]`).getAttribute("class"), "pass", name);
  }
  assert.match(await page.locator('[data-check="log_inclusion"]').textContent(), /entry 1 of 3/);
  if (witness) {
    // The witness's cosignature, checked in the browser.
    const cosignature = page.locator(`[data-witness="${witness.name}"]`);
    await cosignature.waitFor();
    assert.equal(await cosignature.getAttribute("data-result"), "valid", await cosignature.textContent());
    assert.match(await cosignature.textContent(), /cosigned at .*witness status ok/);
  }
  await page.getByRole("heading", { name: "Verify in this browser" }).scrollIntoViewIfNeeded();
  await shot(page, "certificate-verified");

  // The downloaded bundle is one `creativeops verify` accepts.
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download bundle" }).click();
  const bundlePath = await (await download).path();
  if (server.bin) {
    const workPath = bundlePath + ".work";
    await writeFile(workPath, work);
    const { stdout } = await run(server.bin, ["verify", "--bundle", bundlePath, "--file", workPath]);
    assert.match(stdout, /verifies/);
  }
});

test("verification in the browser fails when the work, proof or signature is wrong", async () => {
  // Another file: the work hash check fails, the rest still pass.
  await page.getByLabel("The work's file (optional)").setInputFiles({ name: "other.txt", mimeType: "text/plain", buffer: Buffer.from("not the work") });
  await page.getByRole("button", { name: "Verify", exact: true }).click();
  await page.locator('[data-check="work_hash"].fail').waitFor();
  assert.match(await page.getByTestId("verify-summary").textContent(), /1 check\(s\) failed: work_hash/);

  // A tampered bundle, as a forger's server would send it.
  const tamper = async (mutate) => {
    await page.route("**/creativeops.v1.IPService/GetCertificate", async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      mutate(body);
      await route.fulfill({ response: res, json: body });
    });
    await page.reload();
    await page.getByRole("button", { name: "Verify", exact: true }).click();
    await page.getByTestId("verify-summary").waitFor();
    await page.unroute("**/creativeops.v1.IPService/GetCertificate");
  };
  const flip = (b64) => {
    const b = Buffer.from(b64, "base64");
    b[0] ^= 1;
    return b.toString("base64");
  };
  await tamper((c) => {
    // The server's Connect JSON uses the proto field names.
    c.inclusion_proof[0] = flip(c.inclusion_proof[0]);
  });
  assert.equal(await page.locator('[data-check="log_inclusion"]').getAttribute("class"), "fail");
  assert.equal(await page.locator('[data-check="checkpoint_signature"]').getAttribute("class"), "pass");
  await tamper((c) => {
    c.checkpoint = c.checkpoint.replace(/\n(\d+)\n/, (_, n) => `\n${Number(n) + 1}\n`);
  });
  assert.equal(await page.locator('[data-check="checkpoint_signature"]').getAttribute("class"), "fail");
  await tamper((c) => {
    c.title = "Someone Else's Book";
  });
  assert.equal(await page.locator('[data-check="record"]').getAttribute("class"), "fail");
  await shot(page, "certificate-tampered");
});

test("creators: list, filter by vertical, link to their works", async () => {
  await open(page, "Creators");
  await page.getByRole("cell", { name: "nova@example.com" }).waitFor();
  await page.getByLabel("Vertical").selectOption("film");
  await page.getByText("No creator matches.").waitFor();
  await page.getByLabel("Vertical").selectOption("music");
  await page.getByRole("link", { name: "IP catalog" }).last().click();
  await page.getByText("3 matching records").waitFor();
  await shot(page, "creators");
});

test("a phone-sized screen: no sideways scrolling, the menu opens by keyboard", async () => {
  const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 1 });
  const p = await newPage(phone);
  await signIn(p, server.apiKey);
  for (const path of ["/usage", "/keys", "/webhooks", "/workflows/release-strategy", "/catalog"]) {
    await p.goto(server.baseUrl + "/dashboard" + path);
    await p.locator("#page-title").waitFor();
    await p.waitForLoadState("networkidle");
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 375, `${path} is ${width}px wide`);
  }
  const menu = p.getByRole("button", { name: "Menu" });
  await menu.focus();
  await p.keyboard.press("Enter");
  assert.equal(await menu.getAttribute("aria-expanded"), "true");
  await p.getByRole("link", { name: "Webhooks" }).waitFor();
  await shot(p, "phone-menu");
  await phone.close();
});

test("accessibility: axe-core finds no WCAG 2.1 A/AA violation on any page", async () => {
  // axe is injected as a script, which the dashboard's CSP rightly refuses: this
  // context alone bypasses CSP (the CSP itself is tested above).
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  const p = await newPage(ctx);
  const axe = fileURLToPath(import.meta.resolve("axe-core/axe.min.js"));
  const check = async (what) => {
    await p.addScriptTag({ path: axe });
    const result = await p.evaluate(() =>
      globalThis.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } }),
    );
    const found = result.violations.map((v) => `${what}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
    assert.deepEqual(found, []);
  };
  await p.goto(server.baseUrl + "/dashboard/");
  await p.getByLabel("API key").waitFor();
  await check("sign-in");
  await signIn(p, server.apiKey);
  const pages = [
    ["/usage", ".chart svg"],
    ["/keys", "table"],
    ["/webhooks", ".list"],
    ["/workflows", ".cards li"],
    ["/workflows/release-strategy", ".run-form"],
    ["/creators", "table"],
    ["/catalog", "table"],
    [`/catalog/${cert}`, ".fields-list"],
  ];
  for (const [path, ready] of pages) {
    await p.goto(server.baseUrl + "/dashboard" + path);
    await p.locator(ready).first().waitFor();
    await check(path);
  }
  await ctx.close();
});

test("revoking the key ends its session: the page's next call signs it out", async () => {
  const k = await rest(server, "POST", "/v1/keys", { name: "e2e-short-lived", scopes: ["engine:read", "analytics:read"] });
  assert.equal(k.status, 201);
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const p = await newPage(ctx);
  await signIn(p, k.body.secret);
  // Let the first page finish its call, so the next one is the click below.
  await p.getByTestId("total-requests").waitFor();
  assert.equal((await rest(server, "DELETE", `/v1/keys/${k.body.id}`)).status, 204);
  await p.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Workflows" }).click();
  await p.getByRole("alert").filter({ hasText: "Your session has ended" }).waitFor();
  await p.getByLabel("API key").waitFor();
  assert.equal((await (await p.evaluate(() => fetch("/dashboard/api/session").then((r) => r.status)))), 401);
  await ctx.close();
});

test("a key without keys:admin cannot open the keys page, nor call the keys API", async () => {
  const limited = await rest(server, "POST", "/v1/keys", { name: "e2e-readonly", scopes: ["engine:read", "analytics:read"] });
  assert.equal(limited.status, 201);
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const p = await newPage(ctx);
  await signIn(p, limited.body.secret);
  await p.goto(server.baseUrl + "/dashboard/keys");
  const alert = p.getByRole("alert").filter({ hasText: "Not allowed" });
  await alert.waitFor();
  assert.match(await alert.textContent(), /keys:admin/);
  assert.equal(await p.getByLabel("Name").count(), 0, "no create form");
  // The server says the same: the session holds the key's scopes, no more.
  const status = await p.evaluate(async () => {
    const s = await (await fetch("/dashboard/api/session")).json();
    const r = await fetch("/creativeops.v1.KeysService/ListKeys", {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": s.csrf_token },
      body: "{}",
    });
    return r.status;
  });
  assert.equal(status, 403);
  await shot(p, "keys-forbidden");
  await ctx.close();
});

test("sign-out ends the session on the server: the old cookie no longer works", async () => {
  const cookie = (await context.cookies()).find((c) => c.name === "creativeops_session");
  const csrf = await page.evaluate(async () => (await (await fetch("/dashboard/api/session")).json()).csrf_token);
  const call = () =>
    fetch(server.baseUrl + "/creativeops.v1.EngineService/ListVerticals", {
      method: "POST",
      headers: { cookie: `creativeops_session=${cookie.value}`, "x-csrf-token": csrf, "content-type": "application/json" },
      body: "{}",
    });
  assert.equal((await call()).status, 200, "the cookie works before sign-out");
  // Without the CSRF header the cookie alone is not enough.
  const noCsrf = await fetch(server.baseUrl + "/creativeops.v1.EngineService/ListVerticals", {
    method: "POST",
    headers: { cookie: `creativeops_session=${cookie.value}`, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(noCsrf.status, 401);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API key").waitFor();
  assert.equal((await call()).status, 401, "the old cookie is refused after sign-out");
  await page.reload();
  await page.getByLabel("API key").waitFor();
  await shot(page, "signin");
});

test("behind a TLS proxy the session cookie is Secure and __Host- named, and the dashboard works with it", async () => {
  // The proxy's X-Forwarded-Proto: https on every request; Chromium takes
  // Secure and __Host- cookies from http://127.0.0.1, a secure context.
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, extraHTTPHeaders: { "x-forwarded-proto": "https" } });
  const p = await newPage(ctx);
  await signIn(p, server.apiKey);
  const cookies = await ctx.cookies();
  assert.deepEqual(cookies.map((c) => c.name), ["__Host-creativeops_session"]);
  const [session] = cookies;
  assert.equal(session.secure, true);
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, "Strict");
  assert.equal(session.path, "/");
  await p.getByTestId("total-requests").waitFor();
  await open(p, "Workflows");
  await p.getByLabel("Vertical").locator('option[value="music"]').waitFor({ state: "attached" });
  await p.getByRole("button", { name: "Sign out" }).click();
  await p.getByLabel("API key").waitFor();
  assert.deepEqual(await ctx.cookies(), [], "sign-out removed the __Host- cookie");
  await ctx.close();
});

test("sign in with an OAuth client's credentials, by keyboard: a page loads as the client, then sign out", async () => {
  const c = await rest(server, "POST", "/v1/oauth/clients", { name: "e2e-dashboard", scopes: ["engine:read", "analytics:read"] });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const p = await newPage(ctx);
  await p.goto(server.baseUrl + "/dashboard/");
  await p.getByLabel("API key").waitFor();
  // Keyboard only: the mode's radio group, then the two fields, then Enter.
  await p.getByRole("radio", { name: "Key", exact: true }).focus();
  await p.keyboard.press("ArrowDown");
  assert.equal(await p.getByRole("radio", { name: "OAuth client" }).isChecked(), true);
  await p.getByLabel("Client ID").focus();
  await p.keyboard.type(c.body.id);
  await p.keyboard.press("Tab");
  assert.equal(await p.evaluate(() => document.activeElement?.id), "client_secret");
  await p.keyboard.type(c.body.secret);
  await p.keyboard.press("Enter");
  await p.getByRole("button", { name: "Sign out" }).waitFor();
  const s = await p.evaluate(async () => (await fetch("/dashboard/api/session")).json());
  assert.equal(s.client_id, c.body.id);
  assert.deepEqual(s.scopes, ["engine:read", "analytics:read"]);
  await p.getByTestId("total-requests").waitFor();
  await open(p, "Workflows");
  await p.getByLabel("Vertical").locator('option[value="music"]').waitFor({ state: "attached" });
  await shot(p, "signin-oauth-client");
  await p.getByRole("button", { name: "Sign out" }).click();
  await p.getByLabel("API key").waitFor();
  assert.equal(await p.evaluate(() => fetch("/dashboard/api/session").then((r) => r.status)), 401);
  await ctx.close();
});

test("no page logged an error or a CSP violation", () => {
  assert.deepEqual(pageErrors, []);
});
