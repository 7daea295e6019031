import type { DescMessage, JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, createClient, createContextValues } from "@connectrpc/connect";
import type { CallOptions as ConnectCallOptions, Client, Interceptor } from "@connectrpc/connect";
import { AnalyticsService } from "./gen/creativeops/v1/analytics_pb.js";
import type { UsageReport } from "./gen/creativeops/v1/analytics_pb.js";
import { AuditService } from "./gen/creativeops/v1/audit_pb.js";
import type { AuditEvent } from "./gen/creativeops/v1/audit_pb.js";
import { CreatorsService } from "./gen/creativeops/v1/creators_pb.js";
import type { CreateCreatorRequestSchema, Creator, CreatorExport, ListCreatorsRequestSchema } from "./gen/creativeops/v1/creators_pb.js";
import { EngineService } from "./gen/creativeops/v1/engine_pb.js";
import { EventsService } from "./gen/creativeops/v1/events_pb.js";
import type { Event } from "./gen/creativeops/v1/events_pb.js";
import type { Job, ListCalendarsResponse, ListJobsRequestSchema, RunWorkflowRequestSchema, Vertical, Workflow } from "./gen/creativeops/v1/engine_pb.js";
import { IPService } from "./gen/creativeops/v1/ip_pb.js";
import type {
  Certificate,
  Checkpoint,
  ConsistencyProof,
  IPKeys,
  IPRecord,
  ListCatalogRequestSchema,
  RegisterWorkRequestSchema,
} from "./gen/creativeops/v1/ip_pb.js";
import { KeysService } from "./gen/creativeops/v1/keys_pb.js";
import type { APIKey, CreateKeyRequestSchema } from "./gen/creativeops/v1/keys_pb.js";
import { OAuthClientsService } from "./gen/creativeops/v1/oauth_pb.js";
import { PlansService } from "./gen/creativeops/v1/plans_pb.js";
import type { CreatePlanRequestSchema, ListPlansRequestSchema, Plan, PlanFeed, ReplanPlanResponse } from "./gen/creativeops/v1/plans_pb.js";
import type { CreateOAuthClientRequestSchema, OAuthClient } from "./gen/creativeops/v1/oauth_pb.js";
import { WebhooksService } from "./gen/creativeops/v1/webhooks_pb.js";
import type { CreateWebhookRequestSchema, Delivery, UpdateWebhookRequestSchema, Webhook } from "./gen/creativeops/v1/webhooks_pb.js";
import { verifyCertificate } from "./certificates.js";
import type { VerifiedCertificate } from "./certificates.js";
import { APIConnectionError, APITimeoutError, CreativeOpsError, errorFromRESTResponse } from "./errors.js";
import { attemptTimeoutKey, clientInterceptor, sleep } from "./retry.js";
import { linkResponse } from "./response.js";
import type { ClientAuth, RetryOptions } from "./retry.js";
import { createTransport } from "./transport.js";
import type { TransportKind } from "./transport.js";

export interface CreativeOpsOptions {
  /** An API key (co_live_...). Keep it on servers: never ship it in browser code. */
  apiKey?: string;
  /**
   * Instead of apiKey, in a page served by the service itself (the dashboard):
   * the CSRF token of the browser's session. Calls carry it as X-CSRF-Token and
   * the session cookie the browser sends with same-origin requests; no
   * Authorization header. Give exactly one of apiKey and csrfToken.
   */
  csrfToken?: string;
  /** Where the service listens, e.g. "https://api.example.com" or "http://localhost:8080". */
  baseUrl: string;
  /** "connect" (default), "grpc-web", or "grpc" (Node only). */
  transport?: TransportKind;
  /**
   * Retries of 429 and 503 answers, and of connection failures and
   * timeouts of requests safe to repeat (reads, deletes, POSTs with an
   * Idempotency-Key).
   */
  retry?: RetryOptions;
  /** Timeout of each attempt of a call that gives no timeoutMs of its own, in ms. Default: none. */
  timeoutMs?: number;
  /**
   * Whether every POST without an idempotencyKey gets a generated one, the
   * same for all its attempts (default true): the server then runs it once,
   * so it is retried after a connection failure or timeout like a read.
   * With false, such a POST is sent without a key and never retried once it
   * may have reached the server.
   */
  autoIdempotencyKeys?: boolean;
  /** More Connect interceptors, run inside the client's own (after auth and retries). */
  interceptors?: Interceptor[];
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call (CreativeOpsError, status "CANCELLED"). */
  signal?: AbortSignal;
  /** Timeout of each attempt, in ms (APITimeoutError once every attempt timed out). Overrides the client's timeoutMs. */
  timeoutMs?: number;
  /** Extra request headers. */
  headers?: HeadersInit;
  /**
   * The Idempotency-Key of a POST: the server runs the request once per
   * key (for 24 h) and answers a repeat with the first outcome, so a
   * create sent again, by a retry or by you, makes one resource.
   */
  idempotencyKey?: string;
}

