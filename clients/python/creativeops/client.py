"""The client: one object per API key, with a resource per service."""

from __future__ import annotations

import http.client
import json
import logging
import random
import re
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import warnings
from datetime import datetime, timezone
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, NamedTuple, Optional, Tuple,
                    TypedDict, Union, cast)

from ._version import __version__
from .certificates import verify_certificate
from .errors import APIConnectionError, APITimeoutError, CreativeOpsError, from_response
from .types import (APIKey, AuditEvent, Creator, Delivery, Event, IPRecord, Job, OAuthClient, Plan, PlanFeed, ReplanResult,
                    Webhook)

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

    from .grpc import Client as GRPCClient

DEFAULT_BASE_URL = "http://localhost:8080"
RETRY_STATUSES = (429, 503)
# Methods that mean the same when repeated; a POST is repeated after a
# connection failure only when it carries an Idempotency-Key (by default
# every POST gets one: see auto_idempotency_keys).
IDEMPOTENT_METHODS = ("GET", "HEAD", "DELETE", "PUT", "OPTIONS")

logger = logging.getLogger("creativeops")

RequestHook = Callable[[str, str, Dict[str, str]], None]
ResponseHook = Callable[[int, Dict[str, str], float, str, int], None]
Time = Union[datetime, str, None]


class CallOptions(TypedDict, total=False):
    """Keyword arguments every API method takes.

    idempotency_key: the Idempotency-Key of a POST (default: a random one
        per call, reused by its retries). Passing one makes the POST safe
        to repeat: the client then retries it after a dropped connection
        too, and the server answers a repeat with the first response.
    timeout: seconds to wait for the server (to connect, and between
        bytes of the answer); default: the client's timeout.
    headers: extra HTTP headers for this call (they override the client's).
    """

    idempotency_key: str
    timeout: float
    headers: Mapping[str, str]


class RateLimitState(NamedTuple):
    """The key's rate limit as the answer's RateLimit header stated it."""

    limit: int  # the bucket size (burst)
    remaining: int  # requests that may be sent now
    reset_seconds: int  # seconds until the bucket is full again


class ResponseInfo(NamedTuple):
    """What the HTTP answer said beside its body (see response_info)."""

    request_id: str  # X-Request-Id: quote it when reporting a problem
    rate_limit: Optional[RateLimitState]


class _Dict(Dict[str, Any]):
    _creativeops_response: Optional[ResponseInfo] = None


class _List(List[Any]):
    _creativeops_response: Optional[ResponseInfo] = None


class _Bytes(bytes):
    _creativeops_response: Optional[ResponseInfo] = None


def response_info(result: Any) -> Optional[ResponseInfo]:
    """The request id and rate-limit state of the answer a method returned
    result from (a dict, list or bytes it returned, or an item a list
    method yielded); None for anything else.

    >>> creator = co.creators.get("cr_01k...")
    >>> response_info(creator).request_id
    'req_...'
    """
    return getattr(result, "_creativeops_response", None) if isinstance(result, (_Dict, _List, _Bytes)) else None


def _attach(value: Any, info: Optional[ResponseInfo]) -> Any:
    if isinstance(value, dict):
        value = _Dict(value)
    elif isinstance(value, list):
        value = _List(value)
    elif isinstance(value, bytes):
        value = _Bytes(value)
    else:
        return value
    value._creativeops_response = info
    return value


def _field(result: Any, key: str) -> Any:
    """result[key], carrying result's response info."""
    return _attach(result[key], response_info(result))


