"""The client: one object per API key, with a resource per service."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, cast

from ._version import __version__
from .errors import CreativeOpsError, TransportError, from_response
from .types import APIKey, AuditEvent, Creator, Delivery, IPRecord, Job, OAuthClient, Webhook

if TYPE_CHECKING:
    from .grpc import Client as GRPCClient

DEFAULT_BASE_URL = "http://localhost:8080"
RETRY_STATUSES = (429, 503)


class CreativeOps:
    """A client of one creativeops service, acting with one API key.

    >>> co = CreativeOps(api_key="co_live_...", base_url="http://localhost:8080")
    >>> nova = co.creators.create(name="Nova Reyes", email="nova@example.com", vertical="music")

    Requests answered 429 or 503 are retried up to max_retries times,
    waiting as long as Retry-After says (or backing off 0.5 s, 1 s, 2 s,
    ±20%); a Retry-After beyond max_retry_wait seconds raises at once. Every
    POST carries an Idempotency-Key, the same on each retry, so a retried
    POST runs once. Errors raise subclasses of CreativeOpsError.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 30.0,
        user_agent: str = "creativeops-python/" + __version__,
    ) -> None:
        if not api_key:
            raise ValueError("api_key is required")
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.user_agent = user_agent
        self.creators = Creators(self)
        self.keys = Keys(self)
        self.engine = Engine(self)
        self.ip = IP(self)
        self.webhooks = Webhooks(self)
        self.analytics = Analytics(self)
        self.audit = Audit(self)
        self.oauth_clients = OAuthClients(self)

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
    ) -> Any:
        """Sends one API request (with retries) and returns its decoded
        JSON body, None for 204, or the bytes when raw."""
        url = self.base_url + path
        q = {k: v for k, v in (query or {}).items() if v is not None and v != ""}
        if q:
            url += "?" + urllib.parse.urlencode(q, doseq=True)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": "Bearer " + self.api_key, "User-Agent": self.user_agent, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if method == "POST":
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        attempt = 0
        while True:
            req = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    payload = resp.read()
                    if raw:
                        return payload
                    return json.loads(payload) if payload else None
            except urllib.error.HTTPError as e:
                payload = e.read()
                retry_after = _retry_after(e.headers.get("Retry-After"))
                wait = retry_after if retry_after is not None else _backoff(attempt)
                if e.code in RETRY_STATUSES and attempt < self.max_retries and wait <= self.max_retry_wait:
                    attempt += 1
                    time.sleep(wait)
                    continue
                try:
                    decoded = json.loads(payload) if payload else None
                except ValueError:
                    decoded = payload.decode(errors="replace")
                raise from_response(e.code, decoded, e.headers.get("X-Request-Id", ""), retry_after) from None
            except urllib.error.URLError as e:
                raise TransportError(f"{method} {url}: {e.reason}") from e

    def pages(self, path: str, key: str, query: Optional[Mapping[str, Any]] = None, page_size: int = 0) -> Iterator[Any]:
        """Iterates over every item of a list, page after page."""
        params = dict(query or {})
        if page_size:
            params["page_size"] = page_size
        while True:
            page = self.request("GET", path, query=params)
            for item in page.get(key) or []:
                yield item
            token = page.get("next_page_token")
            if not token:
                return
            params["page_token"] = token


def _retry_after(value: Optional[str]) -> Optional[float]:
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        return None


def _backoff(attempt: int) -> float:
    """0.5 s, 1 s, 2 s, ... for attempts 0, 1, 2, with ±20% jitter."""
    return 0.5 * 2 ** attempt * (0.8 + 0.4 * random.random())


def _q(s: str) -> str:
    return urllib.parse.quote(s, safe="")


class _Resource:
    def __init__(self, client: CreativeOps) -> None:
        self._c = client


class Creators(_Resource):
    def create(self, name: str, email: str, vertical: str, metadata: Optional[Dict[str, Any]] = None) -> Creator:
        body: Dict[str, Any] = {"name": name, "email": email, "vertical": vertical}
        if metadata is not None:
            body["metadata"] = metadata
        return cast(Creator, self._c.request("POST", "/v1/creators", body))

    def get(self, id: str) -> Creator:
        return cast(Creator, self._c.request("GET", "/v1/creators/" + _q(id)))

    def list(self, vertical: str = "", page_size: int = 0) -> Iterator[Creator]:
        return self._c.pages("/v1/creators", "creators", {"vertical": vertical}, page_size)


