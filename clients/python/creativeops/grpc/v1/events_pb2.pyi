from creativeops.grpc.v1 import creators_pb2 as _creators_pb2
from creativeops.grpc.v1 import engine_pb2 as _engine_pb2
from creativeops.grpc.v1 import ip_pb2 as _ip_pb2
from creativeops.grpc.v1 import plans_pb2 as _plans_pb2
from creativeops.grpc.v1 import webhooks_pb2 as _webhooks_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EventTypes(_message.Message):
    __slots__ = ["creator_created", "creator_deleted", "creator_updated", "ip_registered", "job_completed", "job_failed", "plan_milestone_due", "plan_milestone_overdue", "plan_replanned", "webhook_test"]
    CREATOR_CREATED_FIELD_NUMBER: _ClassVar[int]
    CREATOR_DELETED_FIELD_NUMBER: _ClassVar[int]
    CREATOR_UPDATED_FIELD_NUMBER: _ClassVar[int]
    IP_REGISTERED_FIELD_NUMBER: _ClassVar[int]
    JOB_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    JOB_FAILED_FIELD_NUMBER: _ClassVar[int]
    PLAN_MILESTONE_DUE_FIELD_NUMBER: _ClassVar[int]
    PLAN_MILESTONE_OVERDUE_FIELD_NUMBER: _ClassVar[int]
    PLAN_REPLANNED_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_TEST_FIELD_NUMBER: _ClassVar[int]
    creator_created: _creators_pb2.Creator
    creator_deleted: _creators_pb2.CreatorDeleted
    creator_updated: _creators_pb2.Creator
    ip_registered: _ip_pb2.IPRecord
    job_completed: _engine_pb2.Job
    job_failed: _engine_pb2.Job
    plan_milestone_due: _plans_pb2.PlanMilestoneReminder
    plan_milestone_overdue: _plans_pb2.PlanMilestoneReminder
    plan_replanned: _plans_pb2.PlanReplanReport
    webhook_test: _webhooks_pb2.Webhook
    def __init__(self, job_completed: _Optional[_Union[_engine_pb2.Job, _Mapping]] = ..., job_failed: _Optional[_Union[_engine_pb2.Job, _Mapping]] = ..., ip_registered: _Optional[_Union[_ip_pb2.IPRecord, _Mapping]] = ..., creator_created: _Optional[_Union[_creators_pb2.Creator, _Mapping]] = ..., webhook_test: _Optional[_Union[_webhooks_pb2.Webhook, _Mapping]] = ..., plan_milestone_due: _Optional[_Union[_plans_pb2.PlanMilestoneReminder, _Mapping]] = ..., plan_milestone_overdue: _Optional[_Union[_plans_pb2.PlanMilestoneReminder, _Mapping]] = ..., plan_replanned: _Optional[_Union[_plans_pb2.PlanReplanReport, _Mapping]] = ..., creator_updated: _Optional[_Union[_creators_pb2.Creator, _Mapping]] = ..., creator_deleted: _Optional[_Union[_creators_pb2.CreatorDeleted, _Mapping]] = ...) -> None: ...