class CreativeOps:
    """A client of one creativeops service, acting with one API key.

    >>> co = CreativeOps(api_key="co_live_...", base_url="http://localhost:8080")
    >>> nova = co.creators.create(name="Nova Reyes", email="nova@example.com", vertical="music")

    Every method takes the keyword arguments of CallOptions:
    idempotency_key, timeout and headers.

    Retries, up to max_retries times: answers 429 and 503, after Retry-After
    (a Retry-After beyond max_retry_wait seconds raises at once) or backing
    off 0.5 s, 1 s, 2 s, +-20%; and connection failures and timeouts of the
    requests that are safe to repeat: GET, DELETE, a POST carrying an
    Idempotency-Key, and any request the server never received (connection
    refused, name not resolved). Every POST carries an Idempotency-Key,
    the same on each retry (the caller's idempotency_key, or one generated
    per call): the server runs it once however often it arrives. With
    auto_idempotency_keys=False a POST without the caller's key is sent
    without one and never repeated once it may have reached the server.

    Errors raise subclasses of CreativeOpsError: one per API status, and
    APIConnectionError (APITimeoutError for timeouts) when no answer came.

    on_request(method, url, headers) is called before each attempt (the
    Authorization header redacted), on_response(status, headers, elapsed
    seconds, request id, attempt) after each (status 0 when no answer
    came). The "creativeops" logger logs the same at DEBUG, never the key.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 30.0,
        user_agent: str = "creativeops-python/" + __version__,
        on_request: Optional[RequestHook] = None,
        on_response: Optional[ResponseHook] = None,
        auto_idempotency_keys: bool = True,
    ) -> None:
        if not api_key:
            raise ValueError("api_key is required")
        for name, hook in (("on_request", on_request), ("on_response", on_response)):
            if hook is not None and not callable(hook):
                raise TypeError(f"{name}: want a callable, not {type(hook).__name__}")
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.user_agent = user_agent
        self.on_request = on_request
        self.on_response = on_response
        self.auto_idempotency_keys = auto_idempotency_keys
        self.creators = Creators(self)
        self.keys = Keys(self)
        self.engine = Engine(self)
        self.ip = IP(self)
        self.webhooks = Webhooks(self)
        self.events = Events(self)
        self.analytics = Analytics(self)
        self.audit = Audit(self)
        self.oauth_clients = OAuthClients(self)
        self.plans = Plans(self)

    def __repr__(self) -> str:
        return f"CreativeOps(base_url={self.base_url!r})"  # never the key

    def grpc(self) -> "GRPCClient":
        """The same API over native gRPC, with this client's key and base
        URL: stubs per service (creativeops.grpc.Client). Needs the grpc
        extra: pip install "creativeops[grpc]"."""
        try:
            from .grpc import connect
        except ImportError as e:
            raise ImportError('gRPC needs the grpc extra: pip install "creativeops[grpc]" (grpcio, protobuf)') from e
        return connect(self.base_url, self.api_key)

    def request(
        self,
        method: str,
        path: str,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        raw: bool = False,
        *,
        timeout: Optional[float] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Sends one API request (with retries) and returns its decoded
        JSON body, None for 204, or the bytes when raw; response_info()
        of the result gives the request id and rate-limit state."""
        url = self.base_url + path
        q = {k: v for k, v in (query or {}).items() if v is not None and v != ""}
        if q:
            url += "?" + urllib.parse.urlencode(q, doseq=True)
        data = json.dumps(body).encode() if body is not None else None
        hdrs = {"Authorization": "Bearer " + self.api_key, "User-Agent": self.user_agent, "Accept": "application/json"}
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        for k, v in (headers or {}).items():
            for existing in [e for e in hdrs if e.lower() == k.lower()]:
                del hdrs[existing]
            hdrs[k] = v
        caller_key = idempotency_key or next((v for k, v in hdrs.items() if k.lower() == "idempotency-key"), "")
        if method == "POST":
            for existing in [e for e in hdrs if e.lower() == "idempotency-key"]:
                del hdrs[existing]
            key = caller_key or (str(uuid.uuid4()) if self.auto_idempotency_keys else "")
            if key:
                hdrs["Idempotency-Key"] = key
        repeatable = method in IDEMPOTENT_METHODS or any(k.lower() == "idempotency-key" for k in hdrs)
        wait_limit = self.timeout if timeout is None else timeout
        attempt = 0
        while True:
            attempt += 1
            self._before(method, url, hdrs, attempt)
            start = time.monotonic()
            req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
            try:
                status, resp_headers, payload = _send(req, wait_limit)
            except (OSError, http.client.HTTPException) as e:
                elapsed = time.monotonic() - start
                err, sent = _connection_error(method, url, e, wait_limit)
                self._after(method, url, 0, {}, elapsed, "", attempt, err)
                if (repeatable or not sent) and attempt <= self.max_retries:
                    wait = _backoff(attempt - 1)
                    logger.debug("retrying %s %s in %.2f s: %s", method, url, wait, err)
                    time.sleep(wait)
                    continue
                raise err from e
            elapsed = time.monotonic() - start
            request_id = resp_headers.get("X-Request-Id", "")
            self._after(method, url, status, dict(resp_headers.items()), elapsed, request_id, attempt, None)
            if 200 <= status < 300:
                info = ResponseInfo(request_id, _rate_limit(resp_headers.get("RateLimit")))
                if raw:
                    return _attach(payload, info)
                return _attach(json.loads(payload), info) if payload else None
            retry_after = _retry_after(resp_headers.get("Retry-After"))
            wait = retry_after if retry_after is not None else _backoff(attempt - 1)
            if status in RETRY_STATUSES and attempt <= self.max_retries and wait <= self.max_retry_wait:
                logger.debug("retrying %s %s in %.2f s: HTTP %d", method, url, wait, status)
                time.sleep(wait)
                continue
            try:
                decoded = json.loads(payload) if payload else None
            except ValueError:
                decoded = payload.decode(errors="replace")
            raise from_response(status, decoded, request_id, retry_after)

    def _before(self, method: str, url: str, headers: Mapping[str, str], attempt: int) -> None:
        logger.debug("%s %s (attempt %d)", method, url, attempt)
        if self.on_request is not None:
            shown = {k: ("Bearer [redacted]" if k.lower() == "authorization" else v) for k, v in headers.items()}
            self.on_request(method, url, shown)

    def _after(self, method: str, url: str, status: int, headers: Dict[str, str], elapsed: float, request_id: str,
               attempt: int, error: Optional[Exception]) -> None:
        if error is not None:
            logger.debug("%s %s failed after %.0f ms: %s", method, url, elapsed * 1000, error)
        else:
            logger.debug("%s %s -> %d in %.0f ms (request %s)", method, url, status, elapsed * 1000, request_id)
        if self.on_response is not None:
            self.on_response(status, headers, elapsed, request_id, attempt)

    def pages(self, path: str, key: str, query: Optional[Mapping[str, Any]] = None, page_size: int = 0,
              **options: Unpack[CallOptions]) -> Iterator[Any]:
        """Iterates over every item of a list, page after page; each item's
        response_info() is that of its page."""
        params = dict(query or {})
        if page_size:
            params["page_size"] = page_size
        while True:
            page = self.request("GET", path, query=params, **options)
            info = response_info(page)
            for item in page.get(key) or []:
                yield _attach(item, info)
            token = page.get("next_page_token")
            if not token:
                return
            params["page_token"] = token


