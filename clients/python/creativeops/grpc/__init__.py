"""The creativeops RPCs over native gRPC: an optional extra.

    pip install "./clients/python[grpc]"     # adds grpcio and protobuf

    from creativeops.grpc import connect
    from creativeops.grpc.v1 import creators_pb2

    with connect("http://localhost:8080", api_key="co_live_...") as rpc:
        creator = rpc.creators.GetCreator(creators_pb2.GetCreatorRequest(id="cr_01k..."))

The stubs in creativeops.grpc.v1 are generated from proto/creativeops/v1 by
internal/genpygrpc (make python-grpc) and need only grpcio and protobuf.
Failed calls raise grpc.RpcError: .code() is the gRPC status code,
.details() the message, and the x-request-id of the call is in
.initial_metadata().
"""

from __future__ import annotations

import urllib.parse
from typing import Any, Callable, Optional, Sequence, Tuple

import grpc

from .v1 import (
    analytics_pb2_grpc,
    creators_pb2_grpc,
    engine_pb2_grpc,
    ip_pb2_grpc,
    keys_pb2_grpc,
    webhooks_pb2_grpc,
)

__all__ = ["Client", "connect", "open_channel"]


class _Authenticate(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds the API key to every call's metadata."""

    def __init__(self, api_key: str) -> None:
        self._header = ("authorization", "Bearer " + api_key)

    def _with_key(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata = [m for m in (details.metadata or ()) if m[0] != "authorization"]
        metadata.append(self._header)
        return _CallDetails(details.method, details.timeout, metadata, details.credentials,
                            getattr(details, "wait_for_ready", None), getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation: Callable, details: Any, request: Any) -> Any:
        return continuation(self._with_key(details), request)

    def intercept_unary_stream(self, continuation: Callable, details: Any, request: Any) -> Any:
        return continuation(self._with_key(details), request)

    def intercept_stream_unary(self, continuation: Callable, details: Any, requests: Any) -> Any:
        return continuation(self._with_key(details), requests)

    def intercept_stream_stream(self, continuation: Callable, details: Any, requests: Any) -> Any:
        return continuation(self._with_key(details), requests)


class _CallDetails(grpc.ClientCallDetails):
    def __init__(self, method: str, timeout: Optional[float], metadata: Sequence[Tuple[str, str]],
                 credentials: Any, wait_for_ready: Optional[bool], compression: Any) -> None:
        self.method = method
        self.timeout = timeout
        self.metadata = metadata
        self.credentials = credentials
        self.wait_for_ready = wait_for_ready
        self.compression = compression


def open_channel(base_url: str, api_key: str, options: Optional[Sequence[Tuple[str, Any]]] = None) -> grpc.Channel:
    """A channel to the server at base_url (the REST base URL: gRPC is
    served on the same port) that sends api_key with every call.
    http:// opens a cleartext (h2c) channel, https:// a TLS one with the
    system's roots."""
    if not api_key:
        raise ValueError("api_key is required")
    u = urllib.parse.urlsplit(base_url)
    if u.scheme not in ("http", "https") or not u.hostname or u.path.strip("/"):
        raise ValueError("base_url %r: want http://host:port or https://host[:port], without a path" % base_url)
    port = u.port or (443 if u.scheme == "https" else 80)
    host = "[%s]" % u.hostname if ":" in u.hostname else u.hostname
    target = "%s:%d" % (host, port)
    if u.scheme == "https":
        channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(), options=options)
    else:
        channel = grpc.insecure_channel(target, options=options)
    return grpc.intercept_channel(channel, _Authenticate(api_key))


class Client:
    """One stub per service over one authenticated channel. Close it (or
    use it in a with block) when done."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.channel = channel
        self.creators = creators_pb2_grpc.CreatorsServiceStub(channel)
        self.keys = keys_pb2_grpc.KeysServiceStub(channel)
        self.engine = engine_pb2_grpc.EngineServiceStub(channel)
        self.ip = ip_pb2_grpc.IPServiceStub(channel)
        self.webhooks = webhooks_pb2_grpc.WebhooksServiceStub(channel)
        self.analytics = analytics_pb2_grpc.AnalyticsServiceStub(channel)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def connect(base_url: str, api_key: str, options: Optional[Sequence[Tuple[str, Any]]] = None) -> Client:
    """Client(open_channel(base_url, api_key, options))."""
    return Client(open_channel(base_url, api_key, options))
