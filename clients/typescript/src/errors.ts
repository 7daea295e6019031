import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** A field the server rejected, from a google.rpc.BadRequest detail. */
export interface FieldViolation {
  /** The field path, e.g. "email" or "context.release_date". */
  field: string;
  description: string;
}

/** The gRPC code names, as the REST error body spells them in `status`. */
const statusNames: Record<Code, string> = {
  [Code.Canceled]: "CANCELLED",
  [Code.Unknown]: "UNKNOWN",
  [Code.InvalidArgument]: "INVALID_ARGUMENT",
  [Code.DeadlineExceeded]: "DEADLINE_EXCEEDED",
  [Code.NotFound]: "NOT_FOUND",
  [Code.AlreadyExists]: "ALREADY_EXISTS",
  [Code.PermissionDenied]: "PERMISSION_DENIED",
  [Code.ResourceExhausted]: "RESOURCE_EXHAUSTED",
  [Code.FailedPrecondition]: "FAILED_PRECONDITION",
  [Code.Aborted]: "ABORTED",
  [Code.OutOfRange]: "OUT_OF_RANGE",
  [Code.Unimplemented]: "UNIMPLEMENTED",
  [Code.Internal]: "INTERNAL",
  [Code.Unavailable]: "UNAVAILABLE",
  [Code.DataLoss]: "DATA_LOSS",
  [Code.Unauthenticated]: "UNAUTHENTICATED",
};

// The HTTP status the REST API answers for each gRPC code (grpc-gateway's
// mapping), so that an error reads the same whichever transport carried it.
const httpStatuses: Record<Code, number> = {
  [Code.Canceled]: 499,
  [Code.Unknown]: 500,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 400,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Internal]: 500,
  [Code.Unavailable]: 503,
  [Code.DataLoss]: 500,
  [Code.Unauthenticated]: 401,
};

// Reasons the server answers with an HTTP status of their own (server/errors.go).
const reasonStatuses: Record<string, number> = {
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_MISMATCH: 422,
  METHOD_NOT_ALLOWED: 405,
  JOB_ALREADY_FINISHED: 409,
  WEBHOOK_DISABLED: 409,
};

/**
 * A failure the client met with no HTTP answer: fetch (or the HTTP/2
 * session) failed, or the attempt's timeout elapsed. The client's
 * interceptor raises it as the cause of a ConnectError, so that it
 * survives Connect's error wrapping; CreativeOpsError.from turns it into
 * APIConnectionError or APITimeoutError.
 */
export class NoResponse extends Error {
  override readonly name = "NoResponse";
  constructor(
    readonly kind: "connection" | "timeout",
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
  }
}

/**
 * An error answered by the API (or a failure to reach it), carrying the
 * AIP-193 fields the REST error body has: `httpStatus` is the HTTP status
 * (0 when no HTTP answer was received), `status` the gRPC code name,
 * `reason` the stable ErrorInfo reason.
 */
export class CreativeOpsError extends Error {
  override readonly name: string = "CreativeOpsError";
  /** HTTP status, e.g. 404 (the REST body's `error.code`); 0 when no HTTP answer was received. */
  readonly httpStatus: number;
  /** gRPC code name, e.g. "NOT_FOUND" (the REST body's `error.status`). */
  readonly status: string;
  /** The google.rpc.ErrorInfo reason, e.g. "DUPLICATE_EMAIL"; "" when the server gave none. */
  readonly reason: string;
  /** The google.rpc.ErrorInfo metadata. */
  readonly metadata: Record<string, string>;
  /** The fields at fault (google.rpc.BadRequest), empty when none. */
  readonly fieldViolations: FieldViolation[];
  /** The server's request id (X-Request-Id), "" when the request never reached it. */
  readonly requestId: string;
  /** Seconds to wait before retrying (Retry-After), when the server said. */
  readonly retryAfter: number | undefined;
  /** The Connect code, for callers that work with @connectrpc/connect directly. */
  readonly connectCode: Code;

