package server

import (
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/server/edge"
)

func deepArrays(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// A body nested beyond edge.MaxBodyDepth is refused before protojson sees it,
// naming the top-level field; one within it reaches the decoder (and
// edge.CheckText, which bounds JSON values to edge.MaxJSONDepth with the full path).
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
	within := `{"vertical":"music","workflow":"release-strategy","context":{"a":` + deepArrays(edge.MaxBodyDepth-2) + `}}`
	if e := m.decode([]byte(within), &creativeopsv1.RunWorkflowRequest{}); e != nil {
		t.Fatalf("%d levels refused before decoding: %v", edge.MaxBodyDepth, e.GRPCStatus().Message())
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
