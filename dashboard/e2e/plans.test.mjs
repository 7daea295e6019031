// End to end, the Plans page: a plan tracked from a workflow run, what is due
// this week, a milestone checked off, a re-plan with a changed date that moves
// milestones, and the calendar feed URL fetched and revoked. Its own server
// and browser (headless Chromium, CHROMIUM or /usr/bin/chromium); the tests
// run in order on one page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { rest, startServer } from "./server.mjs";

const shots = fileURLToPath(new URL("./screenshots/", import.meta.url));
// CREATIVEOPS_E2E_DOCS=<dir> also writes the plan view docs/dashboard.md shows.
const docsDir = process.env.CREATIVEOPS_E2E_DOCS;

let server;
let browser;
let context;
let page;
const pageErrors = [];

async function shot(name, { docs = false } = {}) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  if (docsDir && docs) await page.screenshot({ path: join(docsDir, `${name}.png`) });
}

/** The date n days after today (UTC: the plans here have no time zone of their own). */
const inDays = (n) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  await mkdir(shots, { recursive: true });
  if (docsDir) await mkdir(docsDir, { recursive: true });
  server = await startServer();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.baseUrl });
  page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" && !/the server responded with a status of 4\d\d/.test(m.text())) pageErrors.push(m.text());
  });
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

// A release date whose plan has a pending milestone in the next seven days
// (found by asking the engine, so the test holds whatever today is).
let releaseDate;
let dueSoon;
let planId;

test("track a plan from a workflow run", async () => {
  // The form is prefilled with the workflow's example, planned as of today.
  const { as_of: _, ...example } = (await rest(server, "GET", "/v1/engine/workflows/release-strategy")).body.example_context;
  for (let n = 35; n <= 70 && !dueSoon; n++) {
    const res = await rest(server, "POST", "/v1/engine/run", {
      vertical: "music",
      workflow: "release-strategy",
      // Digital only: a vinyl pressing's lead time would fix the dates whatever the release date.
      context: { ...example, artist: "Ada Lindqvist", formats: ["digital"], release_date: inDays(n) },
    });
    assert.equal(res.status, 200);
    dueSoon = res.body.result.timeline.milestones.find((m) => m.date >= inDays(0) && m.date <= inDays(7));
    releaseDate = inDays(n);
  }
  assert.ok(dueSoon, "some release date puts a milestone in the next week");

  await page.goto(server.baseUrl + "/dashboard/workflows/release-strategy");
  const form = page.getByRole("form", { name: "Run context" });
  await form.getByLabel(/^artist/).fill("Ada Lindqvist");
  await form.getByLabel(/^release_date/).fill(releaseDate);
  await form.getByLabel(/^as_of/).fill("");
  await form.getByLabel(/^formats/).fill("digital");
  await form.getByRole("button", { name: "Run", exact: true }).click();
  await page.getByTestId("timeline").waitFor({ timeout: 30_000 });
  await page.getByRole("button", { name: "Track this plan" }).click();
  await page.waitForURL(/\/dashboard\/plans\/plan_[0-9a-z]{26}$/);
  planId = page.url().split("/").at(-1);
  const timeline = page.getByTestId("plan-timeline");
  await timeline.waitFor();

  const plan = (await rest(server, "GET", `/v1/plans/${planId}`)).body;
  assert.equal(plan.context.release_date, releaseDate, "the plan is the run's");
  assert.equal(await timeline.locator("li").count(), plan.milestones.length);
  // In date order.
  const dates = await timeline.locator("li time").allTextContents();
  assert.deepEqual(dates, [...dates].sort());
  assert.deepEqual(dates, plan.milestones.map((m) => m.date).sort());
});

test("due this week shows the milestone across plans", async () => {
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Plans" }).click();
  const panel = page.getByTestId("due-this-week");
  const item = panel.locator("li", { hasText: dueSoon.title });
  await item.waitFor();
  assert.match(await item.textContent(), new RegExp(dueSoon.date));
  assert.equal(await item.locator(`a[href="/dashboard/plans/${planId}"]`).count(), 1, "links to its plan");
  // The list has the plan, and its state filter works.
  await page.locator(`tr[data-plan-id="${planId}"]`).waitFor();
  await page.getByLabel("State").selectOption("completed");
  await page.locator(`tr[data-plan-id="${planId}"]`).waitFor({ state: "detached" });
  await page.getByLabel("State").selectOption("active");
  await shot("plans-list");
  await item.getByRole("link").click();
  await page.getByTestId("plan-timeline").waitFor();
});

let doneKey;

