// Every operation of gen/openapi/openapi.json through a client generated
// from it (openapi-typescript + openapi-fetch). It must compile under
// tsc --strict without a single cast, and it runs against a live server
// (test/openapi.test.mjs), so a document that drifts from the API fails.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Job = components["schemas"]["Job"];
// Compiles only while the document makes job status a union of its
// values: a plain string would make this type false.
const statusIsAUnion: string extends Job["status"] ? false : true = true;
void statusIsAUnion;

/** Fails with the operation and the error body when a call did not succeed. */
function must<T>(op: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) {
    throw new Error(`${op}: HTTP ${r.response.status} ${JSON.stringify(r.error)}`);
  }
  return r.data;
}

/** An application/x-www-form-urlencoded body, for the OAuth endpoints. */
function form(body: Record<string, string | undefined>): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) {
    if (v !== undefined) {
      out.set(k, v);
    }
  }
  return out;
}

function check(cond: boolean, what: string): void {
  if (!cond) {
    throw new Error(what);
  }
}

/** Calls every operation once and returns the operation ids it called. */
export async function everyOperation(baseUrl: string, apiKey: string, tag: string): Promise<string[]> {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
  const called: string[] = [];
  const op = (id: string) => {
    called.push(id);
    return id;
  };

  // Creators
  const creator = must(
    op("CreatorsService_CreateCreator"),
    await api.POST("/v1/creators", {
      body: { name: "Nova Reyes", email: `nova-${tag}@example.com`, vertical: "music", metadata: { label: "Night Owl" } },
    }),
  );
  check(creator.id.startsWith("cr_"), "creator id");
  const got = must(op("CreatorsService_GetCreator"), await api.GET("/v1/creators/{id}", { params: { path: { id: creator.id } } }));
  check(got.email === creator.email, "creator email");
  const creators = must(
    op("CreatorsService_ListCreators"),
    await api.GET("/v1/creators", { params: { query: { vertical: "music", page_size: 1 } } }),
  );
  check(creators.creators.length === 1, "one creator per page");
  const changed = must(
    op("CreatorsService_UpdateCreator"),
    await api.PATCH("/v1/creators/{id}", {
      params: { path: { id: creator.id } },
      body: { metadata: { city: "Lyon" }, revision: got.revision },
    }),
  );
  check(changed.revision === got.revision + 1 && changed.metadata?.["city"] === "Lyon", "creator updated");
  const exported = must(
    op("CreatorsService_ExportCreator"),
    await api.GET("/v1/creators/{id}:export", { params: { path: { id: creator.id } } }),
  );
  check(exported.creator.id === creator.id, "creator exported");
  // Erasure, of a creator of its own: the one above is used below.
  const leaving = must(
    "CreatorsService_CreateCreator",
    await api.POST("/v1/creators", { body: { name: "Ida Moss", email: `ida-${tag}@example.com`, vertical: "music" } }),
  );
  const erased = await api.DELETE("/v1/creators/{id}", { params: { path: { id: leaving.id } } });
  op("CreatorsService_DeleteCreator");
  check(erased.response.status === 204, `erase creator: ${erased.response.status}`);

  // Engine
  const verticals = must(op("EngineService_ListVerticals"), await api.GET("/v1/engine/verticals"));
  check(verticals.verticals.some((v) => v.key === "music"), "music vertical");
  const calendars = must(op("EngineService_ListCalendars"), await api.GET("/v1/engine/calendars"));
  check(calendars.countries.some((c) => c.code === "DE") && calendars.currencies.includes("EUR"), "calendars");
  const workflows = must(op("EngineService_ListWorkflows"), await api.GET("/v1/engine/workflows", { params: { query: { vertical: "music" } } }));
  check(workflows.total === workflows.workflows.length, "workflow total");
  const wf = must(op("EngineService_GetWorkflow"), await api.GET("/v1/engine/workflows/{id}", { params: { path: { id: "release-strategy" } } }));
  check(wf.vertical === "music", "workflow vertical");
  const job = must(
    op("EngineService_RunWorkflow"),
    await api.POST("/v1/engine/run", {
      body: { vertical: "music", workflow: "release-strategy", context: { artist: "Nova Reyes", genre: "indie pop", release_date: "2027-03-03" } },
    }),
  );
  check(job.status === "completed" && typeof job.result?.strategy === "string", "sync run result");
  // The plan's shared part is typed: no index access, no cast.
  const milestones = job.result?.timeline.milestones ?? [];
  check(milestones.length > 0 && milestones.every((m) => typeof m.days_from_as_of === "number" && typeof m.passed === "boolean"), "typed milestones");
  const priorities: ("high" | "medium" | "low")[] = (job.result?.recommendations ?? []).map((r) => r.priority);
  check(priorities.length > 0, "typed recommendations");
  const status = must(op("EngineService_GetJob"), await api.GET("/v1/engine/status/{id}", { params: { path: { id: job.id } } }));
  check(status.progress === 100, "job progress");
  const jobs = must(op("EngineService_ListJobs"), await api.GET("/v1/engine/jobs", { params: { query: { status: "completed" } } }));
  check(jobs.jobs.some((j) => j.id === job.id), "job listed");
  const cancel = await api.POST("/v1/engine/jobs/{id}:cancel", { params: { path: { id: job.id } } });
  op("EngineService_CancelJob");
  check(cancel.response.status === 409 && cancel.error?.error?.status === "FAILED_PRECONDITION", `cancel of a finished job: ${cancel.response.status}`);

  // IP registry
  const hash = Array.from({ length: 64 }, (_, i) => "0123456789abcdef"[(i * 7 + tag.length + tag.charCodeAt(i % tag.length)) % 16]).join("");
  const rec = must(
    op("IPService_RegisterWork"),
    await api.POST("/v1/ip/register", { body: { creator_id: creator.id, title: "The Long Night", type: "book", content_hash: hash } }),
  );
  check(rec.content_hash === `sha256:${hash}`, "content hash");
  const catalog = must(op("IPService_ListCatalog"), await api.GET("/v1/ip/catalog", { params: { query: { creator_id: creator.id } } }));
  check(catalog.records.length === 1, "catalog");
  const one = must(op("IPService_GetRecord"), await api.GET("/v1/ip/records/{id}", { params: { path: { id: rec.id } } }));
  check(one.certificate_id === rec.certificate_id, "record");
  const cert = must(
    op("IPService_GetCertificate"),
    await api.GET("/v1/ip/certificates/{certificate_id}", { params: { path: { certificate_id: rec.certificate_id } } }),
  );
  check(cert.token.length > 0, "certificate token");
  const token = await api.GET("/v1/ip/certificates/{certificate_id}/token", {
    params: { path: { certificate_id: rec.certificate_id } },
    parseAs: "arrayBuffer",
  });
  op("IPService_GetCertificateToken");
  check(token.response.status === 200 && token.data !== undefined && token.data.byteLength > 0, "DER token");
  const cp = must(op("IPService_GetCheckpoint"), await api.GET("/v1/ip/log/checkpoint"));
  check(BigInt(cp.tree_size) >= 1n, "tree size");
  const proof = must(op("IPService_GetConsistencyProof"), await api.GET("/v1/ip/log/consistency", { params: { query: { from: "1", to: cp.tree_size } } }));
  check(proof.to === cp.tree_size, "consistency proof");
  const ipKeys = must(op("IPService_GetKeys"), await api.GET("/v1/ip/keys"));
  check(ipKeys.tsa_root_pem.includes("BEGIN CERTIFICATE"), "TSA root");

  // Keys
  const key = must(op("KeysService_CreateKey"), await api.POST("/v1/keys", { body: { name: `openapi-${tag}`, scopes: ["creators:read"] } }));
  check((key.secret ?? "").startsWith("co_live_"), "key secret");
  const keys = must(op("KeysService_ListKeys"), await api.GET("/v1/keys"));
  check(keys.keys.some((k) => k.id === key.id), "key listed");
  const rotated = must(
    op("KeysService_RotateKey"),
    await api.POST("/v1/keys/{id}:rotate", { params: { path: { id: key.id } }, body: { grace_period: "60s" } }),
  );
  check(rotated.previous_secret_expires_at !== null, "grace period");
  const revoked = await api.DELETE("/v1/keys/{id}", { params: { path: { id: key.id } } });
  op("KeysService_RevokeKey");
  check(revoked.response.status === 204, `revoke: ${revoked.response.status}`);

  // Audit log: the rotation above is recorded, by this key, over REST
  const audit = must(
    op("AuditService_ListAuditEvents"),
    await api.GET("/v1/audit-events", { params: { query: { action: "key.rotated", target_id: key.id } } }),
  );
  check(audit.audit_events.length === 1 && audit.audit_events[0]?.origin.transport === "rest", "rotation audited");

  // OAuth clients
  const oc = must(
    op("OAuthClientsService_CreateOAuthClient"),
    await api.POST("/v1/oauth/clients", { body: { name: `openapi-${tag}`, scopes: ["creators:read"], token_lifetime: "600s" } }),
  );
  check((oc.secret ?? "").startsWith("co_oauth_") && oc.token_lifetime === "600s", "oauth client secret");
  const ocs = must(op("OAuthClientsService_ListOAuthClients"), await api.GET("/v1/oauth/clients"));
  check(ocs.clients.some((c) => c.id === oc.id), "oauth client listed");
  const ocGot = must(op("OAuthClientsService_GetOAuthClient"), await api.GET("/v1/oauth/clients/{id}", { params: { path: { id: oc.id } } }));
  check(ocGot.id === oc.id && ocGot.secret === undefined, "oauth client read");
  const ocRotated = must(
    op("OAuthClientsService_RotateOAuthClient"),
    await api.POST("/v1/oauth/clients/{id}:rotate", { params: { path: { id: oc.id } }, body: { grace_period: "60s" } }),
  );
  check(ocRotated.previous_secret_expires_at !== null, "oauth client grace period");
  // OAuth: the client gets a token, introspects and revokes it, with its
  // own credentials (client_secret_post), not an API key.
  const oauth = createClient<paths>({ baseUrl });
  const asForm = { bodySerializer: form, headers: { "Content-Type": "application/x-www-form-urlencoded" } };
  const clientAuth = { client_id: oc.id, client_secret: ocRotated.secret ?? "" };
  const meta = must(op("OAuth_Metadata"), await oauth.GET("/.well-known/oauth-authorization-server"));
  check(meta.grant_types_supported.includes("client_credentials"), "oauth metadata");
  const tok = must(
    op("OAuth_Token"),
    await oauth.POST("/oauth/token", { body: { grant_type: "client_credentials", scope: "creators:read", ...clientAuth }, ...asForm }),
  );
  check(tok.token_type === "Bearer" && tok.access_token.length > 0, "access token");
  const jwks = must(op("OAuth_JWKS"), await oauth.GET("/.well-known/jwks.json"));
  check(jwks.keys.length > 0, "token signing keys");
  const viaToken = must(
    "GET /v1/creators/{id} with the access token",
    await createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${tok.access_token}` } }).GET("/v1/creators/{id}", {
      params: { path: { id: creator.id } },
    }),
  );
  check(viaToken.id === creator.id, "the API takes the token");
  const intro = must(op("OAuth_Introspect"), await oauth.POST("/oauth/introspect", { body: { token: tok.access_token, ...clientAuth }, ...asForm }));
  check(intro.active && intro.client_id === oc.id, "token introspected");
  const revokedToken = await oauth.POST("/oauth/revoke", { body: { token: tok.access_token, token_type_hint: "access_token", ...clientAuth }, ...asForm });
  op("OAuth_Revoke");
  check(revokedToken.response.status === 200, `revoke token: ${revokedToken.response.status}`);
  const ocDeleted = await api.DELETE("/v1/oauth/clients/{id}", { params: { path: { id: oc.id } } });
  op("OAuthClientsService_DeleteOAuthClient");
  check(ocDeleted.response.status === 204, `delete oauth client: ${ocDeleted.response.status}`);

  // Webhooks (nothing listens on port 9 of loopback: deliveries fail, which is fine here)
  const wh = must(op("WebhooksService_CreateWebhook"), await api.POST("/v1/webhooks", { body: { url: "http://127.0.0.1:9/hook", events: ["webhook.test"] } }));
  check((wh.secret ?? "").startsWith("whsec_"), "webhook secret");
  const whs = must(op("WebhooksService_ListWebhooks"), await api.GET("/v1/webhooks"));
  check(whs.webhooks.some((w) => w.id === wh.id), "webhook listed");
  const whGot = must(op("WebhooksService_GetWebhook"), await api.GET("/v1/webhooks/{id}", { params: { path: { id: wh.id } } }));
  check(whGot.secret === undefined, "secret never returned again");
  const delivery = must(
    op("WebhooksService_TestWebhook"),
    await api.POST("/v1/webhooks/{id}:test", { params: { path: { id: wh.id } } }),
  );
  const deliveries = must(
    op("WebhooksService_ListDeliveries"),
    await api.GET("/v1/webhooks/{id}/deliveries", { params: { path: { id: wh.id } } }),
  );
  check(deliveries.deliveries.some((d) => d.id === delivery.id), "delivery listed");
  const again = await api.POST("/v1/webhooks/{id}/deliveries/{delivery_id}:redeliver", {
    params: { path: { id: wh.id, delivery_id: delivery.id } },
  });
  op("WebhooksService_RedeliverDelivery");
  check(again.data !== undefined || again.response.status === 409, `redeliver: ${again.response.status}`);
  const whEdited = must(
    op("WebhooksService_UpdateWebhook"),
    await api.PATCH("/v1/webhooks/{id}", { params: { path: { id: wh.id } }, body: { description: "CRM", update_mask: "description" } }),
  );
  check(whEdited.description === "CRM", "webhook updated");
  const whOff = must(op("WebhooksService_DisableWebhook"), await api.POST("/v1/webhooks/{id}:disable", { params: { path: { id: wh.id } } }));
  check(whOff.status === "disabled", "webhook disabled");
  const whOn = must(op("WebhooksService_EnableWebhook"), await api.POST("/v1/webhooks/{id}:enable", { params: { path: { id: wh.id } } }));
  check(whOn.status === "active", "webhook enabled");
  const whRotated = must(
    op("WebhooksService_RotateWebhookSecret"),
    await api.POST("/v1/webhooks/{id}:rotateSecret", { params: { path: { id: wh.id } } }),
  );
  check((whRotated.secret ?? "").startsWith("whsec_"), "webhook secret rotated");
  const evs = must(op("EventsService_ListEvents"), await api.GET("/v1/events", { params: { query: { type: ["webhook.test"], page_size: 1 } } }));
  const ev = evs.events[0];
  check(ev !== undefined && ev.type === "webhook.test", "events listed");
  const evGot = must(op("EventsService_GetEvent"), await api.GET("/v1/events/{id}", { params: { path: { id: ev?.id ?? "" } } }));
  check(evGot.id === ev?.id, "event read");
  const del = await api.DELETE("/v1/webhooks/{id}", { params: { path: { id: wh.id } } });
  op("WebhooksService_DeleteWebhook");
  check(del.response.status === 204, `delete webhook: ${del.response.status}`);

  // Plans: the run above, tracked
  const plan = must(op("PlansService_CreatePlan"), await api.POST("/v1/plans", { body: { job_id: job.id, remind_days_before: 5 } }));
  check(plan.id.startsWith("plan_") && plan.revision === 1 && plan.remind_days_before === 5, "plan created");
  const first = plan.milestones[0];
  check(first !== undefined && first.state === "pending", "plan milestones");
  const milestoneKey = first?.key ?? "";
  const planGot = must(op("PlansService_GetPlan"), await api.GET("/v1/plans/{id}", { params: { path: { id: plan.id } } }));
  check(planGot.job_id === job.id, "plan read");
  const plans = must(op("PlansService_ListPlans"), await api.GET("/v1/plans", { params: { query: { state: "active", vertical: "music" } } }));
  check(plans.plans.some((p) => p.id === plan.id), "plan listed");
  const updated = must(
    op("PlansService_UpdatePlan"),
    await api.PATCH("/v1/plans/{id}", { params: { path: { id: plan.id } }, body: { auto_replan: false } }),
  );
  check(updated.auto_replan === false, "plan updated");
  const milestone = { params: { path: { id: plan.id, key: milestoneKey } } };
  const done = must(op("PlansService_CompleteMilestone"), await api.POST("/v1/plans/{id}/milestones/{key}:complete", milestone));
  check(done.milestones.find((m) => m.key === milestoneKey)?.state === "done", "milestone done");
  const reopened = must(op("PlansService_ReopenMilestone"), await api.POST("/v1/plans/{id}/milestones/{key}:reopen", milestone));
  check(reopened.milestones.find((m) => m.key === milestoneKey)?.done_at === null, "milestone reopened");
  const skipped = must(op("PlansService_SkipMilestone"), await api.POST("/v1/plans/{id}/milestones/{key}:skip", milestone));
  check(skipped.milestones.find((m) => m.key === milestoneKey)?.state === "skipped", "milestone skipped");
  const replanned = must(
    op("PlansService_ReplanPlan"),
    await api.POST("/v1/plans/{id}:replan", { params: { path: { id: plan.id } }, body: { context: { artist: "Nova Reyes" } } }),
  );
  const kept: ("moved" | "added" | "removed" | "kept")[] = replanned.changes.map((c) => c.change);
  check(replanned.plan.revision === 2 && kept.every((c) => c !== "removed"), "re-planned");
  const feed = must(op("PlansService_CreatePlanFeed"), await api.POST("/v1/plans/{id}:createFeed", { params: { path: { id: plan.id } } }));
  const feedToken = new URL(feed.url).searchParams.get("token") ?? "";
  const ics = await createClient<paths>({ baseUrl }).GET("/v1/plans/{id}/calendar.ics", {
    params: { path: { id: plan.id }, query: { token: feedToken } },
    parseAs: "text",
  });
  op("PlansService_GetPlanCalendar");
  check(ics.response.status === 200 && (ics.data ?? "").startsWith("BEGIN:VCALENDAR"), `calendar feed: ${ics.response.status}`);
  const revokedFeed = must(op("PlansService_RevokePlanFeed"), await api.POST("/v1/plans/{id}:revokeFeed", { params: { path: { id: plan.id } } }));
  check(revokedFeed.feed_active === false, "feed revoked");
  const planDeleted = await api.DELETE("/v1/plans/{id}", { params: { path: { id: plan.id } } });
  op("PlansService_DeletePlan");
  check(planDeleted.response.status === 204, `delete plan: ${planDeleted.response.status}`);

  // Analytics
  const usage = must(op("AnalyticsService_GetUsage"), await api.GET("/v1/analytics/usage", { params: { query: { granularity: "hour" } } }));
  check(usage.granularity === "hour", "usage granularity");

  return called;
}
