from creativeops.grpc.v1 import engine_pb2 as _engine_pb2
from creativeops.grpc.v1 import ip_pb2 as _ip_pb2
from creativeops.grpc.v1 import plans_pb2 as _plans_pb2
from creativeops.grpc.v1 import webhooks_pb2 as _webhooks_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateCreatorRequest(_message.Message):
    __slots__ = ["email", "metadata", "name", "vertical"]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    email: str
    metadata: _struct_pb2.Struct
    name: str
    vertical: str
    def __init__(self, name: _Optional[str] = ..., email: _Optional[str] = ..., vertical: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Creator(_message.Message):
    __slots__ = ["created_at", "email", "id", "metadata", "name", "revision", "status", "updated_at", "vertical"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    email: str
    id: str
    metadata: _struct_pb2.Struct
    name: str
    revision: int
    status: str
    updated_at: _timestamp_pb2.Timestamp
    vertical: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., email: _Optional[str] = ..., vertical: _Optional[str] = ..., status: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., revision: _Optional[int] = ...) -> None: ...

class CreatorDeleted(_message.Message):
    __slots__ = ["deleted_at", "id"]
    DELETED_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    deleted_at: _timestamp_pb2.Timestamp
    id: str
    def __init__(self, id: _Optional[str] = ..., deleted_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreatorExport(_message.Message):
    __slots__ = ["certificates", "creator", "events", "exported_at", "jobs", "plans", "records"]
    CERTIFICATES_FIELD_NUMBER: _ClassVar[int]
    CREATOR_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    EXPORTED_AT_FIELD_NUMBER: _ClassVar[int]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    PLANS_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    certificates: _containers.RepeatedCompositeFieldContainer[_ip_pb2.Certificate]
    creator: Creator
    events: _containers.RepeatedCompositeFieldContainer[ExportedEvent]
    exported_at: _timestamp_pb2.Timestamp
    jobs: _containers.RepeatedCompositeFieldContainer[_engine_pb2.Job]
    plans: _containers.RepeatedCompositeFieldContainer[_plans_pb2.Plan]
    records: _containers.RepeatedCompositeFieldContainer[_ip_pb2.IPRecord]
    def __init__(self, exported_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., creator: _Optional[_Union[Creator, _Mapping]] = ..., plans: _Optional[_Iterable[_Union[_plans_pb2.Plan, _Mapping]]] = ..., jobs: _Optional[_Iterable[_Union[_engine_pb2.Job, _Mapping]]] = ..., records: _Optional[_Iterable[_Union[_ip_pb2.IPRecord, _Mapping]]] = ..., certificates: _Optional[_Iterable[_Union[_ip_pb2.Certificate, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[ExportedEvent, _Mapping]]] = ...) -> None: ...

class DeleteCreatorRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ExportCreatorRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ExportedEvent(_message.Message):
    __slots__ = ["created_at", "data", "deliveries", "id", "type"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    data: _struct_pb2.Struct
    deliveries: _containers.RepeatedCompositeFieldContainer[_webhooks_pb2.Delivery]
    id: str
    type: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., deliveries: _Optional[_Iterable[_Union[_webhooks_pb2.Delivery, _Mapping]]] = ...) -> None: ...

class GetCreatorRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ListCreatorsRequest(_message.Message):
    __slots__ = ["created_after", "created_before", "email", "page_size", "page_token", "vertical"]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    email: str
    page_size: int
    page_token: str
    vertical: str
    def __init__(self, vertical: _Optional[str] = ..., email: _Optional[str] = ..., created_after: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListCreatorsResponse(_message.Message):
    __slots__ = ["creators", "next_page_token"]
    CREATORS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    creators: _containers.RepeatedCompositeFieldContainer[Creator]
    next_page_token: str
    def __init__(self, creators: _Optional[_Iterable[_Union[Creator, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class UpdateCreatorRequest(_message.Message):
    __slots__ = ["email", "id", "metadata", "name", "revision", "update_mask", "vertical"]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    email: str
    id: str
    metadata: _struct_pb2.Struct
    name: str
    revision: int
    update_mask: _field_mask_pb2.FieldMask
    vertical: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., email: _Optional[str] = ..., vertical: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., revision: _Optional[int] = ...) -> None: ...
