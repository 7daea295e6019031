// How an application uses the package, type-checked against the built
// declarations through the package's exports (ESM and CommonJS resolution).
import { CreativeOps, CreativeOpsError, timestampDate, verifyWebhook, webhookEventTypes } from "@creativeops/client";
import type { Creator, FieldViolation, Job, WebhookEvent, WebhookEventType } from "@creativeops/client";

export async function example(key: string): Promise<string[]> {
  const co = new CreativeOps({ apiKey: key, baseUrl: "http://localhost:8080", transport: "grpc-web", retry: { maxRetries: 1 } });
  const c: Creator = await co.creators.create({ name: "Nova", email: "nova@example.com", vertical: "music", metadata: { label: "x" } });
  const created: Date | undefined = c.createdAt === undefined ? undefined : timestampDate(c.createdAt);
  const ids: string[] = [c.id, String(created?.getTime())];
  for await (const cr of co.creators.list({ vertical: "music", pageSize: 10 })) ids.push(cr.id);
  const job: Job = await co.engine.waitForJob((await co.engine.run({ vertical: "music", workflow: "release-strategy", context: {}, async: true })).id);
  const strategy: unknown = job.result?.["strategy"];
  ids.push(String(strategy));
  const logIndex: bigint = (await co.ip.register({ creatorId: c.id, title: "t", type: "song", contentHash: "0".repeat(64) })).logIndex;
  ids.push(logIndex.toString());
  try {
    await co.creators.get("cr_x", { timeoutMs: 1000 });
  } catch (e) {
    if (e instanceof CreativeOpsError) {
      const fv: FieldViolation[] = e.fieldViolations;
      const parts: (string | number | undefined)[] = [e.httpStatus, e.status, e.reason, e.requestId, e.retryAfter, fv.length];
      ids.push(parts.join(","));
    }
  }
  const ev: WebhookEvent = await verifyWebhook("{}", new Headers(), "whsec_AAAA");
  ids.push(ev.id, ev.type);
  return ids;
}

// verifyWebhook's event narrows on type to its data's shape (the REST JSON:
// snake_case, 64-bit integers as strings).
export async function onEvent(body: string, headers: Headers, secret: string): Promise<string> {
  const e = await verifyWebhook(body, headers, secret);
  if (e.type === "creator.created") {
    const email: string = e.data.email;
    // @ts-expect-error a creator has no workflow
    e.data.workflow;
    return email;
  }
  if (e.type === "engine.job.failed") {
    const step: string | undefined = e.data.error?.step;
    // @ts-expect-error a job's data is snake_case, as the REST API sends it
    e.data.createdAt;
    return step ?? e.data.created_at;
  }
  if (e.type === "ip.registered") {
    const logIndex: string = e.data.log_index;
    return logIndex;
  }
  // @ts-expect-error before narrowing, data is any of the payloads
  e.data.email;
  // @ts-expect-error no such event type
  if (e.type === "creator.merged") return "";
  const types: readonly WebhookEventType[] = webhookEventTypes;
  return types.join(",");
}
