// End to end, changing a webhook from the dashboard: edit its URL, events and
// description, disable and enable it, rotate its secret (deliveries then
// verify with the old and the new one), and the Events page listing and
// filtering what happened. Its own server, receiver and browser (headless
// Chromium, CHROMIUM or /usr/bin/chromium); the tests run in order on one page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { eventually, rest, startReceiver, startServer } from "./server.mjs";

const shots = fileURLToPath(new URL("./screenshots/", import.meta.url));

let server;
let receiver;
let browser;
let page;
let hookId;
let oldSecret;
const pageErrors = [];

const signed = (secret, got) => {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const sig = createHmac("sha256", key).update(`${got.headers["webhook-id"]}.${got.headers["webhook-timestamp"]}.${got.body}`).digest("base64");
  return got.headers["webhook-signature"].split(" ").includes(`v1,${sig}`);
};

before(async () => {
  await mkdir(shots, { recursive: true });
  [server, receiver] = await Promise.all([startServer(), startReceiver()]);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" && !/the server responded with a status of 4\d\d/.test(m.text())) pageErrors.push(m.text());
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  const created = await rest(server, "POST", "/v1/webhooks", { url: "http://127.0.0.1:9/old", events: ["ip.registered"] });
  assert.equal(created.status, 201);
  hookId = created.body.id;
  oldSecret = created.body.secret;
  await page.goto(server.baseUrl + "/dashboard/");
  await page.getByLabel("API key").fill(server.apiKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
});

after(async () => {
  await browser?.close();
  await receiver?.stop();
  if (process.exitCode && server) process.stderr.write(server.logs().slice(-4000));
  await server?.stop();
});

test("edit an endpoint: a bad URL is refused, then URL, events and description change", async () => {
  await page.goto(`${server.baseUrl}/dashboard/webhooks/${hookId}`);
  await page.getByRole("heading", { name: "Edit the endpoint" }).waitFor();
  await page.locator("#wh-edit-url").fill("ftp://example.com/x");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByText("url: must use https").waitFor();
  assert.equal((await rest(server, "GET", `/v1/webhooks/${hookId}`)).body.url, "http://127.0.0.1:9/old");

  await page.locator("#wh-edit-url").fill(receiver.url);
  await page.locator("#wh-edit-description").fill("CRM sync");
  await page.locator('#edit-wh-title ~ fieldset input[value="ip.registered"]').uncheck();
  await page.locator('#edit-wh-title ~ fieldset input[value="webhook.test"]').check();
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByText("Saved.").waitFor();
  const wh = (await rest(server, "GET", `/v1/webhooks/${hookId}`)).body;
  assert.equal(wh.url, receiver.url);
  assert.equal(wh.description, "CRM sync");
  assert.deepEqual(wh.events, ["webhook.test"]);
  await page.getByText("CRM sync").first().waitFor();
});

test("disable after confirming: nothing is sent; enable: deliveries resume", async () => {
  await page.getByRole("button", { name: "Disable" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Disable" }).click();
  await page.locator(".status.disabled").first().waitFor();
  await page.getByText("disabled through the API").first().waitFor();
  assert.equal((await rest(server, "GET", `/v1/webhooks/${hookId}`)).body.status, "disabled");
  await page.getByRole("button", { name: "Send test event" }).click();
  await page.getByText("WEBHOOK_DISABLED").or(page.getByText("is disabled")).first().waitFor();
  assert.equal(receiver.received.length, 0);

  await page.getByRole("button", { name: "Enable" }).click();
  await page.getByText("Enabled: it receives new events again.").waitFor();
  assert.equal((await rest(server, "GET", `/v1/webhooks/${hookId}`)).body.status, "active");
  await page.getByRole("button", { name: "Send test event" }).click();
  await eventually(async () => receiver.received.length >= 1, 20_000, "a delivery after enabling");
  assert.ok(signed(oldSecret, receiver.received[0]), "signed with the secret of the creation");
});

test("rotate the secret: shown once, and deliveries verify with the new one (and the old one during the grace period)", async () => {
  await page.getByRole("button", { name: "Rotate secret" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Rotate" }).click();
  const secret = (await page.locator("#wh-rotated-title ~ p .secret-value").textContent()).trim();
  assert.match(secret, /^whsec_/);
  assert.notEqual(secret, oldSecret);
  await page.getByRole("button", { name: "Send test event" }).click();
  await eventually(async () => receiver.received.length >= 2, 20_000, "a delivery after rotating");
  const got = receiver.received.at(-1);
  assert.ok(signed(secret, got), "verifies with the new secret");
  const grace = (await rest(server, "GET", `/v1/webhooks/${hookId}`)).body.previous_secret_expires_at;
  assert.equal(signed(oldSecret, got), grace !== null, "the old secret signs exactly during the grace period");
  await page.screenshot({ path: join(shots, "webhook-edit.png"), fullPage: true });
});

test("the Events page lists what happened and filters by type and resource", async () => {
  const creator = await rest(server, "POST", "/v1/creators", { name: "Ada Lindqvist", email: `ada-${Date.now()}@example.com`, vertical: "music" });
  assert.equal(creator.status, 201);
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Events" }).click();
  await page.getByRole("heading", { name: "Events", level: 1 }).waitFor();
  await page.locator("tr[data-event-id]").first().waitFor();
  assert.ok((await page.locator("tr[data-event-id]").count()) >= 3, "the test events and the creator's");

  await page.getByLabel("Type").selectOption("creator.created");
  await page.getByLabel("Resource id").fill(creator.body.id);
  await page.getByRole("button", { name: "Filter" }).click();
  await eventually(async () => (await page.locator("tr[data-event-id]").count()) === 1, 10_000, "one event about the creator");
  const row = page.locator("tr[data-event-id]").first();
  assert.match(await row.textContent(), /creator\.created/);
  await row.getByRole("button", { name: "Show data" }).click();
  await page.getByText("Ada Lindqvist").waitFor();
  await page.screenshot({ path: join(shots, "events.png"), fullPage: true });
});

test("no page logged an error", () => {
  assert.deepEqual(pageErrors, []);
});
