import { useEffect, useState } from "preact/hooks";
import type { Delivery, Event, Webhook } from "@creativeops/client";
import type { PageProps } from "../main";
import { hasScope } from "../session";
import { all, ConfirmButton, CopyButton, Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";

const events: { type: string; what: string }[] = [
  { type: "engine.job.completed", what: "a workflow run finished" },
  { type: "engine.job.failed", what: "a workflow run failed" },
  { type: "ip.registered", what: "a work was registered" },
  { type: "creator.created", what: "a creator was created" },
  { type: "webhook.test", what: "a test sent from here" },
  { type: "webhook.disabled", what: "another endpoint was disabled by the service" },
  { type: "*", what: "every event, including future ones" },
];

/** The checks the browser can make before saving; the server makes them all again (and the SSRF ones). */
export function checkWebhookURL(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "url: must be an absolute URL such as https://hooks.example.com/creativeops";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return "url: must use https (or http where the server allows it)";
  if (u.username || u.password) return "url: must not carry a user name or password";
  if (u.hash) return "url: must not have a #fragment";
  return undefined;
}

function CreateWebhook({ api, onCreated }: PageProps & { onCreated: (w: Webhook) => void }) {
  const [error, setError] = useState<unknown>();
  const [urlProblem, setUrlProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="card"
      aria-labelledby="create-wh-title"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = e.currentTarget as HTMLFormElement;
        const data = new FormData(f);
        const url = String(data.get("url")).trim();
        const chosen = data.getAll("events").map(String);
        setError(undefined);
        const problem = checkWebhookURL(url);
        setUrlProblem(problem);
        if (problem) {
          (f.elements.namedItem("url") as HTMLInputElement).focus();
          return;
        }
        if (chosen.length === 0) {
          setError(new Error("events: choose at least one event"));
          return;
        }
        setBusy(true);
        try {
          const w = await api.webhooks.create({ url, events: chosen });
          f.reset();
          onCreated(w);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2 id="create-wh-title">Add an endpoint</h2>
      <label for="wh-url">Endpoint URL</label>
      <input
        id="wh-url"
        name="url"
        type="url"
        required
        maxLength={2048}
        placeholder="https://hooks.example.com/creativeops"
        aria-invalid={urlProblem ? "true" : undefined}
        aria-describedby="wh-url-help"
        onBlur={(e) => {
          const v = (e.currentTarget as HTMLInputElement).value.trim();
          setUrlProblem(v ? checkWebhookURL(v) : undefined);
        }}
      />
      <p id="wh-url-help" class={urlProblem ? "field-error" : "help"}>
        {urlProblem ?? "Deliveries are POSTed here, signed per Standard Webhooks, and retried for about 28 hours."}
      </p>
      <fieldset>
        <legend>Events</legend>
        <div class="checks">
          {events.map((ev) => (
            <label key={ev.type} class="check">
              <input type="checkbox" name="events" value={ev.type} /> <code>{ev.type}</code> <span class="help">{ev.what}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <button type="submit" disabled={busy}>
        {busy ? "Saving…" : "Add endpoint"}
      </button>
      <ErrorBox error={error} title="The webhook was not created" />
    </form>
  );
}

export function WebhooksPage(props: PageProps) {
  const { api, session } = props;
  const hooks = useAsync(() => all(api.webhooks.list()), []);
  const [created, setCreated] = useState<Webhook>();
  const canWrite = hasScope(session, "webhooks:write");
  return (
    <>
      <PageHeader title="Webhooks" />
      {created && (
        <section class="card secret" aria-labelledby="wh-secret-title">
          <h2 id="wh-secret-title">Signing secret of {created.url}</h2>
          <p>Copy it now: it is shown once. Verify every delivery with it.</p>
          <p class="row">
            <code class="secret-value">{created.secret}</code>
            <CopyButton text={created.secret ?? ""} />
          </p>
          <p>
            <a href={`/dashboard/webhooks/${created.id}`}>Open the endpoint to send a test</a>
          </p>
          <button type="button" class="secondary" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </section>
      )}
      {canWrite && (
        <CreateWebhook
          {...props}
          onCreated={(w) => {
            setCreated(w);
            hooks.reload();
          }}
        />
      )}
      <section aria-labelledby="wh-list-title">
        <h2 id="wh-list-title">Endpoints</h2>
        {hooks.loading && !hooks.data && <Loading what="webhooks" />}
        <ErrorBox error={hooks.error} title="The webhooks could not be loaded" />
        {hooks.data?.length === 0 && <Empty>No endpoints yet. Add one to receive events.</Empty>}
        {hooks.data && hooks.data.length > 0 && (
          <ul class="list">
            {hooks.data.map((w) => (
              <li key={w.id} class="card">
                <a href={`/dashboard/webhooks/${w.id}`}>{w.url}</a>
                <div class="help">
                  <span class={"status " + w.status}>{w.status}</span> · {w.events.join(", ")} · created {fmtTime(w.createdAt)}
                  {w.disabledReason && ` · ${w.disabledReason}`}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

function DeliveryRow({ d, onRedeliver, canWrite }: { d: Delivery; onRedeliver: () => void; canWrite: boolean }) {
  return (
    <tr data-delivery-id={d.id}>
      <th scope="row">
        <code>{d.eventType}</code>
        <div class="help">{d.eventId}</div>
      </th>
      <td>
        <span class={"status " + d.status}>{d.status}</span>
        {d.lastError && <div class="help">{d.lastError}</div>}
      </td>
      <td>{d.attempts}</td>
      <td>{d.responseStatus || "—"}</td>
      <td>{d.latencyMs ? `${d.latencyMs} ms` : "—"}</td>
      <td>{fmtTime(d.createdAt)}</td>
      <td>{fmtTime(d.nextRetryAt)}</td>
      <td>
        {canWrite && (
          <button type="button" class="secondary" onClick={onRedeliver}>
            Redeliver
          </button>
        )}
      </td>
    </tr>
  );
}

function EditWebhook({ api, hook, onSaved }: PageProps & { hook: Webhook; onSaved: (w: Webhook) => void }) {
  const [error, setError] = useState<unknown>();
  const [urlProblem, setUrlProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="card"
      aria-labelledby="edit-wh-title"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = e.currentTarget as HTMLFormElement;
        const data = new FormData(f);
        const url = String(data.get("url")).trim();
        const description = String(data.get("description") ?? "");
        const chosen = data.getAll("events").map(String);
        setError(undefined);
        const problem = checkWebhookURL(url);
        setUrlProblem(problem);
        if (problem) return;
        if (chosen.length === 0) {
          setError(new Error("events: choose at least one event"));
          return;
        }
        setBusy(true);
        try {
          onSaved(await api.webhooks.update(hook.id, { url, events: chosen, description, updateMask: { paths: ["url", "events", "description"] } }));
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2 id="edit-wh-title">Edit the endpoint</h2>
      <label for="wh-edit-url">Endpoint URL</label>
      <input id="wh-edit-url" name="url" type="url" required maxLength={2048} defaultValue={hook.url} aria-invalid={urlProblem ? "true" : undefined} />
      {urlProblem && <p class="field-error">{urlProblem}</p>}
      <label for="wh-edit-description">Description</label>
      <input id="wh-edit-description" name="description" maxLength={500} defaultValue={hook.description} />
      <fieldset>
        <legend>Events</legend>
        <div class="checks">
          {events.map((ev) => (
            <label key={ev.type} class="check">
              <input type="checkbox" name="events" value={ev.type} defaultChecked={hook.events.includes(ev.type)} /> <code>{ev.type}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <button type="submit" disabled={busy}>
        {busy ? "Saving…" : "Save changes"}
      </button>
      <ErrorBox error={error} title="The endpoint was not changed" />
    </form>
  );
}

export function WebhookDetail(props: PageProps) {
  const { api, session, param } = props;
  const hook = useAsync(() => api.webhooks.get(param), [param]);
  const [rotated, setRotated] = useState<Webhook>();
  const deliveries = useAsync(() => all(api.webhooks.deliveries(param), 200), [param]);
  const [actionError, setActionError] = useState<unknown>();
  const [note, setNote] = useState<string>();
  const canWrite = hasScope(session, "webhooks:write");
  // While a delivery is pending, look again every 2 s.
  const pending = deliveries.data?.some((d) => d.status === "pending") ?? false;
  useEffect(() => {
    if (!pending) return;
    const t = setTimeout(deliveries.reload, 2000);
    return () => clearTimeout(t);
  }, [pending, deliveries.data]);
  const act = async (f: () => Promise<unknown>, done: string) => {
    setActionError(undefined);
    setNote(undefined);
    try {
      await f();
      setNote(done);
    } catch (err) {
      setActionError(err);
    }
    deliveries.reload();
    hook.reload();
  };
  return (
    <>
      <PageHeader title="Webhook endpoint">
        <a href="/dashboard/webhooks">All endpoints</a>
      </PageHeader>
      {hook.loading && !hook.data && <Loading what="the endpoint" />}
      <ErrorBox error={hook.error} title="The endpoint could not be loaded" />
      {hook.data && (
        <section class="card">
          <p>
            <code class="url">{hook.data.url}</code>
          </p>
          {hook.data.description && <p>{hook.data.description}</p>}
          <p class="help">
            <span class={"status " + hook.data.status}>{hook.data.status}</span> · {hook.data.events.join(", ")}
            {hook.data.disabledReason && ` · ${hook.data.disabledReason}`}
            {hook.data.disabledAt && ` since ${fmtTime(hook.data.disabledAt)}`}
            {hook.data.consecutiveFailures > 0 && ` · ${hook.data.consecutiveFailures} failed deliveries in a row`}
            {hook.data.previousSecretExpiresAt && ` · the previous secret also signs until ${fmtTime(hook.data.previousSecretExpiresAt)}`}
          </p>
          {canWrite && (
            <div class="row">
              <button type="button" onClick={() => act(() => api.webhooks.test(param), "Test event sent: its delivery is below.")}>
                Send test event
              </button>
              {hook.data.status === "active" ? (
                <ConfirmButton
                  label="Disable"
                  question="Disable this endpoint? It receives nothing until enabled, and its pending deliveries fail."
                  confirmLabel="Disable"
                  onConfirm={async () => {
                    await act(() => api.webhooks.disable(param), "Disabled.");
                  }}
                />
              ) : (
                <button type="button" onClick={() => act(() => api.webhooks.enable(param), "Enabled: it receives new events again.")}>
                  Enable
                </button>
              )}
              <ConfirmButton
                label="Rotate secret"
                question="Rotate the signing secret? For the grace period deliveries are signed with the old and the new secret."
                confirmLabel="Rotate"
                onConfirm={async () => {
                  await act(async () => setRotated(await api.webhooks.rotateSecret(param)), "Secret rotated.");
                }}
              />
              <ConfirmButton
                label="Delete"
                danger
                question="Delete this endpoint? Nothing more is delivered to it."
                confirmLabel="Delete"
                onConfirm={async () => {
                  await act(() => api.webhooks.delete(param), "Deleted.");
                }}
              />
            </div>
          )}
          <p role="status" aria-live="polite">
            {note}
          </p>
          <ErrorBox error={actionError} title="That did not work" />
        </section>
      )}
      {rotated?.secret && (
        <section class="card secret" aria-labelledby="wh-rotated-title">
          <h2 id="wh-rotated-title">New signing secret</h2>
          <p>
            Copy it now: it is shown once.
            {rotated.previousSecretExpiresAt && ` Until ${fmtTime(rotated.previousSecretExpiresAt)} deliveries carry a signature with the old secret too.`}
          </p>
          <p class="row">
            <code class="secret-value">{rotated.secret}</code>
            <CopyButton text={rotated.secret} />
          </p>
          <button type="button" class="secondary" onClick={() => setRotated(undefined)}>
            Done
          </button>
        </section>
      )}
      {hook.data && canWrite && <EditWebhook {...props} key={hook.data.url + hook.data.description + hook.data.events.join()} hook={hook.data} onSaved={() => {
        setNote("Saved.");
        hook.reload();
      }} />}
      <section aria-labelledby="deliveries-title">
        <div class="row">
          <h2 id="deliveries-title">Deliveries</h2>
          <button type="button" class="secondary" onClick={deliveries.reload}>
            Refresh
          </button>
        </div>
        {deliveries.loading && !deliveries.data && <Loading what="deliveries" />}
        <ErrorBox error={deliveries.error} title="The deliveries could not be loaded" />
        {deliveries.data?.length === 0 && <Empty>No deliveries yet. Send a test event to see one.</Empty>}
        {deliveries.data && deliveries.data.length > 0 && (
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Deliveries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Response</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Created</th>
                  <th scope="col">Next retry</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.map((d) => (
                  <DeliveryRow
                    key={d.id}
                    d={d}
                    canWrite={canWrite}
                    onRedeliver={() => act(() => api.webhooks.redeliver(param, d.id), "Redelivery queued.")}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

/** The organization's events (GET /v1/events), newest first, by type or resource. */
export function EventsPage({ api }: PageProps) {
  const [filter, setFilter] = useState<{ type: string; objectId: string }>({ type: "", objectId: "" });
  const list = useAsync(
    () => all(api.events.list({ types: filter.type ? [filter.type] : [], objectId: filter.objectId || undefined }), 200),
    [filter.type, filter.objectId],
  );
  const [open, setOpen] = useState<Event>();
  return (
    <>
      <PageHeader title="Events" />
      <p class="help">
        Every event your webhooks could receive, kept for the server's retention (30 days by default) whether or not an endpoint got it.
      </p>
      <form
        class="card row"
        aria-label="Filter events"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget as HTMLFormElement);
          setFilter({ type: String(data.get("type") ?? ""), objectId: String(data.get("object") ?? "").trim() });
        }}
      >
        <label for="ev-type">Type</label>
        <select id="ev-type" name="type">
          <option value="">All types</option>
          {events
            .filter((ev) => ev.type !== "*")
            .map((ev) => (
              <option key={ev.type} value={ev.type}>
                {ev.type}
              </option>
            ))}
        </select>
        <label for="ev-object">Resource id</label>
        <input id="ev-object" name="object" maxLength={100} placeholder="cr_…, job_…, wh_…" />
        <button type="submit">Filter</button>
      </form>
      {list.loading && !list.data && <Loading what="events" />}
      <ErrorBox error={list.error} title="The events could not be loaded" />
      {list.data?.length === 0 && <Empty>No events match.</Empty>}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Resource</th>
                <th scope="col">Event id</th>
                <th scope="col">Time</th>
                <th scope="col">
                  <span class="sr-only">Data</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((ev) => (
                <tr key={ev.id} data-event-id={ev.id}>
                  <th scope="row">
                    <code>{ev.type}</code>
                  </th>
                  <td>
                    <code>{ev.objectId}</code>
                  </td>
                  <td>
                    <code>{ev.id}</code>
                  </td>
                  <td>{fmtTime(ev.timestamp)}</td>
                  <td>
                    <button type="button" class="secondary" onClick={() => setOpen(open?.id === ev.id ? undefined : ev)}>
                      {open?.id === ev.id ? "Hide data" : "Show data"}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && (
        <section class="card" aria-labelledby="ev-data-title">
          <h2 id="ev-data-title">
            Data of {open.type} {open.id}
          </h2>
          <pre>{JSON.stringify(open.data ?? {}, null, 2)}</pre>
        </section>
      )}
    </>
  );
}
