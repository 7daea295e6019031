// The scenarios of the browser suite, bundled by esbuild from the
// package's browser build and run in Chromium by ../browser.test.mjs.
// Each takes the server's base URL, a key and a transport, throws on a
// failed check and returns what the runner checks further.
import { isMessage } from "@bufbuild/protobuf";
import { APIConnectionError, CreativeOps, CreativeOpsError, ListCreatorsRequestSchema, verifyWebhook, type TransportKind } from "@creativeops/client";

export interface Config {
  baseUrl: string;
  apiKey: string;
  transport: TransportKind;
}

function check(cond: unknown, what: string): asserts cond {
  if (!cond) throw new Error(`check failed: ${what}`);
}

function equal<T>(got: T, want: T, what: string): void {
  check(got === want, `${what}: got ${JSON.stringify(got, bigints)}, want ${JSON.stringify(want, bigints)}`);
}

function bigints(_: string, v: unknown): unknown {
  return typeof v === "bigint" ? v.toString() : v;
}

const unique = () => crypto.randomUUID().slice(0, 8);

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function failure(p: Promise<unknown>): Promise<CreativeOpsError> {
  try {
    await p;
  } catch (e) {
    check(e instanceof CreativeOpsError, `a CreativeOpsError, got ${String(e)}`);
    return e;
  }
  throw new Error("check failed: the call succeeded");
}

const client = (cfg: Config, extra: Partial<ConstructorParameters<typeof CreativeOps>[0]> = {}) =>
  new CreativeOps({ apiKey: cfg.apiKey, baseUrl: cfg.baseUrl, transport: cfg.transport, ...extra });

