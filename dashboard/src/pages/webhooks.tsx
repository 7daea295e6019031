import { useEffect, useState } from "preact/hooks";
import type { Delivery, Webhook } from "@creativeops/client";
import type { PageProps } from "../main";
import { hasScope } from "../session";
import { all, ConfirmButton, CopyButton, Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";

const events: { type: string; what: string }[] = [
  { type: "engine.job.completed", what: "a workflow run finished" },
  { type: "engine.job.failed", what: "a workflow run failed" },
  { type: "ip.registered", what: "a work was registered" },
  { type: "creator.created", what: "a creator was created" },
  { type: "webhook.test", what: "a test sent from here" },
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

export function WebhookDetail({ api, session, param }: PageProps) {
  const hook = useAsync(() => api.webhooks.get(param), [param]);
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
          <p class="help">
            <span class={"status " + hook.data.status}>{hook.data.status}</span> · {hook.data.events.join(", ")}
            {hook.data.disabledReason && ` · ${hook.data.disabledReason}`}
          </p>
          {canWrite && (
            <div class="row">
              <button type="button" onClick={() => act(() => api.webhooks.test(param), "Test event sent: its delivery is below.")}>
                Send test event
              </button>
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