/** A request message as a plain object (fields optional, lowerCamelCase). */
type Init<S extends DescMessage> = MessageInitShape<S>;
/** A list request without its page token: the iterator follows the pages itself. */
type ListParams<S extends DescMessage> = Omit<MessageInitShape<S>, "pageToken" | "$typeName">;

/** Pages through a list RPC, yielding items until next_page_token is empty. */
async function* paginate<T, R extends { nextPageToken: string } & object>(
  fetchPage: (pageToken: string) => Promise<R>,
  items: (page: R) => T[],
): AsyncGenerator<T, void, undefined> {
  let token = "";
  do {
    const page = await fetchPage(token);
    for (const item of items(page)) {
      yield linkResponse(page, item);
    }
    token = page.nextPageToken;
  } while (token !== "");
}

/**
 * The Connect call options of CallOptions: idempotencyKey as the
 * Idempotency-Key header, timeoutMs as the timeout of each attempt (the
 * client's interceptor applies it; Connect's own timeoutMs would bound
 * all attempts together). Throws TypeError naming a bad option.
 */
function connectCallOptions(opts: (CallOptions & ConnectCallOptions) | undefined): ConnectCallOptions | undefined {
  if (opts === undefined) {
    return undefined;
  }
  const { idempotencyKey, timeoutMs, headers, contextValues, ...rest } = opts;
  if (idempotencyKey !== undefined && (typeof idempotencyKey !== "string" || idempotencyKey === "" || idempotencyKey.length > 255)) {
    throw new TypeError("idempotencyKey: must be a string of 1 to 255 characters");
  }
  if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && timeoutMs > 0 && Number.isFinite(timeoutMs))) {
    throw new TypeError("timeoutMs: must be a positive number of milliseconds");
  }
  const out: ConnectCallOptions = { ...rest };
  if (headers !== undefined || idempotencyKey !== undefined) {
    const h = new Headers(headers);
    if (idempotencyKey !== undefined) {
      h.set("idempotency-key", idempotencyKey);
    }
    out.headers = h;
  }
  if (timeoutMs !== undefined || contextValues !== undefined) {
    const cv = contextValues ?? createContextValues();
    if (timeoutMs !== undefined) {
      cv.set(attemptTimeoutKey, timeoutMs);
    }
    out.contextValues = cv;
  }
  return out;
}

/**
 * Makes every method of a Connect client take CallOptions and reject with
 * CreativeOpsError. (Interceptors cannot: the transport re-wraps any error
 * that is not a ConnectError as UNKNOWN.) All methods of these services
 * are unary: (request, options).
 */
function throwingCreativeOpsErrors<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") {
        return value;
      }
      return async (req: unknown, opts?: CallOptions & ConnectCallOptions) => {
        const options = connectCallOptions(opts);
        try {
          return await value.call(target, req, options);
        } catch (err) {
          throw CreativeOpsError.from(err);
        }
      };
    },
  });
}

/** A google.protobuf.Duration from a number of seconds (fractions kept to the nanosecond). */
function durationFromSeconds(s: number): { seconds: bigint; nanos: number } {
  const whole = Math.floor(s);
  return { seconds: BigInt(whole), nanos: Math.round((s - whole) * 1e9) };
}

const terminalJobStatuses = new Set(["completed", "failed", "canceled"]);

/**
 * The creativeops client. Every method returns the API's resources as
 * protobuf-es messages (lowerCamelCase fields), throws CreativeOpsError on
 * failure, and list methods return async iterators over all pages.
 *
 *     const co = new CreativeOps({ apiKey: process.env.CREATIVEOPS_KEY!, baseUrl: "http://localhost:8080" });
 *     const creator = await co.creators.create({ name: "Nova Reyes", email: "nova@example.com", vertical: "music" });
 */
export class CreativeOps {
  /** The Connect clients, one per service, for anything the facade does not wrap (they throw CreativeOpsError too). */
  readonly rpc: {
    creators: Client<typeof CreatorsService>;
    keys: Client<typeof KeysService>;
    engine: Client<typeof EngineService>;
    ip: Client<typeof IPService>;
    webhooks: Client<typeof WebhooksService>;
    events: Client<typeof EventsService>;
    analytics: Client<typeof AnalyticsService>;
    audit: Client<typeof AuditService>;
    oauthClients: Client<typeof OAuthClientsService>;
    plans: Client<typeof PlansService>;
  };
  readonly creators: CreatorsResource;
  readonly keys: KeysResource;
  readonly engine: EngineResource;
  readonly ip: IPResource;
  readonly webhooks: WebhooksResource;
  readonly events: EventsResource;
  readonly analytics: AnalyticsResource;
  readonly audit: AuditResource;
  readonly oauthClients: OAuthClientsResource;
  readonly plans: PlansResource;

