import { getOption } from "@bufbuild/protobuf";
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Interceptor } from "@connectrpc/connect";
import { http } from "./gen/google/api/annotations_pb.js";
import { CreativeOpsError } from "./errors.js";

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

/**
 * Authenticates every call, gives every POST one Idempotency-Key for all
 * its attempts (so a retried create happens once), retries 429 and 503
 * answers after Retry-After (or exponential backoff with jitter).
 */
export function clientInterceptor(auth: ClientAuth, retry: RetryOptions): Interceptor {
  const maxRetries = retry.maxRetries ?? 3;
  const initialDelayMs = retry.initialDelayMs ?? 500;
  const maxDelayMs = retry.maxDelayMs ?? 30_000;
  return (next) => async (req) => {
    if ("apiKey" in auth) {
      req.header.set("authorization", `Bearer ${auth.apiKey}`);
    } else {
      req.header.set("x-csrf-token", auth.csrfToken);
    }
    if (isPost(req.method) && !req.header.has("idempotency-key")) {
      req.header.set("idempotency-key", globalThis.crypto.randomUUID());
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await next(req);
      } catch (err) {
        const ce = ConnectError.from(err);
        const retryable = ce.code === Code.ResourceExhausted || ce.code === Code.Unavailable;
        // Thrown as is: the transport would wrap any other error type as
        // UNKNOWN. The client turns it into a CreativeOpsError outside.
        if (!retryable || attempt >= maxRetries || req.stream) {
          throw ce;
        }
        const retryAfter = CreativeOpsError.from(ce).retryAfter;
        const backoff = initialDelayMs * 2 ** attempt * (0.8 + 0.4 * Math.random());
        const wait = retryAfter !== undefined ? retryAfter * 1000 : backoff;
        if (wait > maxDelayMs) {
          throw ce;
        }
        await sleep(wait, req.signal);
      }
    }
  };
}
