"""Verification of webhook deliveries (Standard Webhooks)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Literal, Mapping, Optional, Sequence, TypedDict, Union

from .types import CertificateUpdated, Creator, CreatorDeleted, IPRecord, Job, PlanMilestoneReminder, PlanReplanReport, Webhook

SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE = 5 * 60


# One TypedDict per event type the server declares
# (proto/creativeops/v1/events.proto; the published schema is
# GET /v1/openapi/webhooks.json). tests/test_webhooks.py fails when these
# drift from gen/openapi/webhooks.json.


class JobCompletedEvent(TypedDict):
    """A run, synchronous or asynchronous, completed."""
    id: str
    type: Literal["engine.job.completed"]
    timestamp: str
    data: Job


class JobFailedEvent(TypedDict):
    """A run failed; data["error"] says where and why."""
    id: str
    type: Literal["engine.job.failed"]
    timestamp: str
    data: Job


class IPRegisteredEvent(TypedDict):
    """A work was registered."""
    id: str
    type: Literal["ip.registered"]
    timestamp: str
    data: IPRecord


class IPCertificateUpdatedEvent(TypedDict):
    """A certificate's external timestamps changed: an independent authority's token arrived, or it failed every retry."""

    id: str
    type: Literal["ip.certificate.updated"]
    timestamp: str
    data: CertificateUpdated


class CreatorCreatedEvent(TypedDict):
    """A creator was provisioned."""
    id: str
    type: Literal["creator.created"]
    timestamp: str
    data: Creator


class CreatorUpdatedEvent(TypedDict):
    """A creator was changed by PATCH /v1/creators/{id}."""
    id: str
    type: Literal["creator.updated"]
    timestamp: str
    data: Creator


class CreatorDeletedEvent(TypedDict):
    """A creator was erased; data holds its id and the time, nothing personal."""
    id: str
    type: Literal["creator.deleted"]
    timestamp: str
    data: CreatorDeleted


class WebhookTestEvent(TypedDict):
    """Sent by POST /v1/webhooks/{id}:test; data is the webhook, never its secret."""
    id: str
    type: Literal["webhook.test"]
    timestamp: str
    data: Webhook


class WebhookDisabledEvent(TypedDict):
    """The service disabled a webhook (a run of failed deliveries, or 410 Gone); data is that webhook."""
    id: str
    type: Literal["webhook.disabled"]
    timestamp: str
    data: Webhook


class PlanMilestoneDueEvent(TypedDict):
    """A tracked plan's pending milestone is due in remind_days_before days (or fewer), or today."""
    id: str
    type: Literal["plan.milestone.due"]
    timestamp: str
    data: PlanMilestoneReminder


class PlanMilestoneOverdueEvent(TypedDict):
    """A tracked plan's pending milestone's date passed; data["days_until"] is negative."""
    id: str
    type: Literal["plan.milestone.overdue"]
    timestamp: str
    data: PlanMilestoneReminder


class PlanReplannedEvent(TypedDict):
    """A plan was re-planned, by hand (trigger manual) or because a deliverable slipped (automatic)."""
    id: str
    type: Literal["plan.replanned"]
    timestamp: str
    data: PlanReplanReport


# The JSON body of a delivery: compare event["type"] before reading
# event["data"] (a type checker narrows the union on it).
WebhookEvent = Union[
    JobCompletedEvent,
    JobFailedEvent,
    IPRegisteredEvent,
    IPCertificateUpdatedEvent,
    CreatorCreatedEvent,
    CreatorUpdatedEvent,
    CreatorDeletedEvent,
    WebhookTestEvent,
    WebhookDisabledEvent,
    PlanMilestoneDueEvent,
    PlanMilestoneOverdueEvent,
    PlanReplannedEvent,
]


class WebhookVerificationError(Exception):
    """The delivery is not authentic, or too old to trust."""


def _key(secret: str) -> bytes:
    if not secret:
        raise WebhookVerificationError("empty webhook secret")
    if secret.startswith(SECRET_PREFIX):
        try:
            key = base64.b64decode(secret[len(SECRET_PREFIX):], validate=True)
        except ValueError as e:
            raise WebhookVerificationError("the whsec_ secret is not valid base64") from e
        if not key:
            raise WebhookVerificationError("the whsec_ secret has an empty key")
        return key
    return secret.encode()


def _header(headers: Mapping[str, str], name: str) -> str:
    for k, v in headers.items():
        if k.lower() == name:
            return v
    raise WebhookVerificationError(f"missing {name} header")


def verify_webhook(
    payload: Union[bytes, str],
    headers: Mapping[str, str],
    secret: Union[str, Sequence[str]],
    tolerance: float = DEFAULT_TOLERANCE,
    now: Optional[float] = None,
) -> WebhookEvent:
    """Checks a delivery's signature and timestamp and returns its event.

    payload is the request body exactly as received; headers its HTTP
    headers (any case); secret the webhook's secret, "whsec_..." or raw,
    or several (while you switch to a rotated secret, [new, old]: during
    the service's grace period every delivery is signed with both).
    Raises WebhookVerificationError unless one of the webhook-signature
    values is the HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"
    under one of the secrets, and the timestamp is within tolerance seconds
    of now.
    """
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise WebhookVerificationError("no webhook secret given")
    body = payload.encode() if isinstance(payload, str) else bytes(payload)
    msg_id = _header(headers, "webhook-id")
    stamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    try:
        sent = int(stamp)
    except ValueError as e:
        raise WebhookVerificationError("webhook-timestamp is not a number") from e
    current = time.time() if now is None else now
    if abs(current - sent) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is outside the tolerance")
    signed = f"{msg_id}.{stamp}.".encode() + body
    expected = [base64.b64encode(hmac.new(_key(s), signed, hashlib.sha256).digest()).decode() for s in secrets]
    for sig in signatures.split():
        version, _, value = sig.partition(",")
        if version == "v1" and any(hmac.compare_digest(value, e) for e in expected):
            try:
                return json.loads(body)
            except ValueError as e:
                raise WebhookVerificationError("the payload is not JSON") from e
    raise WebhookVerificationError("no matching signature")
