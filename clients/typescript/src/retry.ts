import { getOption } from "@bufbuild/protobuf";
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextKey } from "@connectrpc/connect";
import type { Interceptor } from "@connectrpc/connect";
import { http } from "./gen/google/api/annotations_pb.js";
import { CreativeOpsError, hasHeaders, NoResponse } from "./errors.js";
import { recordResponse } from "./response.js";

/**
 * Retries of 429 and 503 answers, and of connection failures and timeouts
 * of requests that are safe to repeat.
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3; 0 disables retries. */
  maxRetries?: number;
  /** Backoff before the first retry when the server gives no Retry-After, in ms. Default 500; doubles per retry. */
  initialDelayMs?: number;
  /** Longest wait before one retry, Retry-After included, in ms. Default 30000. */
  maxDelayMs?: number;
}

/** Whether an RPC is a POST in the REST mapping, i.e. one the server makes idempotent by key. */
export function isPost(method: DescMethod): boolean {
  return getOption(method, http).pattern.case === "post";
}

/** Waits ms, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** How calls authenticate: an API key, or a browser session's CSRF token (its cookie travels by itself). */
export type ClientAuth = { apiKey: string } | { csrfToken: string };

/** The timeout of each attempt of one call (CallOptions.timeoutMs), in ms. */
export const attemptTimeoutKey = createContextKey<number | undefined>(undefined, { description: "creativeops attempt timeout" });

/** How the client's calls behave apart from retries. */
export interface CallDefaults {
  /** Timeout of each attempt when the call gives none, in ms; undefined: none. */
  timeoutMs: number | undefined;
  /** Whether a POST without an idempotencyKey gets a generated one. */
  autoIdempotencyKeys: boolean;
}

/**
 * Authenticates every call, gives every POST one Idempotency-Key for all
 * its attempts (so a retried create happens once), bounds each attempt by
 * its timeout, and retries:
 *
 * - 429 and 503 answers, after Retry-After (or exponential backoff with
 *   jitter): the server did not run the request;
 * - connection failures and timeouts of requests safe to repeat: reads
 *   and deletes, and POSTs carrying an Idempotency-Key (the server runs a
 *   key's request once). A POST without a key is retried only when the
 *   connection was refused or the host not found, so that it surely never
 *   reached the server.
 *
 * Remembers each answer's request id and rate limit for responseInfo.
 */
export function clientInterceptor(auth: ClientAuth, retry: RetryOptions, defaults: CallDefaults): Interceptor {
  const maxRetries = retry.maxRetries ?? 3;
  const initialDelayMs = retry.initialDelayMs ?? 500;
  const maxDelayMs = retry.maxDelayMs ?? 30_000;
  return (next) => async (req) => {
    if ("apiKey" in auth) {
      req.header.set("authorization", `Bearer ${auth.apiKey}`);
    } else {
      req.header.set("x-csrf-token", auth.csrfToken);
    }
    const post = isPost(req.method);
    if (post && defaults.autoIdempotencyKeys && !req.header.has("idempotency-key")) {
      req.header.set("idempotency-key", globalThis.crypto.randomUUID());
    }
    // Safe to send again after a failure that may have reached the server.
    const repeatable = !post || req.header.has("idempotency-key");
    const timeoutMs = req.contextValues.get(attemptTimeoutKey) ?? defaults.timeoutMs;
    const what = `${req.method.parent.typeName}/${req.method.name}`;
    for (let attempt = 0; ; attempt++) {
      const bound = attemptSignal(req.signal, timeoutMs);
      let failure: ConnectError;
      let retryable: boolean;
      try {
        const res = await next(bound.signal === req.signal ? req : { ...req, signal: bound.signal });
        if (!res.stream) {
          recordResponse(res.message, res.header);
        }
        return res;
      } catch (err) {
        if (req.signal.aborted) {
          throw err; // the caller's cancellation, or Connect's own deadline
        }
        // Thrown as ConnectErrors: the transport would wrap any other error
        // type as UNKNOWN. The client turns them into CreativeOpsErrors outside.
        if (bound.timedOut()) {
          const message = `${what}: no answer within ${timeoutMs} ms`;
          failure = new ConnectError(message, Code.DeadlineExceeded, undefined, undefined, new NoResponse("timeout", message, err));
          retryable = repeatable;
        } else if (isConnectionFailure(err)) {
          const message = `${what}: could not reach the API: ${causeMessage(err)}`;
          failure = new ConnectError(message, Code.Unavailable, undefined, undefined, new NoResponse("connection", message, err));
          retryable = repeatable || neverSent(err);
        } else {
          failure = ConnectError.from(err);
          retryable = failure.code === Code.ResourceExhausted || failure.code === Code.Unavailable;
        }
      } finally {
        bound.cleanup();
      }
      if (!retryable || attempt >= maxRetries || req.stream) {
        throw failure;
      }
      const retryAfter = CreativeOpsError.from(failure).retryAfter;
      const backoff = initialDelayMs * 2 ** attempt * (0.8 + 0.4 * Math.random());
      const wait = retryAfter !== undefined ? retryAfter * 1000 : backoff;
      if (wait > maxDelayMs) {
        throw failure;
      }
      await sleep(wait, req.signal);
    }
  };
}

