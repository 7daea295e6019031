from creativeops.grpc.v1 import creators_pb2 as _creators_pb2
from creativeops.grpc.v1 import engine_pb2 as _engine_pb2
from creativeops.grpc.v1 import ip_pb2 as _ip_pb2
from creativeops.grpc.v1 import plans_pb2 as _plans_pb2
from creativeops.grpc.v1 import webhooks_pb2 as _webhooks_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Event(_message.Message):
    __slots__ = ["data", "id", "object_id", "sequence", "timestamp", "type"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    data: _struct_pb2.Struct
    id: str
    object_id: str
    sequence: int
    timestamp: _timestamp_pb2.Timestamp
    type: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., timestamp: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., object_id: _Optional[str] = ..., sequence: _Optional[int] = ...) -> None: ...

class EventTypes(_message.Message):
    __slots__ = ["creator_created", "creator_deleted", "creator_updated", "ip_certificate_updated", "ip_registered", "job_completed", "job_failed", "plan_milestone_due", "plan_milestone_overdue", "plan_replanned", "webhook_disabled", "webhook_test"]
    CREATOR_CREATED_FIELD_NUMBER: _ClassVar[int]
    CREATOR_DELETED_FIELD_NUMBER: _ClassVar[int]
    CREATOR_UPDATED_FIELD_NUMBER: _ClassVar[int]
    IP_CERTIFICATE_UPDATED_FIELD_NUMBER: _ClassVar[int]
    IP_REGISTERED_FIELD_NUMBER: _ClassVar[int]
    JOB_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    JOB_FAILED_FIELD_NUMBER: _ClassVar[int]
    PLAN_MILESTONE_DUE_FIELD_NUMBER: _ClassVar[int]
    PLAN_MILESTONE_OVERDUE_FIELD_NUMBER: _ClassVar[int]
    PLAN_REPLANNED_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_DISABLED_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_TEST_FIELD_NUMBER: _ClassVar[int]
    creator_created: _creators_pb2.Creator
    creator_deleted: _creators_pb2.CreatorDeleted
    creator_updated: _creators_pb2.Creator
    ip_certificate_updated: _ip_pb2.CertificateUpdated
    ip_registered: _ip_pb2.IPRecord
    job_completed: _engine_pb2.Job
    job_failed: _engine_pb2.Job
    plan_milestone_due: _plans_pb2.PlanMilestoneReminder
    plan_milestone_overdue: _plans_pb2.PlanMilestoneReminder
    plan_replanned: _plans_pb2.PlanReplanReport
    webhook_disabled: _webhooks_pb2.Webhook
    webhook_test: _webhooks_pb2.Webhook
    def __init__(self, job_completed: _Optional[_Union[_engine_pb2.Job, _Mapping]] = ..., job_failed: _Optional[_Union[_engine_pb2.Job, _Mapping]] = ..., ip_registered: _Optional[_Union[_ip_pb2.IPRecord, _Mapping]] = ..., creator_created: _Optional[_Union[_creators_pb2.Creator, _Mapping]] = ..., webhook_test: _Optional[_Union[_webhooks_pb2.Webhook, _Mapping]] = ..., webhook_disabled: _Optional[_Union[_webhooks_pb2.Webhook, _Mapping]] = ..., plan_milestone_due: _Optional[_Union[_plans_pb2.PlanMilestoneReminder, _Mapping]] = ..., plan_milestone_overdue: _Optional[_Union[_plans_pb2.PlanMilestoneReminder, _Mapping]] = ..., plan_replanned: _Optional[_Union[_plans_pb2.PlanReplanReport, _Mapping]] = ..., creator_updated: _Optional[_Union[_creators_pb2.Creator, _Mapping]] = ..., creator_deleted: _Optional[_Union[_creators_pb2.CreatorDeleted, _Mapping]] = ..., ip_certificate_updated: _Optional[_Union[_ip_pb2.CertificateUpdated, _Mapping]] = ...) -> None: ...

class GetEventRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ListEventsRequest(_message.Message):
    __slots__ = ["after", "created_after", "created_before", "object_id", "page_size", "page_token", "type"]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    after: str
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    object_id: str
    page_size: int
    page_token: str
    type: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., type: _Optional[_Iterable[str]] = ..., created_after: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., object_id: _Optional[str] = ..., after: _Optional[str] = ...) -> None: ...

class ListEventsResponse(_message.Message):
    __slots__ = ["events", "next_page_token"]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    next_page_token: str
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
