// End to end, the Creators page: a creator edited (its email changed, and a
// change to another creator's email refused), then erased after the
// confirmation, after which the API answers 404 for it. Its own server and
// browser (headless Chromium, CHROMIUM or /usr/bin/chromium).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { rest, startServer } from "./server.mjs";

const shots = fileURLToPath(new URL("./screenshots/", import.meta.url));

let server;
let browser;
let page;
const pageErrors = [];

before(async () => {
  await mkdir(shots, { recursive: true });
  server = await startServer();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(server.baseUrl + "/dashboard/");
  await page.getByLabel("API key").fill(server.apiKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
});

after(async () => {
  await browser?.close();
  if (process.exitCode && server) process.stderr.write(server.logs().slice(-4000));
  await server?.stop();
});

test("edit a creator's email, and see a taken one refused", async () => {
  const ada = await rest(server, "POST", "/v1/creators", { name: "Ada Quinn", email: "ada@example.com", vertical: "music" });
  assert.equal(ada.status, 201, JSON.stringify(ada.body));
  const taken = await rest(server, "POST", "/v1/creators", { name: "Bo Lin", email: "bo@example.com", vertical: "film" });
  assert.equal(taken.status, 201);
  await page.goto(server.baseUrl + "/dashboard/creators");
  await page.getByRole("button", { name: "Edit Ada Quinn" }).click();
  const form = page.getByRole("form", { name: "Edit Ada Quinn" });
  await form.getByLabel("Email").fill("BO@example.com");
  await form.getByRole("button", { name: "Save" }).click();
  await page.getByText("The change was refused").waitFor();
  await form.getByLabel("Email").fill("ada.quinn@example.com");
  await form.getByLabel("Name").fill("Ada Lovelace");
  await form.getByRole("button", { name: "Save" }).click();
  await page.getByRole("rowheader", { name: "Ada Lovelace" }).waitFor();
  await page.getByRole("cell", { name: "ada.quinn@example.com" }).waitFor();
  await page.screenshot({ path: join(shots, "creators-edited.png"), fullPage: true });
  const got = await rest(server, "GET", `/v1/creators/${ada.body.id}`);
  assert.equal(got.body.email, "ada.quinn@example.com");
  assert.equal(got.body.name, "Ada Lovelace");
  assert.equal(got.body.revision, 2);
});

test("erase a creator after the confirmation", async () => {
  const c = await rest(server, "POST", "/v1/creators", { name: "Cy Erased", email: "cy@example.com", vertical: "music" });
  assert.equal(c.status, 201);
  await page.goto(server.baseUrl + "/dashboard/creators");
  const row = page.getByRole("row", { name: /Cy Erased/ });
  await row.getByRole("button", { name: "Erase", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Erase Cy Erased?" });
  // Cancel leaves it be.
  await dialog.getByRole("button", { name: "Cancel" }).click();
  assert.equal((await rest(server, "GET", `/v1/creators/${c.body.id}`)).status, 200);
  await row.getByRole("button", { name: "Erase", exact: true }).click();
  await dialog.getByRole("button", { name: "Erase for good" }).click();
  await page.getByRole("rowheader", { name: "Cy Erased" }).waitFor({ state: "detached" });
  assert.equal((await rest(server, "GET", `/v1/creators/${c.body.id}`)).status, 404);
  assert.deepEqual(pageErrors, []);
});
