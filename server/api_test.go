package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

// apiCase is one API call with its expected outcome, run over REST and over
// gRPC so both transports are held to the same contract.
type apiCase struct {
	name string
	key  string
	// gRPC form
	method string
	req    proto.Message
	resp   func() proto.Message
	// REST form
	httpMethod, path string
	body             any
	// expectations
	wantHTTP   int
	wantCode   codes.Code
	wantReason string
	wantFields []string
	check      func(t *testing.T, body map[string]any)
}

type env struct {
	*testserver.Server
	readOnly, otherOrg string
	// scopedAdmin manages keys and clients but holds creators:read only.
	scopedAdmin string
	creatorID   string
	// writer holds creators:read and creators:write, not creators:admin.
	writer string
	// Per transport: a creator the update cases change, one the erasure
	// case erases, and its email.
	toUpdate, toErase, erasedEmail map[string]string
}

func newEnv(t *testing.T, b testdb.Backend) *env {
	s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
	e := &env{Server: s, readOnly: s.NewKey(t, "acme", auth.ScopeCreatorsRead), otherOrg: s.NewKey(t, "globex", auth.ScopeAll),
		scopedAdmin: s.NewKey(t, "acme", auth.ScopeKeysAdmin, auth.ScopeCreatorsRead)}
	r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Existing", "email": "existing@example.com", "vertical": "film"})
	if r.Status != http.StatusCreated {
		t.Fatalf("seed creator: %d %s", r.Status, r.Body)
	}
	e.creatorID = r.JSON["id"].(string)
	e.writer = s.NewKey(t, "acme", auth.ScopeCreatorsRead, auth.ScopeCreatorsWrite)
	e.toUpdate, e.toErase, e.erasedEmail = map[string]string{}, map[string]string{}, map[string]string{}
	for _, transport := range []string{"rest", "grpc"} {
		for _, c := range []struct {
			into  map[string]string
			email string
		}{{e.toUpdate, "update-" + transport + "@example.com"}, {e.toErase, "erase-" + transport + "@example.com"}} {
			r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Ada " + transport, "email": c.email, "vertical": "music",
				"metadata": map[string]any{"label": "Night Owl", "tier": "gold"}})
			if r.Status != http.StatusCreated {
				t.Fatalf("seed creator: %d %s", r.Status, r.Body)
			}
			c.into[transport] = r.JSON["id"].(string)
		}
		e.erasedEmail[transport] = "erase-" + transport + "@example.com"
	}
	return e
}

