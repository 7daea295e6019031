// The browser's session with the service: POST /dashboard/api/session trades an
// API key (or an OAuth client's id and secret) for an HttpOnly cookie and a CSRF
// token. The credentials are sent once and never kept: not in storage, not in
// memory after sign-in.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Interceptor } from "@connectrpc/connect";
import { CreativeOps } from "@creativeops/client";

export interface Session {
  /** The API key's id, or the OAuth client's id when client_id is set. */
  key_id: string;
  client_id?: string;
  organization_id: string;
  scopes: string[];
  csrf_token: string;
  expires_at: string;
}

const endpoint = "/dashboard/api/session";

/** An error of the session endpoints, in the API's AIP-193 format when the server sent one. */
export class SessionError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function errorOf(res: Response): Promise<SessionError> {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { error?: { message?: string } };
    if (body.error?.message) message = body.error.message;
  } catch {
    // not JSON: keep the status line
  }
  return new SessionError(message, res.status);
}

/** Credentials to sign in with: an API key, or an OAuth client's id and secret. */
export type Credentials = { api_key: string } | { client_id: string; client_secret: string };

export async function signIn(credentials: Credentials): Promise<Session> {
  const res = await fetch(endpoint, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(credentials),
  });
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as Session;
}

/** The current session, or null when there is none (401). */
export async function currentSession(): Promise<Session | null> {
  const res = await fetch(endpoint, { credentials: "same-origin" });
  if (res.status === 401) return null;
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as Session;
}

export async function signOut(s: Session): Promise<void> {
  const res = await fetch(endpoint, {
    method: "DELETE",
    credentials: "same-origin",
    headers: { "x-csrf-token": s.csrf_token },
  });
  if (!res.ok && res.status !== 401) throw await errorOf(res);
}

/**
 * The API client of a session: same origin, cookie plus X-CSRF-Token.
 * onEnded runs when a call comes back unauthenticated: the session expired,
 * its key was revoked, or it was signed out elsewhere.
 */
export function clientFor(s: Session, onEnded: () => void): CreativeOps {
  const watch: Interceptor = (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (ConnectError.from(err).code === Code.Unauthenticated) onEnded();
      throw err;
    }
  };
  return new CreativeOps({ csrfToken: s.csrf_token, baseUrl: window.location.origin, retry: { maxRetries: 1 }, interceptors: [watch] });
}

export function hasScope(s: Session, scope: string): boolean {
  return s.scopes.includes("*") || s.scopes.includes(scope);
}
