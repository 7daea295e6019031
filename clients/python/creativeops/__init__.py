"""Client for the creativeops API.

    from creativeops import CreativeOps
    co = CreativeOps(api_key="co_live_...", base_url="http://localhost:8080")
    for creator in co.creators.list(vertical="music"):
        print(creator["name"])
"""

from typing import Any

from ._version import __version__
from .certificates import CertificateVerificationError, check_external_timestamps, verify_certificate
from .client import CallOptions, CreativeOps, RateLimitState, ResponseInfo, response_info
from .errors import (
    APIConnectionError,
    APITimeoutError,
    Conflict,
    CreativeOpsError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RateLimited,
    ServerError,
    Unauthenticated,
)
from .webhooks import WebhookEvent, WebhookVerificationError, verify_webhook

__all__ = [
    "APIConnectionError",
    "APITimeoutError",
    "CallOptions",
    "CertificateVerificationError",
    "Conflict",
    "CreativeOps",
    "CreativeOpsError",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
    "RateLimitState",
    "RateLimited",
    "ResponseInfo",
    "ServerError",
    "Unauthenticated",
    "WebhookEvent",
    "WebhookVerificationError",
    "check_external_timestamps",
    "response_info",
    "verify_certificate",
    "verify_webhook",
]


def __getattr__(name: str) -> Any:
    # The deprecated TransportError (now APIConnectionError) warns when used.
    if name == "TransportError":
        import warnings

        warnings.warn("creativeops.TransportError is deprecated: use APIConnectionError", DeprecationWarning, stacklevel=2)
        return APIConnectionError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
