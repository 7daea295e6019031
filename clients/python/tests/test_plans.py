"""Tracked plans against a live server: a plan from a tracked run, check-offs,
a re-plan that keeps done milestones, the calendar (parsed by a third-party
iCalendar parser) and its secret feed URL."""

import datetime
import urllib.error
import urllib.request
import uuid

import pytest

from creativeops import CreativeOps, InvalidArgument, NotFound, PermissionDenied, response_info


def in_days(n: int) -> str:
    return (datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=n)).isoformat()


def release(date: str) -> dict:
    return {"artist": "Nova Reyes", "genre": "indie pop", "release_date": date}


@pytest.fixture(scope="module")
def co(server):
    base, key = server
    return CreativeOps(api_key=key, base_url=base)


def test_a_tracked_run_makes_a_plan_the_filters_find(co):
    creator = co.creators.create(name="Nova Reyes", email=f"nova-{uuid.uuid4().hex[:8]}@example.com", vertical="music")
    job = co.engine.run("music", "release-strategy", release(in_days(75)), track=True, creator_id=creator["id"])
    assert job["status"] == "completed" and job["plan_id"].startswith("plan_")
    plan = co.plans.get(job["plan_id"])
    assert (plan["vertical"], plan["workflow"], plan["creator_id"], plan["job_id"]) == (
        "music", "release-strategy", creator["id"], job["id"])
    assert plan["revision"] == 1 and plan["state"] == "active"
    assert plan["remind_days_before"] == 3 and plan["auto_replan"] is True and plan["feed_active"] is False
    assert sorted((m["key"], m["date"]) for m in plan["milestones"]) == sorted(
        (m["key"], m["date"]) for m in job["result"]["timeline"]["milestones"])
    assert all(m["state"] == "pending" and m["done_at"] is None for m in plan["milestones"])
    assert response_info(plan).request_id

    assert [p["id"] for p in co.plans.list(creator_id=creator["id"], vertical="music", state="active", page_size=1)] == [plan["id"]]
    assert list(co.plans.list(creator_id=creator["id"], state="completed")) == []
    # A list is of summaries unless it asks for whole plans.
    [basic] = co.plans.list(creator_id=creator["id"])
    assert basic["context"] is None and basic["result"] is None and basic["milestones"] == plan["milestones"]
    [full] = co.plans.list(creator_id=creator["id"], view="full")
    assert full["context"] == plan["context"] and full["result"] == plan["result"]
    with pytest.raises(InvalidArgument) as e:
        list(co.plans.list(state="finished"))
    assert [f for f, _ in e.value.field_violations] == ["state"]


def test_check_off_skip_reopen_update_and_replan(co):
    job = co.engine.run("music", "release-strategy", release(in_days(80)))
    assert job["plan_id"] == ""
    plan = co.plans.create(job["id"], remind_days_before=5)
    assert plan["remind_days_before"] == 5
    first, second = sorted(plan["milestones"], key=lambda m: m["date"])[:2]

    done = co.plans.complete_milestone(plan["id"], first["key"])
    d = next(m for m in done["milestones"] if m["key"] == first["key"])
    assert d["state"] == "done" and d["done_at"]
    skipped = co.plans.skip_milestone(plan["id"], second["key"])
    assert next(m for m in skipped["milestones"] if m["key"] == second["key"])["state"] == "skipped"
    reopened = co.plans.reopen_milestone(plan["id"], second["key"])
    r = next(m for m in reopened["milestones"] if m["key"] == second["key"])
    assert r["state"] == "pending" and r["done_at"] is None
    with pytest.raises(NotFound):
        co.plans.complete_milestone(plan["id"], "no-such-milestone")

    updated = co.plans.update(plan["id"], remind_days_before=0, auto_replan=False)
    assert updated["remind_days_before"] == 0 and updated["auto_replan"] is False
    assert co.plans.update(plan["id"])["remind_days_before"] == 0, "None leaves a setting as it is"
    with pytest.raises(InvalidArgument) as e:
        co.plans.update(plan["id"], remind_days_before=61)
    assert [f for f, _ in e.value.field_violations] == ["remind_days_before"]

    out = co.plans.replan(plan["id"], context={"release_date": in_days(94)})
    nxt, changes = out["plan"], out["changes"]
    assert nxt["revision"] == 2 and nxt["context"]["release_date"] == in_days(94)
    kept = next(m for m in nxt["milestones"] if m["key"] == first["key"])
    assert kept["state"] == "done" and kept["date"] == first["date"]
    moved = [c for c in changes if c["change"] == "moved"]
    assert moved and all(c["to_date"] > c["from_date"] for c in moved)
    assert first["key"] not in {c["key"] for c in moved}
    assert any(c["key"] == first["key"] and c["change"] == "kept" for c in changes)
    with pytest.raises(InvalidArgument):
        co.plans.replan(plan["id"], as_of="tomorrow")