export const scenarios = {
  /** Create creators, get one, list them two per page. */
  async creators(cfg: Config) {
    const pageTokens: string[] = [];
    const co = client(cfg, {
      interceptors: [
        (next) => async (req) => {
          if (!req.stream && isMessage(req.message, ListCreatorsRequestSchema)) pageTokens.push(req.message.pageToken);
          return next(req);
        },
      ],
    });
    const tag = unique();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await co.creators.create({
        name: `Browser ${i} ${tag}`,
        email: `browser${i}-${tag}@example.com`,
        vertical: "podcasting",
        metadata: { tag, i },
      });
      check(/^cr_[0-9a-z]{26}$/.test(c.id), `creator id ${c.id}`);
      ids.push(c.id);
    }
    const got = await co.creators.get(ids[0]!);
    equal(got.name, `Browser 0 ${tag}`, "name");
    equal(got.metadata?.["tag"], tag, "metadata.tag");
    equal(got.metadata?.["i"], 0, "metadata.i");
    const seen: string[] = [];
    for await (const c of co.creators.list({ vertical: "podcasting", pageSize: 2 })) {
      if (c.metadata?.["tag"] === tag) seen.push(c.id);
    }
    equal(seen.sort().join(), [...ids].sort().join(), "listed creators");
    check(pageTokens.length >= 2 && pageTokens[0] === "" && pageTokens.slice(1).every((t) => t !== ""), `pages ${JSON.stringify(pageTokens)}`);
    return { pages: pageTokens.length };
  },

  /** The music release-strategy workflow, synchronously. */
  async runSync(cfg: Config) {
    const job = await client(cfg).engine.run({
      vertical: "music",
      workflow: "release-strategy",
      context: { artist: "Nova Reyes", genre: "indie pop", releaseDate: "2027-03-03" },
    });
    equal(job.status, "completed", "status");
    equal(job.progress, 100, "progress");
    check(typeof job.result?.["strategy"] === "string", "result.strategy");
    return { strategy: job.result?.["strategy"] as string };
  },

  /** The same workflow queued, polled to completion. */
  async runAsync(cfg: Config) {
    const co = client(cfg);
    const queued = await co.engine.run({
      vertical: "music",
      workflow: "release-strategy",
      context: { artist: "Nova Reyes", genre: "indie pop", releaseDate: "2027-03-03" },
      async: true,
    });
    check(/^job_/.test(queued.id), `job id ${queued.id}`);
    check(["queued", "processing", "completed"].includes(queued.status), `queued status ${queued.status}`);
    const done = await co.engine.waitForJob(queued.id, { intervalMs: 100, timeoutMs: 60_000 });
    equal(done.status, "completed", "final status");
    check(typeof done.result?.["strategy"] === "string", "result.strategy");
    return { id: done.id };
  },

  /** Register a work, fetch its certificate and its DER token. */
  async registerWork(cfg: Config) {
    const co = client(cfg);
    const creator = await co.creators.create({ name: "Ink", email: `ink-${unique()}@example.com`, vertical: "publishing" });
    const hash = await sha256Hex(`book ${crypto.randomUUID()}`);
    const rec = await co.ip.register({ creatorId: creator.id, title: "The Long Night", type: "book", contentHash: hash });
    equal(rec.status, "registered", "record status");
    equal(rec.contentHash, `sha256:${hash}`, "content hash");
    const cert = await co.ip.getCertificate(rec.certificateId);
    equal(cert.certificateId, rec.certificateId, "certificate id");
    check(cert.token.length > 100, "the RFC 3161 token");
    const token = await co.ip.getCertificateToken(rec.certificateId);
    equal(token[0], 0x30, "DER SEQUENCE");
    equal(token.length, cert.token.length, "token length");
    const dup = await failure(co.ip.register({ creatorId: creator.id, title: "Again", type: "book", contentHash: hash }));
    equal(dup.httpStatus, 409, "duplicate code");
    equal(dup.reason, "DUPLICATE_CONTENT", "duplicate reason");
    return { certificateId: cert.certificateId };
  },

  /** Create a webhook to the runner's receiver and send it a test event. */
  async webhookCreate(cfg: Config, url: string) {
    const co = client(cfg);
    const wh = await co.webhooks.create({ url, events: ["webhook.test"] });
    check(/^whsec_/.test(wh.secret ?? ""), "a whsec_ secret");
    await co.webhooks.test(wh.id);
    return { id: wh.id, secret: wh.secret ?? "" };
  },

  /** Verify the delivery the runner received, with Web Crypto, and delete the webhook. */
  async webhookVerify(cfg: Config, body: string, headers: Record<string, string>, secret: string, id: string) {
    const event = await verifyWebhook(body, new Headers(headers), secret);
    if (event.type !== "webhook.test") {
      throw new Error(`event type ${event.type}, want webhook.test`);
    }
    equal(event.data.id, id, "event data id");
    let tampered = false;
    await verifyWebhook(body + " ", new Headers(headers), secret).catch(() => (tampered = true));
    check(tampered, "a tampered body is rejected");
    await client(cfg).webhooks.delete(id);
    return { eventId: event.id };
  },

  /** 404, 400 and 401 as typed errors carrying the request id. */
  async errors(cfg: Config) {
    const co = client(cfg);
    const nf = await failure(co.creators.get("cr_01kaaaaaaaaaaaaaaaaaaaaaaa"));
    equal(nf.httpStatus, 404, "not found code");
    equal(nf.status, "NOT_FOUND", "not found status");
    check(/^req_/.test(nf.requestId), `request id ${JSON.stringify(nf.requestId)}`);
    const bad = await failure(co.creators.create({ name: "X", email: "not-an-email", vertical: "music" }));
    equal(bad.httpStatus, 400, "invalid code");
    equal(bad.fieldViolations.map((v) => v.field).join(), "email", "field violations");
    const unauth = await failure(client(cfg, { apiKey: "co_live_notarealkey" }).creators.get("cr_x"));
    equal(unauth.httpStatus, 401, "unauthenticated code");
    equal(unauth.status, "UNAUTHENTICATED", "unauthenticated status");
    return { requestId: nf.requestId };
  },

  /** A 429 retried after Retry-After with one Idempotency-Key; without retries it surfaces. */
  async retry429(cfg: Config) {
    const limited = await client(cfg).keys.create({
      name: `browser-limited-${cfg.transport}`,
      scopes: ["creators:write", "creators:read"],
      rateLimit: { requestsPerSecond: 0.25, burst: 1 },
    });
    const attempts: { method: string; key: string | null; ok: boolean }[] = [];
    const co = client(cfg, {
      apiKey: limited.secret ?? "",
      interceptors: [
        (next) => async (req) => {
          const a = { method: req.method.name, key: req.header.get("idempotency-key"), ok: false };
          attempts.push(a);
          const res = await next(req);
          a.ok = true;
          return res;
        },
      ],
    });
    await co.creators.get("cr_01kaaaaaaaaaaaaaaaaaaaaaaa").catch(() => {}); // spends the one token
    const email = `limited-${unique()}@example.com`;
    const created = await co.creators.create({ name: "Limited", email, vertical: "music" });
    equal(created.email, email, "created after the retry");
    const creates = attempts.filter((a) => a.method === "CreateCreator");
    equal(creates.length, 2, `attempts ${JSON.stringify(attempts)}`);
    check(!creates[0]!.ok && creates[1]!.ok, "the first attempt was refused, the second succeeded");
    check(/^[0-9a-f-]{36}$/.test(creates[0]!.key ?? "") && creates[1]!.key === creates[0]!.key, "one Idempotency-Key");

    const noRetry = client(cfg, { apiKey: limited.secret ?? "", retry: { maxRetries: 0 } });
    await noRetry.creators.get(created.id).catch(() => {});
    const e = await failure(noRetry.creators.get(created.id));
    equal(e.httpStatus, 429, "code");
    equal(e.reason, "RATE_LIMITED", "reason");
    check(e.retryAfter !== undefined && e.retryAfter >= 1, `retryAfter ${e.retryAfter}`);
    return { retryAfter: e.retryAfter };
  },

  /** From another origin: a call, and an error whose request id and Retry-After-free status are readable. */
  async crossOrigin(cfg: Config) {
    const co = client(cfg);
    const c = await co.creators.create({ name: "Far Away", email: `far-${unique()}@example.com`, vertical: "film" });
    equal((await co.creators.get(c.id)).id, c.id, "get");
    const nf = await failure(co.creators.get("cr_01kaaaaaaaaaaaaaaaaaaaaaaa"));
    equal(nf.httpStatus, 404, "not found code");
    check(/^req_/.test(nf.requestId), `exposed X-Request-Id ${JSON.stringify(nf.requestId)}`);
    return { origin: location.origin, id: c.id };
  },

  /** A port nothing listens on: a network error, retried for a read, then APIConnectionError. */
  async unreachable(cfg: Config, baseUrl: string) {
    let attempts = 0;
    const co = client(cfg, {
      baseUrl,
      retry: { maxRetries: 2, initialDelayMs: 10 },
      interceptors: [
        (next) => async (req) => {
          attempts++;
          return next(req);
        },
      ],
    });
    const e = await failure(co.creators.get("cr_01kaaaaaaaaaaaaaaaaaaaaaaa"));
    return { httpStatus: e.httpStatus, name: e.name, connection: e instanceof APIConnectionError, status: e.status, attempts };
  },

  /** From an origin the server does not allow: the browser refuses the answer. */
  async refusedOrigin(cfg: Config) {
    const e = await failure(client(cfg, { retry: { maxRetries: 0 } }).creators.get("cr_01kaaaaaaaaaaaaaaaaaaaaaaa"));
    return { httpStatus: e.httpStatus, name: e.name, connection: e instanceof APIConnectionError, status: e.status, message: e.message };
  },
};

(globalThis as unknown as { scenarios: typeof scenarios }).scenarios = scenarios;