  constructor(options: CreativeOpsOptions) {
    const hasKey = options.apiKey !== undefined;
    const hasCsrf = options.csrfToken !== undefined;
    if (hasKey && hasCsrf) {
      throw new TypeError("apiKey, csrfToken: give one, not both");
    }
    if (hasCsrf ? typeof options.csrfToken !== "string" || options.csrfToken === "" : typeof options.apiKey !== "string" || options.apiKey === "") {
      throw new TypeError(hasCsrf ? "csrfToken: must be a non-empty string" : "apiKey: required");
    }
    if (typeof options.baseUrl !== "string" || !/^https?:\/\//.test(options.baseUrl)) {
      throw new TypeError("baseUrl: must be an http:// or https:// URL");
    }
    const t = options.timeoutMs;
    if (t !== undefined && !(typeof t === "number" && t > 0 && Number.isFinite(t))) {
      throw new TypeError("timeoutMs: must be a positive number of milliseconds");
    }
    const baseUrl = options.baseUrl.replace(/\/+$/, "");
    const auth: ClientAuth = hasCsrf ? { csrfToken: options.csrfToken as string } : { apiKey: options.apiKey as string };
    const interceptors = [clientInterceptor(
        auth,
        options.retry ?? {},
        { timeoutMs: t, autoIdempotencyKeys: options.autoIdempotencyKeys ?? true },
      ), ...(options.interceptors ?? [])];
    const transport = createTransport(options.transport ?? "connect", baseUrl, interceptors);
    this.rpc = {
      creators: throwingCreativeOpsErrors(createClient(CreatorsService, transport)),
      keys: throwingCreativeOpsErrors(createClient(KeysService, transport)),
      engine: throwingCreativeOpsErrors(createClient(EngineService, transport)),
      ip: throwingCreativeOpsErrors(createClient(IPService, transport)),
      webhooks: throwingCreativeOpsErrors(createClient(WebhooksService, transport)),
      events: throwingCreativeOpsErrors(createClient(EventsService, transport)),
      analytics: throwingCreativeOpsErrors(createClient(AnalyticsService, transport)),
      audit: throwingCreativeOpsErrors(createClient(AuditService, transport)),
      oauthClients: throwingCreativeOpsErrors(createClient(OAuthClientsService, transport)),
      plans: throwingCreativeOpsErrors(createClient(PlansService, transport)),
    };
    this.creators = new CreatorsResource(this.rpc.creators);
    this.keys = new KeysResource(this.rpc.keys);
    this.engine = new EngineResource(this.rpc.engine);
    this.ip = new IPResource(this.rpc.ip);
    this.webhooks = new WebhooksResource(this.rpc.webhooks);
    this.events = new EventsResource(this.rpc.events);
    this.analytics = new AnalyticsResource(this.rpc.analytics);
    this.audit = new AuditResource(this.rpc.audit);
    this.oauthClients = new OAuthClientsResource(this.rpc.oauthClients);
    this.plans = new PlansResource(this.rpc.plans, { baseUrl, auth, timeoutMs: t });
  }
}

export class CreatorsResource {
  constructor(private readonly rpc: Client<typeof CreatorsService>) {}

  /** Creates a creator (201). */
  create(req: Init<typeof CreateCreatorRequestSchema>, opts?: CallOptions): Promise<Creator> {
    return this.rpc.createCreator(req, opts);
  }

  get(id: string, opts?: CallOptions): Promise<Creator> {
    return this.rpc.getCreator({ id }, opts);
  }

  /**
   * All creators, newest first, fetched pageSize at a time: optionally of one
   * vertical, with one email (case-insensitive), created in a time range.
   */
  list(
    params: Omit<ListParams<typeof ListCreatorsRequestSchema>, "createdAfter" | "createdBefore"> & {
      createdAfter?: Date;
      createdBefore?: Date;
    } = {},
    opts?: CallOptions,
  ): AsyncGenerator<Creator, void, undefined> {
    const { createdAfter, createdBefore, ...rest } = params;
    const req = {
      ...rest,
      ...(createdAfter === undefined ? {} : { createdAfter: timestampFromDate(createdAfter) }),
      ...(createdBefore === undefined ? {} : { createdBefore: timestampFromDate(createdBefore) }),
    };
    return paginate(
      (pageToken) => this.rpc.listCreators({ ...req, pageToken }, opts),
      (p) => p.creators,
    );
  }

  /** The creator with this email (compared case-insensitively), or undefined. */
  async findByEmail(email: string, opts?: CallOptions): Promise<Creator | undefined> {
    const page = await this.rpc.listCreators({ email, pageSize: 1 }, opts);
    return page.creators[0];
  }

