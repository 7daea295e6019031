from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateOAuthClientRequest(_message.Message):
    __slots__ = ["jwks", "jwks_uri", "name", "scopes", "token_lifetime"]
    JWKS_FIELD_NUMBER: _ClassVar[int]
    JWKS_URI_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    TOKEN_LIFETIME_FIELD_NUMBER: _ClassVar[int]
    jwks: _struct_pb2.Struct
    jwks_uri: str
    name: str
    scopes: _containers.RepeatedScalarFieldContainer[str]
    token_lifetime: _duration_pb2.Duration
    def __init__(self, name: _Optional[str] = ..., scopes: _Optional[_Iterable[str]] = ..., token_lifetime: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., jwks: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., jwks_uri: _Optional[str] = ...) -> None: ...

class DeleteOAuthClientRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetOAuthClientRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ListOAuthClientsRequest(_message.Message):
    __slots__ = ["page_size", "page_token"]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListOAuthClientsResponse(_message.Message):
    __slots__ = ["clients", "next_page_token"]
    CLIENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    clients: _containers.RepeatedCompositeFieldContainer[OAuthClient]
    next_page_token: str
    def __init__(self, clients: _Optional[_Iterable[_Union[OAuthClient, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class OAuthClient(_message.Message):
    __slots__ = ["created_at", "id", "jwks", "jwks_uri", "name", "organization_id", "prefix", "previous_secret_expires_at", "revoked_at", "scopes", "secret", "token_lifetime"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    JWKS_FIELD_NUMBER: _ClassVar[int]
    JWKS_URI_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SECRET_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    REVOKED_AT_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    TOKEN_LIFETIME_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    id: str
    jwks: _struct_pb2.Struct
    jwks_uri: str
    name: str
    organization_id: str
    prefix: str
    previous_secret_expires_at: _timestamp_pb2.Timestamp
    revoked_at: _timestamp_pb2.Timestamp
    scopes: _containers.RepeatedScalarFieldContainer[str]
    secret: str
    token_lifetime: _duration_pb2.Duration
    def __init__(self, id: _Optional[str] = ..., organization_id: _Optional[str] = ..., name: _Optional[str] = ..., scopes: _Optional[_Iterable[str]] = ..., prefix: _Optional[str] = ..., token_lifetime: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., jwks: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., jwks_uri: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., revoked_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., previous_secret_expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class RotateOAuthClientRequest(_message.Message):
    __slots__ = ["grace_period", "id"]
    GRACE_PERIOD_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    grace_period: _duration_pb2.Duration
    id: str
    def __init__(self, id: _Optional[str] = ..., grace_period: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...