def _send(req: urllib.request.Request, timeout: float) -> Tuple[int, Any, bytes]:
    """(status, headers, body) of one exchange; error answers too."""
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        try:
            return e.code, e.headers, e.read()
        finally:
            e.close()


def _connection_error(method: str, url: str, e: BaseException, timeout: float) -> Tuple[APIConnectionError, bool]:
    """The error for a failed exchange, and whether the server may have
    received the request (urllib wraps only failures before the answer is
    read in URLError; refused and unresolved connections sent nothing)."""
    reason: Any = e.reason if isinstance(e, urllib.error.URLError) else e
    if isinstance(reason, (socket.timeout, TimeoutError)) or (isinstance(reason, str) and "timed out" in reason):
        return APITimeoutError(f"{method} {url}: no answer within {timeout:g} s"), True
    sent = not (isinstance(e, urllib.error.URLError) and isinstance(reason, (ConnectionRefusedError, socket.gaierror)))
    what = reason if str(reason) else type(reason).__name__
    return APIConnectionError(f"{method} {url}: {what}"), sent


def _retry_after(value: Optional[str]) -> Optional[float]:
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        return None


def _rate_limit(value: Optional[str]) -> Optional[RateLimitState]:
    """RateLimit: limit=200, remaining=199, reset=1 (draft-ietf-httpapi-ratelimit-headers)."""
    params = dict(re.findall(r"(limit|remaining|reset)\s*=\s*(\d+)", value or ""))
    if len(params) != 3:
        return None
    return RateLimitState(int(params["limit"]), int(params["remaining"]), int(params["reset"]))


def _backoff(attempt: int) -> float:
    """0.5 s, 1 s, 2 s, ... for attempts 0, 1, 2, with +-20% jitter."""
    return 0.5 * 2 ** attempt * (0.8 + 0.4 * random.random())