  /**
   * Changes a creator: only the fields given change. metadata is merged key
   * by key, a key set to null is removed; clearMetadata removes every key
   * first. With revision (the creator's revision as read), the update is
   * refused with 409 REVISION_MISMATCH if the creator changed since.
   */
  update(id: string, changes: CreatorChanges, opts?: CallOptions): Promise<Creator> {
    const paths: string[] = [];
    for (const f of ["name", "email", "vertical", "metadata"] as const) {
      if (changes[f] !== undefined) paths.push(f);
    }
    if (changes.clearMetadata && !paths.includes("metadata")) paths.push("metadata");
    return this.rpc.updateCreator(
      {
        id,
        name: changes.name,
        email: changes.email,
        vertical: changes.vertical,
        metadata: changes.metadata as JsonObject | undefined,
        revision: changes.revision,
        updateMask: { paths },
      },
      opts,
    );
  }

  /**
   * Erases a creator (scope creators:admin): its personal data is removed
   * from the service; the id answers 404 from then on.
   */
  async erase(id: string, opts?: CallOptions): Promise<void> {
    await this.rpc.deleteCreator({ id }, opts);
  }

  /** Everything the service holds about one creator, as one document (scope creators:admin). */
  export(id: string, opts?: CallOptions): Promise<CreatorExport> {
    return this.rpc.exportCreator({ id }, opts);
  }
}

/** The changes of CreatorsResource.update. */
export interface CreatorChanges {
  name?: string;
  email?: string;
  vertical?: string;
  /** Keys to set; a key set to null is removed, keys not given are kept. */
  metadata?: { [key: string]: JsonObject[string] | null };
  /** Remove every metadata key (before metadata is merged). */
  clearMetadata?: boolean;
  /** The revision the change is based on. */
  revision?: number;
}

export class KeysResource {
  constructor(private readonly rpc: Client<typeof KeysService>) {}

  /** Creates an API key; its `secret` is in this response only. */
  create(req: Init<typeof CreateKeyRequestSchema>, opts?: CallOptions): Promise<APIKey> {
    return this.rpc.createKey(req, opts);
  }

  list(params: { pageSize?: number } = {}, opts?: CallOptions): AsyncGenerator<APIKey, void, undefined> {
    return paginate(
      (pageToken) => this.rpc.listKeys({ ...params, pageToken }, opts),
      (p) => p.keys,
    );
  }

  /** Issues a new secret; the old one keeps working for gracePeriodSeconds (default: the server's, 24 h). */
  rotate(id: string, params: { gracePeriodSeconds?: number } = {}, opts?: CallOptions): Promise<APIKey> {
    const g = params.gracePeriodSeconds;
    return this.rpc.rotateKey(g === undefined ? { id } : { id, gracePeriod: durationFromSeconds(g) }, opts);
  }

  /** Revokes a key at once. */
  async revoke(id: string, opts?: CallOptions): Promise<void> {
    await this.rpc.revokeKey({ id }, opts);
  }
}

export interface WaitForJobOptions {
  /** Delay between polls, in ms. Default 500. */
  intervalMs?: number;
  /** Give up after this long, in ms. Default 120000. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export class EngineResource {
  constructor(private readonly rpc: Client<typeof EngineService>) {}

  async listVerticals(opts?: CallOptions): Promise<Vertical[]> {
    const res = await this.rpc.listVerticals({}, opts);
    return linkResponse(res, res.verticals);
  }

  /**
   * The countries the `country` input accepts, the currencies of the
   * `currency` input, and the industry closures every plan respects.
   */
  listCalendars(opts?: CallOptions): Promise<ListCalendarsResponse> {
    return this.rpc.listCalendars({}, opts);
  }

  async listWorkflows(params: { vertical?: string } = {}, opts?: CallOptions): Promise<Workflow[]> {
    const res = await this.rpc.listWorkflows(params, opts);
    return linkResponse(res, res.workflows);
  }

  getWorkflow(id: string, opts?: CallOptions): Promise<Workflow> {
    return this.rpc.getWorkflow({ id }, opts);
  }

  /**
   * Runs a workflow. Synchronous by default: the job comes back completed
   * with its result. With `async: true` it comes back queued; follow it
   * with waitForJob(job.id).
   */
  run(req: Init<typeof RunWorkflowRequestSchema>, opts?: CallOptions): Promise<Job> {
    return this.rpc.runWorkflow(req, opts);
  }

  getJob(id: string, opts?: CallOptions): Promise<Job> {
    return this.rpc.getJob({ id }, opts);
  }

