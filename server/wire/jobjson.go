package wire

import (
	"encoding/json"
	"math"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/jobs"
)

// jobEventData renders a job as JSON.Marshal(Job(j)) does, without the
// detour through protobuf: a run's context and result (JSON objects) were
// converted to structpb and walked by protojson's reflection, about a
// twentieth of the server's CPU in a mix of runs. It reports false when
// the job holds a value the detour would render differently (a number
// that is not a float64, say), and the caller takes the detour. The bytes
// differ from protojson's (which varies its spacing on purpose); the JSON
// value is the same, as TestJobEventDataIsProtojson checks for every
// workflow.
func jobEventData(j *jobs.Job) ([]byte, bool) {
	out := jobJSON{
		ID: j.ID, Status: j.Status, Vertical: j.Vertical, Workflow: j.Workflow,
		Progress: int32(j.Progress), Context: j.Context, Result: j.Result,
		CreatedAt: protoTime(j.CreatedAt), StartedAt: optionalProtoTime(j.StartedAt), CompletedAt: optionalProtoTime(j.CompletedAt),
		Attempts: int32(j.Attempts), Async: j.Async, PlanID: j.PlanID, CreatorID: j.CreatorID,
	}
	if out.Context == nil {
		out.Context = map[string]any{}
	}
	if j.Status == jobs.Failed {
		out.Error = &jobErrorJSON{Code: j.ErrorCode, Message: j.ErrorMessage, Step: j.ErrorStep}
	}
	// A nil map is written as null, as protojson writes an absent Struct;
	// plainJSON takes it as an empty object, which is as plain.
	if !plainJSON(j.Context) || !plainJSON(j.Result) {
		return nil, false
	}
	return out.encode()
}

// JobJSON renders a job message as JSON.Marshal does (the REST API's
// rendering), in the same way and for the same reason as jobEventData:
// the REST gateway answers a run, a poll of a job and a cancellation with
// it. It reports false when it cannot, and the caller uses protojson.
func JobJSON(p *creativeopsv1.Job) ([]byte, bool) {
	out := jobJSON{
		ID: p.GetId(), Status: p.GetStatus(), Vertical: p.GetVertical(), Workflow: p.GetWorkflow(),
		Progress: p.GetProgress(), Attempts: p.GetAttempts(), Async: p.GetAsync(), PlanID: p.GetPlanId(), CreatorID: p.GetCreatorId(),
		StartedAt: protoTimestamp(p.GetStartedAt()), CompletedAt: protoTimestamp(p.GetCompletedAt()),
	}
	if p == nil || p.CreatedAt == nil || p.CreatedAt.CheckValid() != nil || !validTimestamp(p.StartedAt) || !validTimestamp(p.CompletedAt) {
		return nil, false
	}
	out.CreatedAt = protoTime(p.CreatedAt.AsTime())
	var ok bool
	if out.Context, ok = structMap(p.Context); !ok {
		return nil, false
	}
	if out.Result, ok = structMap(p.Result); !ok {
		return nil, false
	}
	if e := p.GetError(); e != nil {
		out.Error = &jobErrorJSON{Code: e.GetCode(), Message: e.GetMessage(), Step: e.GetStep()}
	}
	return out.encode()
}

// structMap is s as plain JSON values (nil for nil), or false when it
// holds what plainJSON refuses: a number JSON cannot write (structpb's
// AsMap would turn it into a string; protojson refuses it), or text that
// is not UTF-8.
func structMap(s *structpb.Struct) (map[string]any, bool) {
	if s == nil {
		return nil, true
	}
	m := make(map[string]any, len(s.GetFields()))
	for k, v := range s.GetFields() {
		pv, ok := plainValue(v)
		if !ok || !utf8.ValidString(k) {
			return nil, false
		}
		m[k] = pv
	}
	return m, true
}

