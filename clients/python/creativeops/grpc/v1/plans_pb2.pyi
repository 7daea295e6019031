from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CompleteMilestoneRequest(_message.Message):
    __slots__ = ["id", "key"]
    ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    id: str
    key: str
    def __init__(self, id: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class CreatePlanFeedRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class CreatePlanRequest(_message.Message):
    __slots__ = ["auto_replan", "creator_id", "job_id", "remind_days_before"]
    AUTO_REPLAN_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    REMIND_DAYS_BEFORE_FIELD_NUMBER: _ClassVar[int]
    auto_replan: bool
    creator_id: str
    job_id: str
    remind_days_before: int
    def __init__(self, job_id: _Optional[str] = ..., creator_id: _Optional[str] = ..., remind_days_before: _Optional[int] = ..., auto_replan: bool = ...) -> None: ...

class DeletePlanRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetPlanRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ListPlansRequest(_message.Message):
    __slots__ = ["creator_id", "page_size", "page_token", "state", "vertical", "view"]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    creator_id: str
    page_size: int
    page_token: str
    state: str
    vertical: str
    view: str
    def __init__(self, creator_id: _Optional[str] = ..., vertical: _Optional[str] = ..., state: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., view: _Optional[str] = ...) -> None: ...

class ListPlansResponse(_message.Message):
    __slots__ = ["next_page_token", "plans"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLANS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    plans: _containers.RepeatedCompositeFieldContainer[Plan]
    def __init__(self, plans: _Optional[_Iterable[_Union[Plan, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class MilestoneChange(_message.Message):
    __slots__ = ["change", "from_date", "key", "title", "to_date"]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    FROM_DATE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TO_DATE_FIELD_NUMBER: _ClassVar[int]
    change: str
    from_date: str
    key: str
    title: str
    to_date: str
    def __init__(self, key: _Optional[str] = ..., title: _Optional[str] = ..., change: _Optional[str] = ..., from_date: _Optional[str] = ..., to_date: _Optional[str] = ...) -> None: ...

class Plan(_message.Message):
    __slots__ = ["as_of", "auto_replan", "context", "created_at", "creator_id", "feed_active", "id", "job_id", "milestones", "remind_days_before", "result", "revision", "state", "time_zone", "updated_at", "vertical", "workflow"]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    AUTO_REPLAN_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    FEED_ACTIVE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    MILESTONES_FIELD_NUMBER: _ClassVar[int]
    REMIND_DAYS_BEFORE_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    as_of: str
    auto_replan: bool
    context: _struct_pb2.Struct
    created_at: _timestamp_pb2.Timestamp
    creator_id: str
    feed_active: bool
    id: str
    job_id: str
    milestones: _containers.RepeatedCompositeFieldContainer[PlanMilestone]
    remind_days_before: int
    result: _struct_pb2.Struct
    revision: int
    state: str
    time_zone: str
    updated_at: _timestamp_pb2.Timestamp
    vertical: str
    workflow: str
    def __init__(self, id: _Optional[str] = ..., vertical: _Optional[str] = ..., workflow: _Optional[str] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., creator_id: _Optional[str] = ..., revision: _Optional[int] = ..., job_id: _Optional[str] = ..., as_of: _Optional[str] = ..., time_zone: _Optional[str] = ..., state: _Optional[str] = ..., milestones: _Optional[_Iterable[_Union[PlanMilestone, _Mapping]]] = ..., remind_days_before: _Optional[int] = ..., auto_replan: bool = ..., feed_active: bool = ..., result: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlanFeed(_message.Message):
    __slots__ = ["created_at", "url"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    url: str
    def __init__(self, url: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlanMilestone(_message.Message):
    __slots__ = ["date", "deliverable", "done_at", "key", "revision", "state", "title"]
    DATE_FIELD_NUMBER: _ClassVar[int]
    DELIVERABLE_FIELD_NUMBER: _ClassVar[int]
    DONE_AT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    date: str
    deliverable: bool
    done_at: _timestamp_pb2.Timestamp
    key: str
    revision: int
    state: str
    title: str
    def __init__(self, key: _Optional[str] = ..., title: _Optional[str] = ..., date: _Optional[str] = ..., deliverable: bool = ..., state: _Optional[str] = ..., done_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., revision: _Optional[int] = ...) -> None: ...

class PlanMilestoneReminder(_message.Message):
    __slots__ = ["creator_id", "days_until", "milestone", "plan_id", "revision", "vertical", "workflow"]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    DAYS_UNTIL_FIELD_NUMBER: _ClassVar[int]
    MILESTONE_FIELD_NUMBER: _ClassVar[int]
    PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    creator_id: str
    days_until: int
    milestone: PlanMilestone
    plan_id: str
    revision: int
    vertical: str
    workflow: str
    def __init__(self, plan_id: _Optional[str] = ..., revision: _Optional[int] = ..., creator_id: _Optional[str] = ..., vertical: _Optional[str] = ..., workflow: _Optional[str] = ..., milestone: _Optional[_Union[PlanMilestone, _Mapping]] = ..., days_until: _Optional[int] = ...) -> None: ...

class PlanReplanReport(_message.Message):
    __slots__ = ["changes", "plan", "trigger"]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    changes: _containers.RepeatedCompositeFieldContainer[MilestoneChange]
    plan: Plan
    trigger: str
    def __init__(self, plan: _Optional[_Union[Plan, _Mapping]] = ..., changes: _Optional[_Iterable[_Union[MilestoneChange, _Mapping]]] = ..., trigger: _Optional[str] = ...) -> None: ...

class ReopenMilestoneRequest(_message.Message):
    __slots__ = ["id", "key"]
    ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    id: str
    key: str
    def __init__(self, id: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class ReplanPlanRequest(_message.Message):
    __slots__ = ["as_of", "context", "id"]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    as_of: str
    context: _struct_pb2.Struct
    id: str
    def __init__(self, id: _Optional[str] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., as_of: _Optional[str] = ...) -> None: ...

class ReplanPlanResponse(_message.Message):
    __slots__ = ["changes", "plan"]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    changes: _containers.RepeatedCompositeFieldContainer[MilestoneChange]
    plan: Plan
    def __init__(self, plan: _Optional[_Union[Plan, _Mapping]] = ..., changes: _Optional[_Iterable[_Union[MilestoneChange, _Mapping]]] = ...) -> None: ...

class RevokePlanFeedRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class SkipMilestoneRequest(_message.Message):
    __slots__ = ["id", "key"]
    ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    id: str
    key: str
    def __init__(self, id: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class UpdatePlanRequest(_message.Message):
    __slots__ = ["auto_replan", "id", "remind_days_before"]
    AUTO_REPLAN_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    REMIND_DAYS_BEFORE_FIELD_NUMBER: _ClassVar[int]
    auto_replan: bool
    id: str
    remind_days_before: int
    def __init__(self, id: _Optional[str] = ..., remind_days_before: _Optional[int] = ..., auto_replan: bool = ...) -> None: ...
