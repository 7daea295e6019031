import { useState } from "preact/hooks";
import { timestampFromDate } from "@creativeops/client";
import type { APIKey } from "@creativeops/client";
import type { PageProps } from "../main";
import { all, ConfirmButton, Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";
import { RotateButton, ScopeChecks, SecretCard } from "../secrets";

/** The secret of a key just created or rotated: shown once, never again. */
function Secret({ k, onDone }: { k: APIKey; onDone: () => void }) {
  return (
    <SecretCard titleId="secret-title" title={<>Secret of “{k.name}”</>} testId="secret" secret={k.secret} previousSecretExpiresAt={k.previousSecretExpiresAt} onDone={onDone}>
      <p>Copy it now: it is shown once and cannot be read again.</p>
    </SecretCard>
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
      <ScopeChecks />
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
                            <RotateButton
                              question={`Rotate “${k.name}”?`}
                              selectId={`grace-${k.id}`}
                              onRotate={(gracePeriodSeconds) => act(async () => setSecret(await api.keys.rotate(k.id, { gracePeriodSeconds })))}
                            />
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