func plainValue(v *structpb.Value) (any, bool) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return nil, true
	case *structpb.Value_NumberValue:
		return k.NumberValue, !math.IsNaN(k.NumberValue) && !math.IsInf(k.NumberValue, 0)
	case *structpb.Value_StringValue:
		return k.StringValue, utf8.ValidString(k.StringValue)
	case *structpb.Value_BoolValue:
		return k.BoolValue, true
	case *structpb.Value_StructValue:
		return structMap(k.StructValue)
	case *structpb.Value_ListValue:
		vals := k.ListValue.GetValues()
		l := make([]any, len(vals))
		for i, e := range vals {
			pe, ok := plainValue(e)
			if !ok {
				return nil, false
			}
			l[i] = pe
		}
		return l, true
	}
	return nil, false // a Value with no kind: protojson refuses it
}

// encode writes o, whose context and result its caller found plain,
// unless a text field is not valid UTF-8 (protojson refuses it).
func (o jobJSON) encode() ([]byte, bool) {
	if !validUTF8(o.ID, o.Status, o.Vertical, o.Workflow, o.PlanID, o.CreatorID) ||
		o.Error != nil && !validUTF8(o.Error.Code, o.Error.Message, o.Error.Step) {
		return nil, false
	}
	b, err := json.Marshal(o)
	return b, err == nil
}

func validUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// jobJSON is creativeopsv1.Job as protojson renders it with JSON's
// options: proto field names, every field present, int32 as numbers.
type jobJSON struct {
	ID          string         `json:"id"`
	Status      string         `json:"status"`
	Vertical    string         `json:"vertical"`
	Workflow    string         `json:"workflow"`
	Progress    int32          `json:"progress"`
	Context     map[string]any `json:"context"`
	Result      map[string]any `json:"result"`
	Error       *jobErrorJSON  `json:"error"`
	CreatedAt   string         `json:"created_at"`
	StartedAt   *string        `json:"started_at"`
	CompletedAt *string        `json:"completed_at"`
	Attempts    int32          `json:"attempts"`
	Async       bool           `json:"async"`
	PlanID      string         `json:"plan_id"`
	CreatorID   string         `json:"creator_id"`
}

type jobErrorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Step    string `json:"step"`
}

// protoTime formats t as protojson does a google.protobuf.Timestamp: UTC,
// and 0, 3, 6 or 9 digits of fractional seconds.
func protoTime(t time.Time) string { return string(appendProtoTime(nil, t)) }

// appendProtoTime appends t as protoTime formats it.
func appendProtoTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	layout := "2006-01-02T15:04:05Z"
	switch ns := t.Nanosecond(); {
	case ns == 0:
	case ns%1e6 == 0:
		layout = "2006-01-02T15:04:05.000Z"
	case ns%1e3 == 0:
		layout = "2006-01-02T15:04:05.000000Z"
	default:
		layout = "2006-01-02T15:04:05.000000000Z"
	}
	return t.AppendFormat(b, layout)
}

// protoTimestamp formats an optional timestamp message (validTimestamp
// first).
func protoTimestamp(ts *timestamppb.Timestamp) *string {
	if ts == nil {
		return nil
	}
	t := ts.AsTime()
	return optionalProtoTime(&t)
}

// validTimestamp reports whether protojson can write ts (absent, or in
// years 1 to 9999).
func validTimestamp(ts *timestamppb.Timestamp) bool { return ts == nil || ts.CheckValid() == nil }

func optionalProtoTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := protoTime(*t)
	return &s
}

// plainJSON reports whether v holds only what decoding JSON gives (nil,
// bool, finite float64, valid UTF-8 strings, []any, map[string]any):
// values that structpb holds as they are and that encoding/json writes as
// protojson does.
func plainJSON(v any) bool {
	switch x := v.(type) {
	case nil, bool:
		return true
	case string:
		return utf8.ValidString(x)
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if !plainJSON(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !plainJSON(e) {
				return false
			}
		}
		return true
	}
	return false
}