test("check off a milestone; reopen and skip", async () => {
  const timeline = page.getByTestId("plan-timeline");
  const first = timeline.locator("li").first();
  doneKey = await first.getAttribute("data-key");
  await first.getByRole("button", { name: /^Done:/ }).click();
  await timeline.locator(`li[data-key="${doneKey}"][data-state="done"]`).waitFor();
  const plan = (await rest(server, "GET", `/v1/plans/${planId}`)).body;
  const m = plan.milestones.find((x) => x.key === doneKey);
  assert.equal(m.state, "done");
  assert.ok(m.done_at, "done_at set");

  const second = timeline.locator("li").nth(1);
  const key2 = await second.getAttribute("data-key");
  await second.getByRole("button", { name: /^Skip:/ }).click();
  await timeline.locator(`li[data-key="${key2}"][data-state="skipped"]`).waitFor();
  await timeline.locator(`li[data-key="${key2}"]`).getByRole("button", { name: /^Reopen:/ }).click();
  await timeline.locator(`li[data-key="${key2}"][data-state="pending"]`).waitFor();
});

test("re-plan with a changed date in the workflow's form: the changes show, the timeline moves", async () => {
  const before = (await rest(server, "GET", `/v1/plans/${planId}`)).body;
  await page.getByText("Re-plan with a changed context").click();
  const form = page.getByRole("form", { name: "Re-plan context" });
  const date = form.getByLabel(/^release_date/);
  assert.equal(await date.inputValue(), releaseDate, "the form holds the plan's context");
  // Six weeks later: a release this close is planned on its earliest
  // feasible dates, which a small slip would not move.
  const later = new Date(new Date(releaseDate + "T00:00:00Z").getTime() + 45 * 86_400_000).toISOString().slice(0, 10);
  await date.fill(later);
  await form.getByRole("button", { name: "Re-plan" }).click();
  const changes = page.getByTestId("changes");
  await changes.waitFor();
  const moved = changes.locator('li[data-change="moved"]');
  assert.ok((await moved.count()) > 0, "something moved");
  const key = await moved.first().getAttribute("data-key");
  const was = before.milestones.find((m) => m.key === key).date;
  const now = (await rest(server, "GET", `/v1/plans/${planId}`)).body;
  assert.equal(now.revision, 2);
  const to = now.milestones.find((m) => m.key === key).date;
  assert.notEqual(to, was);
  assert.match(await moved.first().textContent(), new RegExp(`${was}.*${to}`));
  // The timeline shows the new date; the done milestone stayed done and is reported kept.
  assert.equal(await page.getByTestId("plan-timeline").locator(`li[data-key="${key}"] time`).textContent(), to);
  await page.getByTestId("plan-timeline").locator(`li[data-key="${doneKey}"][data-state="done"]`).waitFor();
  await changes.locator(`li[data-change="kept"][data-key="${doneKey}"]`).waitFor();
  assert.match(await page.getByTestId("revision").textContent(), /^2,/);
  await page.getByText("Re-plan with a changed context").click(); // folds the form away
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot("plans", { docs: true });
});

test("create the calendar feed URL, copy and fetch it, then revoke it", async () => {
  await page.getByRole("button", { name: "Create feed URL" }).click();
  const url = (await page.getByTestId("feed-url").textContent()).trim();
  assert.ok(url.includes(`/v1/plans/${planId}/calendar.ics?`), url);
  await page.getByRole("button", { name: "Copy URL" }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
  const res = await fetch(url); // as a calendar app: no key, no cookie
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type"), /^text\/calendar/);
  const ics = await res.text();
  assert.match(ics, /^BEGIN:VCALENDAR/);
  assert.ok(ics.includes(`${planId}-${doneKey}@`), "an event per milestone, with a stable UID");
  await shot("plan-feed");

  await page.getByRole("button", { name: "Revoke feed URL" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("button", { name: "Create feed URL" }).waitFor();
  assert.equal(await page.getByTestId("feed-url").count(), 0, "the URL is no longer shown");
  assert.equal((await fetch(url)).status, 404);
  assert.equal((await rest(server, "GET", `/v1/plans/${planId}`)).body.feed_active, false);
});

test("accessibility: axe-core finds no WCAG 2.1 A/AA violation on the plans pages", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  const p = await ctx.newPage();
  const axe = fileURLToPath(import.meta.resolve("axe-core/axe.min.js"));
  await p.goto(server.baseUrl + "/dashboard/");
  await p.getByLabel("API key").fill(server.apiKey);
  await p.getByRole("button", { name: "Sign in" }).click();
  await p.getByRole("button", { name: "Sign out" }).waitFor();
  for (const [path, ready] of [
    ["/plans", "table"],
    [`/plans/${planId}`, "[data-testid=plan-timeline]"],
  ]) {
    await p.goto(server.baseUrl + "/dashboard" + path);
    await p.locator(ready).first().waitFor();
    await p.addScriptTag({ path: axe });
    const result = await p.evaluate(() => globalThis.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } }));
    assert.deepEqual(result.violations.map((v) => `${path}: ${v.id} ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`), []);
  }
  await ctx.close();
});

test("no console errors or CSP violations", () => {
  assert.deepEqual(pageErrors, []);
});
