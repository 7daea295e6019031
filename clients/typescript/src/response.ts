/** The rate limit state of the caller's key after a request (the RateLimit header). */
export interface RateLimitInfo {
  /** The bucket size: requests that may be sent at once. */
  limit: number;
  /** Requests that may be sent now. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
}

/** What the HTTP answer of a successful call said besides its message. */
export interface ResponseInfo {
  /** The server's request id (X-Request-Id): quote it when reporting a problem. */
  requestId: string;
  /** The RateLimit header, when the server sent one (keyed, rate-limited calls). */
  rateLimit: RateLimitInfo | undefined;
}

const infos = new WeakMap<object, ResponseInfo>();

/**
 * The request id and rate limit state of the answer an object came in: a
 * message a method returned, an item a list iterator yielded (its page's
 * answer), or the array or bytes a method unwrapped from its message.
 * undefined for anything else.
 *
 *     const creator = await co.creators.create({ ... });
 *     console.log(responseInfo(creator)?.requestId, responseInfo(creator)?.rateLimit?.remaining);
 */
export function responseInfo(result: object): ResponseInfo | undefined {
  return infos.get(result);
}

/** Remembers the answer's headers for the message it carried. */
export function recordResponse(message: object, headers: Headers): void {
  infos.set(message, { requestId: headers.get("x-request-id") ?? "", rateLimit: parseRateLimit(headers.get("ratelimit")) });
}

/** Makes what a method returns, derived from a message, answer responseInfo like the message. */
export function linkResponse<T>(from: object, to: T): T {
  const info = infos.get(from);
  if (info !== undefined && typeof to === "object" && to !== null) {
    infos.set(to, info);
  }
  return to;
}

/**
 * Parses RateLimit (draft-ietf-httpapi-ratelimit-headers-07, section 4) as
 * the server writes it: "limit=100, remaining=99, reset=1". undefined when
 * absent or when a member is missing or not a number.
 */
export function parseRateLimit(header: string | null): RateLimitInfo | undefined {
  if (header === null) {
    return undefined;
  }
  const members = new Map<string, number>();
  for (const part of header.split(",")) {
    const [k, v] = part.split("=", 2).map((s) => s.trim());
    if (k && v !== undefined && /^\d+$/.test(v)) {
      members.set(k.toLowerCase(), Number(v));
    }
  }
  const limit = members.get("limit");
  const remaining = members.get("remaining");
  const resetSeconds = members.get("reset");
  return limit === undefined || remaining === undefined || resetSeconds === undefined ? undefined : { limit, remaining, resetSeconds };
}