func creatorCases(e *env, transport string) []apiCase {
	newCreator := func() proto.Message { return &creativeopsv1.Creator{} }
	meta, _ := structpb.NewStruct(map[string]any{"label": "Night Owl Records", "followers": 1200.0, "tags": []any{"a", "b"}})
	email := transport + "@example.com"
	return []apiCase{
		{
			name: "create creator", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/CreateCreator", resp: newCreator,
			req:        &creativeopsv1.CreateCreatorRequest{Name: "Nova Reyes", Email: email, Vertical: "music", Metadata: meta},
			httpMethod: "POST", path: "/v1/creators",
			body:     map[string]any{"name": "Nova Reyes", "email": email, "vertical": "music", "metadata": map[string]any{"label": "Night Owl Records", "followers": 1200, "tags": []any{"a", "b"}}},
			wantHTTP: http.StatusCreated,
			check: func(t *testing.T, b map[string]any) {
				if id, _ := b["id"].(string); !strings.HasPrefix(id, "cr_") || len(id) != 3+26 {
					t.Errorf("id %q: want cr_ + 26-char ULID", id)
				}
				if ts, _ := b["created_at"].(string); !strings.HasSuffix(ts, "Z") {
					t.Errorf("created_at %q does not end in Z", ts)
				}
				if b["status"] != "active" || b["name"] != "Nova Reyes" || b["email"] != email || b["vertical"] != "music" {
					t.Errorf("unexpected creator %v", b)
				}
				if m, _ := b["metadata"].(map[string]any); m["label"] != "Night Owl Records" || m["followers"] != 1200.0 {
					t.Errorf("metadata not returned intact: %v", b["metadata"])
				}
			},
		},
		{
			name: "get creator", key: e.readOnly,
			method: "/creativeops.v1.CreatorsService/GetCreator", resp: newCreator,
			req:        &creativeopsv1.GetCreatorRequest{Id: e.creatorID},
			httpMethod: "GET", path: "/v1/creators/" + e.creatorID,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["id"] != e.creatorID || b["email"] != "existing@example.com" || b["vertical"] != "film" {
					t.Errorf("unexpected creator %v", b)
				}
				if _, ok := b["metadata"]; !ok {
					t.Error("metadata key missing from GET")
				}
			},
		},
		{
			name: "list creators", key: e.readOnly,
			method: "/creativeops.v1.CreatorsService/ListCreators", resp: func() proto.Message { return &creativeopsv1.ListCreatorsResponse{} },
			req:        &creativeopsv1.ListCreatorsRequest{Vertical: "film"},
			httpMethod: "GET", path: "/v1/creators?vertical=film",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				list, _ := b["creators"].([]any)
				if len(list) != 1 || list[0].(map[string]any)["id"] != e.creatorID {
					t.Errorf("want the one film creator, got %v", b)
				}
				if tok, ok := b["next_page_token"]; !ok || tok != "" {
					t.Errorf("next_page_token %v, want empty string", tok)
				}
			},
		},
		{
			name: "missing key", key: "",
			method: "/creativeops.v1.CreatorsService/GetCreator", resp: newCreator,
			req:        &creativeopsv1.GetCreatorRequest{Id: e.creatorID},
			httpMethod: "GET", path: "/v1/creators/" + e.creatorID,
			wantHTTP: http.StatusUnauthorized, wantCode: codes.Unauthenticated, wantReason: "UNAUTHENTICATED",
		},
		{
			name: "key with a bad checksum", key: badChecksum(e.AdminKey),
			method: "/creativeops.v1.CreatorsService/GetCreator", resp: newCreator,
			req:        &creativeopsv1.GetCreatorRequest{Id: e.creatorID},
			httpMethod: "GET", path: "/v1/creators/" + e.creatorID,
			wantHTTP: http.StatusUnauthorized, wantCode: codes.Unauthenticated, wantReason: "UNAUTHENTICATED",
		},
		{
			name: "wrong scope", key: e.readOnly,
			method: "/creativeops.v1.CreatorsService/CreateCreator", resp: newCreator,
			req:        &creativeopsv1.CreateCreatorRequest{Name: "X", Email: "scope@example.com", Vertical: "music"},
			httpMethod: "POST", path: "/v1/creators", body: map[string]any{"name": "X", "email": "scope@example.com", "vertical": "music"},
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "MISSING_SCOPE",
		},
		{
			name: "other organization's creator", key: e.otherOrg,
			method: "/creativeops.v1.CreatorsService/GetCreator", resp: newCreator,
			req:        &creativeopsv1.GetCreatorRequest{Id: e.creatorID},
			httpMethod: "GET", path: "/v1/creators/" + e.creatorID,
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "invalid email", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/CreateCreator", resp: newCreator,
			req:        &creativeopsv1.CreateCreatorRequest{Name: "X", Email: "not-an-email", Vertical: "music"},
			httpMethod: "POST", path: "/v1/creators", body: map[string]any{"name": "X", "email": "not-an-email", "vertical": "music"},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"email"},
		},
		{
			name: "empty name", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/CreateCreator", resp: newCreator,
			req:        &creativeopsv1.CreateCreatorRequest{Name: "", Email: "n@example.com", Vertical: "music"},
			httpMethod: "POST", path: "/v1/creators", body: map[string]any{"name": "", "email": "n@example.com", "vertical": "music"},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"name"},
		},
		{
			name: "unknown vertical", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/CreateCreator", resp: newCreator,
			req:        &creativeopsv1.CreateCreatorRequest{Name: "X", Email: "v@example.com", Vertical: "opera-on-ice"},
			httpMethod: "POST", path: "/v1/creators", body: map[string]any{"name": "X", "email": "v@example.com", "vertical": "opera-on-ice"},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantReason: "UNKNOWN_VERTICAL", wantFields: []string{"vertical"},
		},
		{
			name: "duplicate email in another case", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/CreateCreator", resp: newCreator,
			req:        &creativeopsv1.CreateCreatorRequest{Name: "X", Email: "EXISTING@Example.com", Vertical: "music"},
			httpMethod: "POST", path: "/v1/creators", body: map[string]any{"name": "X", "email": "EXISTING@Example.com", "vertical": "music"},
			wantHTTP: http.StatusConflict, wantCode: codes.AlreadyExists, wantReason: "DUPLICATE_EMAIL",
		},
		{
			name: "same email in another organization", key: e.otherOrg,
			method: "/creativeops.v1.CreatorsService/CreateCreator", resp: newCreator,
			req:        &creativeopsv1.CreateCreatorRequest{Name: "X", Email: "existing+" + transport + "@example.com", Vertical: "music"},
			httpMethod: "POST", path: "/v1/creators", body: map[string]any{"name": "X", "email": "existing+" + transport + "@example.com", "vertical": "music"},
			wantHTTP: http.StatusCreated,
		},
		{
			name: "find a creator by email", key: e.readOnly,
			method: "/creativeops.v1.CreatorsService/ListCreators", resp: func() proto.Message { return &creativeopsv1.ListCreatorsResponse{} },
			req:        &creativeopsv1.ListCreatorsRequest{Email: "Existing@EXAMPLE.com"},
			httpMethod: "GET", path: "/v1/creators?email=Existing@EXAMPLE.com",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				list, _ := b["creators"].([]any)
				if len(list) != 1 || list[0].(map[string]any)["id"] != e.creatorID {
					t.Errorf("want the creator with that email, whatever its case: %v", b)
				}
			},
		},
		{
			name: "list creators created in a time range", key: e.readOnly,
			method: "/creativeops.v1.CreatorsService/ListCreators", resp: func() proto.Message { return &creativeopsv1.ListCreatorsResponse{} },
			req: &creativeopsv1.ListCreatorsRequest{Vertical: "film", CreatedAfter: timestamppb.New(time.Now().Add(-time.Hour)),
				CreatedBefore: timestamppb.New(time.Now().Add(time.Hour))},
			httpMethod: "GET", path: "/v1/creators?vertical=film&created_after=" + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339) +
				"&created_before=" + time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				list, _ := b["creators"].([]any)
				if len(list) != 1 || list[0].(map[string]any)["id"] != e.creatorID {
					t.Errorf("want the film creator made within the hour: %v", b)
				}
			},
		},
		{
			name: "list creators created before they were", key: e.readOnly,
			method: "/creativeops.v1.CreatorsService/ListCreators", resp: func() proto.Message { return &creativeopsv1.ListCreatorsResponse{} },
			req:        &creativeopsv1.ListCreatorsRequest{Vertical: "film", CreatedBefore: timestamppb.New(time.Now().Add(-time.Hour))},
			httpMethod: "GET", path: "/v1/creators?vertical=film&created_before=" + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339),
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if list, _ := b["creators"].([]any); len(list) != 0 {
					t.Errorf("want no creator made over an hour ago: %v", b)
				}
			},
		},
		{
			name: "list creators with an empty time range", key: e.readOnly,
			method: "/creativeops.v1.CreatorsService/ListCreators", resp: func() proto.Message { return &creativeopsv1.ListCreatorsResponse{} },
			req: &creativeopsv1.ListCreatorsRequest{CreatedAfter: timestamppb.New(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)),
				CreatedBefore: timestamppb.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
			httpMethod: "GET", path: "/v1/creators?created_after=2026-02-01T00:00:00Z&created_before=2026-01-01T00:00:00Z",
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"created_before"},
		},
		{
			name: "update a creator", key: e.writer,
			method: "/creativeops.v1.CreatorsService/UpdateCreator", resp: newCreator,
			req: &creativeopsv1.UpdateCreatorRequest{Id: e.toUpdate[transport], Email: proto.String("Moved-" + transport + "@example.com"),
				Metadata: mustStruct(map[string]any{"tier": nil, "city": "Lyon"}), Revision: proto.Int32(1)},
			httpMethod: "PATCH", path: "/v1/creators/" + e.toUpdate[transport],
			body:     map[string]any{"email": "Moved-" + transport + "@example.com", "metadata": map[string]any{"tier": nil, "city": "Lyon"}, "revision": 1},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				m, _ := b["metadata"].(map[string]any)
				if b["email"] != "Moved-"+transport+"@example.com" || b["name"] != "Ada "+transport || b["revision"] != 2.0 {
					t.Errorf("want the new email, the name kept and revision 2: %v", b)
				}
				if m["label"] != "Night Owl" || m["city"] != "Lyon" || m["tier"] != nil || len(m) != 2 {
					t.Errorf("metadata not merged (label kept, city added, tier removed): %v", m)
				}
				if b["updated_at"] == b["created_at"] {
					t.Errorf("updated_at did not move: %v", b)
				}
			},
		},
		{
			name: "update a creator from a stale revision", key: e.writer,
			method: "/creativeops.v1.CreatorsService/UpdateCreator", resp: newCreator,
			req:        &creativeopsv1.UpdateCreatorRequest{Id: e.toUpdate[transport], Name: proto.String("Stale"), Revision: proto.Int32(1)},
			httpMethod: "PATCH", path: "/v1/creators/" + e.toUpdate[transport], body: map[string]any{"name": "Stale", "revision": 1},
			wantHTTP: http.StatusConflict, wantCode: codes.Aborted, wantReason: "REVISION_MISMATCH",
		},
		{
			name: "update a creator's name by mask", key: e.writer,
			method: "/creativeops.v1.CreatorsService/UpdateCreator", resp: newCreator,
			req: &creativeopsv1.UpdateCreatorRequest{Id: e.toUpdate[transport], Name: proto.String("Ada Lovelace"), Vertical: proto.String("film"),
				UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"name"}}},
			httpMethod: "PATCH", path: "/v1/creators/" + e.toUpdate[transport], body: map[string]any{"name": "Ada Lovelace", "vertical": "film", "update_mask": "name"},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["name"] != "Ada Lovelace" || b["vertical"] != "music" || b["revision"] != 3.0 {
					t.Errorf("want only the name changed (the vertical is not in the mask), revision 3: %v", b)
				}
			},
		},
		{
			name: "update a creator to another's email", key: e.writer,
			method: "/creativeops.v1.CreatorsService/UpdateCreator", resp: newCreator,
			req:        &creativeopsv1.UpdateCreatorRequest{Id: e.toUpdate[transport], Email: proto.String("EXISTING@example.com")},
			httpMethod: "PATCH", path: "/v1/creators/" + e.toUpdate[transport], body: map[string]any{"email": "EXISTING@example.com"},
			wantHTTP: http.StatusConflict, wantCode: codes.AlreadyExists, wantReason: "DUPLICATE_EMAIL",
		},
		{
			name: "update a creator with an invalid email", key: e.writer,
			method: "/creativeops.v1.CreatorsService/UpdateCreator", resp: newCreator,
			req:        &creativeopsv1.UpdateCreatorRequest{Id: e.toUpdate[transport], Email: proto.String("nobody")},
			httpMethod: "PATCH", path: "/v1/creators/" + e.toUpdate[transport], body: map[string]any{"email": "nobody"},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"email"},
		},
		{
			name: "update a creator with an unknown mask path", key: e.writer,
			method: "/creativeops.v1.CreatorsService/UpdateCreator", resp: newCreator,
			req:        &creativeopsv1.UpdateCreatorRequest{Id: e.toUpdate[transport], UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"status"}}},
			httpMethod: "PATCH", path: "/v1/creators/" + e.toUpdate[transport], body: map[string]any{"update_mask": "status"},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"update_mask"},
		},
		{
			name: "update a creator with nothing to change", key: e.writer,
			method: "/creativeops.v1.CreatorsService/UpdateCreator", resp: newCreator,
			req:        &creativeopsv1.UpdateCreatorRequest{Id: e.toUpdate[transport]},
			httpMethod: "PATCH", path: "/v1/creators/" + e.toUpdate[transport], body: map[string]any{},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"update_mask"},
		},
		{
			name: "update a creator without creators:write", key: e.readOnly,
			method: "/creativeops.v1.CreatorsService/UpdateCreator", resp: newCreator,
			req:        &creativeopsv1.UpdateCreatorRequest{Id: e.toUpdate[transport], Name: proto.String("X")},
			httpMethod: "PATCH", path: "/v1/creators/" + e.toUpdate[transport], body: map[string]any{"name": "X"},
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "MISSING_SCOPE",
		},
		{
			name: "update another organization's creator", key: e.otherOrg,
			method: "/creativeops.v1.CreatorsService/UpdateCreator", resp: newCreator,
			req:        &creativeopsv1.UpdateCreatorRequest{Id: e.toUpdate[transport], Name: proto.String("X")},
			httpMethod: "PATCH", path: "/v1/creators/" + e.toUpdate[transport], body: map[string]any{"name": "X"},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},
		{
			name: "export a creator", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/ExportCreator", resp: func() proto.Message { return &creativeopsv1.CreatorExport{} },
			req:        &creativeopsv1.ExportCreatorRequest{Id: e.toErase[transport]},
			httpMethod: "GET", path: "/v1/creators/" + e.toErase[transport] + ":export",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				c, _ := b["creator"].(map[string]any)
				evs, _ := b["events"].([]any)
				if c["id"] != e.toErase[transport] || c["email"] != e.erasedEmail[transport] || len(evs) != 1 {
					t.Fatalf("want the creator and its creator.created event: %v", b)
				}
				if ev := evs[0].(map[string]any); ev["type"] != "creator.created" || ev["data"].(map[string]any)["email"] != e.erasedEmail[transport] {
					t.Errorf("event: %v", ev)
				}
			},
		},
		{
			name: "export a creator without creators:admin", key: e.writer,
			method: "/creativeops.v1.CreatorsService/ExportCreator", resp: func() proto.Message { return &creativeopsv1.CreatorExport{} },
			req:        &creativeopsv1.ExportCreatorRequest{Id: e.toErase[transport]},
			httpMethod: "GET", path: "/v1/creators/" + e.toErase[transport] + ":export",
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "MISSING_SCOPE",
		},
		{
			name: "erase a creator without creators:admin", key: e.writer,
			method: "/creativeops.v1.CreatorsService/DeleteCreator", resp: func() proto.Message { return &emptypb.Empty{} },
			req:        &creativeopsv1.DeleteCreatorRequest{Id: e.toErase[transport]},
			httpMethod: "DELETE", path: "/v1/creators/" + e.toErase[transport],
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "MISSING_SCOPE",
		},
		{
			name: "erase another organization's creator", key: e.otherOrg,
			method: "/creativeops.v1.CreatorsService/DeleteCreator", resp: func() proto.Message { return &emptypb.Empty{} },
			req:        &creativeopsv1.DeleteCreatorRequest{Id: e.toErase[transport]},
			httpMethod: "DELETE", path: "/v1/creators/" + e.toErase[transport],
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},
		{
			name: "erase a creator", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/DeleteCreator", resp: func() proto.Message { return &emptypb.Empty{} },
			req:        &creativeopsv1.DeleteCreatorRequest{Id: e.toErase[transport]},
			httpMethod: "DELETE", path: "/v1/creators/" + e.toErase[transport],
			wantHTTP: http.StatusNoContent,
		},
		{
			name: "get an erased creator", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/GetCreator", resp: newCreator,
			req:        &creativeopsv1.GetCreatorRequest{Id: e.toErase[transport]},
			httpMethod: "GET", path: "/v1/creators/" + e.toErase[transport],
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},
		{
			name: "erase an erased creator", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/DeleteCreator", resp: func() proto.Message { return &emptypb.Empty{} },
			req:        &creativeopsv1.DeleteCreatorRequest{Id: e.toErase[transport]},
			httpMethod: "DELETE", path: "/v1/creators/" + e.toErase[transport],
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},
		{
			name: "reuse an erased creator's email", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/CreateCreator", resp: newCreator,
			req:        &creativeopsv1.CreateCreatorRequest{Name: "Someone else", Email: e.erasedEmail[transport], Vertical: "music"},
			httpMethod: "POST", path: "/v1/creators", body: map[string]any{"name": "Someone else", "email": e.erasedEmail[transport], "vertical": "music"},
			wantHTTP: http.StatusCreated,
			check: func(t *testing.T, b map[string]any) {
				if b["id"] == e.toErase[transport] {
					t.Errorf("an erased id was given again: %v", b)
				}
			},
		},
		{
			name: "bad page token", key: e.AdminKey,
			method: "/creativeops.v1.CreatorsService/ListCreators", resp: func() proto.Message { return &creativeopsv1.ListCreatorsResponse{} },
			req:        &creativeopsv1.ListCreatorsRequest{PageToken: "garbage!"},
			httpMethod: "GET", path: "/v1/creators?page_token=garbage!",
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"page_token"},
		},
	}
}

