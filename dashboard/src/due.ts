// What is due when: the date arithmetic of the Plans page, on plain
// YYYY-MM-DD strings in each plan's own time zone (no JSX: unit-tested in
// test/due.test.mjs).
import type { Plan, PlanMilestone } from "@creativeops/client";

/** Today's date (YYYY-MM-DD) in an IANA time zone: the calendar days a plan's dates are in. */
export function today(timeZone: string, now = new Date()): string {
  try {
    return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
  } catch {
    return now.toISOString().slice(0, 10); // an unknown zone: UTC
  }
}

/** The date n days after a YYYY-MM-DD date. */
export function addDays(date: string, n: number): string {
  const d = new Date(date + "T00:00:00Z");
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** A pending milestone whose date has passed. */
export function isOverdue(m: Pick<PlanMilestone, "state" | "date">, todayDate: string): boolean {
  return m.state === "pending" && m.date < todayDate;
}

export interface DueItem {
  plan: Plan;
  milestone: PlanMilestone;
  overdue: boolean;
}

/** Pending milestones of active plans that are overdue or dated today to today + 7, soonest first (each plan's own today). */
export function dueThisWeek(plans: Plan[], now = new Date()): DueItem[] {
  const out: DueItem[] = [];
  for (const plan of plans) {
    if (plan.state !== "active") continue;
    const t = today(plan.timeZone || "UTC", now);
    const end = addDays(t, 7);
    for (const m of plan.milestones) {
      if (m.state === "pending" && m.date <= end) out.push({ plan, milestone: m, overdue: m.date < t });
    }
  }
  return out.sort((a, b) => a.milestone.date.localeCompare(b.milestone.date) || a.plan.id.localeCompare(b.plan.id));
}

/** Milestones in date order (then key, so the order is stable). */
export function byDate(ms: PlanMilestone[]): PlanMilestone[] {
  return [...ms].sort((a, b) => a.date.localeCompare(b.date) || a.key.localeCompare(b.key));
}

