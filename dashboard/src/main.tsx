import "./styles.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { CreativeOps } from "@creativeops/client";
import { clientFor, currentSession, hasScope, signIn, signOut } from "./session";
import type { Session } from "./session";
import { navigate, onLinkClick, usePath } from "./router";
import { ErrorBox, Loading } from "./ui";
import { KeysPage } from "./pages/keys";
import { EventsPage, WebhooksPage, WebhookDetail } from "./pages/webhooks";
import { UsagePage } from "./pages/usage";
import { WorkflowsPage, WorkflowRun } from "./pages/workflows";
import { CatalogPage, CertificatePage } from "./pages/catalog";
import { CreatorsPage } from "./pages/creators";
import { OAuthClientsPage } from "./pages/oauth";
import { PlansPage, PlanDetail } from "./pages/plans";

export interface PageProps {
  api: CreativeOps;
  session: Session;
  /** The rest of the path, e.g. the id in /webhooks/{id}. */
  param: string;
  /** Call when the API says the session has ended (401). */
  onEnded: () => void;
}

interface PageDef {
  path: string;
  title: string;
  scope: string;
  list: (p: PageProps) => preact.JSX.Element;
  detail?: (p: PageProps) => preact.JSX.Element;
  /** Only when the server has these operations (a build without them answers 404). */
  needs?: string;
}

const pages: PageDef[] = [
  { path: "/usage", title: "Usage", scope: "analytics:read", list: UsagePage },
  { path: "/keys", title: "API keys", scope: "keys:admin", list: KeysPage },
  { path: "/oauth-clients", title: "OAuth clients", scope: "keys:admin", list: OAuthClientsPage, needs: "/v1/oauth/clients?page_size=1" },
  { path: "/webhooks", title: "Webhooks", scope: "webhooks:read", list: WebhooksPage, detail: WebhookDetail },
  { path: "/events", title: "Events", scope: "events:read", list: EventsPage },
  { path: "/workflows", title: "Workflows", scope: "engine:read", list: WorkflowsPage, detail: WorkflowRun },
  { path: "/plans", title: "Plans", scope: "plans:read", list: PlansPage, detail: PlanDetail, needs: "/v1/plans?page_size=1" },
  { path: "/creators", title: "Creators", scope: "creators:read", list: CreatorsPage },
  { path: "/catalog", title: "IP catalog", scope: "ip:read", list: CatalogPage, detail: CertificatePage },
];

