package server

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/creativeops/creativeops/apierror"
)

// An error detail written directly says what protojson would say of it.
func TestDetailJSONIsProtojson(t *testing.T) {
	details := []protoadapt.MessageV1{
		&errdetails.ErrorInfo{Reason: "RATE_LIMITED", Domain: apierror.Domain, Metadata: map[string]string{"retry_after_seconds": "3", "key_id": "key_1"}},
		&errdetails.ErrorInfo{Reason: "NOT_FOUND"},
		&errdetails.ErrorInfo{Domain: "d", Metadata: map[string]string{"<html>&": "é\u2028\"\\\n", "": ""}},
		&errdetails.ErrorInfo{},
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
			{Field: "context.budget", Description: "must be at most 1e9 <not more>"}, {Field: "name"}, {Description: "only"}}},
		&errdetails.BadRequest{},
		// Not written directly: a field the service never sets, a type it
		// never sends.
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "a", Reason: "R"}}},
		&errdetails.RetryInfo{RetryDelay: durationpb.New(1500_000_000)},
	}
	st, err := status.New(codes.InvalidArgument, "bad").WithDetails(details...)
	if err != nil {
		t.Fatal(err)
	}
	decoded := st.Details()
	for i, a := range st.Proto().GetDetails() {
		got, err := detailJSON(a, decoded[i])
		if err != nil {
			t.Fatalf("detail %d: %v", i, err)
		}
		want, err := protojson.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("detail %d: %s is not JSON: %v", i, got, err)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("detail %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func BenchmarkWriteError(b *testing.B) {
	e := apierror.New(codes.ResourceExhausted, "RATE_LIMITED", "rate limit exceeded: this API key may make 100 requests per second (bursts of 200); retry after 1 s")
	e.Metadata = map[string]string{"retry_after_seconds": "1", "key_id": "key_01m8e9w8e4c6m47j1fex1rtbe9"}
	st := e.GRPCStatus()
	r := httptest.NewRequest("POST", "/v1/creators", nil)
	b.ReportAllocs()
	for b.Loop() {
		writeError(httptest.NewRecorder(), r, st)
	}
}