class Keys(_Resource):
    def create(self, name: str, scopes: List[str], expires_at: Optional[str] = None,
               rate_limit: Optional[Dict[str, Any]] = None) -> APIKey:
        body: Dict[str, Any] = {"name": name, "scopes": scopes}
        if expires_at:
            body["expires_at"] = expires_at
        if rate_limit:
            body["rate_limit"] = rate_limit
        return cast(APIKey, self._c.request("POST", "/v1/keys", body))

    def list(self, page_size: int = 0) -> Iterator[APIKey]:
        return self._c.pages("/v1/keys", "keys", page_size=page_size)

    def rotate(self, id: str, grace_period_seconds: Optional[int] = None) -> APIKey:
        body = {} if grace_period_seconds is None else {"grace_period": f"{grace_period_seconds}s"}
        return cast(APIKey, self._c.request("POST", f"/v1/keys/{_q(id)}:rotate", body))

    def revoke(self, id: str) -> None:
        self._c.request("DELETE", "/v1/keys/" + _q(id))


class Engine(_Resource):
    def verticals(self) -> List[Dict[str, Any]]:
        return cast(List[Dict[str, Any]], self._c.request("GET", "/v1/engine/verticals")["verticals"])

    def workflows(self, vertical: str = "") -> List[Dict[str, Any]]:
        return cast(List[Dict[str, Any]], self._c.request("GET", "/v1/engine/workflows", query={"vertical": vertical})["workflows"])

    def workflow(self, id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._c.request("GET", "/v1/engine/workflows/" + _q(id)))

    def run(self, vertical: str, workflow: str, context: Dict[str, Any], async_: bool = False) -> Job:
        """Runs a workflow: returns the completed (or failed) job, or with
        async_=True the queued one (see wait)."""
        body = {"vertical": vertical, "workflow": workflow, "context": context, "async": async_}
        return cast(Job, self._c.request("POST", "/v1/engine/run", body))

    def job(self, id: str) -> Job:
        return cast(Job, self._c.request("GET", "/v1/engine/status/" + _q(id)))

    def jobs(self, status: str = "", vertical: str = "", workflow: str = "", page_size: int = 0) -> Iterator[Job]:
        return self._c.pages("/v1/engine/jobs", "jobs", {"status": status, "vertical": vertical, "workflow": workflow}, page_size)

    def cancel(self, id: str) -> Job:
        return cast(Job, self._c.request("POST", f"/v1/engine/jobs/{_q(id)}:cancel", {}))

    def wait(self, id: str, timeout: float = 120.0, interval: float = 0.2) -> Job:
        """Polls a job until it is completed, failed or canceled."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.job(id)
            if job["status"] in ("completed", "failed", "canceled"):
                return job
            if time.monotonic() >= deadline:
                raise TimeoutError(f"job {id} is still {job['status']} after {timeout} s")
            time.sleep(interval)


class IP(_Resource):
    def register(self, creator_id: str, title: str, type: str, content_hash: str, description: str = "") -> IPRecord:
        body = {"creator_id": creator_id, "title": title, "type": type, "content_hash": content_hash, "description": description}
        return cast(IPRecord, self._c.request("POST", "/v1/ip/register", body))

    def catalog(self, q: str = "", creator_id: str = "", type: str = "", content_hash: str = "", page_size: int = 0) -> Iterator[IPRecord]:
        return self._c.pages("/v1/ip/catalog", "records", {"q": q, "creator_id": creator_id, "type": type, "content_hash": content_hash}, page_size)

    def record(self, id: str) -> IPRecord:
        return cast(IPRecord, self._c.request("GET", "/v1/ip/records/" + _q(id)))

    def certificate(self, certificate_id: str) -> Dict[str, Any]:
        """The certificate bundle: save it as JSON and check it offline with
        `creativeops verify --bundle FILE`."""
        return cast(Dict[str, Any], self._c.request("GET", "/v1/ip/certificates/" + _q(certificate_id)))

    def certificate_token(self, certificate_id: str) -> bytes:
        """The RFC 3161 timestamp token (DER), for openssl ts -verify."""
        return cast(bytes, self._c.request("GET", f"/v1/ip/certificates/{_q(certificate_id)}/token", raw=True))

    def checkpoint(self) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._c.request("GET", "/v1/ip/log/checkpoint"))

    def keys(self) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._c.request("GET", "/v1/ip/keys"))


class Webhooks(_Resource):
    def create(self, url: str, events: List[str], secret: str = "") -> Webhook:
        """Creates a webhook; the generated secret is in the answer, once."""
        body: Dict[str, Any] = {"url": url, "events": events}
        if secret:
            body["secret"] = secret
        return cast(Webhook, self._c.request("POST", "/v1/webhooks", body))

    def list(self, page_size: int = 0) -> Iterator[Webhook]:
        return self._c.pages("/v1/webhooks", "webhooks", page_size=page_size)

    def get(self, id: str) -> Webhook:
        return cast(Webhook, self._c.request("GET", "/v1/webhooks/" + _q(id)))

    def delete(self, id: str) -> None:
        self._c.request("DELETE", "/v1/webhooks/" + _q(id))

    def test(self, id: str) -> Delivery:
        return cast(Delivery, self._c.request("POST", f"/v1/webhooks/{_q(id)}:test", {}))

    def deliveries(self, id: str, page_size: int = 0) -> Iterator[Delivery]:
        return self._c.pages(f"/v1/webhooks/{_q(id)}/deliveries", "deliveries", page_size=page_size)

    def redeliver(self, id: str, delivery_id: str) -> Delivery:
        return cast(Delivery, self._c.request("POST", f"/v1/webhooks/{_q(id)}/deliveries/{_q(delivery_id)}:redeliver", {}))


class Analytics(_Resource):
    def usage(self, from_: str = "", to: str = "", granularity: str = "", key_id: str = "") -> Dict[str, Any]:
        """Requests, errors and latency per route over time (RFC 3339 times)."""
        return cast(Dict[str, Any], self._c.request(
            "GET", "/v1/analytics/usage", query={"from": from_, "to": to, "granularity": granularity, "key_id": key_id}))


class Audit(_Resource):
    def list(self, action: str = "", actor: str = "", target_id: str = "", from_: str = "", to: str = "",
             page_size: int = 0) -> Iterator[AuditEvent]:
        """The organization's audit events (keys:admin), newest first, every
        page; filters are optional (RFC 3339 times, from_ inclusive)."""
        return self._c.pages("/v1/audit-events", "audit_events", {
            "action": action, "actor": actor, "target_id": target_id, "from": from_, "to": to}, page_size)


class OAuthClients(_Resource):
    """OAuth 2.0 clients (keys:admin): machine credentials that trade their
    secret, or a private_key_jwt assertion, for short-lived access tokens at
    POST /oauth/token (client credentials grant)."""

    def create(self, name: str, scopes: List[str], token_lifetime_seconds: Optional[int] = None,
               jwks: Optional[Dict[str, Any]] = None, jwks_uri: str = "") -> OAuthClient:
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
        return cast(OAuthClient, self._c.request("POST", "/v1/oauth/clients", body))

    def list(self, page_size: int = 0) -> Iterator[OAuthClient]:
        """The organization's clients (never their secrets), every page."""
        return self._c.pages("/v1/oauth/clients", "clients", page_size=page_size)

    def get(self, id: str) -> OAuthClient:
        return cast(OAuthClient, self._c.request("GET", "/v1/oauth/clients/" + _q(id)))

    def rotate(self, id: str, grace_period_seconds: Optional[int] = None) -> OAuthClient:
        """Issues a new secret; the old one keeps working for
        grace_period_seconds (default 24 h, at most 30 days; 0 ends it now)."""
        body = {} if grace_period_seconds is None else {"grace_period": f"{grace_period_seconds}s"}
        return cast(OAuthClient, self._c.request("POST", f"/v1/oauth/clients/{_q(id)}:rotate", body))

    def delete(self, id: str) -> None:
        """Revokes a client: its secrets stop working at once, its access
        tokens within a second."""
        self._c.request("DELETE", "/v1/oauth/clients/" + _q(id))


__all__ = ["CreativeOps", "CreativeOpsError"]
