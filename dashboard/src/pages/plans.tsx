// Tracked plans: the list with what is due this week across them, and one
// plan's timeline with check-offs, re-planning (with the workflow's own
// form) and its calendar feed URL.
import { useState } from "preact/hooks";
import type { JsonObject } from "@bufbuild/protobuf";
import type { MilestoneChange, Plan } from "@creativeops/client";
import { byDate, dueThisWeek, isOverdue, today } from "../due";
import type { PageProps } from "../main";
import { navigate } from "../router";
import { hasScope } from "../session";
import { all, ConfirmButton, CopyButton, Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";
import { Field, readContext } from "./workflows";
import type { Schema } from "./workflows";

function planName(p: Plan): string {
  const ctx = (p.context ?? {}) as JsonObject;
  const who = [ctx.artist, ctx.title, ctx.name, ctx.project].find((v) => typeof v === "string" && v !== "");
  return `${p.workflow}${who ? ` · ${String(who)}` : ""}`;
}

export function PlansPage({ api }: PageProps) {
  const [state, setState] = useState("active");
  const plans = useAsync(() => all(api.plans.list(state ? { state } : {})), [state]);
  // The panel reads every active plan, whatever the list's filter.
  const active = useAsync(() => all(api.plans.list({ state: "active" })), []);
  const due = dueThisWeek(active.data ?? []);
  return (
    <>
      <PageHeader title="Plans" />
      <section class="card" aria-labelledby="due-title" data-testid="due-this-week">
        <h2 id="due-title">Due this week</h2>
        {active.loading && !active.data && <Loading what="what is due" />}
        <ErrorBox error={active.error} title="What is due could not be loaded" />
        {active.data && due.length === 0 && <p class="help">Nothing is due in the next seven days, and nothing is overdue.</p>}
        {due.length > 0 && (
          <ul class="list due">
            {due.map(({ plan, milestone: m, overdue }) => (
              <li key={plan.id + m.key} class={overdue ? "overdue" : ""}>
                <time dateTime={m.date}>{m.date}</time> <span class="title">{m.title}</span>
                {overdue && <span class="badge overdue">overdue</span>}
                {m.deliverable && <span class="badge">deliverable</span>}{" "}
                <a href={`/dashboard/plans/${plan.id}`}>{planName(plan)}</a>
              </li>
            ))}
          </ul>
        )}
      </section>
      <form class="card filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="plan-state">State</label>
          <select id="plan-state" value={state} onChange={(e) => setState((e.currentTarget as HTMLSelectElement).value)}>
            <option value="active">Active</option>
            <option value="completed">Completed</option>
            <option value="">All</option>
          </select>
        </div>
      </form>
      {plans.loading && <Loading what="plans" />}
      <ErrorBox error={plans.error} title="The plans could not be loaded" />
      {plans.data && plans.data.length === 0 && (
        <Empty>
          No plans here. Run a workflow and choose <strong>Track this plan</strong>, or run it with <code>"track": true</code>.
        </Empty>
      )}
      {plans.data && plans.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Plan</th>
                <th scope="col">Workflow</th>
                <th scope="col">State</th>
                <th scope="col">Next milestone</th>
                <th scope="col">Done</th>
                <th scope="col">Revision</th>
              </tr>
            </thead>
            <tbody>
              {plans.data.map((p) => {
                const next = byDate(p.milestones).find((m) => m.state === "pending");
                const done = p.milestones.filter((m) => m.state !== "pending").length;
                return (
                  <tr key={p.id} data-plan-id={p.id}>
                    <th scope="row">
                      <a href={`/dashboard/plans/${p.id}`}>
                        <code>{p.id}</code>
                      </a>
                    </th>
                    <td>
                      {planName(p)} <span class="help">({p.vertical})</span>
                    </td>
                    <td>
                      <span class={"status " + p.state}>{p.state}</span>
                    </td>
                    <td>{next ? `${next.date} ${next.title}` : "—"}</td>
                    <td>
                      {done} / {p.milestones.length}
                    </td>
                    <td>{p.revision}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

const changeWords: Record<string, string> = { moved: "moved", added: "added", removed: "removed", kept: "kept (done)" };

function Changes({ changes }: { changes: MilestoneChange[] }) {
  return (
    <section class="card" aria-labelledby="changes-title" aria-live="polite" data-testid="changes">
      <h2 id="changes-title">What the re-plan changed</h2>
      {changes.length === 0 ? (
        <p class="help">No milestone moved.</p>
      ) : (
        <ul class="list">
          {changes.map((c) => (
            <li key={c.key} data-change={c.change} data-key={c.key}>
              <span class="badge">{changeWords[c.change] ?? c.change}</span> {c.title}{" "}
              {c.change === "moved" && (
                <span>
                  <del>{c.fromDate}</del> → <ins>{c.toDate}</ins>
                </span>
              )}
              {c.change === "added" && <span>on {c.toDate}</span>}
              {c.change === "removed" && <span>was {c.fromDate}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ReplanForm({ api, plan, onReplanned }: Pick<PageProps, "api"> & { plan: Plan; onReplanned: (p: Plan, c: MilestoneChange[]) => void }) {
  const wf = useAsync(() => api.engine.getWorkflow(plan.workflow), [plan.workflow]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const schema = (wf.data?.inputSchema ?? {}) as Schema;
  const props = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([name]) => name !== "as_of"));
  const required = new Set(schema.required ?? []);
  const ctx = (plan.context ?? {}) as JsonObject;
  return (
    <details class="card">
      <summary>Re-plan with a changed context</summary>
      {wf.loading && <Loading what="the workflow's form" />}
      <ErrorBox error={wf.error} title="The workflow could not be loaded" />
      {wf.data && (
        <form
          aria-label="Re-plan context"
          key={plan.revision}
          onSubmit={async (e) => {
            e.preventDefault();
            const form = e.currentTarget as HTMLFormElement;
            setError(undefined);
            let context: JsonObject;
            try {
              context = readContext(form, props);
            } catch (err) {
              setError(err);
              return;
            }
            // A field emptied in the form is removed from the plan's context.
            for (const name of Object.keys(props)) if (!(name in context) && name in ctx) context[name] = null;
            const asOf = (form.elements.namedItem("replan-as-of") as HTMLInputElement).value;
            setBusy(true);
            try {
              const res = await api.plans.replan(plan.id, { context, asOf });
              onReplanned(res.plan!, res.changes);
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <p class="help">
            The plan's context as revision {plan.revision} was made from it; change what changed. Done and skipped milestones keep their
            state.
          </p>
          <div class="fields">
            {Object.entries(props).map(([name, s]) => (
              <Field key={name} name={name} s={s} required={required.has(name)} value={ctx[name]} />
            ))}
            <div class="field">
              <label for="replan-as-of">
                Plan as of <span class="help">(optional)</span>
              </label>
              <input id="replan-as-of" name="replan-as-of" type="date" aria-describedby="replan-as-of-help" />
              <p id="replan-as-of-help" class="help">
                Default: today in {plan.timeZone || "UTC"}.
              </p>
            </div>
          </div>
          <button type="submit" disabled={busy}>
            {busy ? "Re-planning…" : "Re-plan"}
          </button>
          <ErrorBox error={error} title="The plan could not be re-planned" />
        </form>
      )}
    </details>
  );
}

function Feed({ api, plan, canWrite, onChange }: Pick<PageProps, "api"> & { plan: Plan; canWrite: boolean; onChange: (p: Plan) => void }) {
  const [url, setUrl] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <section class="card" aria-labelledby="feed-title">
      <h2 id="feed-title">Calendar feed</h2>
      <p class="help">
        A secret URL to subscribe to in Google Calendar (Other calendars → From URL) or Apple Calendar (File → New Calendar
        Subscription): one all-day event per milestone, updated when the plan changes. Anyone with the URL sees this plan's calendar.
      </p>
      <p>{plan.feedActive ? <span class="status active">active</span> : <span class="status disabled">none</span>}</p>
      {url && (
        <div class="card secret" role="status">
          <strong>Copy the feed URL now: it is not shown again.</strong>
          <p>
            <code class="secret-value" data-testid="feed-url">
              {url}
            </code>
          </p>
          <CopyButton text={url} label="Copy URL" />
        </div>
      )}
      {canWrite && (
        <div class="row">
          <button
            type="button"
            class={plan.feedActive ? "secondary" : ""}
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              setError(undefined);
              try {
                const feed = await api.plans.createFeed(plan.id);
                setUrl(feed.url);
                onChange({ ...plan, feedActive: true });
              } catch (e) {
                setError(e);
              } finally {
                setBusy(false);
              }
            }}
          >
            {plan.feedActive ? "Replace feed URL" : "Create feed URL"}
          </button>
          {plan.feedActive && (
            <ConfirmButton
              label="Revoke feed URL"
              question="Revoke the calendar feed URL?"
              confirmLabel="Revoke"
              danger
              onConfirm={async () => {
                setError(undefined);
                try {
                  onChange(await api.plans.revokeFeed(plan.id));
                  setUrl(undefined);
                } catch (e) {
                  setError(e);
                }
              }}
            >
              <p>Calendars subscribed to it stop updating; the URL answers 404.</p>
            </ConfirmButton>
          )}
        </div>
      )}
      <ErrorBox error={error} title="The feed could not be changed" />
    </section>
  );
}

export function PlanDetail({ api, session, param }: PageProps) {
  const loaded = useAsync(() => api.plans.get(param), [param]);
  const [override, setOverride] = useState<Plan>();
  const [changes, setChanges] = useState<MilestoneChange[]>();
  const [error, setError] = useState<unknown>();
  const [busyKey, setBusyKey] = useState("");
  const plan = override?.id === param ? override : loaded.data;
  const canWrite = hasScope(session, "plans:write");
  const act = async (key: string, fn: () => Promise<Plan>) => {
    setBusyKey(key);
    setError(undefined);
    try {
      setOverride(await fn());
    } catch (e) {
      setError(e);
    } finally {
      setBusyKey("");
    }
  };
  const t = plan ? today(plan.timeZone || "UTC") : "";
  return (
    <>
      <PageHeader title={plan ? planName(plan) : "Plan"}>
        <a href="/dashboard/plans">All plans</a>
      </PageHeader>
      {loaded.loading && !plan && <Loading what="the plan" />}
      <ErrorBox error={loaded.error} title="The plan could not be loaded" />
      {plan && (
        <>
          <dl class="fields-list">
            <dt>Plan</dt>
            <dd>
              <code>{plan.id}</code>
            </dd>
            <dt>Workflow</dt>
            <dd>
              <a href={`/dashboard/workflows/${plan.workflow}`}>{plan.workflow}</a> ({plan.vertical})
            </dd>
            <dt>State</dt>
            <dd>
              <span class={"status " + plan.state}>{plan.state}</span>
            </dd>
            <dt>Revision</dt>
            <dd data-testid="revision">
              {plan.revision}, planned as of {plan.asOf} ({plan.timeZone || "UTC"}) · job <code>{plan.jobId}</code>
            </dd>
            {plan.creatorId && (
              <>
                <dt>Creator</dt>
                <dd>
                  <code>{plan.creatorId}</code>
                </dd>
              </>
            )}
            <dt>Reminders</dt>
            <dd>
              {plan.remindDaysBefore > 0 ? `${plan.remindDaysBefore} days before and on the day` : "on the day"}; automatic re-plan{" "}
              {plan.autoReplan ? "on" : "off"}
            </dd>
            <dt>Updated</dt>
            <dd>{fmtTime(plan.updatedAt)}</dd>
          </dl>
          {changes && <Changes changes={changes} />}
          <section aria-labelledby="timeline-title">
            <h2 id="timeline-title">Timeline</h2>
            <ErrorBox error={error} title="The milestone could not be changed" />
            <ol class="timeline plan-timeline" data-testid="plan-timeline">
              {byDate(plan.milestones).map((m) => {
                const overdue = isOverdue(m, t);
                return (
                  <li key={m.key} data-key={m.key} data-state={m.state} class={[m.state, overdue ? "overdue" : ""].join(" ")}>
                    <time dateTime={m.date}>{m.date}</time>
                    <span class="title">{m.title}</span>
                    <span class={"status " + m.state}>{m.state}</span>
                    {overdue && <span class="badge overdue">overdue</span>}
                    {m.deliverable && <span class="badge">deliverable</span>}
                    {m.state !== "pending" && m.doneAt && <span class="help"> {fmtTime(m.doneAt)}</span>}
                    {canWrite && (
                      <span class="row actions">
                        {m.state === "pending" ? (
                          <>
                            <button type="button" disabled={busyKey === m.key} aria-label={`Done: ${m.title}`} onClick={() => act(m.key, () => api.plans.complete(plan.id, m.key))}>
                              Done
                            </button>
                            <button type="button" class="secondary" disabled={busyKey === m.key} aria-label={`Skip: ${m.title}`} onClick={() => act(m.key, () => api.plans.skip(plan.id, m.key))}>
                              Skip
                            </button>
                          </>
                        ) : (
                          <button type="button" class="secondary" disabled={busyKey === m.key} aria-label={`Reopen: ${m.title}`} onClick={() => act(m.key, () => api.plans.reopen(plan.id, m.key))}>
                            Reopen
                          </button>
                        )}
                      </span>
                    )}
                  </li>
                );
              })}
            </ol>
          </section>
          {canWrite && (
            <ReplanForm
              api={api}
              plan={plan}
              onReplanned={(p, c) => {
                setOverride(p);
                setChanges(c);
              }}
            />
          )}
          <Feed api={api} plan={plan} canWrite={canWrite} onChange={setOverride} />
          {canWrite && (
            <div class="row">
              <ConfirmButton
                label="Stop tracking"
                question="Stop tracking this plan?"
                confirmLabel="Delete plan"
                danger
                onConfirm={async () => {
                  try {
                    await api.plans.delete(plan.id);
                    navigate("/plans");
                  } catch (e) {
                    setError(e);
                  }
                }}
              >
                <p>Its reminders stop and its calendar feed URL stops working.</p>
              </ConfirmButton>
            </div>
          )}
        </>
      )}
    </>
  );
}