def _q(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _time(name: str, value: Time) -> Optional[str]:
    """A filter time as RFC 3339: an aware datetime, or a string the server
    checks."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"{name}: a naive datetime has no time zone; pass an aware one "
                             "(datetime(..., tzinfo=timezone.utc))")
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(value, str):
        return value
    raise TypeError(f"{name}: want a datetime or an RFC 3339 string, not {type(value).__name__}")


def _deprecated(new: str, old: str) -> Callable[..., Any]:
    """A method old that warns and calls new: the names the TypeScript
    client uses won (docs/clients.md), the old ones stay for a while."""

    def alias(self: Any, *args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"{type(self).__name__}.{old}() is deprecated: use {new}()", DeprecationWarning, stacklevel=2)
        return getattr(self, new)(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated: use {new}()."
    return alias


class _Resource:
    def __init__(self, client: CreativeOps) -> None:
        self._c = client


class Creators(_Resource):
    def create(self, name: str, email: str, vertical: str, metadata: Optional[Dict[str, Any]] = None,
               **options: Unpack[CallOptions]) -> Creator:
        body: Dict[str, Any] = {"name": name, "email": email, "vertical": vertical}
        if metadata is not None:
            body["metadata"] = metadata
        return cast(Creator, self._c.request("POST", "/v1/creators", body, **options))

    def get(self, id: str, **options: Unpack[CallOptions]) -> Creator:
        return cast(Creator, self._c.request("GET", "/v1/creators/" + _q(id), **options))

    def list(self, vertical: str = "", page_size: int = 0, email: str = "",
             created_after: Time = None, created_before: Time = None,
             **options: Unpack[CallOptions]) -> Iterator[Creator]:
        """Creators, newest first: optionally of one vertical, with one email
        (compared case-insensitively), created in a time range (aware
        datetimes or RFC 3339 strings; after is inclusive, before is not)."""
        query = {"vertical": vertical, "email": email,
                 "created_after": _time("created_after", created_after),
                 "created_before": _time("created_before", created_before)}
        return self._c.pages("/v1/creators", "creators", query, page_size, **options)

    def find_by_email(self, email: str, **options: Unpack[CallOptions]) -> Optional[Creator]:
        """The creator with this email (compared case-insensitively), or None."""
        for c in self._c.pages("/v1/creators", "creators", {"email": email}, 1, **options):
            return c
        return None

    def update(self, id: str, name: Optional[str] = None, email: Optional[str] = None,
               vertical: Optional[str] = None, metadata: Optional[Dict[str, Any]] = None,
               clear_metadata: bool = False, revision: Optional[int] = None,
               **options: Unpack[CallOptions]) -> Creator:
        """Changes a creator: only the fields given change. metadata is merged
        key by key, a key set to None is removed; clear_metadata removes every
        key first. With revision (the creator's revision as read), the update
        is refused with 409 REVISION_MISMATCH if the creator changed since."""
        body: Dict[str, Any] = {}
        paths = []
        for field, value in (("name", name), ("email", email), ("vertical", vertical), ("metadata", metadata)):
            if value is not None:
                body[field] = value
                paths.append(field)
        if clear_metadata and "metadata" not in paths:
            paths.append("metadata")
        body["update_mask"] = ",".join(paths)
        if revision is not None:
            body["revision"] = revision
        return cast(Creator, self._c.request("PATCH", "/v1/creators/" + _q(id), body, **options))

    def erase(self, id: str, **options: Unpack[CallOptions]) -> None:
        """Erases a creator (scope creators:admin): its personal data is
        removed from the service; the id answers 404 from then on."""
        self._c.request("DELETE", "/v1/creators/" + _q(id), **options)

    def export(self, id: str, **options: Unpack[CallOptions]) -> Dict[str, Any]:
        """Everything the service holds about one creator, as one document
        (scope creators:admin)."""
        return cast(Dict[str, Any], self._c.request("GET", "/v1/creators/" + _q(id) + ":export", **options))


class Keys(_Resource):
    def create(self, name: str, scopes: List[str], expires_at: Optional[str] = None,
               rate_limit: Optional[Dict[str, Any]] = None, **options: Unpack[CallOptions]) -> APIKey:
        body: Dict[str, Any] = {"name": name, "scopes": scopes}
        if expires_at:
            body["expires_at"] = expires_at
        if rate_limit:
            body["rate_limit"] = rate_limit
        return cast(APIKey, self._c.request("POST", "/v1/keys", body, **options))

    def list(self, page_size: int = 0, **options: Unpack[CallOptions]) -> Iterator[APIKey]:
        return self._c.pages("/v1/keys", "keys", page_size=page_size, **options)

    def rotate(self, id: str, grace_period_seconds: Optional[int] = None, **options: Unpack[CallOptions]) -> APIKey:
        body = {} if grace_period_seconds is None else {"grace_period": f"{grace_period_seconds}s"}
        return cast(APIKey, self._c.request("POST", f"/v1/keys/{_q(id)}:rotate", body, **options))

    def revoke(self, id: str, **options: Unpack[CallOptions]) -> None:
        self._c.request("DELETE", "/v1/keys/" + _q(id), **options)


class Engine(_Resource):
    def list_verticals(self, **options: Unpack[CallOptions]) -> List[Dict[str, Any]]:
        return cast(List[Dict[str, Any]], _field(self._c.request("GET", "/v1/engine/verticals", **options), "verticals"))

    def list_calendars(self, **options: Unpack[CallOptions]) -> Dict[str, Any]:
        """The countries the country input accepts, the currencies of the
        currency input, and the industry closures every plan respects."""
        return cast(Dict[str, Any], self._c.request("GET", "/v1/engine/calendars", **options))

    def list_workflows(self, vertical: str = "", **options: Unpack[CallOptions]) -> List[Dict[str, Any]]:
        return cast(List[Dict[str, Any]], _field(
            self._c.request("GET", "/v1/engine/workflows", query={"vertical": vertical}, **options), "workflows"))

    def get_workflow(self, id: str, **options: Unpack[CallOptions]) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._c.request("GET", "/v1/engine/workflows/" + _q(id), **options))

    def run(self, vertical: str, workflow: str, context: Dict[str, Any], async_: bool = False, track: bool = False,
            creator_id: str = "", **options: Unpack[CallOptions]) -> Job:
        """Runs a workflow: returns the completed (or failed) job, or with
        async_=True the queued one (see wait_for_job). With track=True the
        plan it makes is kept as a tracked plan (job["plan_id"], once the
        run completed; see plans), for creator_id when given."""
        body: Dict[str, Any] = {"vertical": vertical, "workflow": workflow, "context": context, "async": async_}
        if track:
            body["track"] = True
        if creator_id:
            body["creator_id"] = creator_id
        return cast(Job, self._c.request("POST", "/v1/engine/run", body, **options))

    def get_job(self, id: str, **options: Unpack[CallOptions]) -> Job:
        return cast(Job, self._c.request("GET", "/v1/engine/status/" + _q(id), **options))

    def list_jobs(self, status: str = "", vertical: str = "", workflow: str = "", page_size: int = 0,
                  view: str = "", **options: Unpack[CallOptions]) -> Iterator[Job]:
        """The organization's jobs, newest first, every page. view "basic"
        (the default) leaves out each job's context and result (get_job
        returns them); "full" returns whole jobs and costs more of the
        rate limit."""
        return self._c.pages("/v1/engine/jobs", "jobs",
                             {"status": status, "vertical": vertical, "workflow": workflow, "view": view},
                             page_size, **options)

    def cancel_job(self, id: str, **options: Unpack[CallOptions]) -> Job:
        return cast(Job, self._c.request("POST", f"/v1/engine/jobs/{_q(id)}:cancel", {}, **options))

    def wait_for_job(self, id: str, timeout: float = 120.0, interval: float = 0.5, *,
                     headers: Optional[Mapping[str, str]] = None) -> Job:
        """Polls a job until it is completed, failed or canceled and returns
        it (check status: a failed job is returned, not raised). Raises
        APITimeoutError (a TimeoutError) when timeout seconds pass first."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            job = self.get_job(id, timeout=max(min(self._c.timeout, remaining), 0.1), headers=headers or {})
            if job["status"] in ("completed", "failed", "canceled"):
                return job
            if time.monotonic() + interval > deadline:
                raise APITimeoutError(f"job {id} is still {job['status']} after {timeout:g} s")
            time.sleep(interval)

    verticals = _deprecated("list_verticals", "verticals")
    workflows = _deprecated("list_workflows", "workflows")
    workflow = _deprecated("get_workflow", "workflow")
    job = _deprecated("get_job", "job")
    jobs = _deprecated("list_jobs", "jobs")
    cancel = _deprecated("cancel_job", "cancel")
    wait = _deprecated("wait_for_job", "wait")


class IP(_Resource):
    def register(self, creator_id: str, title: str, type: str, content_hash: str, description: str = "",
                 **options: Unpack[CallOptions]) -> IPRecord:
        """Registers a work by its content hash (sha256:<hex> or bare hex);
        returns once it is in a signed checkpoint."""
        body = {"creator_id": creator_id, "title": title, "type": type, "content_hash": content_hash, "description": description}
        return cast(IPRecord, self._c.request("POST", "/v1/ip/register", body, **options))

    def catalog(self, q: str = "", creator_id: str = "", type: str = "", content_hash: str = "", page_size: int = 0,
                registered_after: Time = None, registered_before: Time = None,
                **options: Unpack[CallOptions]) -> Iterator[IPRecord]:
        """The organization's records (or one creator's), newest first.
        registered_after and registered_before take aware datetimes or
        RFC 3339 strings."""
        query = {"q": q, "creator_id": creator_id, "type": type, "content_hash": content_hash,
                 "registered_after": _time("registered_after", registered_after),
                 "registered_before": _time("registered_before", registered_before)}
        return self._c.pages("/v1/ip/catalog", "records", query, page_size, **options)

    def get_record(self, id: str, **options: Unpack[CallOptions]) -> IPRecord:
        return cast(IPRecord, self._c.request("GET", "/v1/ip/records/" + _q(id), **options))

    def get_certificate(self, certificate_id: str, **options: Unpack[CallOptions]) -> Dict[str, Any]:
        """The certificate bundle: check it with verify_certificate, or save
        it as JSON and check it with `creativeops verify --bundle FILE`."""
        return cast(Dict[str, Any], self._c.request("GET", "/v1/ip/certificates/" + _q(certificate_id), **options))

    def get_certificate_token(self, certificate_id: str, **options: Unpack[CallOptions]) -> bytes:
        """The RFC 3161 timestamp token (DER), for openssl ts -verify."""
        return cast(bytes, self._c.request("GET", f"/v1/ip/certificates/{_q(certificate_id)}/token", raw=True, **options))

    def get_checkpoint(self, **options: Unpack[CallOptions]) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._c.request("GET", "/v1/ip/log/checkpoint", **options))

    def get_consistency_proof(self, from_: int, to: int, **options: Unpack[CallOptions]) -> Dict[str, Any]:
        """The proof that the log of `to` entries extends the log of
        `from_` entries (the tree size of a checkpoint kept earlier)."""
        return cast(Dict[str, Any], self._c.request("GET", "/v1/ip/log/consistency", query={"from": from_, "to": to}, **options))

    def get_keys(self, **options: Unpack[CallOptions]) -> Dict[str, Any]:
        """The TSA root and certificate and every log's verifier key: keep
        them, and pass them to verify_certificate later."""
        return cast(Dict[str, Any], self._c.request("GET", "/v1/ip/keys", **options))

    def verify_certificate(self, certificate_id: str, work: Optional[bytes] = None,
                           keys: Optional[Mapping[str, Any]] = None, **options: Unpack[CallOptions]) -> Dict[str, Any]:
        """Fetches a certificate and verifies it offline (see
        creativeops.verify_certificate) against keys: those kept from
        earlier, or else the service's current ones (get_keys). With work,
        the registered file's bytes, checks its hash too. Returns the
        verified claims; raises CertificateVerificationError."""
        bundle = self.get_certificate(certificate_id, **options)
        return verify_certificate(bundle, keys if keys is not None else self.get_keys(**options), work)

    record = _deprecated("get_record", "record")
    certificate = _deprecated("get_certificate", "certificate")
    certificate_token = _deprecated("get_certificate_token", "certificate_token")
    checkpoint = _deprecated("get_checkpoint", "checkpoint")
    keys = _deprecated("get_keys", "keys")