  listJobs(params: ListParams<typeof ListJobsRequestSchema> = {}, opts?: CallOptions): AsyncGenerator<Job, void, undefined> {
    return paginate(
      (pageToken) => this.rpc.listJobs({ ...params, pageToken }, opts),
      (p) => p.jobs,
    );
  }

  cancelJob(id: string, opts?: CallOptions): Promise<Job> {
    return this.rpc.cancelJob({ id }, opts);
  }

  /**
   * Polls a job until it is completed, failed or canceled and returns it
   * (check `status`: a failed job is returned, not thrown). Throws a
   * CreativeOpsError with status DEADLINE_EXCEEDED after timeoutMs.
   */
  async waitForJob(id: string, options: WaitForJobOptions = {}): Promise<Job> {
    const interval = options.intervalMs ?? 500;
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    for (;;) {
      const job = await this.getJob(id, options.signal === undefined ? undefined : { signal: options.signal });
      if (terminalJobStatuses.has(job.status)) {
        return job;
      }
      if (Date.now() + interval > deadline) {
        throw new CreativeOpsError({
          message: `job ${id} is still ${job.status} after ${options.timeoutMs ?? 120_000} ms`,
          connectCode: Code.DeadlineExceeded,
          httpStatus: 0,
        });
      }
      await sleep(interval, options.signal);
    }
  }
}

export class IPResource {
  constructor(private readonly rpc: Client<typeof IPService>) {}

  /** Registers a work by its content hash (sha256:<hex> or bare hex); returns once it is in a signed checkpoint. */
  register(req: Init<typeof RegisterWorkRequestSchema>, opts?: CallOptions): Promise<IPRecord> {
    return this.rpc.registerWork(req, opts);
  }

  /** The organization's records (or one creator's), newest first, with the catalog filters. */
  catalog(
    params: Omit<ListParams<typeof ListCatalogRequestSchema>, "registeredAfter" | "registeredBefore"> & {
      registeredAfter?: Date;
      registeredBefore?: Date;
    } = {},
    opts?: CallOptions,
  ): AsyncGenerator<IPRecord, void, undefined> {
    const { registeredAfter, registeredBefore, ...rest } = params;
    const req = {
      ...rest,
      ...(registeredAfter === undefined ? {} : { registeredAfter: timestampFromDate(registeredAfter) }),
      ...(registeredBefore === undefined ? {} : { registeredBefore: timestampFromDate(registeredBefore) }),
    };
    return paginate(
      (pageToken) => this.rpc.listCatalog({ ...req, pageToken }, opts),
      (p) => p.records,
    );
  }

  getRecord(id: string, opts?: CallOptions): Promise<IPRecord> {
    return this.rpc.getRecord({ id }, opts);
  }

  /** The certificate bundle: record bytes, RFC 3161 token, inclusion proof, checkpoint and keys. */
  getCertificate(certificateId: string, opts?: CallOptions): Promise<Certificate> {
    return this.rpc.getCertificate({ certificateId }, opts);
  }

  /** The DER RFC 3161 timestamp token alone. */
  async getCertificateToken(certificateId: string, opts?: CallOptions): Promise<Uint8Array> {
    const res = await this.rpc.getCertificateToken({ certificateId }, opts);
    return linkResponse(res, res.data);
  }

  getCheckpoint(opts?: CallOptions): Promise<Checkpoint> {
    return this.rpc.getCheckpoint({}, opts);
  }

  getConsistencyProof(from: number | bigint, to: number | bigint, opts?: CallOptions): Promise<ConsistencyProof> {
    return this.rpc.getConsistencyProof({ from: BigInt(from), to: BigInt(to) }, opts);
  }

  getKeys(opts?: CallOptions): Promise<IPKeys> {
    return this.rpc.getKeys({}, opts);
  }

  /**
   * Fetches a certificate and verifies it offline (see verifyCertificate):
   * against `keys` when given (the service's keys you kept from earlier,
   * the stronger check), else against the keys the service publishes now.
   * Throws CertificateVerificationError naming the failed checks.
   */
  async verifyCertificate(
    certificateId: string,
    params: { work?: Uint8Array; keys?: IPKeys } = {},
    opts?: CallOptions,
  ): Promise<VerifiedCertificate> {
    const [cert, keys] = await Promise.all([this.getCertificate(certificateId, opts), params.keys ?? this.getKeys(opts)]);
    return verifyCertificate(cert, keys, params.work === undefined ? {} : { work: params.work });
  }
}

export class WebhooksResource {
  constructor(private readonly rpc: Client<typeof WebhooksService>) {}

  /** Subscribes an endpoint; without a secret of yours the generated `whsec_` one is in this response only. */
  create(req: Init<typeof CreateWebhookRequestSchema>, opts?: CallOptions): Promise<Webhook> {
    return this.rpc.createWebhook(req, opts);
  }

