package edge_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server/edge"
)

// Text the database cannot store (NUL bytes: PostgreSQL refuses them,
// SQLite kept them) is a 400 naming the field, on every backend, in bodies,
// path parameters and query parameters alike.
func TestNULIsRejectedAtTheEdge(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"})
			creator := r.JSON["id"].(string)
			cases := []struct {
				name, method, path string
				body               any
				field              string
			}{
				{"creator name", "POST", "/v1/creators", map[string]any{"name": "No\x00va", "email": "n2@example.com", "vertical": "music"}, "name"},
				{"metadata value", "POST", "/v1/creators", map[string]any{"name": "N", "email": "n3@example.com", "vertical": "music", "metadata": map[string]any{"label": map[string]any{"x": []any{"ok", "bad\x00"}}}}, "metadata.label.x[1]"},
				{"metadata key", "POST", "/v1/creators", map[string]any{"name": "N", "email": "n4@example.com", "vertical": "music", "metadata": map[string]any{"a\x00": 1}}, "metadata"},
				{"title", "POST", "/v1/ip/register", map[string]any{"creator_id": creator, "title": "The\x00Night", "type": "book", "content_hash": strings.Repeat("ab", 32)}, "title"},
				{"webhook url", "POST", "/v1/webhooks", map[string]any{"url": "https://example.com/\x00", "events": []string{"*"}}, "url"},
				{"key name", "POST", "/v1/keys", map[string]any{"name": "ci\x00", "scopes": []string{"ip:read"}}, "name"},
				{"query parameter", "GET", "/v1/creators?vertical=mu%00sic", nil, "vertical"},
				{"page token", "GET", "/v1/creators?page_token=%00", nil, "page_token"},
				{"path parameter", "GET", "/v1/creators/cr_%00", nil, "id"},
				{"catalog query", "GET", "/v1/ip/catalog?content_hash=%00", nil, "content_hash"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					r := s.Do(t, c.method, c.path, s.AdminKey, c.body)
					if r.Status != http.StatusBadRequest || !slices.Contains(r.ViolatedFields(), c.field) {
						t.Fatalf("%d %v %s", r.Status, r.ViolatedFields(), r.Body)
					}
					if !strings.Contains(string(r.Body), "NUL") {
						t.Errorf("the error does not say why: %s", r.Body)
					}
				})
			}
			// Nothing was stored.
			if r := s.Do(t, "GET", "/v1/creators", s.AdminKey, nil); len(r.JSON["creators"].([]any)) != 1 {
				t.Fatalf("creators stored: %s", r.Body)
			}
			// Over gRPC, the same.
			ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+s.AdminKey)
			_, err := creativeopsv1.NewCreatorsServiceClient(s.Conn(t)).CreateCreator(ctx, &creativeopsv1.CreateCreatorRequest{Name: "x\x00", Email: "g@example.com", Vertical: "music"})
			if fields := violatedFields(err); status.Code(err) != codes.InvalidArgument || !slices.Contains(fields, "name") {
				t.Fatalf("gRPC: %v %v", err, fields)
			}
		})
	}
}

func violatedFields(err error) []string {
	var out []string
	for _, d := range status.Convert(err).Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				out = append(out, v.GetField())
			}
		}
	}
	return out
}

// rawCodec sends pre-encoded bytes, which lets a test send what a proto
// library would refuse to encode.
type rawCodec struct{ encoding.CodecV2 }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

// A string that is not UTF-8 sent over native gRPC is the client's error,
// InvalidArgument naming the field, not Internal.
func TestInvalidUTF8OverGRPCIsInvalidArgument(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+s.AdminKey)
	var req []byte
	req = protowire.AppendTag(req, 1, protowire.BytesType)
	req = protowire.AppendString(req, "No\xffva")
	req = protowire.AppendTag(req, 2, protowire.BytesType)
	req = protowire.AppendString(req, "nova@example.com")
	codec := rawCodec{encoding.GetCodecV2("proto")}
	err := s.Conn(t).Invoke(ctx, "/creativeops.v1.CreatorsService/CreateCreator", req, &creativeopsv1.Creator{}, grpc.ForceCodecV2(codec))
	if status.Code(err) != codes.InvalidArgument || !slices.Contains(violatedFields(err), "name") {
		t.Fatalf("invalid UTF-8: %v %v", err, violatedFields(err))
	}
	// A message that is not protobuf at all.
	err = s.Conn(t).Invoke(ctx, "/creativeops.v1.CreatorsService/CreateCreator", []byte{0xff, 0xff, 0xff}, &creativeopsv1.Creator{}, grpc.ForceCodecV2(codec))
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("garbage: %v", err)
	}
	// Decoding failures do not leak into later calls.
	if _, err := creativeopsv1.NewCreatorsServiceClient(s.Conn(t)).ListCreators(ctx, &creativeopsv1.ListCreatorsRequest{}); err != nil {
		t.Fatal(err)
	}
}