  constructor(init: {
    message: string;
    connectCode: Code;
    /** Default: the HTTP status the REST API answers for the code and reason. */
    httpStatus?: number;
    reason?: string;
    metadata?: Record<string, string>;
    fieldViolations?: FieldViolation[];
    requestId?: string;
    retryAfter?: number;
    cause?: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.connectCode = init.connectCode;
    this.status = statusNames[init.connectCode] ?? "UNKNOWN";
    this.reason = init.reason ?? "";
    this.httpStatus = init.httpStatus ?? reasonStatuses[this.reason] ?? httpStatuses[init.connectCode] ?? 500;
    this.metadata = init.metadata ?? {};
    this.fieldViolations = init.fieldViolations ?? [];
    this.requestId = init.requestId ?? "";
    this.retryAfter = init.retryAfter;
  }

  /** Converts any error thrown by a Connect transport. */
  static from(err: unknown): CreativeOpsError {
    if (err instanceof CreativeOpsError) {
      return err;
    }
    const ce = ConnectError.from(err);
    const failure = noResponseOf(ce);
    if (failure !== undefined) {
      const init = { message: failure.message, cause: failure.cause ?? err };
      return failure.kind === "timeout" ? new APITimeoutError(init) : new APIConnectionError(init);
    }
    // An error of a call that got no HTTP answer carries no response headers.
    const answered = hasHeaders(ce.metadata);
    if (!answered && ce.code === Code.DeadlineExceeded) {
      // The deadline of a call made through `rpc` with Connect's own timeoutMs.
      return new APITimeoutError({ message: ce.rawMessage, cause: err });
    }
    let reason = "";
    let metadata: Record<string, string> = {};
    const fieldViolations: FieldViolation[] = [];
    for (const d of ce.details) {
      if (!("type" in d) || !(d.value instanceof Uint8Array)) {
        continue; // an outgoing detail: only servers create those
      }
      if (d.type === "google.rpc.ErrorInfo") {
        const info = decodeErrorInfo(d.value);
        reason = info.reason;
        metadata = info.metadata;
      } else if (d.type === "google.rpc.BadRequest") {
        fieldViolations.push(...decodeBadRequest(d.value));
      }
    }
    return new CreativeOpsError({
      message: ce.rawMessage,
      connectCode: ce.code,
      ...(answered ? {} : { httpStatus: 0 }),
      reason,
      metadata,
      fieldViolations,
      requestId: ce.metadata.get("x-request-id") ?? "",
      retryAfter: retryAfterSeconds(ce.metadata, metadata),
      cause: err,
    });
  }
}

/**
 * The API could not be reached, or the connection failed before an answer
 * came: connection refused or reset, DNS, TLS, or, in a browser, a CORS
 * refusal or any other network error (browsers do not say which).
 * `status` is "UNAVAILABLE" and `httpStatus` 0. Requests safe to repeat
 * were retried before this was thrown.
 */
export class APIConnectionError extends CreativeOpsError {
  override readonly name: string = "APIConnectionError";

  constructor(init: { message: string; cause?: unknown }, connectCode: Code = Code.Unavailable) {
    super({ message: init.message, connectCode, httpStatus: 0, cause: init.cause });
  }
}

/**
 * The timeout of an attempt (CallOptions.timeoutMs, or the client's
 * timeoutMs) elapsed before the answer came. `status` is
 * "DEADLINE_EXCEEDED" and `httpStatus` 0.
 */
export class APITimeoutError extends APIConnectionError {
  override readonly name: string = "APITimeoutError";

  constructor(init: { message: string; cause?: unknown }) {
    super(init, Code.DeadlineExceeded);
  }
}

/** Whether an error carries any response header: an error of an HTTP answer does (X-Request-Id at least). */
export function hasHeaders(h: Headers): boolean {
  let any = false;
  h.forEach(() => {
    any = true;
  });
  return any;
}

/** The NoResponse a ConnectError was raised for, if any. */
function noResponseOf(ce: ConnectError): NoResponse | undefined {
  for (let e: unknown = ce, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof NoResponse) {
      return e;
    }
  }
  return undefined;
}