  list(params: { pageSize?: number } = {}, opts?: CallOptions): AsyncGenerator<Webhook, void, undefined> {
    return paginate(
      (pageToken) => this.rpc.listWebhooks({ ...params, pageToken }, opts),
      (p) => p.webhooks,
    );
  }

  get(id: string, opts?: CallOptions): Promise<Webhook> {
    return this.rpc.getWebhook({ id }, opts);
  }

  async delete(id: string, opts?: CallOptions): Promise<void> {
    await this.rpc.deleteWebhook({ id }, opts);
  }

  /**
   * Changes an endpoint's url, events or description. Only the fields set
   * change, or with `updateMask: { paths: [...] }` exactly those named
   * (`description: ""` with the mask clears it). A new url is checked as a
   * new endpoint's is.
   */
  update(id: string, req: Omit<Init<typeof UpdateWebhookRequestSchema>, "id" | "$typeName">, opts?: CallOptions): Promise<Webhook> {
    return this.rpc.updateWebhook({ ...req, id }, opts);
  }

  /** Pauses an endpoint: it receives nothing, its pending deliveries fail, its history stays. */
  disable(id: string, opts?: CallOptions): Promise<Webhook> {
    return this.rpc.disableWebhook({ id }, opts);
  }

  /** Resumes a disabled endpoint (however it was disabled). */
  enable(id: string, opts?: CallOptions): Promise<Webhook> {
    return this.rpc.enableWebhook({ id }, opts);
  }

  /**
   * Gives the endpoint a new signing secret: `secret`, or a generated one
   * returned in this response only. Until `previousSecretExpiresAt` every
   * delivery is signed with both (verifyWebhook accepts either).
   */
  rotateSecret(id: string, params: { secret?: string } = {}, opts?: CallOptions): Promise<Webhook> {
    return this.rpc.rotateWebhookSecret({ id, ...params }, opts);
  }

  /** Sends a webhook.test event. */
  test(id: string, opts?: CallOptions): Promise<Delivery> {
    return this.rpc.testWebhook({ id }, opts);
  }

  deliveries(id: string, params: { pageSize?: number } = {}, opts?: CallOptions): AsyncGenerator<Delivery, void, undefined> {
    return paginate(
      (pageToken) => this.rpc.listDeliveries({ id, ...params, pageToken }, opts),
      (p) => p.deliveries,
    );
  }

  redeliver(id: string, deliveryId: string, opts?: CallOptions): Promise<Delivery> {
    return this.rpc.redeliverDelivery({ id, deliveryId }, opts);
  }
}

/** Filters of EventsResource.list. */
export interface ListEventsParams {
  /** Only events of these types. */
  types?: string[];
  /** Only events at or after this time. */
  createdAfter?: Date;
  /** Only events before this time. */
  createdBefore?: Date;
  /** Only events about this resource (a creator, job, plan, IP record or webhook id). */
  objectId?: string;
  /**
   * Only events committed after this one, oldest first: the last event you
   * processed. Without it the list runs newest first.
   */
  after?: string;
  pageSize?: number;
}

export class EventsResource {
  constructor(private readonly rpc: Client<typeof EventsService>) {}

  /**
   * The organization's events, each with the id and data its webhook
   * deliveries carry, whether or not an endpoint received it (kept for the
   * server's event retention, 30 days by default). Reconcile missed
   * deliveries with `list({ after: lastProcessedId })`.
   */
  list(params: ListEventsParams = {}, opts?: CallOptions): AsyncGenerator<Event, void, undefined> {
    const { types, createdAfter, createdBefore, ...rest } = params;
    return paginate(
      (pageToken) =>
        this.rpc.listEvents(
          {
            ...rest,
            type: types ?? [],
            ...(createdAfter === undefined ? {} : { createdAfter: timestampFromDate(createdAfter) }),
            ...(createdBefore === undefined ? {} : { createdBefore: timestampFromDate(createdBefore) }),
            pageToken,
          },
          opts,
        ),
      (p) => p.events,
    );
  }

  get(id: string, opts?: CallOptions): Promise<Event> {
    return this.rpc.getEvent({ id }, opts);
  }
}

export class AnalyticsResource {
  constructor(private readonly rpc: Client<typeof AnalyticsService>) {}

  /** Usage of the caller's organization; defaults: the last 24 h by hour. */
  usage(
    params: { from?: Date; to?: Date; granularity?: "minute" | "hour" | "day"; keyId?: string } = {},
    opts?: CallOptions,
  ): Promise<UsageReport> {
    return this.rpc.getUsage(
      {
        ...(params.from === undefined ? {} : { from: timestampFromDate(params.from) }),
        ...(params.to === undefined ? {} : { to: timestampFromDate(params.to) }),
        granularity: params.granularity ?? "",
        keyId: params.keyId ?? "",
      },
      opts,
    );
  }
}

