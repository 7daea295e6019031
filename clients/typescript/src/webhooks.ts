/**
 * Verification of webhook deliveries signed per Standard Webhooks
 * (https://www.standardwebhooks.com), with Web Crypto only, so it runs in
 * Node.js 18+ and in browsers and edge runtimes alike.
 */

import type { WebhookEvent } from "./gen/events.js";

// The event types and their data's shapes are generated from the server's
// declaration of them (proto/creativeops/v1/events.proto).
export type * from "./gen/events.js";
export { webhookEventTypes } from "./gen/events.js";

/** Thrown by verifyWebhook when a delivery must not be trusted. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

export interface VerifyWebhookOptions {
  /** Largest accepted distance between webhook-timestamp and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The clock to compare against (for tests). Default: now. */
  now?: Date;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string {
  if (typeof (headers as Headers).get === "function") {
    return (headers as Headers).get(name) ?? "";
  }
  const bag = headers as Record<string, string | string[] | undefined>;
  for (const [k, v] of Object.entries(bag)) {
    if (k.toLowerCase() === name) {
      return Array.isArray(v) ? v.join(" ") : (v ?? "");
    }
  }
  return "";
}

function base64Decode(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) {
    out[i] = bin.charCodeAt(i);
  }
  return out;
}

/** The HMAC key bytes: base64 after `whsec_`, else the raw UTF-8 bytes of the secret. */
function secretKey(secret: string): Uint8Array {
  if (secret.startsWith("whsec_")) {
    try {
      return base64Decode(secret.slice("whsec_".length));
    } catch {
      throw new WebhookVerificationError("secret: whsec_ secret is not valid base64");
    }
  }
  if (secret === "") {
    throw new WebhookVerificationError("secret: empty");
  }
  return new TextEncoder().encode(secret);
}

/**
 * Checks a delivery's signature and timestamp and returns its parsed event,
 * typed by its `type`: `if (e.type === "creator.created") e.data.email`.
 * (A server newer than this client may send a type it does not know yet;
 * compare `type` before reading `data`.)
 * Pass the raw body exactly as received (before any JSON parsing), the
 * request headers (a Headers object or Node's IncomingHttpHeaders) and the
 * webhook's secret (`whsec_...` as returned at creation or rotation, or the
 * raw secret you supplied). While you switch to a rotated secret, pass both,
 * `[newSecret, oldSecret]`: a delivery verifies when any secret matches any
 * of its signatures (during the service's grace period each delivery is
 * signed with the old and the new secret alike). Throws
 * WebhookVerificationError when any check fails.
 */
export async function verifyWebhook(
  payload: string | Uint8Array,
  headers: HeaderBag,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const secrets = typeof secret === "string" ? [secret] : [...secret];
  if (secrets.length === 0) {
    throw new WebhookVerificationError("secret: none given");
  }
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (id === "" || timestamp === "" || signatures === "") {
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header");
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError("webhook-timestamp: not a Unix time in seconds");
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp: more than ${tolerance} s from the current time`);
  }

  const body = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);

  const keys = await Promise.all(
    secrets.map((s) =>
      globalThis.crypto.subtle.importKey("raw", secretKey(s) as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, [
        "verify",
      ]),
    ),
  );
  let matched = false;
  for (const entry of signatures.split(" ")) {
    if (matched) {
      break;
    }
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") {
      continue; // other schemes (v1a, ...) are not used by this service
    }
    let sig: Uint8Array;
    try {
      sig = base64Decode(entry.slice(comma + 1));
    } catch {
      continue;
    }
    // crypto.subtle.verify compares in constant time.
    for (const key of keys) {
      if (await globalThis.crypto.subtle.verify("HMAC", key, sig as Uint8Array<ArrayBuffer>, signed)) {
        matched = true;
        break;
      }
    }
  }
  if (!matched) {
    throw new WebhookVerificationError("webhook-signature: no v1 signature matches the payload");
  }
  const text = typeof payload === "string" ? payload : new TextDecoder().decode(payload);
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("payload: signed, but not JSON");
  }
}
