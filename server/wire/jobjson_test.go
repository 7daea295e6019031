package wire

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/creativeops/creativeops/engine"
	_ "github.com/creativeops/creativeops/engine/workflows" // registers every workflow
	"github.com/creativeops/creativeops/jobs"
)

// A job's event data written directly is the JSON value protojson writes
// of Job(j): for every workflow's result on its example context, for a
// failed, a queued and a canceled job, and with timestamps of each
// precision.
func TestJobEventDataIsProtojson(t *testing.T) {
	created := time.Date(2026, 11, 27, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	var cases []*jobs.Job
	for _, w := range engine.Workflows("") {
		if w.ExampleContext == nil {
			continue
		}
		in, err := w.Prepare(w.ExampleContext)
		if err != nil {
			t.Fatalf("%s: %v", w.ID, err)
		}
		result, err := w.Run(t.Context(), in, created, nil)
		if err != nil {
			t.Fatalf("%s: %v", w.ID, err)
		}
		started, done := created.Add(1234567*time.Nanosecond), created.Add(1500*time.Millisecond)
		cases = append(cases, &jobs.Job{ID: "job_1", Status: jobs.Completed, Vertical: w.Vertical, Workflow: w.ID,
			Context: asDecoded(t, w.ExampleContext), Result: result, Progress: 100, Attempts: 1,
			CreatedAt: created, StartedAt: &started, CompletedAt: &done})
	}
	if len(cases) < len(engine.Verticals()) {
		t.Fatalf("%d workflows with examples, fewer than the %d verticals", len(cases), len(engine.Verticals()))
	}
	at := created.Add(123 * time.Microsecond)
	cases = append(cases,
		&jobs.Job{ID: "job_2", Status: jobs.Failed, Vertical: "music", Workflow: "release-strategy", Context: map[string]any{"title": "<b>&</b> \u2028 é"},
			ErrorCode: "STEP_FAILED", ErrorMessage: "no \"date\"", ErrorStep: "plan", Attempts: 3, CreatedAt: at, CompletedAt: &at},
		&jobs.Job{ID: "job_3", Status: jobs.Queued, Async: true, CreatedAt: created.Add(7)},
		&jobs.Job{ID: "job_4", Status: jobs.Canceled, Context: map[string]any{"n": 1e21, "m": 1e-7, "z": -0.0, "l": []any{nil, true, "x", 3.5}}, CreatedAt: created},
	)
	for _, j := range cases {
		want, err := JSON.Marshal(Job(j))
		if err != nil {
			t.Fatal(err)
		}
		event, ok := jobEventData(j)
		if !ok {
			t.Fatalf("%s: event data not written directly", j.Workflow)
		}
		sameJSON(t, j.ID+" "+j.Workflow+" event", event, want)
		// The REST answer, from the message.
		answer, ok := JobJSON(Job(j))
		if !ok {
			t.Fatalf("%s: answer not written directly", j.Workflow)
		}
		sameJSON(t, j.ID+" "+j.Workflow+" answer", answer, want)
	}
	// A message without a context says null, as protojson does.
	p := Job(cases[len(cases)-1])
	p.Context = nil
	want, err := JSON.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	answer, ok := JobJSON(p)
	if !ok {
		t.Fatal("a job without context: not written directly")
	}
	sameJSON(t, "no context", answer, want)
}

func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %s: %v", what, got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// asDecoded is m as a job holds it: a request's context decoded from JSON.
func asDecoded(t testing.TB, m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// What the direct path cannot write as protojson would is left to
// protojson.
func TestJobEventDataDeclines(t *testing.T) {
	for name, ctx := range map[string]map[string]any{
		"an int":        {"n": 3},
		"NaN":           {"n": math.NaN()},
		"invalid UTF-8": {"s": "a\xffb"},
		"a bad key":     {"\xff": "x"},
		"deep":          {"a": []any{map[string]any{"b": int64(1)}}},
	} {
		if _, ok := jobEventData(&jobs.Job{ID: "job_1", Context: ctx}); ok {
			t.Errorf("%s: written directly", name)
		}
	}
	if _, ok := jobEventData(&jobs.Job{ID: "job_\xff"}); ok {
		t.Error("an invalid UTF-8 id: written directly")
	}
	p := Job(&jobs.Job{ID: "job_1", CreatedAt: time.Now()})
	p.Result = &structpb.Struct{Fields: map[string]*structpb.Value{"n": structpb.NewNumberValue(math.Inf(1))}}
	if _, ok := JobJSON(p); ok {
		t.Error("an infinite number: written directly")
	}
	p = Job(&jobs.Job{ID: "job_1", CreatedAt: time.Now()})
	p.CreatedAt.Seconds = -1 << 40
	if _, ok := JobJSON(p); ok {
		t.Error("a timestamp before year 1: written directly")
	}
}

func BenchmarkJobEventData(b *testing.B) {
	w := engine.Workflows("music")[0]
	in, err := w.Prepare(w.ExampleContext)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	result, err := w.Run(b.Context(), in, now, nil)
	if err != nil {
		b.Fatal(err)
	}
	j := &jobs.Job{ID: "job_1", Status: jobs.Completed, Vertical: w.Vertical, Workflow: w.ID, Context: asDecoded(b, w.ExampleContext), Result: result,
		Progress: 100, Attempts: 1, CreatedAt: now, StartedAt: &now, CompletedAt: &now}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := EventData(j); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protojson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := JSON.Marshal(Job(j)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
