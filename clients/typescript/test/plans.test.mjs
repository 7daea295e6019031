// Tracked plans against a real server: a plan from a run, its milestones
// checked off, skipped and reopened, a re-plan, the calendar with the key
// and through a secret feed URL, and the errors of each.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { CreativeOps, CreativeOpsError, responseInfo, timestampDate } from "@creativeops/client";
import { startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

/** The date n days from today (UTC), YYYY-MM-DD. */
const inDays = (n) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** The context of a release a couple of months out: every milestone still ahead. */
const releaseContext = (releaseDate = inDays(75)) => ({ artist: "Nova Reyes", genre: "indie pop", release_date: releaseDate });

for (const transport of ["connect", "grpc-web", "grpc"]) {
  describe(`plans over ${transport}`, () => {
    const client = (opts = {}) => new CreativeOps({ apiKey: server.apiKey, baseUrl: server.baseUrl, transport, ...opts });

    test("a tracked run makes a plan; list filters find it", async () => {
      const co = client();
      const creator = await co.creators.create({ name: "Nova Reyes", email: `nova-${randomUUID().slice(0, 8)}@example.com`, vertical: "music" });
      const job = await co.engine.run({ vertical: "music", workflow: "release-strategy", context: releaseContext(), track: true, creatorId: creator.id });
      assert.equal(job.status, "completed");
      assert.match(job.planId, /^plan_[0-9a-z]{26}$/);

      const plan = await co.plans.get(job.planId);
      assert.equal(plan.id, job.planId);
      assert.equal(plan.vertical, "music");
      assert.equal(plan.workflow, "release-strategy");
      assert.equal(plan.creatorId, creator.id);
      assert.equal(plan.jobId, job.id);
      assert.equal(plan.revision, 1);
      assert.equal(plan.state, "active");
      assert.equal(plan.remindDaysBefore, 3, "the default reminder lead");
      assert.equal(plan.autoReplan, true, "re-planned automatically by default");
      assert.equal(plan.feedActive, false);
      assert.equal(plan.context?.release_date, releaseContext().release_date);
      const timeline = job.result?.timeline?.milestones ?? [];
      assert.deepEqual(
        plan.milestones.map((m) => [m.key, m.date]).sort(),
        timeline.map((m) => [m.key, m.date]).sort(),
        "the plan's milestones are the run's",
      );
      assert.ok(plan.milestones.every((m) => m.state === "pending" && m.doneAt === undefined && m.revision === 1));
      assert.match(responseInfo(plan)?.requestId ?? "", /.+/);

      const mine = [];
      for await (const p of co.plans.list({ creatorId: creator.id, vertical: "music", state: "active", pageSize: 1 })) mine.push(p.id);
      assert.deepEqual(mine, [plan.id]);
      const completed = [];
      for await (const p of co.plans.list({ creatorId: creator.id, state: "completed" })) completed.push(p.id);
      assert.deepEqual(completed, []);

      const bad = await (async () => {
        for await (const _ of co.plans.list({ state: "finished" }));
      })().catch((e) => e);
      assert.ok(bad instanceof CreativeOpsError, String(bad));
      assert.equal(bad.httpStatus, 400);
      assert.deepEqual(bad.fieldViolations.map((v) => v.field), ["state"]);
    });

    test("complete, skip and reopen milestones; update settings; re-plan keeps the done ones", async () => {
      const co = client();
      const job = await co.engine.run({ vertical: "music", workflow: "release-strategy", context: releaseContext(inDays(80)) });
      assert.equal(job.planId, "", "an untracked run makes no plan");
      const plan = await co.plans.create({ jobId: job.id, remindDaysBefore: 5 });
      assert.match(plan.id, /^plan_/);
      assert.equal(plan.remindDaysBefore, 5);
      const [first, second] = [...plan.milestones].sort((a, b) => a.date.localeCompare(b.date));

      const done = await co.plans.complete(plan.id, first.key);
      const d = done.milestones.find((m) => m.key === first.key);
      assert.equal(d.state, "done");
      assert.ok(d.doneAt && Math.abs(timestampDate(d.doneAt).getTime() - Date.now()) < 120_000, "doneAt is now");

      const skipped = await co.plans.skip(plan.id, second.key);
      assert.equal(skipped.milestones.find((m) => m.key === second.key).state, "skipped");
      const reopened = await co.plans.reopen(plan.id, second.key);
      const r = reopened.milestones.find((m) => m.key === second.key);
      assert.equal(r.state, "pending");
      assert.equal(r.doneAt, undefined, "a reopened milestone is not done");

      const unknown = await co.plans.complete(plan.id, "no-such-milestone").catch((e) => e);
      assert.ok(unknown instanceof CreativeOpsError, String(unknown));
      assert.equal(unknown.httpStatus, 404);

      const updated = await co.plans.update(plan.id, { remindDaysBefore: 0, autoReplan: false });
      assert.equal(updated.remindDaysBefore, 0);
      assert.equal(updated.autoReplan, false);
      const tooFar = await co.plans.update(plan.id, { remindDaysBefore: 61 }).catch((e) => e);
      assert.equal(tooFar.httpStatus, 400);
      assert.deepEqual(tooFar.fieldViolations.map((v) => v.field), ["remind_days_before"]);

      // Two more weeks before the release: the pending milestones move, the done one stays.
      const { plan: replanned, changes } = await co.plans.replan(plan.id, { context: { release_date: inDays(94) } });
      assert.equal(replanned.revision, 2);
      assert.equal(replanned.context?.release_date, inDays(94));
      assert.equal(replanned.milestones.find((m) => m.key === first.key).state, "done");
      assert.equal(replanned.milestones.find((m) => m.key === first.key).date, first.date, "a done milestone keeps its date");
      const moved = changes.filter((c) => c.change === "moved");
      assert.ok(moved.length > 0, `something moved: ${JSON.stringify(changes)}`);
      for (const c of moved) {
        assert.ok(c.toDate > c.fromDate, `${c.key} moved later: ${c.fromDate} → ${c.toDate}`);
        assert.equal(replanned.milestones.find((m) => m.key === c.key).date, c.toDate);
        assert.equal(replanned.milestones.find((m) => m.key === c.key).revision, 2);
      }
      assert.ok(!moved.some((c) => c.key === first.key), "the done milestone did not move");
      assert.ok(changes.some((c) => c.key === first.key && c.change === "kept"), "the done milestone is reported kept");

      const badDate = await co.plans.replan(plan.id, { asOf: "tomorrow" }).catch((e) => e);
      assert.equal(badDate.httpStatus, 400);
    });

    test("the calendar with the key, the feed URL without it, revoked → 404", async () => {
      const co = client();
      const job = await co.engine.run({ vertical: "music", workflow: "release-strategy", context: releaseContext(), track: true });
      const plan = await co.plans.get(job.planId);

      assert.equal(co.plans.calendarUrl(plan.id), `${server.baseUrl}/v1/plans/${plan.id}/calendar.ics`);
      const ics = await co.plans.getCalendar(plan.id);
      assert.match(ics, /^BEGIN:VCALENDAR\r\n/);
      assert.equal(ics.match(/^BEGIN:VEVENT\r$/gm)?.length, plan.milestones.length, "one event per milestone");
      for (const m of plan.milestones) assert.ok(ics.includes(`DTSTART;VALUE=DATE:${m.date.replaceAll("-", "")}`), m.key);

      const feed = await co.plans.createFeed(plan.id);
      assert.ok(feed.url.startsWith(`${server.baseUrl}/v1/plans/${plan.id}/calendar.ics?`), feed.url);
      assert.ok(feed.createdAt);
      assert.equal((await co.plans.get(plan.id)).feedActive, true);
      // A calendar app sends no key: the URL alone is enough.
      const res = await fetch(feed.url);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/calendar/);
      assert.equal(await res.text(), ics);

      const revoked = await co.plans.revokeFeed(plan.id);
      assert.equal(revoked.feedActive, false);
      assert.equal((await fetch(feed.url)).status, 404);

      // The calendar's errors are CreativeOpsErrors like every method's.
      const missing = await co.plans.getCalendar("plan_01kaaaaaaaaaaaaaaaaaaaaaaa").catch((e) => e);
      assert.ok(missing instanceof CreativeOpsError, String(missing));
      assert.equal(missing.httpStatus, 404);
      assert.equal(missing.status, "NOT_FOUND");
      assert.match(missing.requestId, /.+/);
      const unauth = await client({ apiKey: "co_live_notarealkey" }).plans.getCalendar(plan.id).catch((e) => e);
      assert.equal(unauth.httpStatus, 401);
      assert.equal(unauth.status, "UNAUTHENTICATED");

      await co.plans.delete(plan.id);
      const gone = await co.plans.get(plan.id).catch((e) => e);
      assert.equal(gone.httpStatus, 404);
    });
  });
}