func runREST(t *testing.T, e *env, c apiCase) {
	t.Helper()
	r := e.Do(t, c.httpMethod, c.path, c.key, c.body)
	if r.Status != c.wantHTTP {
		t.Fatalf("HTTP %d, want %d: %s", r.Status, c.wantHTTP, r.Body)
	}
	if r.Header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id header")
	}
	if c.wantHTTP >= 400 {
		errBody, _ := r.JSON["error"].(map[string]any)
		if errBody["code"] != float64(c.wantHTTP) || errBody["status"] != strings.ToUpper(snake(c.wantCode.String())) || errBody["request_id"] != r.Header.Get("X-Request-Id") {
			t.Errorf("error body does not follow AIP-193: %s", r.Body)
		}
		if c.wantReason != "" && r.ErrorReason() != c.wantReason {
			t.Errorf("reason %q, want %q", r.ErrorReason(), c.wantReason)
		}
		for _, f := range c.wantFields {
			if !slices.Contains(r.ViolatedFields(), f) {
				t.Errorf("no violation for field %q in %s", f, r.Body)
			}
		}
		if c.wantHTTP == http.StatusUnauthorized && r.Header.Get("WWW-Authenticate") == "" {
			t.Error("401 without WWW-Authenticate")
		}
		return
	}
	checkResponseSchema(t, c.method, r.Status, r.JSON)
	if c.check != nil {
		c.check(t, r.JSON)
	}
}