class Webhooks(_Resource):
    def create(self, url: str, events: List[str], secret: str = "", **options: Unpack[CallOptions]) -> Webhook:
        """Creates a webhook; the generated secret is in the answer, once."""
        body: Dict[str, Any] = {"url": url, "events": events}
        if secret:
            body["secret"] = secret
        return cast(Webhook, self._c.request("POST", "/v1/webhooks", body, **options))

    def list(self, page_size: int = 0, **options: Unpack[CallOptions]) -> Iterator[Webhook]:
        return self._c.pages("/v1/webhooks", "webhooks", page_size=page_size, **options)

    def get(self, id: str, **options: Unpack[CallOptions]) -> Webhook:
        return cast(Webhook, self._c.request("GET", "/v1/webhooks/" + _q(id), **options))

    def delete(self, id: str, **options: Unpack[CallOptions]) -> None:
        self._c.request("DELETE", "/v1/webhooks/" + _q(id), **options)

    def test(self, id: str, **options: Unpack[CallOptions]) -> Delivery:
        return cast(Delivery, self._c.request("POST", f"/v1/webhooks/{_q(id)}:test", {}, **options))

    def deliveries(self, id: str, page_size: int = 0, **options: Unpack[CallOptions]) -> Iterator[Delivery]:
        return self._c.pages(f"/v1/webhooks/{_q(id)}/deliveries", "deliveries", page_size=page_size, **options)

    def redeliver(self, id: str, delivery_id: str, **options: Unpack[CallOptions]) -> Delivery:
        return cast(Delivery, self._c.request(
            "POST", f"/v1/webhooks/{_q(id)}/deliveries/{_q(delivery_id)}:redeliver", {}, **options))

    def update(self, id: str, url: Optional[str] = None, events: Optional[List[str]] = None,
               description: Optional[str] = None, **options: Unpack[CallOptions]) -> Webhook:
        """Changes what is given of url (checked as a new webhook's is),
        events and description ("" clears it); the rest stays."""
        body: Dict[str, Any] = {}
        paths = []
        for name, value in (("url", url), ("events", events), ("description", description)):
            if value is not None:
                body[name] = value
                paths.append(name)
        if not paths:
            raise ValueError("update: give url, events or description")
        body["update_mask"] = ",".join(paths)
        return cast(Webhook, self._c.request("PATCH", "/v1/webhooks/" + _q(id), body, **options))

    def disable(self, id: str, **options: Unpack[CallOptions]) -> Webhook:
        """Pauses the endpoint: it receives nothing, its pending deliveries
        fail, its delivery history stays."""
        return cast(Webhook, self._c.request("POST", f"/v1/webhooks/{_q(id)}:disable", {}, **options))

    def enable(self, id: str, **options: Unpack[CallOptions]) -> Webhook:
        """Resumes a disabled endpoint, however it was disabled."""
        return cast(Webhook, self._c.request("POST", f"/v1/webhooks/{_q(id)}:enable", {}, **options))

    def rotate_secret(self, id: str, secret: str = "", **options: Unpack[CallOptions]) -> Webhook:
        """A new signing secret: secret, or a generated one in this answer
        only. Until previous_secret_expires_at every delivery is signed with
        the old and the new one (verify_webhook accepts either, or both)."""
        body = {"secret": secret} if secret else {}
        return cast(Webhook, self._c.request("POST", f"/v1/webhooks/{_q(id)}:rotateSecret", body, **options))