/** Filters of the audit log; all optional. */
export interface AuditListParams {
  /** key.created, key.rotated, key.revoked, webhook.created, webhook.deleted or organization.created. */
  action?: string;
  /** An API key id ("key_..."), or "cli:<os user>" for the command line. */
  actor?: string;
  /** A key or webhook id. */
  targetId?: string;
  /** Events at or after this time. */
  from?: Date;
  /** Events before this time. */
  to?: Date;
  pageSize?: number;
}

export class AuditResource {
  constructor(private readonly rpc: Client<typeof AuditService>) {}

  /** The organization's audit events (keys:admin), newest first, following every page. */
  list(params: AuditListParams = {}, opts?: CallOptions): AsyncGenerator<AuditEvent, void, undefined> {
    const { from, to, ...rest } = params;
    const req = {
      ...rest,
      ...(from === undefined ? {} : { from: timestampFromDate(from) }),
      ...(to === undefined ? {} : { to: timestampFromDate(to) }),
    };
    return paginate(
      (pageToken) => this.rpc.listAuditEvents({ ...req, pageToken }, opts),
      (p) => p.auditEvents,
    );
  }
}

/** What a new OAuth client is: CreateOAuthClientRequest with the token lifetime in seconds. */
export type OAuthClientCreateParams = Omit<Init<typeof CreateOAuthClientRequestSchema>, "tokenLifetime" | "$typeName"> & {
  /** Lifetime of the client's access tokens, 60 to 86400 s; default: the server's (1 h). */
  tokenLifetimeSeconds?: number;
};

export class OAuthClientsResource {
  constructor(private readonly rpc: Client<typeof OAuthClientsService>) {}

  /**
   * Creates an OAuth 2.0 client (keys:admin). Its `id` is the client_id of
   * POST /oauth/token and its `secret` is in this response only; with `jwks`
   * or `jwksUri` it authenticates with private_key_jwt instead.
   */
  create(req: OAuthClientCreateParams, opts?: CallOptions): Promise<OAuthClient> {
    const { tokenLifetimeSeconds, ...rest } = req;
    return this.rpc.createOAuthClient(
      tokenLifetimeSeconds === undefined ? rest : { ...rest, tokenLifetime: durationFromSeconds(tokenLifetimeSeconds) },
      opts,
    );
  }

  /** The organization's clients (never their secrets), following every page. */
  list(params: { pageSize?: number } = {}, opts?: CallOptions): AsyncGenerator<OAuthClient, void, undefined> {
    return paginate(
      (pageToken) => this.rpc.listOAuthClients({ ...params, pageToken }, opts),
      (p) => p.clients,
    );
  }

  get(id: string, opts?: CallOptions): Promise<OAuthClient> {
    return this.rpc.getOAuthClient({ id }, opts);
  }

  /** Issues a new secret; the old one keeps working for gracePeriodSeconds (default 24 h, at most 30 days; 0 ends it now). */
  rotate(id: string, params: { gracePeriodSeconds?: number } = {}, opts?: CallOptions): Promise<OAuthClient> {
    const g = params.gracePeriodSeconds;
    return this.rpc.rotateOAuthClient(g === undefined ? { id } : { id, gracePeriod: durationFromSeconds(g) }, opts);
  }

  /** Revokes a client: its secrets stop working at once, its access tokens within a second. */
  async delete(id: string, opts?: CallOptions): Promise<void> {
    await this.rpc.deleteOAuthClient({ id }, opts);
  }
}

/** Filters of the plans list; all optional. */
export type PlanListParams = ListParams<typeof ListPlansRequestSchema>;

/** What a re-plan changes: context fields (merged over the plan's; null removes one) and the date to plan as of. */
export interface ReplanParams {
  /** Context fields to change, e.g. { release_date: "2027-05-01" }; a null value removes a field. Default: the same context. */
  context?: JsonObject;
  /** The date (YYYY-MM-DD) to plan as of; default: today in the plan's time zone. */
  asOf?: string;
}

/** What the calendar's plain HTTP request needs of the client: where and as whom. */
interface CalendarAccess {
  baseUrl: string;
  auth: ClientAuth;
  timeoutMs: number | undefined;
}

export class PlansResource {
  constructor(
    private readonly rpc: Client<typeof PlansService>,
    private readonly access: CalendarAccess,
  ) {}

  /**
   * Tracks the plan a completed job made (201). (engine.run with
   * `track: true` does the same when the run completes: the job's `planId`.)
   */
  create(req: Init<typeof CreatePlanRequestSchema>, opts?: CallOptions): Promise<Plan> {
    return this.rpc.createPlan(req, opts);
  }