func runGRPC(t *testing.T, e *env, c apiCase) {
	t.Helper()
	ctx := context.Background()
	if c.key != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.key)
	}
	reply := c.resp()
	var header metadata.MD
	err := e.Conn(t).Invoke(ctx, c.method, c.req, reply, grpc.Header(&header))
	if c.wantHTTP >= 400 {
		st := status.Convert(err)
		if st.Code() != c.wantCode {
			t.Fatalf("code %v, want %v (%v)", st.Code(), c.wantCode, err)
		}
		var reason string
		var fields []string
		for _, d := range st.Details() {
			switch d := d.(type) {
			case *errdetails.ErrorInfo:
				reason = d.Reason
			case *errdetails.BadRequest:
				for _, fv := range d.FieldViolations {
					fields = append(fields, fv.Field)
				}
			}
		}
		if c.wantReason != "" && reason != c.wantReason {
			t.Errorf("reason %q, want %q", reason, c.wantReason)
		}
		for _, f := range c.wantFields {
			if !slices.Contains(fields, f) {
				t.Errorf("no violation for field %q in %v", f, fields)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if len(header.Get("x-request-id")) == 0 {
		t.Error("no x-request-id response header")
	}
	if c.check != nil {
		b, _ := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}.Marshal(reply)
		var m map[string]any
		if err := jsonUnmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		c.check(t, m)
	}
}

func snake(camel string) string {
	var b strings.Builder
	for i, r := range camel {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}

var _ = fmt.Sprintf

// badChecksum changes a key's last checksum character to a different one.
func badChecksum(key string) string {
	last := key[len(key)-1]
	swap := byte('x')
	if last == swap {
		swap = 'y'
	}
	return key[:len(key)-1] + string(swap)
}