/** Seconds from a Retry-After header (delay-seconds or HTTP date), else from ErrorInfo metadata. */
export function retryAfterSeconds(headers: Headers, metadata: Record<string, string>): number | undefined {
  const h = headers.get("retry-after");
  if (h !== null && h.trim() !== "") {
    const n = Number(h.trim());
    if (Number.isFinite(n) && n >= 0) {
      return n;
    }
    const at = Date.parse(h);
    if (!Number.isNaN(at)) {
      return Math.max(0, (at - Date.now()) / 1000);
    }
  }
  const m = Number(metadata["retry_after_seconds"]);
  return metadata["retry_after_seconds"] !== undefined && Number.isFinite(m) && m >= 0 ? m : undefined;
}

// google.rpc.ErrorInfo and google.rpc.BadRequest are decoded by hand: two
// small messages do not justify shipping all of googleapis.

function decodeErrorInfo(bytes: Uint8Array): { reason: string; metadata: Record<string, string> } {
  const r = new BinaryReader(bytes);
  let reason = "";
  const metadata: Record<string, string> = {};
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WireType.LengthDelimited) {
      reason = r.string();
    } else if (field === 3 && wire === WireType.LengthDelimited) {
      const entry = new BinaryReader(r.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const [f, w] = entry.tag();
        if (f === 1 && w === WireType.LengthDelimited) key = entry.string();
        else if (f === 2 && w === WireType.LengthDelimited) value = entry.string();
        else entry.skip(w);
      }
      metadata[key] = value;
    } else {
      r.skip(wire);
    }
  }
  return { reason, metadata };
}

function decodeBadRequest(bytes: Uint8Array): FieldViolation[] {
  const r = new BinaryReader(bytes);
  const out: FieldViolation[] = [];
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field !== 1 || wire !== WireType.LengthDelimited) {
      r.skip(wire);
      continue;
    }
    const v = new BinaryReader(r.bytes());
    const fv: FieldViolation = { field: "", description: "" };
    while (v.pos < v.len) {
      const [f, w] = v.tag();
      if (f === 1 && w === WireType.LengthDelimited) fv.field = v.string();
      else if (f === 2 && w === WireType.LengthDelimited) fv.description = v.string();
      else v.skip(w);
    }
    out.push(fv);
  }
  return out;
}

const codesByName = Object.fromEntries(Object.entries(statusNames).map(([code, name]) => [name, Number(code) as Code])) as Record<string, Code>;

/**
 * The CreativeOpsError of a REST answer that is not 2xx, read from its
 * AIP-193 body (`{"error": {"code", "status", "message", "details"}}`);
 * for the few endpoints that are not RPCs (the calendar feed), fetched
 * with plain fetch.
 */
export async function errorFromRESTResponse(res: Response): Promise<CreativeOpsError> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const e = (body as { error?: Record<string, unknown> } | undefined)?.error ?? {};
  let reason = "";
  let metadata: Record<string, string> = {};
  const fieldViolations: FieldViolation[] = [];
  for (const d of Array.isArray(e.details) ? (e.details as Record<string, unknown>[]) : []) {
    const type = String(d["@type"] ?? "");
    if (type.endsWith("/google.rpc.ErrorInfo")) {
      reason = String(d.reason ?? "");
      metadata = (d.metadata ?? {}) as Record<string, string>;
    } else if (type.endsWith("/google.rpc.BadRequest")) {
      for (const v of (d.field_violations ?? d.fieldViolations ?? []) as Record<string, unknown>[]) {
        fieldViolations.push({ field: String(v.field ?? ""), description: String(v.description ?? "") });
      }
    }
  }
  return new CreativeOpsError({
    message: typeof e.message === "string" ? e.message : `${res.status} ${res.statusText}`,
    connectCode: codesByName[String(e.status)] ?? Code.Unknown,
    httpStatus: res.status,
    reason,
    metadata,
    fieldViolations,
    requestId: res.headers.get("x-request-id") ?? (typeof e.request_id === "string" ? e.request_id : ""),
    retryAfter: retryAfterSeconds(res.headers, metadata),
  });
}