function SignIn({ onSession, ended }: { onSession: (s: Session) => void; ended: boolean }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [mode, setMode] = useState<"key" | "client">("key");
  return (
    <main class="signin" id="main">
      <h1>creativeops</h1>
      {ended && (
        <p class="error" role="alert">
          Your session has ended (signed out elsewhere, expired, or its key or OAuth client was revoked or rotated). Sign in again.
        </p>
      )}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const form = e.currentTarget as HTMLFormElement;
          const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
          setBusy(true);
          setError(undefined);
          try {
            const s =
              mode === "key"
                ? await signIn({ api_key: field("api_key").value.trim() })
                : await signIn({ client_id: field("client_id").value.trim(), client_secret: field("client_secret").value.trim() });
            form.reset();
            onSession(s);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <fieldset>
          <legend>Sign in with</legend>
          <label class="check">
            <input type="radio" name="mode" value="key" checked={mode === "key"} onChange={() => setMode("key")} /> Key
          </label>
          <label class="check">
            <input type="radio" name="mode" value="client" checked={mode === "client"} onChange={() => setMode("client")} /> OAuth client
          </label>
        </fieldset>
        {mode === "key" ? (
          <>
            <label for="api_key">API key</label>
            <input id="api_key" name="api_key" type="password" autocomplete="off" required placeholder="co_live_…" aria-describedby="api_key_help" />
            <p id="api_key_help" class="help">
              The key is exchanged for a session cookie and is not kept by the browser. The session may do exactly what the key may do.
            </p>
          </>
        ) : (
          <>
            <label for="client_id">Client ID</label>
            <input id="client_id" name="client_id" type="text" autocomplete="off" spellcheck={false} required placeholder="oc_…" />
            <label for="client_secret">Client secret</label>
            <input
              id="client_secret"
              name="client_secret"
              type="password"
              autocomplete="off"
              required
              placeholder="co_oauth_…"
              aria-describedby="client_help"
            />
            <p id="client_help" class="help">
              The credentials are exchanged for a session cookie and are not kept by the browser. The session may do what the client's
              scopes allow, and ends when the client is revoked or its secret rotated out.
            </p>
          </>
        )}
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <ErrorBox error={error} title="Sign-in failed" />
      </form>
    </main>
  );
}

function Shell({ session, onSignOut, onEnded }: { session: Session; onSignOut: () => void; onEnded: () => void }) {
  const path = usePath();
  const [api] = useState(() => clientFor(session, onEnded));
  const [menuOpen, setMenuOpen] = useState(false);
  // Pages whose operations this server lacks are left out (404 = no such route; 403 = there, not allowed).
  const [missing, setMissing] = useState<Set<string> | undefined>(() => (pages.some((p) => p.needs) ? undefined : new Set()));
  useEffect(() => {
    const probes = pages.filter((p) => p.needs);
    Promise.all(
      probes.map(async (p) => {
        const res = await fetch(p.needs!, { credentials: "same-origin", headers: { "x-csrf-token": session.csrf_token } }).catch(() => undefined);
        return res?.status === 404 || res === undefined ? p.path : "";
      }),
    ).then((gone) => setMissing(new Set(gone.filter(Boolean))));
  }, []);
  const shown = pages.filter((p) => !missing?.has(p.path));
  const section = "/" + (path.split("/")[1] ?? "");
  const page = missing ? shown.find((p) => p.path === section) : undefined;
  const param = page ? decodeURIComponent(path.slice(page.path.length + 1)) : "";
  useEffect(() => {
    if (missing && !page) navigate(hasScope(session, "analytics:read") ? "/usage" : "/workflows", true);
    setMenuOpen(false);
    document.getElementById("page-title")?.focus();
  }, [path, missing]);
  const Page = page && (param && page.detail ? page.detail : page.list);
  return (
    <div class="shell" onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">creativeops</span>
        <button type="button" class="menu secondary" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="nav" aria-label="Dashboard" class={menuOpen ? "open" : ""}>
          <ul>
            {shown.map((p) => (
              <li key={p.path}>
                <a href={"/dashboard" + p.path} aria-current={p.path === section ? "page" : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span title={session.scopes.join(", ")}>
            <code>{session.key_id}</code>
          </span>
          <button
            type="button"
            class="secondary"
            onClick={async () => {
              await signOut(session).catch(() => undefined);
              onSignOut();
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        {page && Page ? (
          hasScope(session, page.scope) ? (
            <Page api={api} session={session} param={param} onEnded={onEnded} />
          ) : (
            <>
              <h1 tabIndex={-1} id="page-title">
                {page.title}
              </h1>
              <div class="error" role="alert">
                <strong>Not allowed</strong>
                <p>
                  This page needs an API key with the <code>{page.scope}</code> scope; this session's key has{" "}
                  {session.scopes.length ? session.scopes.map((s) => <code key={s}>{s} </code>) : "none"}. Sign in with another key to use it.
                </p>
              </div>
            </>
          )
        ) : (
          <Loading what="the dashboard" />
        )}
      </main>
    </div>
  );
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    currentSession().then(setSession, (e: unknown) => {
      setError(e);
      setSession(null);
    });
  }, []);
  if (session === undefined) return <Loading what="your session" />;
  if (session === null)
    return (
      <>
        <ErrorBox error={error} />
        <SignIn
          ended={ended}
          onSession={(s) => {
            setEnded(false);
            setSession(s);
          }}
        />
      </>
    );
  return (
    <Shell
      key={session.csrf_token}
      session={session}
      onSignOut={() => setSession(null)}
      onEnded={() => {
        setEnded(true);
        setSession(null);
      }}
    />
  );
}

render(<App />, document.getElementById("app")!);