  /** All plans, newest first, filtered by creatorId, vertical or state ("active", "completed"), fetched pageSize at a time. */
  list(params: PlanListParams = {}, opts?: CallOptions): AsyncGenerator<Plan, void, undefined> {
    return paginate(
      (pageToken) => this.rpc.listPlans({ ...params, pageToken }, opts),
      (p) => p.plans,
    );
  }

  get(id: string, opts?: CallOptions): Promise<Plan> {
    return this.rpc.getPlan({ id }, opts);
  }

  /** Changes a plan's settings: reminder lead time (0 to 60 days) and automatic re-planning. */
  update(id: string, params: { remindDaysBefore?: number; autoReplan?: boolean }, opts?: CallOptions): Promise<Plan> {
    return this.rpc.updatePlan({ id, ...params }, opts);
  }

  /** Stops tracking a plan: no more reminders, and its feed URL stops working. */
  async delete(id: string, opts?: CallOptions): Promise<void> {
    await this.rpc.deletePlan({ id }, opts);
  }

  /** Marks a milestone done; returns the plan. */
  complete(id: string, key: string, opts?: CallOptions): Promise<Plan> {
    return this.rpc.completeMilestone({ id, key }, opts);
  }

  /** Marks a milestone skipped: not done, and no longer reminded. */
  skip(id: string, key: string, opts?: CallOptions): Promise<Plan> {
    return this.rpc.skipMilestone({ id, key }, opts);
  }

  /** Returns a done or skipped milestone to pending. */
  reopen(id: string, key: string, opts?: CallOptions): Promise<Plan> {
    return this.rpc.reopenMilestone({ id, key }, opts);
  }

  /**
   * Runs the workflow again: the plan becomes the next revision, done and
   * skipped milestones keep their state, the others take the new dates.
   * `changes` lists what moved, appeared, disappeared or was kept.
   */
  replan(id: string, params: ReplanParams = {}, opts?: CallOptions): Promise<ReplanPlanResponse> {
    return this.rpc.replanPlan({ id, ...(params.context === undefined ? {} : { context: params.context }), asOf: params.asOf ?? "" }, opts);
  }

  /**
   * Creates the plan's secret calendar feed URL (`url`, in this answer
   * only), for calendar apps that cannot send an API key; it replaces any
   * earlier one.
   */
  createFeed(id: string, opts?: CallOptions): Promise<PlanFeed> {
    return this.rpc.createPlanFeed({ id }, opts);
  }

  /** Revokes the plan's feed URL (it answers 404 afterwards); returns the plan, feedActive false. */
  revokeFeed(id: string, opts?: CallOptions): Promise<Plan> {
    return this.rpc.revokePlanFeed({ id }, opts);
  }

  /** The URL of the plan's calendar (iCalendar) for requests with this client's credentials; getCalendar fetches it. */
  calendarUrl(id: string): string {
    return `${this.access.baseUrl}/v1/plans/${encodeURIComponent(id)}/calendar.ics`;
  }

  /**
   * The plan's calendar as iCalendar text (RFC 5545: one all-day event
   * per milestone), fetched with this client's credentials. One GET,
   * not retried; a failure throws CreativeOpsError like the other methods.
   */
  async getCalendar(id: string, opts: Omit<CallOptions, "idempotencyKey"> = {}): Promise<string> {
    const timeoutMs = opts.timeoutMs ?? this.access.timeoutMs;
    if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && timeoutMs > 0 && Number.isFinite(timeoutMs))) {
      throw new TypeError("timeoutMs: must be a positive number of milliseconds");
    }
    const headers = new Headers(opts.headers);
    headers.set("accept", "text/calendar");
    if ("apiKey" in this.access.auth) {
      headers.set("authorization", `Bearer ${this.access.auth.apiKey}`);
    } else {
      headers.set("x-csrf-token", this.access.auth.csrfToken);
    }
    const signals = [opts.signal, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)].filter((s) => s !== undefined);
    const url = this.calendarUrl(id);
    let res: Response;
    try {
      res = await globalThis.fetch(url, {
        headers,
        credentials: "same-origin",
        ...(signals.length === 0 ? {} : { signal: AbortSignal.any(signals) }),
      });
    } catch (err) {
      if (opts.signal?.aborted) {
        throw new CreativeOpsError({ message: `GET ${url}: canceled`, connectCode: Code.Canceled, httpStatus: 0, cause: err });
      }
      if (err instanceof Error && err.name === "TimeoutError") {
        throw new APITimeoutError({ message: `GET ${url}: no answer within ${timeoutMs} ms`, cause: err });
      }
      throw new APIConnectionError({ message: `GET ${url}: could not reach the API: ${err instanceof Error ? err.message : String(err)}`, cause: err });
    }
    if (!res.ok) {
      throw await errorFromRESTResponse(res);
    }
    return res.text();
  }
}
