"""Client for the creativeops API.

    from creativeops import CreativeOps
    co = CreativeOps(api_key="co_live_...", base_url="http://localhost:8080")
    for creator in co.creators.list(vertical="music"):
        print(creator["name"])
"""

from ._version import __version__
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
from .webhooks import WebhookVerificationError, verify_webhook

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
    "WebhookVerificationError",
    "verify_webhook",
]