test("a key without plans scopes is refused, naming the scope", async () => {
  const admin = new CreativeOps({ apiKey: server.apiKey, baseUrl: server.baseUrl });
  const k = await admin.keys.create({ name: "no-plans", scopes: ["engine:read"] });
  const co = new CreativeOps({ apiKey: k.secret, baseUrl: server.baseUrl });
  const e = await co.plans.get("plan_01kaaaaaaaaaaaaaaaaaaaaaaa").catch((x) => x);
  assert.equal(e.httpStatus, 403);
  assert.match(e.message, /plans:read/);
  const cal = await co.plans.getCalendar("plan_01kaaaaaaaaaaaaaaaaaaaaaaa").catch((x) => x);
  assert.equal(cal.httpStatus, 403);
  assert.match(cal.message, /plans:read/);
});

test("the docs/plans.md example", async () => {
  const apiKey = server.apiKey;
  const baseUrl = server.baseUrl;
  const releaseDate = inDays(75);
  const laterDate = inDays(89);
  // --- docs/plans.md: TypeScript ---
  const co = new CreativeOps({ apiKey, baseUrl });

  // Run a workflow and keep its plan.
  const job = await co.engine.run({
    vertical: "music",
    workflow: "release-strategy",
    context: { artist: "Nova Reyes", genre: "indie pop", release_date: releaseDate },
    track: true,
  });
  const plan = await co.plans.get(job.planId);

  // Check off the first milestone.
  const first = [...plan.milestones].sort((a, b) => a.date.localeCompare(b.date))[0];
  await co.plans.complete(plan.id, first.key);

  // The release slips two weeks: re-plan, and see what moved.
  const { plan: next, changes } = await co.plans.replan(plan.id, { context: { release_date: laterDate } });
  for (const c of changes) console.log(`${c.key}: ${c.change} ${c.fromDate} → ${c.toDate}`);

  // A URL for Google Calendar or Apple Calendar (shown once; revoke it with revokeFeed).
  const { url } = await co.plans.createFeed(plan.id);
  // --- end ---
  assert.equal(next.revision, 2);
  assert.ok(changes.some((c) => c.change === "moved"));
  assert.equal((await fetch(url)).status, 200);
});