def test_calendar_feed_url_and_revocation(co, server):
    job = co.engine.run("music", "release-strategy", release(in_days(75)), track=True)
    plan = co.plans.get(job["plan_id"])
    ics = co.plans.calendar(plan["id"])
    assert ics.startswith("BEGIN:VCALENDAR\r\n")

    feed = co.plans.create_feed(plan["id"])
    assert "/v1/plans/" + plan["id"] + "/calendar.ics?" in feed["url"] and feed["created_at"]
    assert co.plans.get(plan["id"])["feed_active"] is True
    # A calendar app sends no key: the URL alone is enough.
    with urllib.request.urlopen(feed["url"], timeout=10) as res:
        assert res.headers["Content-Type"].startswith("text/calendar")
        assert res.read().decode() == ics

    assert co.plans.revoke_feed(plan["id"])["feed_active"] is False
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(feed["url"], timeout=10)
    assert e.value.code == 404

    with pytest.raises(NotFound):
        co.plans.calendar("plan_01kaaaaaaaaaaaaaaaaaaaaaaa")
    co.plans.delete(plan["id"])
    with pytest.raises(NotFound):
        co.plans.get(plan["id"])


def test_the_calendar_parses_with_icalendar(co):
    icalendar = pytest.importorskip("icalendar", reason="Debian's python3-icalendar is not installed")
    job = co.engine.run("music", "release-strategy", release(in_days(75)), track=True)
    plan = co.plans.get(job["plan_id"])
    cal = icalendar.Calendar.from_ical(co.plans.calendar(plan["id"]))
    events = cal.walk("VEVENT")
    assert len(events) == len(plan["milestones"])
    by_date = sorted((e.decoded("DTSTART").isoformat(), str(e.get("SUMMARY"))) for e in events)
    assert [d for d, _ in by_date] == sorted(m["date"] for m in plan["milestones"])
    assert all(isinstance(e.decoded("DTSTART"), datetime.date) and not isinstance(e.decoded("DTSTART"), datetime.datetime)
               for e in events), "all-day events"
    uids = {str(e.get("UID")) for e in events}
    assert len(uids) == len(events)

    # A re-plan updates the same events (same UIDs) with a higher SEQUENCE.
    first = sorted(plan["milestones"], key=lambda m: m["date"])[0]
    co.plans.complete_milestone(plan["id"], first["key"])
    co.plans.replan(plan["id"], context={"release_date": in_days(89)})
    after = icalendar.Calendar.from_ical(co.plans.calendar(plan["id"])).walk("VEVENT")
    assert {str(e.get("UID")) for e in after} >= uids - {""}
    before_seq = max(int(e.get("SEQUENCE", 0)) for e in events)
    assert max(int(e.get("SEQUENCE", 0)) for e in after) > before_seq


def test_a_key_without_plans_scopes_is_refused(co, server):
    base, _ = server
    k = co.keys.create("no-plans", ["engine:read"])
    limited = CreativeOps(api_key=k["secret"], base_url=base)
    with pytest.raises(PermissionDenied) as e:
        limited.plans.get("plan_01kaaaaaaaaaaaaaaaaaaaaaaa")
    assert "plans:read" in str(e.value)
    with pytest.raises(PermissionDenied):
        limited.plans.calendar("plan_01kaaaaaaaaaaaaaaaaaaaaaaa")


def test_the_docs_example(server):
    api_key = server[1]
    base_url = server[0]
    release_date, later_date = in_days(75), in_days(89)
    # --- docs/plans.md: Python ---
    from creativeops import CreativeOps

    co = CreativeOps(api_key=api_key, base_url=base_url)

    # Run a workflow and keep its plan.
    job = co.engine.run("music", "release-strategy",
                        {"artist": "Nova Reyes", "genre": "indie pop", "release_date": release_date}, track=True)
    plan = co.plans.get(job["plan_id"])

    # Check off the first milestone.
    first = min(plan["milestones"], key=lambda m: m["date"])
    co.plans.complete_milestone(plan["id"], first["key"])

    # The release slips two weeks: re-plan, and see what moved.
    out = co.plans.replan(plan["id"], context={"release_date": later_date})
    for c in out["changes"]:
        print(f'{c["key"]}: {c["change"]} {c["from_date"]} -> {c["to_date"]}')

    # A URL for Google Calendar or Apple Calendar (shown once; revoke it with revoke_feed).
    url = co.plans.create_feed(plan["id"])["url"]
    # --- end ---
    assert out["plan"]["revision"] == 2
    assert any(c["change"] == "moved" for c in out["changes"])
    assert urllib.request.urlopen(url, timeout=10).status == 200
