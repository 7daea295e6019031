import { useState } from "preact/hooks";
import { timestampFromDate } from "@creativeops/client";
import type { APIKey } from "@creativeops/client";
import type { PageProps } from "../main";
import { all, ConfirmButton, CopyButton, Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";

export const scopes: { scope: string; what: string }[] = [
  { scope: "engine:run", what: "run workflows" },
  { scope: "engine:read", what: "read workflows and jobs" },
  { scope: "creators:read", what: "read creators" },
  { scope: "creators:write", what: "create creators" },
  { scope: "ip:read", what: "read the IP catalog and certificates" },
  { scope: "ip:write", what: "register works" },
  { scope: "webhooks:read", what: "read webhooks and deliveries" },
  { scope: "webhooks:write", what: "create, test and delete webhooks" },
  { scope: "analytics:read", what: "read usage" },
  { scope: "keys:admin", what: "create, rotate and revoke keys" },
  { scope: "*", what: "every scope" },
];

/** The secret of a key just created or rotated: shown once, never again. */
function Secret({ k, onDone }: { k: APIKey; onDone: () => void }) {
  return (
    <section class="card secret" aria-labelledby="secret-title">
      <h2 id="secret-title">Secret of “{k.name}”</h2>
      <p>Copy it now: it is shown once and cannot be read again.</p>
      <p class="row">
        <code class="secret-value" data-testid="secret">
          {k.secret}
        </code>
        <CopyButton text={k.secret ?? ""} />
      </p>
      {k.previousSecretExpiresAt && <p>The previous secret keeps working until {fmtTime(k.previousSecretExpiresAt)}.</p>}
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

function CreateKey({ api, onCreated }: PageProps & { onCreated: (k: APIKey) => void }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="card"
      aria-labelledby="create-key-title"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = e.currentTarget as HTMLFormElement;
        const data = new FormData(f);
        const chosen = data.getAll("scopes").map(String);
        const expires = String(data.get("expires_at") ?? "");
        const rps = String(data.get("rps") ?? "");
        const burst = String(data.get("burst") ?? "");
        setError(undefined);
        if (chosen.length === 0) {
          setError(new Error("scopes: choose at least one scope"));
          return;
        }
        if ((rps === "") !== (burst === "")) {
          setError(new Error("rate_limit: give both requests per second and burst, or neither"));
          return;
        }
        setBusy(true);
        try {
          const k = await api.keys.create({
            name: String(data.get("name")).trim(),
            scopes: chosen,
            ...(expires ? { expiresAt: timestampFromDate(new Date(expires + "T23:59:59Z")) } : {}),
            ...(rps ? { rateLimit: { requestsPerSecond: Number(rps), burst: Number(burst) } } : {}),
          });
          f.reset();
          onCreated(k);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2 id="create-key-title">Create a key</h2>
      <label for="key-name">Name</label>
      <input id="key-name" name="name" required maxLength={100} placeholder="mobile-app" />
      <fieldset>
        <legend>Scopes</legend>
        <div class="checks">
          {scopes.map((s) => (
            <label key={s.scope} class="check">
              <input type="checkbox" name="scopes" value={s.scope} /> <code>{s.scope}</code> <span class="help">{s.what}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <div class="grid3">
        <div>
          <label for="key-expires">Expires (optional)</label>
          <input id="key-expires" name="expires_at" type="date" />
        </div>
        <div>
          <label for="key-rps">Rate limit, requests/s (optional)</label>
          <input id="key-rps" name="rps" type="number" min="0.01" step="any" inputMode="decimal" />
        </div>
        <div>
          <label for="key-burst">Burst (optional)</label>
          <input id="key-burst" name="burst" type="number" min="1" step="1" inputMode="numeric" />
        </div>
      </div>
      <button type="submit" disabled={busy}>
        {busy ? "Creating…" : "Create key"}
      </button>
      <ErrorBox error={error} title="The key was not created" />
    </form>
  );
}

function keyState(k: APIKey): string {
  if (k.revokedAt) return "revoked";
  if (k.expiresAt && Number(k.expiresAt.seconds) * 1000 < Date.now()) return "expired";
  return "active";
}

export function KeysPage(props: PageProps) {
  const { api, session } = props;
  const keys = useAsync(() => all(api.keys.list()), []);
  const [secret, setSecret] = useState<APIKey>();
  const [actionError, setActionError] = useState<unknown>();
  const act = async (f: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await f();
    } catch (err) {
      setActionError(err);
    }
    keys.reload();
  };
  return (
    <>
      <PageHeader title="API keys" />
      {secret && <Secret k={secret} onDone={() => setSecret(undefined)} />}
      <CreateKey
        {...props}
        onCreated={(k) => {
          setSecret(k);
          keys.reload();
        }}
      />
      <ErrorBox error={actionError} title="That did not work" />
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        {keys.loading && !keys.data && <Loading what="keys" />}
        <ErrorBox error={keys.error} title="The keys could not be loaded" />
        {keys.data?.length === 0 && <Empty>No keys yet.</Empty>}
        {keys.data && keys.data.length > 0 && (
          <div class="table-wrap">
            <table>
              <caption class="sr-only">API keys of the organization</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.map((k) => {
                  const state = keyState(k);
                  return (
                    <tr key={k.id} data-key-id={k.id}>
                      <th scope="row">
                        {k.name}
                        {k.id === session.key_id && <span class="badge">this session</span>}
                      </th>
                      <td>
                        <code>{k.prefix}</code>
                      </td>
                      <td>{k.scopes.join(", ")}</td>
                      <td>
                        <span class={"status " + state}>{state}</span>
                        {k.previousSecretExpiresAt && state === "active" && <div class="help">old secret until {fmtTime(k.previousSecretExpiresAt)}</div>}
                      </td>
                      <td>{fmtTime(k.createdAt)}</td>
                      <td>{fmtTime(k.expiresAt)}</td>
                      <td class="actions">
                        {state === "active" && (
                          <>
                            <ConfirmButton
                              label="Rotate"
                              question={`Rotate “${k.name}”?`}
                              confirmLabel="Rotate"
                              onConfirm={() =>
                                act(async () => {
                                  const sel = document.getElementById(`grace-${k.id}`) as HTMLSelectElement | null;
                                  setSecret(await api.keys.rotate(k.id, { gracePeriodSeconds: Number(sel?.value ?? 86400) }));
                                })
                              }
                            >
                              <label for={`grace-${k.id}`}>The old secret keeps working for</label>
                              <select id={`grace-${k.id}`}>
                                <option value="0">no time: stop it now</option>
                                <option value="3600">1 hour</option>
                                <option value="86400" selected>
                                  24 hours
                                </option>
                                <option value="604800">7 days</option>
                              </select>
                            </ConfirmButton>
                            <ConfirmButton
                              label="Revoke"
                              danger
                              question={`Revoke “${k.name}”? Every request with it fails from now on${k.id === session.key_id ? ", and this session ends" : ""}.`}
                              confirmLabel="Revoke"
                              onConfirm={() => act(() => api.keys.revoke(k.id))}
                            />
                          </>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
