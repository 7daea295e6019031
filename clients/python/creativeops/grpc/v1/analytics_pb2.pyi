from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EndpointUsage(_message.Message):
    __slots__ = ["errors", "method", "p50_ms", "p95_ms", "p99_ms", "requests", "route"]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    P50_MS_FIELD_NUMBER: _ClassVar[int]
    P95_MS_FIELD_NUMBER: _ClassVar[int]
    P99_MS_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    ROUTE_FIELD_NUMBER: _ClassVar[int]
    errors: int
    method: str
    p50_ms: float
    p95_ms: float
    p99_ms: float
    requests: int
    route: str
    def __init__(self, method: _Optional[str] = ..., route: _Optional[str] = ..., requests: _Optional[int] = ..., errors: _Optional[int] = ..., p50_ms: _Optional[float] = ..., p95_ms: _Optional[float] = ..., p99_ms: _Optional[float] = ...) -> None: ...

class GetUsageRequest(_message.Message):
    __slots__ = ["granularity", "key_id", "to"]
    FROM_FIELD_NUMBER: _ClassVar[int]
    GRANULARITY_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    granularity: str
    key_id: str
    to: _timestamp_pb2.Timestamp
    def __init__(self, to: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., granularity: _Optional[str] = ..., key_id: _Optional[str] = ..., **kwargs) -> None: ...

class JobStats(_message.Message):
    __slots__ = ["avg_duration_ms", "canceled", "completed", "failed", "processing", "queued"]
    AVG_DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    CANCELED_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    PROCESSING_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    avg_duration_ms: float
    canceled: int
    completed: int
    failed: int
    processing: int
    queued: int
    def __init__(self, queued: _Optional[int] = ..., processing: _Optional[int] = ..., completed: _Optional[int] = ..., failed: _Optional[int] = ..., canceled: _Optional[int] = ..., avg_duration_ms: _Optional[float] = ...) -> None: ...

class UsagePoint(_message.Message):
    __slots__ = ["errors", "p99_ms", "requests", "start"]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    P99_MS_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    errors: int
    p99_ms: float
    requests: int
    start: _timestamp_pb2.Timestamp
    def __init__(self, start: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., requests: _Optional[int] = ..., errors: _Optional[int] = ..., p99_ms: _Optional[float] = ...) -> None: ...

class UsageReport(_message.Message):
    __slots__ = ["endpoints", "granularity", "jobs", "series", "to", "totals"]
    ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    GRANULARITY_FIELD_NUMBER: _ClassVar[int]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    endpoints: _containers.RepeatedCompositeFieldContainer[EndpointUsage]
    granularity: str
    jobs: JobStats
    series: _containers.RepeatedCompositeFieldContainer[UsagePoint]
    to: _timestamp_pb2.Timestamp
    totals: UsageTotals
    def __init__(self, to: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., granularity: _Optional[str] = ..., totals: _Optional[_Union[UsageTotals, _Mapping]] = ..., endpoints: _Optional[_Iterable[_Union[EndpointUsage, _Mapping]]] = ..., series: _Optional[_Iterable[_Union[UsagePoint, _Mapping]]] = ..., jobs: _Optional[_Union[JobStats, _Mapping]] = ..., **kwargs) -> None: ...

class UsageTotals(_message.Message):
    __slots__ = ["error_rate", "errors", "p50_ms", "p95_ms", "p99_ms", "requests"]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    ERROR_RATE_FIELD_NUMBER: _ClassVar[int]
    P50_MS_FIELD_NUMBER: _ClassVar[int]
    P95_MS_FIELD_NUMBER: _ClassVar[int]
    P99_MS_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    error_rate: float
    errors: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    requests: int
    def __init__(self, requests: _Optional[int] = ..., errors: _Optional[int] = ..., error_rate: _Optional[float] = ..., p50_ms: _Optional[float] = ..., p95_ms: _Optional[float] = ..., p99_ms: _Optional[float] = ...) -> None: ...
