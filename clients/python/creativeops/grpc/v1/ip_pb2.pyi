from creativeops.grpc.v1 import google_api_httpbody_pb2 as _google_api_httpbody_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Certificate(_message.Message):
    __slots__ = ["certificate_id", "checkpoint", "content_hash", "creator_id", "description", "external_timestamps", "format", "id", "inclusion_proof", "log_index", "log_verifier_key", "organization_id", "record", "timestamp", "title", "token", "tree_size", "tsa_policy_oid", "tsa_root_pem", "type"]
    CERTIFICATE_ID_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_TIMESTAMPS_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INCLUSION_PROOF_FIELD_NUMBER: _ClassVar[int]
    LOG_INDEX_FIELD_NUMBER: _ClassVar[int]
    LOG_VERIFIER_KEY_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TREE_SIZE_FIELD_NUMBER: _ClassVar[int]
    TSA_POLICY_OID_FIELD_NUMBER: _ClassVar[int]
    TSA_ROOT_PEM_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    certificate_id: str
    checkpoint: str
    content_hash: str
    creator_id: str
    description: str
    external_timestamps: _containers.RepeatedCompositeFieldContainer[ExternalTimestamp]
    format: str
    id: str
    inclusion_proof: _containers.RepeatedScalarFieldContainer[bytes]
    log_index: int
    log_verifier_key: str
    organization_id: str
    record: bytes
    timestamp: _timestamp_pb2.Timestamp
    title: str
    token: bytes
    tree_size: int
    tsa_policy_oid: str
    tsa_root_pem: str
    type: str
    def __init__(self, format: _Optional[str] = ..., record: _Optional[bytes] = ..., id: _Optional[str] = ..., organization_id: _Optional[str] = ..., creator_id: _Optional[str] = ..., title: _Optional[str] = ..., type: _Optional[str] = ..., description: _Optional[str] = ..., timestamp: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., certificate_id: _Optional[str] = ..., content_hash: _Optional[str] = ..., token: _Optional[bytes] = ..., log_index: _Optional[int] = ..., tree_size: _Optional[int] = ..., inclusion_proof: _Optional[_Iterable[bytes]] = ..., checkpoint: _Optional[str] = ..., log_verifier_key: _Optional[str] = ..., tsa_root_pem: _Optional[str] = ..., tsa_policy_oid: _Optional[str] = ..., external_timestamps: _Optional[_Iterable[_Union[ExternalTimestamp, _Mapping]]] = ...) -> None: ...

class CertificateUpdated(_message.Message):
    __slots__ = ["certificate_id", "external_timestamps", "id"]
    CERTIFICATE_ID_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_TIMESTAMPS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    certificate_id: str
    external_timestamps: _containers.RepeatedCompositeFieldContainer[ExternalTimestamp]
    id: str
    def __init__(self, id: _Optional[str] = ..., certificate_id: _Optional[str] = ..., external_timestamps: _Optional[_Iterable[_Union[ExternalTimestamp, _Mapping]]] = ...) -> None: ...

class Checkpoint(_message.Message):
    __slots__ = ["checkpoint", "origin", "root_hash", "tree_size"]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    ROOT_HASH_FIELD_NUMBER: _ClassVar[int]
    TREE_SIZE_FIELD_NUMBER: _ClassVar[int]
    checkpoint: str
    origin: str
    root_hash: str
    tree_size: int
    def __init__(self, origin: _Optional[str] = ..., tree_size: _Optional[int] = ..., root_hash: _Optional[str] = ..., checkpoint: _Optional[str] = ...) -> None: ...

class ConsistencyProof(_message.Message):
    __slots__ = ["proof", "to"]
    FROM_FIELD_NUMBER: _ClassVar[int]
    PROOF_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    proof: _containers.RepeatedScalarFieldContainer[bytes]
    to: int
    def __init__(self, to: _Optional[int] = ..., proof: _Optional[_Iterable[bytes]] = ..., **kwargs) -> None: ...

class ExternalTimestamp(_message.Message):
    __slots__ = ["attempts", "authority_url", "error", "gen_time", "status", "token"]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    AUTHORITY_URL_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    GEN_TIME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    attempts: int
    authority_url: str
    error: str
    gen_time: _timestamp_pb2.Timestamp
    status: str
    token: bytes
    def __init__(self, authority_url: _Optional[str] = ..., status: _Optional[str] = ..., token: _Optional[bytes] = ..., gen_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., error: _Optional[str] = ..., attempts: _Optional[int] = ...) -> None: ...

class GetCertificateRequest(_message.Message):
    __slots__ = ["certificate_id"]
    CERTIFICATE_ID_FIELD_NUMBER: _ClassVar[int]
    certificate_id: str
    def __init__(self, certificate_id: _Optional[str] = ...) -> None: ...

class GetCertificateTokenRequest(_message.Message):
    __slots__ = ["certificate_id"]
    CERTIFICATE_ID_FIELD_NUMBER: _ClassVar[int]
    certificate_id: str
    def __init__(self, certificate_id: _Optional[str] = ...) -> None: ...

class GetCheckpointRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetConsistencyProofRequest(_message.Message):
    __slots__ = ["to"]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    to: int
    def __init__(self, to: _Optional[int] = ..., **kwargs) -> None: ...

class GetKeysRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetRecordRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class IPKeys(_message.Message):
    __slots__ = ["log_keys", "tsa_certificate_pem", "tsa_policy_oid", "tsa_root_pem", "witnesses"]
    LOG_KEYS_FIELD_NUMBER: _ClassVar[int]
    TSA_CERTIFICATE_PEM_FIELD_NUMBER: _ClassVar[int]
    TSA_POLICY_OID_FIELD_NUMBER: _ClassVar[int]
    TSA_ROOT_PEM_FIELD_NUMBER: _ClassVar[int]
    WITNESSES_FIELD_NUMBER: _ClassVar[int]
    log_keys: _containers.RepeatedCompositeFieldContainer[LogKey]
    tsa_certificate_pem: str
    tsa_policy_oid: str
    tsa_root_pem: str
    witnesses: _containers.RepeatedCompositeFieldContainer[LogWitness]
    def __init__(self, tsa_root_pem: _Optional[str] = ..., tsa_certificate_pem: _Optional[str] = ..., tsa_policy_oid: _Optional[str] = ..., log_keys: _Optional[_Iterable[_Union[LogKey, _Mapping]]] = ..., witnesses: _Optional[_Iterable[_Union[LogWitness, _Mapping]]] = ...) -> None: ...

class IPRecord(_message.Message):
    __slots__ = ["certificate_id", "content_hash", "creator_id", "description", "id", "log_index", "status", "timestamp", "title", "type"]
    CERTIFICATE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LOG_INDEX_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    certificate_id: str
    content_hash: str
    creator_id: str
    description: str
    id: str
    log_index: int
    status: str
    timestamp: _timestamp_pb2.Timestamp
    title: str
    type: str
    def __init__(self, id: _Optional[str] = ..., creator_id: _Optional[str] = ..., title: _Optional[str] = ..., type: _Optional[str] = ..., content_hash: _Optional[str] = ..., description: _Optional[str] = ..., timestamp: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., certificate_id: _Optional[str] = ..., status: _Optional[str] = ..., log_index: _Optional[int] = ...) -> None: ...

class ListCatalogRequest(_message.Message):
    __slots__ = ["content_hash", "creator_id", "page_size", "page_token", "q", "registered_after", "registered_before", "type"]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    Q_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_AFTER_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    content_hash: str
    creator_id: str
    page_size: int
    page_token: str
    q: str
    registered_after: _timestamp_pb2.Timestamp
    registered_before: _timestamp_pb2.Timestamp
    type: str
    def __init__(self, creator_id: _Optional[str] = ..., type: _Optional[str] = ..., q: _Optional[str] = ..., registered_after: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., registered_before: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., content_hash: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListCatalogResponse(_message.Message):
    __slots__ = ["next_page_token", "records", "total", "total_is_lower_bound"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    TOTAL_IS_LOWER_BOUND_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    records: _containers.RepeatedCompositeFieldContainer[IPRecord]
    total: int
    total_is_lower_bound: bool
    def __init__(self, records: _Optional[_Iterable[_Union[IPRecord, _Mapping]]] = ..., total: _Optional[int] = ..., next_page_token: _Optional[str] = ..., total_is_lower_bound: bool = ...) -> None: ...

class LogKey(_message.Message):
    __slots__ = ["current", "origin", "verifier_key"]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    VERIFIER_KEY_FIELD_NUMBER: _ClassVar[int]
    current: bool
    origin: str
    verifier_key: str
    def __init__(self, origin: _Optional[str] = ..., verifier_key: _Optional[str] = ..., current: bool = ...) -> None: ...

class LogWitness(_message.Message):
    __slots__ = ["cosigned_at", "cosigned_size", "detail", "name", "status", "url", "verifier_key"]
    COSIGNED_AT_FIELD_NUMBER: _ClassVar[int]
    COSIGNED_SIZE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    VERIFIER_KEY_FIELD_NUMBER: _ClassVar[int]
    cosigned_at: _timestamp_pb2.Timestamp
    cosigned_size: int
    detail: str
    name: str
    status: str
    url: str
    verifier_key: str
    def __init__(self, name: _Optional[str] = ..., verifier_key: _Optional[str] = ..., url: _Optional[str] = ..., status: _Optional[str] = ..., detail: _Optional[str] = ..., cosigned_size: _Optional[int] = ..., cosigned_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RegisterWorkRequest(_message.Message):
    __slots__ = ["content_hash", "creator_id", "description", "title", "type"]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    content_hash: str
    creator_id: str
    description: str
    title: str
    type: str
    def __init__(self, creator_id: _Optional[str] = ..., title: _Optional[str] = ..., type: _Optional[str] = ..., content_hash: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...