class Events(_Resource):
    """The organization's events, each with the id and data its webhook
    deliveries carry, whether or not an endpoint received it (events:read;
    kept for the server's event retention, 30 days by default)."""

    def list(self, types: Optional[List[str]] = None, created_after: Time = "", created_before: Time = "",
             object_id: str = "", after: str = "", page_size: int = 0,
             **options: Unpack[CallOptions]) -> Iterator[Event]:
        """Every page of events, newest first; with after (the last event id
        you processed), the events committed after it, oldest first: how to
        reconcile missed deliveries."""
        return self._c.pages("/v1/events", "events", {
            "type": types or [], "created_after": _time("created_after", created_after),
            "created_before": _time("created_before", created_before), "object_id": object_id, "after": after,
        }, page_size, **options)

    def get(self, id: str, **options: Unpack[CallOptions]) -> Event:
        return cast(Event, self._c.request("GET", "/v1/events/" + _q(id), **options))


class Analytics(_Resource):
    def usage(self, from_: Time = "", to: Time = "", granularity: str = "", key_id: str = "",
              **options: Unpack[CallOptions]) -> Dict[str, Any]:
        """Requests, errors and latency per route over time (aware
        datetimes or RFC 3339 strings; default the last 24 h by hour)."""
        return cast(Dict[str, Any], self._c.request("GET", "/v1/analytics/usage", query={
            "from": _time("from_", from_), "to": _time("to", to), "granularity": granularity, "key_id": key_id}, **options))


