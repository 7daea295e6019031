// OAuth clients (client credentials): the REST operations under /v1/oauth/clients,
// called with the session until the TypeScript client carries them.
import { useState } from "preact/hooks";
import type { PageProps } from "../main";
import { restCall } from "../session";
import { ConfirmButton, CopyButton, Empty, ErrorBox, Loading, PageHeader, useAsync } from "../ui";
import { scopes } from "./keys";

/** An OAuth client as the REST API returns it (snake_case JSON). */
export interface OAuthClient {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  token_lifetime?: string;
  jwks?: Record<string, unknown> | null;
  jwks_uri?: string;
  created_at: string;
  revoked_at?: string | null;
  previous_secret_expires_at?: string | null;
  secret?: string;
}

const base = "/v1/oauth/clients";
const when = (t: string | null | undefined) => (t ? t.replace("T", " ").replace(/(\.\d+)?Z$/, " UTC") : "—");

function Secret({ c, onDone }: { c: OAuthClient; onDone: () => void }) {
  return (
    <section class="card secret" aria-labelledby="oc-secret-title">
      <h2 id="oc-secret-title">Client secret of “{c.name}”</h2>
      <p>
        Copy it now: it is shown once. Exchange it for tokens at <code>POST /oauth/token</code> with{" "}
        <code>grant_type=client_credentials</code> and client id <code>{c.id}</code>.
      </p>
      <p class="row">
        <code class="secret-value" data-testid="oauth-secret">
          {c.secret}
        </code>
        <CopyButton text={c.secret ?? ""} />
      </p>
      {c.previous_secret_expires_at && <p>The previous secret keeps working until {when(c.previous_secret_expires_at)}.</p>}
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

export function OAuthClientsPage({ session, onEnded }: PageProps) {
  const list = useAsync(async () => {
    const out: OAuthClient[] = [];
    let token = "";
    do {
      const page = await restCall<{ clients?: OAuthClient[]; next_page_token?: string }>(
        session,
        "GET",
        `${base}?page_size=200${token ? `&page_token=${encodeURIComponent(token)}` : ""}`,
        undefined,
        onEnded,
      );
      out.push(...(page.clients ?? []));
      token = page.next_page_token ?? "";
    } while (token && out.length < 1000);
    return out;
  }, []);
  const [secret, setSecret] = useState<OAuthClient>();
  const [error, setError] = useState<unknown>();
  const [actionError, setActionError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const act = async (f: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await f();
    } catch (err) {
      setActionError(err);
    }
    list.reload();
  };
  return (
    <>
      <PageHeader title="OAuth clients" />
      {secret && <Secret c={secret} onDone={() => setSecret(undefined)} />}
      <form
        class="card"
        aria-labelledby="create-oc-title"
        onSubmit={async (e) => {
          e.preventDefault();
          const f = e.currentTarget as HTMLFormElement;
          const d = new FormData(f);
          const chosen = d.getAll("scopes").map(String);
          const lifetime = String(d.get("token_lifetime") ?? "").trim();
          const jwksUri = String(d.get("jwks_uri") ?? "").trim();
          const jwksText = String(d.get("jwks") ?? "").trim();
          setError(undefined);
          if (chosen.length === 0) {
            setError(new Error("scopes: choose at least one scope"));
            return;
          }
          let jwks: unknown;
          if (jwksText) {
            try {
              jwks = JSON.parse(jwksText);
            } catch (err) {
              setError(new Error(`jwks: not valid JSON (${(err as Error).message})`));
              return;
            }
          }
          setBusy(true);
          try {
            const c = await restCall<OAuthClient>(
              session,
              "POST",
              base,
              {
                name: String(d.get("name")).trim(),
                scopes: chosen,
                ...(lifetime ? { token_lifetime: `${lifetime}s` } : {}),
                ...(jwksUri ? { jwks_uri: jwksUri } : {}),
                ...(jwks !== undefined ? { jwks } : {}),
              },
              onEnded,
            );
            f.reset();
            if (c.secret) setSecret(c);
            list.reload();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h2 id="create-oc-title">Create a client</h2>
        <label for="oc-name">Name</label>
        <input id="oc-name" name="name" required maxLength={100} placeholder="billing-integration" />
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
            <label for="oc-lifetime">Token lifetime, seconds (optional)</label>
            <input id="oc-lifetime" name="token_lifetime" type="number" min="60" max="86400" step="1" inputMode="numeric" aria-describedby="oc-lifetime-help" />
            <p id="oc-lifetime-help" class="help">
              60 to 86,400; the server's default when empty.
            </p>
          </div>
          <div>
            <label for="oc-jwks-uri">JWKS URL (optional)</label>
            <input id="oc-jwks-uri" name="jwks_uri" type="url" maxLength={2048} aria-describedby="oc-jwks-help" />
            <p id="oc-jwks-help" class="help">
              For <code>private_key_jwt</code> clients: where their public keys are. Or paste the keys below.
            </p>
          </div>
        </div>
        <label for="oc-jwks">JWKS (optional, JSON)</label>
        <textarea id="oc-jwks" name="jwks" rows={3} spellcheck={false} placeholder='{"keys":[...]}' />
        <button type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create client"}
        </button>
        <ErrorBox error={error} title="The client was not created" />
      </form>
      <ErrorBox error={actionError} title="That did not work" />
      <section aria-labelledby="oc-list-title">
        <h2 id="oc-list-title">Clients</h2>
        {list.loading && !list.data && <Loading what="OAuth clients" />}
        <ErrorBox error={list.error} title="The clients could not be loaded" />
        {list.data?.length === 0 && <Empty>No OAuth clients yet.</Empty>}
        {list.data && list.data.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Client id</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Authenticates with</th>
                  <th scope="col">Token lifetime</th>
                  <th scope="col">State</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((c) => {
                  const state = c.revoked_at ? "revoked" : "active";
                  return (
                    <tr key={c.id} data-client-id={c.id}>
                      <th scope="row">{c.name}</th>
                      <td>
                        <code>{c.id}</code>
                      </td>
                      <td>{c.scopes.join(", ")}</td>
                      <td>{c.jwks || c.jwks_uri ? "private_key_jwt" : `secret (${c.prefix}…)`}</td>
                      <td>{c.token_lifetime ?? "—"}</td>
                      <td>
                        <span class={"status " + state}>{state}</span>
                        {c.previous_secret_expires_at && state === "active" && <div class="help">old secret until {when(c.previous_secret_expires_at)}</div>}
                      </td>
                      <td class="actions">
                        {state === "active" && (
                          <>
                            {!(c.jwks || c.jwks_uri) && (
                              <ConfirmButton
                                label="Rotate"
                                question={`Rotate the secret of “${c.name}”?`}
                                confirmLabel="Rotate"
                                onConfirm={() =>
                                  act(async () => {
                                    const sel = document.getElementById(`oc-grace-${c.id}`) as HTMLSelectElement | null;
                                    setSecret(
                                      await restCall<OAuthClient>(session, "POST", `${base}/${encodeURIComponent(c.id)}:rotate`, { id: c.id, grace_period: `${sel?.value ?? 86400}s` }, onEnded),
                                    );
                                  })
                                }
                              >
                                <label for={`oc-grace-${c.id}`}>The old secret keeps working for</label>
                                <select id={`oc-grace-${c.id}`}>
                                  <option value="0">no time: stop it now</option>
                                  <option value="3600">1 hour</option>
                                  <option value="86400" selected>
                                    24 hours
                                  </option>
                                  <option value="604800">7 days</option>
                                </select>
                              </ConfirmButton>
                            )}
                            <ConfirmButton
                              label="Revoke"
                              danger
                              question={`Revoke “${c.name}”? Its tokens stop working.`}
                              confirmLabel="Revoke"
                              onConfirm={() => act(() => restCall(session, "DELETE", `${base}/${encodeURIComponent(c.id)}`, undefined, onEnded))}
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
