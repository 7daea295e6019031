"""The shapes of the API's resources, as TypedDicts (JSON objects with
proto field names, every field present; null where noted)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict


class Creator(TypedDict):
    id: str
    name: str
    email: str
    vertical: str
    status: str
    metadata: Optional[Dict[str, Any]]
    created_at: str
    updated_at: str
    revision: int


class CreatorDeleted(TypedDict):
    """The data of creator.deleted: the erased creator's id, nothing personal."""
    id: str
    deleted_at: str


class RateLimit(TypedDict):
    requests_per_second: float
    burst: int


class APIKey(TypedDict, total=False):
    id: str
    organization_id: str
    name: str
    scopes: List[str]
    prefix: str
    created_at: str
    expires_at: Optional[str]
    revoked_at: Optional[str]
    rate_limit: Optional[RateLimit]
    previous_secret_expires_at: Optional[str]
    secret: str  # only when created or rotated


class OAuthClient(TypedDict, total=False):
    id: str  # "oc_...": the client_id at POST /oauth/token
    organization_id: str
    name: str
    scopes: List[str]
    prefix: str  # the first characters of the secret
    token_lifetime: str  # a duration, e.g. "3600s"
    jwks: Optional[Dict[str, Any]]  # a private_key_jwt client's public keys
    jwks_uri: str  # or where it publishes them
    created_at: str
    revoked_at: Optional[str]
    previous_secret_expires_at: Optional[str]
    secret: str  # only when created or rotated


class JobError(TypedDict):
    code: str
    message: str
    step: str


# "async" is a keyword, so Job is declared in the functional form.
Job = TypedDict("Job", {
    "id": str,
    "status": str,  # queued, processing, completed, failed, canceled
    "vertical": str,
    "workflow": str,
    "progress": int,
    "context": Optional[Dict[str, Any]],  # None in a list's basic view
    "result": Optional[Dict[str, Any]],  # None until completed, and in a list's basic view
    "error": Optional[JobError],
    "created_at": str,
    "started_at": Optional[str],
    "completed_at": Optional[str],
    "attempts": int,
    "async": bool,
    "plan_id": str,  # the tracked plan a run with track=True made, once it completed
    "creator_id": str,  # the creator the run was for, "" when none was given
})


class IPRecord(TypedDict):
    id: str
    creator_id: str
    title: str
    type: str
    content_hash: str
    description: str
    timestamp: str
    certificate_id: str
    status: str
    log_index: int


class ExternalTimestamp(TypedDict, total=False):
    """A certificate's timestamp from an independent RFC 3161 authority."""
    authority_url: str
    status: str  # pending, ok or failed
    token: str  # base64 DER TimeStampResp
    gen_time: str
    error: str
    attempts: int


class CertificateUpdated(TypedDict):
    """The data of ip.certificate.updated: a certificate's external
    timestamps changed (a token arrived, or an authority failed every retry)."""
    id: str
    certificate_id: str
    external_timestamps: List[ExternalTimestamp]


class Webhook(TypedDict, total=False):
    id: str
    url: str
    events: List[str]
    status: str
    created_at: str
    updated_at: str
    description: str
    disabled_reason: str
    disabled_at: Optional[str]
    # Until when the secret replaced by the last rotation signs deliveries too.
    previous_secret_expires_at: Optional[str]
    # Deliveries that failed (every retry) in a row since the last success.
    consecutive_failures: int
    secret: str  # only when created or rotated without one of your own


class Event(TypedDict):
    """An event as GET /v1/events returns it: id, type, timestamp and data
    as its webhook deliveries carry them."""
    id: str
    type: str
    timestamp: str
    data: Dict[str, Any]
    object_id: str
    sequence: str  # int64: a JSON string


class Delivery(TypedDict):
    id: str
    webhook_id: str
    event_id: str
    event_type: str
    status: str  # pending, succeeded, failed
    attempts: int
    response_status: int
    latency_ms: int
    last_error: str
    next_retry_at: Optional[str]
    created_at: str
    completed_at: Optional[str]
    attempt_log: List[Dict[str, Any]]


class AuditOrigin(TypedDict):
    client_ip: str
    user_agent: str
    request_id: str
    transport: str  # rest, grpc, connect, grpc-web, cli or system


class AuditEvent(TypedDict):
    id: str
    organization_id: str
    actor: str  # an API key id, "cli:<os user>" or "system"
    action: str  # key.created, key.rotated, key.revoked, webhook.created, ...
    target_type: str
    target_id: str
    origin: AuditOrigin
    details: Dict[str, str]  # never a secret
    created_at: str


class PlanMilestone(TypedDict):
    key: str  # the engine's key, stable across revisions
    title: str
    date: str  # YYYY-MM-DD
    deliverable: bool
    state: str  # pending, done, skipped
    done_at: Optional[str]  # when it was marked done or skipped
    revision: int  # the revision in which its date or title last changed


class Plan(TypedDict):
    id: str  # "plan_..."
    vertical: str
    workflow: str
    context: Optional[Dict[str, Any]]  # what the current revision was made from; None in a list's basic view
    creator_id: str
    revision: int
    job_id: str  # the job that made the current revision
    as_of: str  # YYYY-MM-DD
    time_zone: str
    state: str  # active, completed
    milestones: List[PlanMilestone]
    remind_days_before: int
    auto_replan: bool
    feed_active: bool
    result: Optional[Dict[str, Any]]  # the current revision's full result; None in a list's basic view
    created_at: str
    updated_at: str


class MilestoneChange(TypedDict):
    key: str
    title: str
    change: str  # moved, added, removed, kept
    from_date: str  # "" for an added milestone
    to_date: str  # "" for a removed milestone


class ReplanResult(TypedDict):
    plan: Plan
    changes: List[MilestoneChange]


class PlanMilestoneReminder(TypedDict):
    """The data of plan.milestone.due and plan.milestone.overdue events."""
    plan_id: str
    revision: int
    creator_id: str
    vertical: str
    workflow: str
    milestone: PlanMilestone
    days_until: int  # remind_days_before (or fewer), 0 on the day, negative when overdue


class PlanReplanReport(TypedDict):
    """The data of plan.replanned events."""
    plan: Plan
    changes: List[MilestoneChange]
    trigger: str  # manual, or automatic (a deliverable's date passed undone)


class PlanFeed(TypedDict):
    url: str  # the secret feed URL, shown only here
    created_at: str
