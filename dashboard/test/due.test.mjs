// The Plans page's "due this week": which milestones of which plans, in each
// plan's own calendar days, compiled from src/due.ts as Vite builds it.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
let due;

before(async () => {
  const out = join(await mkdtemp(join(tmpdir(), "dashboard-due-")), "due.mjs");
  await build({ entryPoints: [join(here, "../src/due.ts")], bundle: true, format: "esm", platform: "neutral", outfile: out, logLevel: "error" });
  due = await import(pathToFileURL(out).href);
});

const ms = (key, date, state = "pending") => ({ key, title: key, date, state, deliverable: false });
const plan = (id, milestones, extra = {}) => ({ id, state: "active", timeZone: "UTC", milestones, ...extra });

test("overdue and the next seven days, soonest first; done, skipped and later ones left out", () => {
  const now = new Date("2026-03-10T12:00:00Z");
  const p = plan("plan_a", [
    ms("late", "2026-03-02"),
    ms("today", "2026-03-10"),
    ms("week-end", "2026-03-17"),
    ms("next-week", "2026-03-18"),
    ms("done", "2026-03-11", "done"),
    ms("skipped", "2026-03-12", "skipped"),
  ]);
  const got = due.dueThisWeek([p], now).map((d) => [d.milestone.key, d.overdue]);
  assert.deepEqual(got, [
    ["late", true],
    ["today", false],
    ["week-end", false],
  ]);
});

test("completed plans are left out; each plan's today is in its own time zone", () => {
  // 23:30 UTC on the 10th is already the 11th in Tokyo.
  const now = new Date("2026-03-10T23:30:00Z");
  const tokyo = plan("plan_t", [ms("t", "2026-03-10")], { timeZone: "Asia/Tokyo" });
  const utc = plan("plan_u", [ms("u", "2026-03-10")]);
  const done = plan("plan_c", [ms("c", "2026-03-10")], { state: "completed" });
  const got = due.dueThisWeek([tokyo, utc, done], now).map((d) => [d.plan.id, d.overdue]);
  assert.deepEqual(got, [
    ["plan_t", true],
    ["plan_u", false],
  ]);
  assert.equal(due.today("Asia/Tokyo", now), "2026-03-11");
  assert.equal(due.today("Not/AZone", now), "2026-03-10", "an unknown zone reads as UTC");
});

test("addDays crosses months and years; isOverdue only for pending milestones", () => {
  assert.equal(due.addDays("2026-12-28", 7), "2027-01-04");
  assert.equal(due.addDays("2028-02-25", 4), "2028-02-29");
  assert.equal(due.isOverdue(ms("x", "2026-03-01"), "2026-03-02"), true);
  assert.equal(due.isOverdue(ms("x", "2026-03-01", "done"), "2026-03-02"), false);
  assert.equal(due.isOverdue(ms("x", "2026-03-02"), "2026-03-02"), false, "due today is not overdue");
  assert.deepEqual(due.byDate([ms("b", "2026-01-02"), ms("a", "2026-01-02"), ms("c", "2026-01-01")]).map((m) => m.key), ["c", "a", "b"]);
});