class Audit(_Resource):
    def list(self, action: str = "", actor: str = "", target_id: str = "", from_: Time = "", to: Time = "",
             page_size: int = 0, **options: Unpack[CallOptions]) -> Iterator[AuditEvent]:
        """The organization's audit events (keys:admin), newest first, every
        page; filters are optional (aware datetimes or RFC 3339 strings,
        from_ inclusive)."""
        return self._c.pages("/v1/audit-events", "audit_events", {
            "action": action, "actor": actor, "target_id": target_id, "from": _time("from_", from_),
            "to": _time("to", to)}, page_size, **options)


class OAuthClients(_Resource):
    """OAuth 2.0 clients (keys:admin): machine credentials that trade their
    secret, or a private_key_jwt assertion, for short-lived access tokens at
    POST /oauth/token (client credentials grant)."""

    def create(self, name: str, scopes: List[str], token_lifetime_seconds: Optional[int] = None,
               jwks: Optional[Dict[str, Any]] = None, jwks_uri: str = "", **options: Unpack[CallOptions]) -> OAuthClient:
        """Creates a client; its id is the client_id and its secret is in
        this answer only. With jwks (a JWK set, {"keys": [...]}) or jwks_uri
        (an https URL serving one) it authenticates with private_key_jwt.
        token_lifetime_seconds: 60 to 86400; default: the server's (1 h)."""
        body: Dict[str, Any] = {"name": name, "scopes": scopes}
        if token_lifetime_seconds is not None:
            body["token_lifetime"] = f"{token_lifetime_seconds}s"
        if jwks is not None:
            body["jwks"] = jwks
        if jwks_uri:
            body["jwks_uri"] = jwks_uri
        return cast(OAuthClient, self._c.request("POST", "/v1/oauth/clients", body, **options))

    def list(self, page_size: int = 0, **options: Unpack[CallOptions]) -> Iterator[OAuthClient]:
        """The organization's clients (never their secrets), every page."""
        return self._c.pages("/v1/oauth/clients", "clients", page_size=page_size, **options)

    def get(self, id: str, **options: Unpack[CallOptions]) -> OAuthClient:
        return cast(OAuthClient, self._c.request("GET", "/v1/oauth/clients/" + _q(id), **options))

    def rotate(self, id: str, grace_period_seconds: Optional[int] = None, **options: Unpack[CallOptions]) -> OAuthClient:
        """Issues a new secret; the old one keeps working for
        grace_period_seconds (default 24 h, at most 30 days; 0 ends it now)."""
        body = {} if grace_period_seconds is None else {"grace_period": f"{grace_period_seconds}s"}
        return cast(OAuthClient, self._c.request("POST", f"/v1/oauth/clients/{_q(id)}:rotate", body, **options))

    def delete(self, id: str, **options: Unpack[CallOptions]) -> None:
        """Revokes a client: its secrets stop working at once, its access
        tokens within a second."""
        self._c.request("DELETE", "/v1/oauth/clients/" + _q(id), **options)


