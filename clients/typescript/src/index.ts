export { CreativeOps } from "./client.js";
export type {
  CallOptions,
  CreativeOpsOptions,
  WaitForJobOptions,
  AnalyticsResource,
  CreatorsResource,
  EngineResource,
  EventsResource,
  IPResource,
  ListEventsParams,
  AuditListParams,
  AuditResource,
  KeysResource,
  OAuthClientCreateParams,
  OAuthClientsResource,
  PlanListParams,
  PlansResource,
  ReplanParams,
  WebhooksResource,
} from "./client.js";
export {
  CertificateVerificationError,
  checkCertificate,
  checkExternalTimestamps,
  EXTERNAL_TIME_TOLERANCE_SECONDS,
  leafHash,
  openCheckpoint,
  rootFromInclusionProof,
  verifyCertificate,
  verifyExternalTimestampToken,
  verifyTimestampToken,
} from "./certificates.js";
export type { CertificateCheck, CheckCertificateOptions, OpenedCheckpoint, TimestampToken, VerifiedCertificate } from "./certificates.js";
export { APIConnectionError, APITimeoutError, CreativeOpsError } from "./errors.js";
export type { FieldViolation } from "./errors.js";
export { responseInfo } from "./response.js";
export type { RateLimitInfo, ResponseInfo } from "./response.js";
export type { RetryOptions } from "./retry.js";
export type { TransportKind } from "./transport.js";
export { verifyWebhook, WebhookVerificationError, webhookEventTypes } from "./webhooks.js";
export type * from "./gen/events.js";
export type { VerifyWebhookOptions } from "./webhooks.js";
export { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
export * from "./gen/creativeops/v1/analytics_pb.js";
export * from "./gen/creativeops/v1/audit_pb.js";
export * from "./gen/creativeops/v1/creators_pb.js";
export * from "./gen/creativeops/v1/engine_pb.js";
export * from "./gen/creativeops/v1/events_pb.js";
export * from "./gen/creativeops/v1/ip_pb.js";
export * from "./gen/creativeops/v1/keys_pb.js";
export * from "./gen/creativeops/v1/oauth_pb.js";
export * from "./gen/creativeops/v1/plans_pb.js";
export * from "./gen/creativeops/v1/webhooks_pb.js";
