import { useEffect, useState } from "preact/hooks";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Job } from "@creativeops/client";
import type { PageProps } from "../main";
import { hasScope } from "../session";
import { navigate } from "../router";
import { downloadJSON, Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";

export function WorkflowsPage({ api }: PageProps) {
  const verticals = useAsync(() => api.engine.listVerticals(), []);
  const [vertical, setVertical] = useState("");
  const [q, setQ] = useState("");
  const workflows = useAsync(() => api.engine.listWorkflows(vertical ? { vertical } : {}), [vertical]);
  const shown = (workflows.data ?? []).filter((w) => !q || (w.name + " " + w.description + " " + w.id).toLowerCase().includes(q.toLowerCase()));
  return (
    <>
      <PageHeader title="Workflows" />
      <form class="card filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="wf-vertical">Vertical</label>
          <select id="wf-vertical" value={vertical} onChange={(e) => setVertical((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">All verticals</option>
            {verticals.data?.map((v) => (
              <option key={v.key} value={v.key}>
                {v.name} ({v.workflowCount})
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="wf-q">Search</label>
          <input id="wf-q" type="search" value={q} onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)} placeholder="release, launch, submission…" />
        </div>
      </form>
      <ErrorBox error={verticals.error} title="The verticals could not be loaded" />
      {workflows.loading && <Loading what="workflows" />}
      <ErrorBox error={workflows.error} title="The workflows could not be loaded" />
      {workflows.data && shown.length === 0 && <Empty>No workflow matches.</Empty>}
      <ul class="list cards">
        {shown.map((w) => (
          <li key={w.id} class="card">
            <h2>
              <a href={`/dashboard/workflows/${w.id}`}>{w.name}</a>
            </h2>
            <p class="help">
              {w.vertical} · <code>{w.id}</code>
            </p>
            <p>{w.description}</p>
          </li>
        ))}
      </ul>
    </>
  );
}

export interface Schema {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: JsonValue[];
  format?: string;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  default?: JsonValue;
}

type Kind = "string" | "date" | "enum" | "integer" | "number" | "boolean" | "list" | "json";

function kindOf(s: Schema): Kind {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  if (s.enum) return "enum";
  if (t === "string") return s.format === "date" ? "date" : "string";
  if (t === "integer" || t === "number" || t === "boolean") return t;
  if (t === "array" && s.items && (s.items.type === "string" || s.items.enum)) return "list";
  return "json";
}

/** One input per top-level property of the workflow's JSON Schema; nested objects and lists of objects are edited as JSON. */
export function Field({ name, s, required, value }: { name: string; s: Schema; required: boolean; value: JsonValue | undefined }) {
  const id = `f-${name}`;
  const kind = kindOf(s);
  const help = s.description ?? "";
  const label = (
    <label for={id}>
      {name}
      {required ? <span aria-hidden="true"> *</span> : <span class="help"> (optional)</span>}
    </label>
  );
  const described = help ? `${id}-help` : undefined;
  let input;
  switch (kind) {
    case "enum":
      input = (
        <select id={id} name={name} required={required} aria-describedby={described} data-kind={kind}>
          {!required && <option value="">—</option>}
          {s.enum!.map((v) => (
            <option key={String(v)} value={String(v)} selected={v === value}>
              {String(v)}
            </option>
          ))}
        </select>
      );
      break;
    case "boolean":
      input = (
        <select id={id} name={name} aria-describedby={described} data-kind={kind}>
          {!required && <option value="">—</option>}
          <option value="true" selected={value === true}>
            true
          </option>
          <option value="false" selected={value === false}>
            false
          </option>
        </select>
      );
      break;
    case "integer":
    case "number":
      input = (
        <input
          id={id}
          name={name}
          type="number"
          step={kind === "integer" ? 1 : "any"}
          min={s.minimum}
          max={s.maximum}
          required={required}
          value={value === undefined ? "" : String(value)}
          aria-describedby={described}
          data-kind={kind}
        />
      );
      break;
    case "json":
      input = (
        <textarea id={id} name={name} rows={Math.min(12, Math.max(3, JSON.stringify(value ?? null, null, 2).split("\n").length))} required={required} aria-describedby={described} data-kind={kind} spellcheck={false}>
          {value === undefined ? "" : JSON.stringify(value, null, 2)}
        </textarea>
      );
      break;
    case "list":
      input = (
        <input id={id} name={name} required={required} value={Array.isArray(value) ? value.join(", ") : ""} aria-describedby={described} data-kind={kind} />
      );
      break;
    default:
      input = (
        <input id={id} name={name} type={kind === "date" ? "date" : "text"} required={required} value={value === undefined ? "" : String(value)} aria-describedby={described} data-kind={kind} />
      );
  }
  return (
    <div class={"field" + (kind === "json" ? " wide" : "")}>
      {label}
      {input}
      {help && (
        <p id={described} class="help">
          {help}
          {kind === "list" && " Separate values with commas."}
          {kind === "json" && " JSON."}
        </p>
      )}
    </div>
  );
}

/** Reads the form back into a context object; a field left empty is left out. */
export function readContext(form: HTMLFormElement, props: Record<string, Schema>): JsonObject {
  const ctx: JsonObject = {};
  for (const [name, s] of Object.entries(props)) {
    const el = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null;
    if (!el) continue;
    const raw = el.value.trim();
    if (raw === "") continue;
    switch (kindOf(s)) {
      case "integer":
      case "number":
        ctx[name] = Number(raw);
        break;
      case "boolean":
        ctx[name] = raw === "true";
        break;
      case "list":
        ctx[name] = raw
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean);
        break;
      case "json":
        try {
          ctx[name] = JSON.parse(raw) as JsonValue;
        } catch (e) {
          throw new Error(`${name}: not valid JSON (${(e as Error).message})`);
        }
        break;
      case "enum": {
        const match = s.enum!.find((v) => String(v) === raw);
        ctx[name] = match ?? raw;
        break;
      }
      default:
        ctx[name] = raw;
    }
  }
  return ctx;
}

function isObj(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A readable result: strategy, timeline as a timeline, recommendations as a list, warnings, the rest as JSON. */
function Result({ job }: { job: Job }) {
  const r = job.result ?? {};
  const timeline = isObj(r.timeline) ? r.timeline : undefined;
  const milestones = timeline && Array.isArray(timeline.milestones) ? timeline.milestones.filter(isObj) : [];
  const recs = Array.isArray(r.recommendations) ? r.recommendations.filter(isObj) : [];
  const warnings = Array.isArray(r.warnings) ? r.warnings.filter(isObj) : [];
  const shown = new Set(["strategy", "timeline", "recommendations", "warnings"]);
  const rest = Object.fromEntries(Object.entries(r).filter(([k]) => !shown.has(k)));
  return (
    <section class="result" aria-labelledby="result-title">
      <h2 id="result-title">Result</h2>
      {typeof r.strategy === "string" && <p class="strategy">{r.strategy}</p>}
      {warnings.length > 0 && (
        <div class="warnings" role="note">
          <h3>Warnings</h3>
          <ul>
            {warnings.map((w, i) => (
              <li key={i}>
                <code>{String(w.code ?? "")}</code> {String(w.message ?? "")}
              </li>
            ))}
          </ul>
        </div>
      )}
      {milestones.length > 0 && (
        <>
          <h3>Timeline</h3>
          {typeof timeline?.requested_date === "string" && (
            <p class="help">
              Requested {timeline.requested_date}; planned on {String(timeline.feasible_date ?? "")}.
            </p>
          )}
          <ol class="timeline" data-testid="timeline">
            {milestones.map((m, i) => (
              <li key={i} class={m.passed ? "passed" : ""}>
                <time dateTime={String(m.date ?? "")}>{String(m.date ?? "")}</time>
                <span class="title">{String(m.title ?? m.key ?? "")}</span>
                {m.deliverable === true && <span class="badge">deliverable</span>}
                {m.passed === true && <span class="badge">passed</span>}
              </li>
            ))}
          </ol>
        </>
      )}
      {recs.length > 0 && (
        <>
          <h3>Recommendations</h3>
          <ul class="recs">
            {recs.map((rec, i) => (
              <li key={i}>
                <strong>{String(rec.title ?? "")}</strong>
                {rec.priority !== undefined && <span class={"badge prio-" + String(rec.priority)}>{String(rec.priority)}</span>}
                {rec.due_date !== undefined && <span class="help"> by {String(rec.due_date)}</span>}
                {rec.detail !== undefined && <p>{String(rec.detail)}</p>}
              </li>
            ))}
          </ul>
        </>
      )}
      {Object.keys(rest).length > 0 && (
        <details>
          <summary>Other result fields</summary>
          <pre>{JSON.stringify(rest, null, 2)}</pre>
        </details>
      )}
    </section>
  );
}

/** Keeps a completed run's plan as a tracked plan (POST /v1/plans), or links to the one it already is. */
function TrackButton({ api, session, job }: Pick<PageProps, "api" | "session"> & { job: Job }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  if (job.planId) {
    return <a href={`/dashboard/plans/${job.planId}`}>Tracked as {job.planId}</a>;
  }
  if (!hasScope(session, "plans:write")) return null;
  return (
    <>
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(undefined);
          try {
            const plan = await api.plans.create({ jobId: job.id });
            navigate(`/plans/${plan.id}`);
          } catch (e) {
            setError(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        Track this plan
      </button>
      <ErrorBox error={error} title="The plan could not be tracked" />
    </>
  );
}

const terminal = new Set(["completed", "failed", "canceled"]);

export function WorkflowRun({ api, session, param }: PageProps) {
  const wf = useAsync(() => api.engine.getWorkflow(param), [param]);
  const [job, setJob] = useState<Job>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const canRun = hasScope(session, "engine:run");
  // Follow an async job until it ends.
  useEffect(() => {
    if (!job || terminal.has(job.status)) return;
    const t = setTimeout(() => {
      api.engine.getJob(job.id).then(setJob, setError);
    }, 700);
    return () => clearTimeout(t);
  }, [job]);
  const schema = (wf.data?.inputSchema ?? {}) as Schema;
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const example = (wf.data?.exampleContext ?? {}) as JsonObject;
  const run = async (form: HTMLFormElement, async: boolean) => {
    setError(undefined);
    setJob(undefined);
    let context: JsonObject;
    try {
      context = readContext(form, props);
    } catch (e) {
      setError(e);
      return;
    }
    setBusy(true);
    try {
      setJob(await api.engine.run({ vertical: wf.data!.vertical, workflow: wf.data!.id, context, async }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <PageHeader title={wf.data?.name ?? "Workflow"}>
        <a href="/dashboard/workflows">All workflows</a>
      </PageHeader>
      {wf.loading && <Loading what="the workflow" />}
      <ErrorBox error={wf.error} title="The workflow could not be loaded" />
      {wf.data && (
        <>
          <p>{wf.data.description}</p>
          <p class="help">
            Steps: {wf.data.steps.join(" → ")}
          </p>
          <form
            class="card run-form"
            aria-label="Run context"
            onSubmit={(e) => {
              e.preventDefault();
              const submitter = (e as SubmitEvent).submitter as HTMLButtonElement | null;
              void run(e.currentTarget as HTMLFormElement, submitter?.value === "async");
            }}
          >
            <p class="help">Prefilled with the workflow's example. Fields marked * are required.</p>
            <div class="fields">
              {Object.entries(props).map(([name, s]) => (
                <Field key={name} name={name} s={s} required={required.has(name)} value={example[name] ?? s.default} />
              ))}
            </div>
            {canRun ? (
              <div class="row">
                <button type="submit" name="mode" value="sync" disabled={busy}>
                  Run
                </button>
                <button type="submit" name="mode" value="async" class="secondary" disabled={busy}>
                  Run in background
                </button>
              </div>
            ) : (
              <p class="help">
                Running needs the <code>engine:run</code> scope.
              </p>
            )}
          </form>
        </>
      )}
      {busy && <Loading what="the run" />}
      <ErrorBox error={error} title="The run did not start" />
      {job && (
        <section class="card" aria-labelledby="job-title" aria-live="polite">
          <h2 id="job-title">
            Job <code>{job.id}</code>
          </h2>
          <p>
            <span class={"status " + job.status}>{job.status}</span> · created {fmtTime(job.createdAt)}
            {job.completedAt && ` · finished ${fmtTime(job.completedAt)}`} · attempt {job.attempts}
          </p>
          <label for="job-progress">Progress</label>
          <progress id="job-progress" max={100} value={job.progress}>
            {job.progress}%
          </progress>
          {job.error && (
            <div class="error" role="alert">
              <strong>{job.error.code}</strong> {job.error.message} {job.error.step && `(step ${job.error.step})`}
            </div>
          )}
          {job.status === "completed" && (
            <>
              <div class="row">
                <button type="button" class="secondary" onClick={() => downloadJSON(`${job.id}.json`, { id: job.id, vertical: job.vertical, workflow: job.workflow, context: job.context, result: job.result })}>
                  Download JSON
                </button>
                <TrackButton api={api} session={session} job={job} />
              </div>
              <Result job={job} />
            </>
          )}
        </section>
      )}
    </>
  );
}
