// The browser's session with the service: POST /dashboard/api/session trades an
// API key for an HttpOnly cookie and a CSRF token. The key is sent once and never
// kept: not in storage, not in memory after sign-in.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Interceptor } from "@connectrpc/connect";
import { CreativeOps } from "@creativeops/client";

export interface Session {
  key_id: string;
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

export async function signIn(apiKey: string): Promise<Session> {
  const res = await fetch(endpoint, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ api_key: apiKey }),
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

/** An error answered by a REST call, with the AIP-193 fields the API sends. */
export class RestError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly status: string,
    readonly reason: string,
    readonly fieldViolations: { field: string; description: string }[],
    readonly requestId: string,
  ) {
    super(message);
  }
}

/**
 * A REST call with the session (cookie plus X-CSRF-Token), for operations the
 * TypeScript client does not carry yet. JSON in, JSON out; errors as RestError.
 */
export async function restCall<T>(s: Session, method: string, path: string, body?: unknown, onEnded?: () => void): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: { "x-csrf-token": s.csrf_token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.ok) return (text ? JSON.parse(text) : undefined) as T;
  if (res.status === 401) onEnded?.();
  type Detail = { "@type"?: string; reason?: string; fieldViolations?: { field: string; description: string }[] };
  let e: { code?: number; status?: string; message?: string; details?: Detail[]; request_id?: string } = {};
  try {
    e = (JSON.parse(text) as { error?: typeof e }).error ?? {};
  } catch {
    // not the API's JSON: keep the status line
  }
  const details = e.details ?? [];
  throw new RestError(
    e.message ?? `${res.status} ${res.statusText}`,
    res.status,
    e.status ?? "",
    details.find((d) => d.reason)?.reason ?? "",
    details.flatMap((d) => d.fieldViolations ?? []),
    e.request_id ?? res.headers.get("x-request-id") ?? "",
  );
}
