// OAuth clients (client credentials): the client facade's oauthClients, over
// the session like every other page.
import { useState } from "preact/hooks";
import type { JsonObject } from "@bufbuild/protobuf";
import type { Duration } from "@bufbuild/protobuf/wkt";
import type { OAuthClient } from "@creativeops/client";
import type { PageProps } from "../main";
import { all, ConfirmButton, Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";
import { RotateButton, ScopeChecks, SecretCard } from "../secrets";

const lifetime = (d: Duration | undefined) => (d ? `${d.seconds}s` : "—");
const usesKeys = (c: OAuthClient) => c.jwks !== undefined || c.jwksUri !== "";

function Secret({ c, onDone }: { c: OAuthClient; onDone: () => void }) {
  return (
    <SecretCard titleId="oc-secret-title" title={<>Client secret of “{c.name}”</>} testId="oauth-secret" secret={c.secret} previousSecretExpiresAt={c.previousSecretExpiresAt} onDone={onDone}>
      <p>
        Copy it now: it is shown once. Exchange it for tokens at <code>POST /oauth/token</code> with{" "}
        <code>grant_type=client_credentials</code> and client id <code>{c.id}</code>.
      </p>
    </SecretCard>
  );
}

export function OAuthClientsPage({ api }: PageProps) {
  const list = useAsync(() => all(api.oauthClients.list({ pageSize: 200 })), []);
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
          const lifetimeSeconds = String(d.get("token_lifetime") ?? "").trim();
          const jwksUri = String(d.get("jwks_uri") ?? "").trim();
          const jwksText = String(d.get("jwks") ?? "").trim();
          setError(undefined);
          if (chosen.length === 0) {
            setError(new Error("scopes: choose at least one scope"));
            return;
          }
          let jwks: JsonObject | undefined;
          if (jwksText) {
            let parsed: unknown;
            try {
              parsed = JSON.parse(jwksText);
            } catch (err) {
              setError(new Error(`jwks: not valid JSON (${(err as Error).message})`));
              return;
            }
            if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
              setError(new Error('jwks: must be a JWK set, a JSON object such as {"keys": [...]}'));
              return;
            }
            jwks = parsed as JsonObject;
          }
          setBusy(true);
          try {
            const c = await api.oauthClients.create({
              name: String(d.get("name")).trim(),
              scopes: chosen,
              ...(lifetimeSeconds ? { tokenLifetimeSeconds: Number(lifetimeSeconds) } : {}),
              ...(jwksUri ? { jwksUri } : {}),
              ...(jwks !== undefined ? { jwks } : {}),
            });
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
        <ScopeChecks />
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
                  const state = c.revokedAt ? "revoked" : "active";
                  return (
                    <tr key={c.id} data-client-id={c.id}>
                      <th scope="row">{c.name}</th>
                      <td>
                        <code>{c.id}</code>
                      </td>
                      <td>{c.scopes.join(", ")}</td>
                      <td>{usesKeys(c) ? "private_key_jwt" : `secret (${c.prefix}…)`}</td>
                      <td>{lifetime(c.tokenLifetime)}</td>
                      <td>
                        <span class={"status " + state}>{state}</span>
                        {c.previousSecretExpiresAt && state === "active" && <div class="help">old secret until {fmtTime(c.previousSecretExpiresAt)}</div>}
                      </td>
                      <td class="actions">
                        {state === "active" && (
                          <>
                            {!usesKeys(c) && (
                              <RotateButton
                                question={`Rotate the secret of “${c.name}”?`}
                                selectId={`oc-grace-${c.id}`}
                                onRotate={(gracePeriodSeconds) => act(async () => setSecret(await api.oauthClients.rotate(c.id, { gracePeriodSeconds })))}
                              />
                            )}
                            <ConfirmButton
                              label="Revoke"
                              danger
                              question={`Revoke “${c.name}”? Its tokens stop working.`}
                              confirmLabel="Revoke"
                              onConfirm={() => act(() => api.oauthClients.delete(c.id))}
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