func nested(depth int) any {
	var v any = "leaf"
	for i := range depth {
		if i%2 == 0 {
			v = []any{v}
		} else {
			v = map[string]any{"k": v}
		}
	}
	return v
}

// JSON nested beyond edge.MaxJSONDepth is refused; what is accepted can be
// read back over gRPC (a deeply nested document used to be stored and then
// break every gRPC read of the organization's creators).
func TestMetadataNestingIsBounded(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	// metadata is itself one level.
	ok := map[string]any{"name": "N", "email": "ok@example.com", "vertical": "music", "metadata": map[string]any{"d": nested(edge.MaxJSONDepth - 1)}}
	if r := s.Do(t, "POST", "/v1/creators", s.AdminKey, ok); r.Status != http.StatusCreated {
		t.Fatalf("%d levels: %d %s", edge.MaxJSONDepth, r.Status, r.Body)
	}
	tooDeep := map[string]any{"name": "N", "email": "deep@example.com", "vertical": "music", "metadata": map[string]any{"d": nested(edge.MaxJSONDepth)}}
	r := s.Do(t, "POST", "/v1/creators", s.AdminKey, tooDeep)
	if r.Status != http.StatusBadRequest || len(r.ViolatedFields()) != 1 || !strings.HasPrefix(r.ViolatedFields()[0], "metadata.d") {
		t.Fatalf("%d levels: %d %v %s", edge.MaxJSONDepth+1, r.Status, r.ViolatedFields(), r.Body)
	}
	// The engine's context is JSON too. Nesting this deep is refused
	// before the body is decoded, naming the top-level field.
	run := map[string]any{"vertical": "music", "workflow": "release-strategy", "context": map[string]any{"artist": nested(4000)}}
	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, run); r.Status != http.StatusBadRequest || !slices.Equal(r.ViolatedFields(), []string{"context"}) {
		t.Fatalf("deep context: %d %v %s", r.Status, r.ViolatedFields(), r.Body)
	}
	// Over gRPC as well.
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+s.AdminKey)
	client := creativeopsv1.NewCreatorsServiceClient(s.Conn(t))
	deep, err := structpb.NewStruct(map[string]any{"d": nested(200)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.CreateCreator(ctx, &creativeopsv1.CreateCreatorRequest{Name: "N", Email: "g@example.com", Vertical: "music", Metadata: deep})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("gRPC deep metadata: %v", err)
	}
	list, err := client.ListCreators(ctx, &creativeopsv1.ListCreatorsRequest{})
	if err != nil || len(list.GetCreators()) != 1 {
		t.Fatalf("gRPC read: %v", err)
	}
}

// One organization's unstorable registrations, sent alongside another's,
// fail alone with a 400; the other organization's all succeed.
func TestBadRegistrationsDoNotFailOtherOrganizations(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			other := s.NewKey(t, "globex", "*")
			creator := func(key string) string {
				r := s.Do(t, "POST", "/v1/creators", key, map[string]any{"name": "C", "email": "c@example.com", "vertical": "music"})
				return r.JSON["id"].(string)
			}
			mine, theirs := creator(s.AdminKey), creator(other)
			const n = 20
			var wg sync.WaitGroup
			statuses := make([]int, 2*n)
			for i := range n {
				wg.Go(func() {
					r := s.Do(t, "POST", "/v1/ip/register", s.AdminKey, map[string]any{"creator_id": mine, "title": fmt.Sprintf("bad\x00%d", i), "type": "book", "content_hash": fmt.Sprintf("%064x", i)})
					statuses[i] = r.Status
				})
				wg.Go(func() {
					r := s.Do(t, "POST", "/v1/ip/register", other, map[string]any{"creator_id": theirs, "title": fmt.Sprintf("good %d", i), "type": "book", "content_hash": fmt.Sprintf("%064x", i)})
					statuses[n+i] = r.Status
				})
			}
			wg.Wait()
			for i, st := range statuses {
				if want := map[bool]int{true: http.StatusBadRequest, false: http.StatusCreated}[i < n]; st != want {
					t.Fatalf("registration %d: %d, want %d", i, st, want)
				}
			}
		})
	}
}

// Invalid UTF-8 over REST, in a body or a query parameter, is a 400 too.
func TestInvalidUTF8OverRESTIsRejected(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "POST", "/v1/creators", s.AdminKey, []byte("{\"name\":\"No\xffva\",\"email\":\"n@example.com\",\"vertical\":\"music\"}"))
	if r.Status != http.StatusBadRequest {
		t.Fatalf("body: %d %s", r.Status, r.Body)
	}
	r = s.Do(t, "GET", "/v1/creators?vertical=%FF", s.AdminKey, nil)
	if r.Status != http.StatusBadRequest || !slices.Contains(r.ViolatedFields(), "vertical") || !strings.Contains(string(r.Body), "UTF-8") {
		t.Fatalf("query: %d %s", r.Status, r.Body)
	}
}
