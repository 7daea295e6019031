from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CancelJobRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class Closure(_message.Message):
    __slots__ = ["affects", "estimate", "key", "kind", "known_from", "known_to", "name", "source"]
    AFFECTS_FIELD_NUMBER: _ClassVar[int]
    ESTIMATE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    KNOWN_FROM_FIELD_NUMBER: _ClassVar[int]
    KNOWN_TO_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    affects: str
    estimate: str
    key: str
    kind: str
    known_from: int
    known_to: int
    name: str
    source: ClosureSource
    def __init__(self, key: _Optional[str] = ..., name: _Optional[str] = ..., kind: _Optional[str] = ..., affects: _Optional[str] = ..., source: _Optional[_Union[ClosureSource, _Mapping]] = ..., known_from: _Optional[int] = ..., known_to: _Optional[int] = ..., estimate: _Optional[str] = ...) -> None: ...

class ClosureSource(_message.Message):
    __slots__ = ["checked", "title", "url"]
    CHECKED_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    checked: str
    title: str
    url: str
    def __init__(self, title: _Optional[str] = ..., url: _Optional[str] = ..., checked: _Optional[str] = ...) -> None: ...

class Country(_message.Message):
    __slots__ = ["aliases", "code", "name"]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    aliases: _containers.RepeatedScalarFieldContainer[str]
    code: str
    name: str
    def __init__(self, code: _Optional[str] = ..., name: _Optional[str] = ..., aliases: _Optional[_Iterable[str]] = ...) -> None: ...

class GetJobRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetWorkflowRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class Job(_message.Message):
    __slots__ = ["attempts", "completed_at", "context", "created_at", "creator_id", "error", "id", "plan_id", "progress", "result", "started_at", "status", "vertical", "workflow"]
    ASYNC_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    attempts: int
    completed_at: _timestamp_pb2.Timestamp
    context: _struct_pb2.Struct
    created_at: _timestamp_pb2.Timestamp
    creator_id: str
    error: JobError
    id: str
    plan_id: str
    progress: int
    result: _struct_pb2.Struct
    started_at: _timestamp_pb2.Timestamp
    status: str
    vertical: str
    workflow: str
    def __init__(self, id: _Optional[str] = ..., status: _Optional[str] = ..., vertical: _Optional[str] = ..., workflow: _Optional[str] = ..., progress: _Optional[int] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., result: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., error: _Optional[_Union[JobError, _Mapping]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., started_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., completed_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., attempts: _Optional[int] = ..., plan_id: _Optional[str] = ..., creator_id: _Optional[str] = ..., **kwargs) -> None: ...

class JobError(_message.Message):
    __slots__ = ["code", "message", "step"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    step: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., step: _Optional[str] = ...) -> None: ...

class ListCalendarsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListCalendarsResponse(_message.Message):
    __slots__ = ["closures", "countries", "currencies"]
    CLOSURES_FIELD_NUMBER: _ClassVar[int]
    COUNTRIES_FIELD_NUMBER: _ClassVar[int]
    CURRENCIES_FIELD_NUMBER: _ClassVar[int]
    closures: _containers.RepeatedCompositeFieldContainer[Closure]
    countries: _containers.RepeatedCompositeFieldContainer[Country]
    currencies: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, countries: _Optional[_Iterable[_Union[Country, _Mapping]]] = ..., currencies: _Optional[_Iterable[str]] = ..., closures: _Optional[_Iterable[_Union[Closure, _Mapping]]] = ...) -> None: ...

class ListJobsRequest(_message.Message):
    __slots__ = ["page_size", "page_token", "status", "vertical", "view", "workflow"]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    status: str
    vertical: str
    view: str
    workflow: str
    def __init__(self, status: _Optional[str] = ..., vertical: _Optional[str] = ..., workflow: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., view: _Optional[str] = ...) -> None: ...

class ListJobsResponse(_message.Message):
    __slots__ = ["jobs", "next_page_token"]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    jobs: _containers.RepeatedCompositeFieldContainer[Job]
    next_page_token: str
    def __init__(self, jobs: _Optional[_Iterable[_Union[Job, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListVerticalsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListVerticalsResponse(_message.Message):
    __slots__ = ["total", "verticals"]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    VERTICALS_FIELD_NUMBER: _ClassVar[int]
    total: int
    verticals: _containers.RepeatedCompositeFieldContainer[Vertical]
    def __init__(self, verticals: _Optional[_Iterable[_Union[Vertical, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class ListWorkflowsRequest(_message.Message):
    __slots__ = ["vertical"]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    vertical: str
    def __init__(self, vertical: _Optional[str] = ...) -> None: ...

class ListWorkflowsResponse(_message.Message):
    __slots__ = ["total", "workflows"]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    WORKFLOWS_FIELD_NUMBER: _ClassVar[int]
    total: int
    workflows: _containers.RepeatedCompositeFieldContainer[Workflow]
    def __init__(self, workflows: _Optional[_Iterable[_Union[Workflow, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class RunWorkflowRequest(_message.Message):
    __slots__ = ["context", "creator_id", "track", "vertical", "workflow"]
    ASYNC_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    TRACK_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    context: _struct_pb2.Struct
    creator_id: str
    track: bool
    vertical: str
    workflow: str
    def __init__(self, vertical: _Optional[str] = ..., workflow: _Optional[str] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., track: bool = ..., creator_id: _Optional[str] = ..., **kwargs) -> None: ...

class Vertical(_message.Message):
    __slots__ = ["description", "key", "name", "workflow_count"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_COUNT_FIELD_NUMBER: _ClassVar[int]
    description: str
    key: str
    name: str
    workflow_count: int
    def __init__(self, key: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., workflow_count: _Optional[int] = ...) -> None: ...

class Workflow(_message.Message):
    __slots__ = ["description", "example_context", "id", "input_schema", "name", "steps", "vertical"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EXAMPLE_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_FIELD_NUMBER: _ClassVar[int]
    description: str
    example_context: _struct_pb2.Struct
    id: str
    input_schema: _struct_pb2.Struct
    name: str
    steps: _containers.RepeatedScalarFieldContainer[str]
    vertical: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., vertical: _Optional[str] = ..., description: _Optional[str] = ..., input_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., example_context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., steps: _Optional[_Iterable[str]] = ...) -> None: ...
