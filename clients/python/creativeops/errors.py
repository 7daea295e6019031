"""Errors raised by the client: one class per API status, all carrying the
AIP-193 fields of the response and its request id."""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Tuple


class CreativeOpsError(Exception):
    """An error of the API: an error answer, or (APIConnectionError and
    APITimeoutError) no answer at all.

    Attributes:
        http_status: the HTTP status (404); 0 when no HTTP answer came.
        status: the gRPC status name ("NOT_FOUND").
        message: what went wrong, for people.
        reason: the stable ErrorInfo reason ("DUPLICATE_EMAIL"), or "".
        metadata: the ErrorInfo metadata.
        field_violations: (field, description) pairs of a BadRequest.
        request_id: the id to quote when reporting the request.
        retry_after: seconds to wait before retrying, when the server said.
    """

    def __init__(
        self,
        http_status: int,
        status: str,
        message: str,
        reason: str = "",
        metadata: Optional[Dict[str, str]] = None,
        field_violations: Optional[List[Tuple[str, str]]] = None,
        request_id: str = "",
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(f"{http_status} {status}: {message}" + (f" (request {request_id})" if request_id else ""))
        self.http_status = http_status
        self.status = status
        self.message = message
        self.reason = reason
        self.metadata = metadata or {}
        self.field_violations = field_violations or []
        self.request_id = request_id
        self.retry_after = retry_after

    @property
    def fields(self) -> List[str]:
        """The names of the fields at fault."""
        return [f for f, _ in self.field_violations]


class InvalidArgument(CreativeOpsError):
    """400: the request is invalid; field_violations say where."""


class Unauthenticated(CreativeOpsError):
    """401: no API key, or one that is unknown, revoked or expired."""


class PermissionDenied(CreativeOpsError):
    """403: the key lacks the scope the method needs."""


class NotFound(CreativeOpsError):
    """404: no such resource in the caller's organization."""


class Conflict(CreativeOpsError):
    """409: a duplicate, a state that forbids the change, or an
    Idempotency-Key used with another request or still in progress."""


class RateLimited(CreativeOpsError):
    """429: the key exceeded its rate limit; retry_after says when to retry."""


class ServerError(CreativeOpsError):
    """5xx: the server failed; quote request_id when reporting it."""


class APIConnectionError(CreativeOpsError):
    """No HTTP answer came: the connection was refused or reset, the name
    did not resolve, TLS failed, or the answer was not HTTP. http_status
    is 0 and status "UNAVAILABLE"; the cause is in __cause__."""

    def __init__(self, message: str, status: str = "UNAVAILABLE") -> None:
        super().__init__(0, status, message)
        self.args = (f"{status}: {message}",)


class APITimeoutError(APIConnectionError, TimeoutError):
    """The call's timeout (or the client's) elapsed before the answer came.
    http_status is 0 and status "DEADLINE_EXCEEDED". Also a TimeoutError,
    which the client raised for timeouts before."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "DEADLINE_EXCEEDED")


_BY_STATUS = {
    400: InvalidArgument,
    401: Unauthenticated,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    429: RateLimited,
}


def from_response(http_status: int, body: Any, request_id: str, retry_after: Optional[float]) -> CreativeOpsError:
    """Builds the error of an answer whose body is an AIP-193 error (or
    anything else, for answers that did not come from the API)."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        err = {"status": "UNKNOWN", "message": str(body)[:200] if body else "HTTP %d" % http_status}
    reason, metadata, violations = "", {}, []
    for d in err.get("details") or []:
        kind = d.get("@type", "")
        if kind.endswith("google.rpc.ErrorInfo"):
            reason = d.get("reason", "")
            metadata = d.get("metadata") or {}
        elif kind.endswith("google.rpc.BadRequest"):
            for v in d.get("fieldViolations") or d.get("field_violations") or []:
                violations.append((v.get("field", ""), v.get("description", "")))
    cls = _BY_STATUS.get(http_status, ServerError if http_status >= 500 else CreativeOpsError)
    return cls(
        http_status,
        err.get("status", "UNKNOWN"),
        err.get("message", ""),
        reason=reason,
        metadata=metadata,
        field_violations=violations,
        request_id=err.get("request_id") or request_id,
        retry_after=retry_after,
    )


def __getattr__(name: str) -> Any:
    # TransportError was the class of connection failures before
    # APIConnectionError; old code that imports it keeps working, warned.
    if name == "TransportError":
        warnings.warn("creativeops.TransportError is deprecated: use APIConnectionError", DeprecationWarning, stacklevel=2)
        return APIConnectionError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
