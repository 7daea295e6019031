package server

import (
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
)

func deepArrays(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func TestNestedBeyond(t *testing.T) {
	for _, c := range []struct {
		name, body string
		limit      int
		field      string
		deep       bool
	}{
		{"flat", `{"name":"Nova","metadata":{"a":[1,2]}}`, 3, "", false},
		{"exactly the limit", `{"metadata":{"a":[[1]]}}`, 4, "", false},
		{"one past the limit", `{"name":"x","metadata":{"a":[[[1]]]}}`, 4, "metadata", true},
		{"brackets in strings do not count", `{"name":"[[[[[{{{{{","k":"\"[[[[[["}`, 2, "", false},
		{"escaped quote keeps the string open", `{"a":"\"[[[[","b":1}`, 2, "", false},
		{"key with escapes", `{"x\u0079":` + deepArrays(10) + `}`, 5, "xy", true},
		{"deep top level array", deepArrays(100), 40, "", true},
		{"field after a deep one is not blamed", `{"context":` + deepArrays(50) + `,"other":1}`, 40, "context", true},
	} {
		field, deep := nestedBeyond([]byte(c.body), c.limit)
		if field != c.field || deep != c.deep {
			t.Errorf("%s: got (%q, %v), want (%q, %v)", c.name, field, deep, c.field, c.deep)
		}
	}
}

// A body nested beyond maxBodyDepth is refused before protojson sees it,
// naming the top-level field; one within it reaches the decoder (and
// checkText, which bounds JSON values to MaxJSONDepth with the full path).
func TestDeepBodyRefusedBeforeDecoding(t *testing.T) {
	m := jsonBodies{&runtime.JSONPb{UnmarshalOptions: protojson.UnmarshalOptions{}}}
	deep := `{"vertical":"music","workflow":"release-strategy","context":{"a":` + deepArrays(5000) + `}}`
	e := m.decode([]byte(deep), &creativeopsv1.RunWorkflowRequest{})
	if e == nil {
		t.Fatal("5000 levels accepted")
	}
	st := e.GRPCStatus()
	if !strings.Contains(st.Message(), "context") || !strings.Contains(st.Message(), "nested deeper") {
		t.Fatalf("5000 levels: %v", st.Message())
	}
	within := `{"vertical":"music","workflow":"release-strategy","context":{"a":` + deepArrays(maxBodyDepth-2) + `}}`
	if e := m.decode([]byte(within), &creativeopsv1.RunWorkflowRequest{}); e != nil {
		t.Fatalf("%d levels refused before decoding: %v", maxBodyDepth, e.GRPCStatus().Message())
	}
}

// What refusing a deeply nested body costs: compare with
// BenchmarkDecodeDeepBody, what decoding it cost before it was refused.
func BenchmarkRefuseDeepBody(b *testing.B) {
	m := jsonBodies{&runtime.JSONPb{}}
	body := []byte(`{"name":"Deep","email":"d@example.com","vertical":"music","metadata":{"a":` + deepArrays(5000) + `}}`)
	b.ReportAllocs()
	for b.Loop() {
		if m.decode(body, &creativeopsv1.CreateCreatorRequest{}) == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkDecodeDeepBody(b *testing.B) {
	body := []byte(`{"name":"Deep","email":"d@example.com","vertical":"music","metadata":{"a":` + deepArrays(5000) + `}}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = protojson.Unmarshal(body, &creativeopsv1.CreateCreatorRequest{})
	}
}