class Plans(_Resource):
    """Tracked plans: the plan a run made, kept with its milestones'
    states, re-planned when the context changes or a deliverable slips,
    reminded as webhook events and shown as a calendar feed."""

    def create(self, job_id: str, creator_id: str = "", remind_days_before: Optional[int] = None,
               auto_replan: Optional[bool] = None, **options: Unpack[CallOptions]) -> Plan:
        """Tracks the plan a completed job made. remind_days_before: 0 to 60
        (default 3; 0 reminds on the day only); auto_replan: default True."""
        body: Dict[str, Any] = {"job_id": job_id}
        if creator_id:
            body["creator_id"] = creator_id
        if remind_days_before is not None:
            body["remind_days_before"] = remind_days_before
        if auto_replan is not None:
            body["auto_replan"] = auto_replan
        return cast(Plan, self._c.request("POST", "/v1/plans", body, **options))

    def list(self, creator_id: str = "", vertical: str = "", state: str = "", page_size: int = 0,
             view: str = "", **options: Unpack[CallOptions]) -> Iterator[Plan]:
        """The organization's plans, newest first, every page; state is
        "active" or "completed" (default: both). view "basic" (the
        default) leaves out each plan's context and result (get returns
        them); "full" returns whole plans and costs more of the rate
        limit."""
        return self._c.pages("/v1/plans", "plans",
                             {"creator_id": creator_id, "vertical": vertical, "state": state, "view": view},
                             page_size, **options)

    def get(self, id: str, **options: Unpack[CallOptions]) -> Plan:
        return cast(Plan, self._c.request("GET", "/v1/plans/" + _q(id), **options))

    def update(self, id: str, remind_days_before: Optional[int] = None, auto_replan: Optional[bool] = None,
               **options: Unpack[CallOptions]) -> Plan:
        """Changes a plan's settings; those left None stay as they are."""
        body: Dict[str, Any] = {}
        if remind_days_before is not None:
            body["remind_days_before"] = remind_days_before
        if auto_replan is not None:
            body["auto_replan"] = auto_replan
        return cast(Plan, self._c.request("PATCH", "/v1/plans/" + _q(id), body, **options))

    def delete(self, id: str, **options: Unpack[CallOptions]) -> None:
        """Stops tracking a plan: no more reminders, and its feed URL stops working."""
        self._c.request("DELETE", "/v1/plans/" + _q(id), **options)

    def complete_milestone(self, id: str, key: str, **options: Unpack[CallOptions]) -> Plan:
        """Marks a milestone done; returns the plan."""
        return cast(Plan, self._c.request("POST", f"/v1/plans/{_q(id)}/milestones/{_q(key)}:complete", {}, **options))

    def skip_milestone(self, id: str, key: str, **options: Unpack[CallOptions]) -> Plan:
        """Marks a milestone skipped: not done, and no longer reminded."""
        return cast(Plan, self._c.request("POST", f"/v1/plans/{_q(id)}/milestones/{_q(key)}:skip", {}, **options))

    def reopen_milestone(self, id: str, key: str, **options: Unpack[CallOptions]) -> Plan:
        """Returns a done or skipped milestone to pending."""
        return cast(Plan, self._c.request("POST", f"/v1/plans/{_q(id)}/milestones/{_q(key)}:reopen", {}, **options))

    def replan(self, id: str, context: Optional[Dict[str, Any]] = None, as_of: str = "",
               **options: Unpack[CallOptions]) -> ReplanResult:
        """Runs the workflow again: context holds the fields to change
        (merged over the plan's; None as a value removes a field), as_of
        the date to plan as of (YYYY-MM-DD; default today in the plan's
        time zone). Done and skipped milestones keep their state; the
        answer's "changes" say what moved, appeared, disappeared or was kept."""
        body: Dict[str, Any] = {}
        if context is not None:
            body["context"] = context
        if as_of:
            body["as_of"] = as_of
        return cast(ReplanResult, self._c.request("POST", f"/v1/plans/{_q(id)}:replan", body, **options))

    def create_feed(self, id: str, **options: Unpack[CallOptions]) -> PlanFeed:
        """Creates the plan's secret calendar feed URL ("url", in this
        answer only) for calendar apps, which cannot send a key; it
        replaces any earlier one."""
        return cast(PlanFeed, self._c.request("POST", f"/v1/plans/{_q(id)}:createFeed", {}, **options))

    def revoke_feed(self, id: str, **options: Unpack[CallOptions]) -> Plan:
        """Revokes the feed URL (it answers 404 afterwards); returns the plan."""
        return cast(Plan, self._c.request("POST", f"/v1/plans/{_q(id)}:revokeFeed", {}, **options))

    def calendar(self, id: str, **options: Unpack[CallOptions]) -> str:
        """The plan's calendar as iCalendar text (RFC 5545: one all-day
        event per milestone), fetched with this client's key."""
        headers = {"Accept": "text/calendar", **(options.pop("headers", None) or {})}
        body = self._c.request("GET", f"/v1/plans/{_q(id)}/calendar.ics", raw=True, headers=headers, **options)
        return cast(bytes, body).decode("utf-8")


__all__ = ["CallOptions", "CreativeOps", "CreativeOpsError", "RateLimitState", "ResponseInfo", "response_info"]
