"""Client for the creativeops API.

    from creativeops import CreativeOps
    co = CreativeOps(api_key="co_live_...", base_url="http://localhost:8080")
    for creator in co.creators.list(vertical="music"):
        print(creator["name"])
"""

from .client import CreativeOps
from .errors import (
    Conflict,
    CreativeOpsError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RateLimited,
    ServerError,
    TransportError,
    Unauthenticated,
)
from .webhooks import WebhookEvent, WebhookVerificationError, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "Conflict",
    "CreativeOps",
    "CreativeOpsError",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "ServerError",
    "TransportError",
    "Unauthenticated",
    "WebhookEvent",
    "WebhookVerificationError",
    "verify_webhook",
]