/** The signal of one attempt: the call's, also aborted once timeoutMs elapse. */
function attemptSignal(outer: AbortSignal, timeoutMs: number | undefined): { signal: AbortSignal; timedOut: () => boolean; cleanup: () => void } {
  if (timeoutMs === undefined) {
    return { signal: outer, timedOut: () => false, cleanup: () => {} };
  }
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new ConnectError("the attempt timed out", Code.DeadlineExceeded));
  }, timeoutMs);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    cleanup: () => {
      clearTimeout(timer);
      outer.removeEventListener("abort", onAbort);
    },
  };
}

/** The error and its causes, outermost first. */
function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = err; e !== undefined && e !== null && out.length < 8 && !out.includes(e); e = (e as { cause?: unknown }).cause) {
    out.push(e);
  }
  return out;
}

/** Node's system and network error codes (errno names, undici's, HTTP/2's, TLS's). */
const nodeNetworkCode = /^(E[A-Z]+|UND_ERR_|ERR_HTTP2_|ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;

/**
 * Whether an attempt failed without an HTTP answer: fetch rejected (the
 * transport's fetch marks it: refused, reset, DNS, TLS, a browser's CORS
 * refusal), or, over native gRPC, Node's HTTP/2 session failed.
 */
function isConnectionFailure(err: unknown): boolean {
  if (err instanceof NoResponse) {
    return true;
  }
  if (err instanceof ConnectError && !hasHeaders(err.metadata) && [Code.Unavailable, Code.Canceled, Code.Aborted].includes(err.code)) {
    // connect-node, with no answer and no cancellation by the caller:
    // refused, DNS, timeouts, REFUSED_STREAM, PING timeout (UNAVAILABLE),
    // a reset connection (ABORTED), a session torn down under its streams (CANCELLED).
    return true;
  }
  return chain(err).some((e) => typeof (e as { code?: unknown }).code === "string" && nodeNetworkCode.test((e as { code: string }).code));
}

/** Whether the failure proves the request never left: the host was not found or refused the connection. */
function neverSent(err: unknown): boolean {
  return chain(err).some((e) => ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"].includes(String((e as { code?: unknown }).code)));
}

/** The most telling message of a failure: its innermost cause's, with the outer one when they differ. */
function causeMessage(err: unknown): string {
  const msgs = chain(err)
    .map((e) => (e instanceof ConnectError ? e.rawMessage : e instanceof Error ? e.message : ""))
    .filter((m) => m !== "");
  const inner = msgs.at(-1) ?? String(err);
  const outer = msgs.find((m) => !m.startsWith("could not reach"));
  return outer !== undefined && outer !== inner ? `${outer} (${inner})` : inner;
}
