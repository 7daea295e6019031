from creativeops.grpc.v1 import creators_pb2 as _creators_pb2
from creativeops.grpc.v1 import engine_pb2 as _engine_pb2
from creativeops.grpc.v1 import ip_pb2 as _ip_pb2
from creativeops.grpc.v1 import webhooks_pb2 as _webhooks_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EventTypes(_message.Message):
    __slots__ = ["creator_created", "ip_registered", "job_completed", "job_failed", "webhook_test"]
    CREATOR_CREATED_FIELD_NUMBER: _ClassVar[int]
    IP_REGISTERED_FIELD_NUMBER: _ClassVar[int]
    JOB_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    JOB_FAILED_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_TEST_FIELD_NUMBER: _ClassVar[int]
    creator_created: _creators_pb2.Creator
    ip_registered: _ip_pb2.IPRecord
    job_completed: _engine_pb2.Job
    job_failed: _engine_pb2.Job
    webhook_test: _webhooks_pb2.Webhook
    def __init__(self, job_completed: _Optional[_Union[_engine_pb2.Job, _Mapping]] = ..., job_failed: _Optional[_Union[_engine_pb2.Job, _Mapping]] = ..., ip_registered: _Optional[_Union[_ip_pb2.IPRecord, _Mapping]] = ..., creator_created: _Optional[_Union[_creators_pb2.Creator, _Mapping]] = ..., webhook_test: _Optional[_Union[_webhooks_pb2.Webhook, _Mapping]] = ...) -> None: ...
