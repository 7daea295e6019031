package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/api/httpbody"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

// fixture is what the service cases of one transport act on: resources
// created for it alone, so the REST and gRPC runs do not share state.
type fixture struct {
	keyToRotate, keyToRevoke string
	clientToRotate           string
	clientToRevoke           string
	jobID                    string
	workID, certificateID    string
	webhookID, deliveryID    string
	webhookToDelete          string
	webhookToEdit            string
	eventID                  string
	receiver                 string
	planID, planToDelete     string
}

func newFixture(t *testing.T, e *env, transport string) fixture {
	t.Helper()
	var fx fixture
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(receiver.Close)
	fx.receiver = receiver.URL
	post := func(path string, body any) map[string]any {
		r := e.Do(t, "POST", path, e.AdminKey, body)
		if r.Status >= 300 {
			t.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
		}
		return r.JSON
	}
	fx.keyToRotate = post("/v1/keys", map[string]any{"name": "rotate-" + transport, "scopes": []string{"creators:read"}})["id"].(string)
	fx.keyToRevoke = post("/v1/keys", map[string]any{"name": "revoke-" + transport, "scopes": []string{"creators:read"}})["id"].(string)
	fx.clientToRotate = post("/v1/oauth/clients", map[string]any{"name": "rotate-" + transport, "scopes": []string{"creators:read"}})["id"].(string)
	fx.clientToRevoke = post("/v1/oauth/clients", map[string]any{"name": "revoke-" + transport, "scopes": []string{"creators:read"}})["id"].(string)
	fx.jobID = post("/v1/engine/run", map[string]any{"vertical": "music", "workflow": "release-strategy",
		"context": map[string]any{"artist": "Nova", "genre": "indie pop", "releaseDate": "2027-03-03", "as_of": "2026-11-23"}})["id"].(string)
	work := post("/v1/ip/register", map[string]any{"creator_id": e.creatorID, "title": "Fixture " + transport, "type": "song",
		"content_hash": "sha256:" + strings.Repeat(map[string]string{"rest": "c", "grpc": "d"}[transport], 64)})
	fx.workID, fx.certificateID = work["id"].(string), work["certificate_id"].(string)
	fx.webhookID = post("/v1/webhooks", map[string]any{"url": receiver.URL + "/" + transport, "events": []string{"creator.created"}})["id"].(string)
	fx.webhookToDelete = post("/v1/webhooks", map[string]any{"url": receiver.URL + "/gone-" + transport, "events": []string{"creator.created"}})["id"].(string)
	fx.webhookToEdit = post("/v1/webhooks", map[string]any{"url": receiver.URL + "/edit-" + transport, "events": []string{"creator.created"}})["id"].(string)
	fx.deliveryID = post("/v1/webhooks/"+fx.webhookID+":test", map[string]any{})["id"].(string)
	if r := e.Do(t, "GET", "/v1/events?page_size=1", e.AdminKey, nil); r.Status == 200 {
		fx.eventID = r.JSON["events"].([]any)[0].(map[string]any)["id"].(string)
	} else {
		t.Fatalf("GET /v1/events: %d %s", r.Status, r.Body)
	}
	fx.planID = post("/v1/engine/run", map[string]any{"vertical": "music", "workflow": "release-strategy", "track": true,
		"context": map[string]any{"artist": "Nova", "genre": "indie pop", "releaseDate": "2027-03-03", "as_of": "2026-11-23"}})["plan_id"].(string)
	other := post("/v1/engine/run", map[string]any{"vertical": "music", "workflow": "release-strategy",
		"context": map[string]any{"artist": "Nova", "genre": "indie pop", "releaseDate": "2027-03-03", "as_of": "2026-11-23"}})["id"].(string)
	fx.planToDelete = post("/v1/plans", map[string]any{"job_id": other})["id"].(string)
	return fx
}

// serviceCases covers every RPC of every service but creators (see
// creatorCases), each as a REST call and the same gRPC call.
func serviceCases(e *env, fx fixture, transport string) []apiCase {
	msg := func(m proto.Message) func() proto.Message {
		return func() proto.Message { return proto.Clone(m) }
	}
	ctx, _ := structpb.NewStruct(map[string]any{"artist": "Nova", "genre": "indie pop", "releaseDate": "2027-03-03", "as_of": "2026-11-23"})
	hash := "sha256:" + strings.Repeat(map[string]string{"rest": "a", "grpc": "b"}[transport], 64)
	now := time.Now().UTC()
	from := now.Add(-time.Hour).Format(time.RFC3339)
	jwks, _ := structpb.NewStruct(map[string]any{"keys": []any{map[string]any{"kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
		"x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}}})
	return []apiCase{
		// OAuth clients.
		{
			name: "create oauth client", key: e.AdminKey, method: "/creativeops.v1.OAuthClientsService/CreateOAuthClient", resp: msg(&creativeopsv1.OAuthClient{}),
			req:        &creativeopsv1.CreateOAuthClientRequest{Name: "erp", Scopes: []string{"creators:read"}, TokenLifetime: durationpb.New(10 * time.Minute), Jwks: jwks},
			httpMethod: "POST", path: "/v1/oauth/clients", body: map[string]any{"name": "erp", "scopes": []string{"creators:read"}, "token_lifetime": "600s", "jwks": jwks.AsMap()},
			wantHTTP: http.StatusCreated,
			check: func(t *testing.T, b map[string]any) {
				if s, _ := b["secret"].(string); !strings.HasPrefix(s, "co_oauth_") || !strings.HasPrefix(b["id"].(string), "oc_") {
					t.Errorf("secret %q or id not shown on creation: %v", s, b)
				}
				if b["token_lifetime"] != "600s" || b["jwks"] == nil {
					t.Errorf("lifetime or jwks not kept: %v", b)
				}
			},
		},
		{
			name: "create oauth client with a private key in jwks", key: e.AdminKey, method: "/creativeops.v1.OAuthClientsService/CreateOAuthClient", resp: msg(&creativeopsv1.OAuthClient{}),
			req:        &creativeopsv1.CreateOAuthClientRequest{Name: "erp", Scopes: []string{"creators:read"}, Jwks: privateJWKS()},
			httpMethod: "POST", path: "/v1/oauth/clients", body: map[string]any{"name": "erp", "scopes": []string{"creators:read"}, "jwks": privateJWKS().AsMap()},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"jwks"},
		},
		{
			name: "create oauth client with scopes the caller lacks", key: e.scopedAdmin, method: "/creativeops.v1.OAuthClientsService/CreateOAuthClient", resp: msg(&creativeopsv1.OAuthClient{}),
			req:        &creativeopsv1.CreateOAuthClientRequest{Name: "erp", Scopes: []string{"creators:write"}},
			httpMethod: "POST", path: "/v1/oauth/clients", body: map[string]any{"name": "erp", "scopes": []string{"creators:write"}},
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "SCOPE_NOT_HELD",
		},
		{
			name: "list oauth clients", key: e.AdminKey, method: "/creativeops.v1.OAuthClientsService/ListOAuthClients", resp: msg(&creativeopsv1.ListOAuthClientsResponse{}),
			req:        &creativeopsv1.ListOAuthClientsRequest{PageSize: 1},
			httpMethod: "GET", path: "/v1/oauth/clients?page_size=1",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				clients, _ := b["clients"].([]any)
				if len(clients) != 1 || b["next_page_token"] == "" {
					t.Fatalf("want a page of 1 client and a next page: %v", b)
				}
				if c := clients[0].(map[string]any); c["secret"] != nil {
					t.Errorf("listing shows a secret: %v", c)
				}
			},
		},
		{
			name: "get oauth client", key: e.AdminKey, method: "/creativeops.v1.OAuthClientsService/GetOAuthClient", resp: msg(&creativeopsv1.OAuthClient{}),
			req:        &creativeopsv1.GetOAuthClientRequest{Id: fx.clientToRotate},
			httpMethod: "GET", path: "/v1/oauth/clients/" + fx.clientToRotate,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["id"] != fx.clientToRotate || b["secret"] != nil || b["token_lifetime"] != "3600s" {
					t.Errorf("get: %v", b)
				}
			},
		},
		{
			name: "get an oauth client of another organization", key: e.otherOrg, method: "/creativeops.v1.OAuthClientsService/GetOAuthClient", resp: msg(&creativeopsv1.OAuthClient{}),
			req:        &creativeopsv1.GetOAuthClientRequest{Id: fx.clientToRotate},
			httpMethod: "GET", path: "/v1/oauth/clients/" + fx.clientToRotate,
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "rotate oauth client", key: e.AdminKey, method: "/creativeops.v1.OAuthClientsService/RotateOAuthClient", resp: msg(&creativeopsv1.OAuthClient{}),
			req:        &creativeopsv1.RotateOAuthClientRequest{Id: fx.clientToRotate, GracePeriod: durationpb.New(time.Minute)},
			httpMethod: "POST", path: "/v1/oauth/clients/" + fx.clientToRotate + ":rotate", body: map[string]any{"grace_period": "60s"},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if s, _ := b["secret"].(string); b["id"] != fx.clientToRotate || b["previous_secret_expires_at"] == nil || !strings.HasPrefix(s, "co_oauth_") {
					t.Errorf("rotation not reported: %v", b)
				}
			},
		},
		{
			name: "delete oauth client", key: e.AdminKey, method: "/creativeops.v1.OAuthClientsService/DeleteOAuthClient", resp: msg(&emptypb.Empty{}),
			req:        &creativeopsv1.DeleteOAuthClientRequest{Id: fx.clientToRevoke},
			httpMethod: "DELETE", path: "/v1/oauth/clients/" + fx.clientToRevoke,
			wantHTTP: http.StatusNoContent,
		},
		{
			name: "delete an oauth client twice", key: e.AdminKey, method: "/creativeops.v1.OAuthClientsService/DeleteOAuthClient", resp: msg(&emptypb.Empty{}),
			req:        &creativeopsv1.DeleteOAuthClientRequest{Id: fx.clientToRevoke},
			httpMethod: "DELETE", path: "/v1/oauth/clients/" + fx.clientToRevoke,
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "oauth clients need keys:admin", key: e.readOnly, method: "/creativeops.v1.OAuthClientsService/ListOAuthClients", resp: msg(&creativeopsv1.ListOAuthClientsResponse{}),
			req: &creativeopsv1.ListOAuthClientsRequest{}, httpMethod: "GET", path: "/v1/oauth/clients",
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "MISSING_SCOPE",
		},
		// Keys.
		{
			name: "create key", key: e.AdminKey, method: "/creativeops.v1.KeysService/CreateKey", resp: msg(&creativeopsv1.APIKey{}),
			req:        &creativeopsv1.CreateKeyRequest{Name: "ci", Scopes: []string{"engine:run"}},
			httpMethod: "POST", path: "/v1/keys", body: map[string]any{"name": "ci", "scopes": []string{"engine:run"}},
			wantHTTP: http.StatusCreated,
			check: func(t *testing.T, b map[string]any) {
				if s, _ := b["secret"].(string); !strings.HasPrefix(s, "co_live_") {
					t.Errorf("secret %q not shown on creation", s)
				}
			},
		},
		{
			name: "create key with an unknown scope", key: e.AdminKey, method: "/creativeops.v1.KeysService/CreateKey", resp: msg(&creativeopsv1.APIKey{}),
			req:        &creativeopsv1.CreateKeyRequest{Name: "ci", Scopes: []string{"everything"}},
			httpMethod: "POST", path: "/v1/keys", body: map[string]any{"name": "ci", "scopes": []string{"everything"}},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument,
		},
		{
			name: "list keys", key: e.AdminKey, method: "/creativeops.v1.KeysService/ListKeys", resp: msg(&creativeopsv1.ListKeysResponse{}),
			req:        &creativeopsv1.ListKeysRequest{PageSize: 2},
			httpMethod: "GET", path: "/v1/keys?page_size=2",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if keys, _ := b["keys"].([]any); len(keys) != 2 || b["next_page_token"] == "" {
					t.Errorf("want a page of 2 keys and a next page: %v", b)
				}
			},
		},
		{
			name: "rotate key", key: e.AdminKey, method: "/creativeops.v1.KeysService/RotateKey", resp: msg(&creativeopsv1.APIKey{}),
			req:        &creativeopsv1.RotateKeyRequest{Id: fx.keyToRotate, GracePeriod: durationpb.New(time.Minute)},
			httpMethod: "POST", path: "/v1/keys/" + fx.keyToRotate + ":rotate", body: map[string]any{"grace_period": "60s"},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["id"] != fx.keyToRotate || b["previous_secret_expires_at"] == nil {
					t.Errorf("rotation not reported: %v", b)
				}
			},
		},
		{
			name: "revoke key", key: e.AdminKey, method: "/creativeops.v1.KeysService/RevokeKey", resp: msg(&emptypb.Empty{}),
			req:        &creativeopsv1.RevokeKeyRequest{Id: fx.keyToRevoke},
			httpMethod: "DELETE", path: "/v1/keys/" + fx.keyToRevoke,
			wantHTTP: http.StatusNoContent,
		},
		{
			name: "revoke a key of another organization", key: e.otherOrg, method: "/creativeops.v1.KeysService/RevokeKey", resp: msg(&emptypb.Empty{}),
			req:        &creativeopsv1.RevokeKeyRequest{Id: fx.keyToRotate},
			httpMethod: "DELETE", path: "/v1/keys/" + fx.keyToRotate,
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "keys need keys:admin", key: e.readOnly, method: "/creativeops.v1.KeysService/ListKeys", resp: msg(&creativeopsv1.ListKeysResponse{}),
			req:        &creativeopsv1.ListKeysRequest{},
			httpMethod: "GET", path: "/v1/keys",
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "MISSING_SCOPE",
		},

		// Engine.
		{
			name: "list verticals", key: e.AdminKey, method: "/creativeops.v1.EngineService/ListVerticals", resp: msg(&creativeopsv1.ListVerticalsResponse{}),
			req: &creativeopsv1.ListVerticalsRequest{}, httpMethod: "GET", path: "/v1/engine/verticals",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["total"] != 24.0 {
					t.Errorf("total %v, want 24 verticals", b["total"])
				}
			},
		},
		{
			name: "list calendars", key: e.AdminKey, method: "/creativeops.v1.EngineService/ListCalendars", resp: msg(&creativeopsv1.ListCalendarsResponse{}),
			req: &creativeopsv1.ListCalendarsRequest{}, httpMethod: "GET", path: "/v1/engine/calendars",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if cs, _ := b["countries"].([]any); len(cs) < 30 {
					t.Errorf("%d countries, want every calendar the library covers", len(cs))
				}
			},
		},
		{
			name: "list workflows of a vertical", key: e.AdminKey, method: "/creativeops.v1.EngineService/ListWorkflows", resp: msg(&creativeopsv1.ListWorkflowsResponse{}),
			req: &creativeopsv1.ListWorkflowsRequest{Vertical: "music"}, httpMethod: "GET", path: "/v1/engine/workflows?vertical=music",
			wantHTTP: http.StatusOK,
		},
		{
			name: "list workflows of an unknown vertical", key: e.AdminKey, method: "/creativeops.v1.EngineService/ListWorkflows", resp: msg(&creativeopsv1.ListWorkflowsResponse{}),
			req: &creativeopsv1.ListWorkflowsRequest{Vertical: "opera-on-ice"}, httpMethod: "GET", path: "/v1/engine/workflows?vertical=opera-on-ice",
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantReason: "UNKNOWN_VERTICAL", wantFields: []string{"vertical"},
		},
		{
			name: "get workflow", key: e.AdminKey, method: "/creativeops.v1.EngineService/GetWorkflow", resp: msg(&creativeopsv1.Workflow{}),
			req: &creativeopsv1.GetWorkflowRequest{Id: "release-strategy"}, httpMethod: "GET", path: "/v1/engine/workflows/release-strategy",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["vertical"] != "music" || b["input_schema"] == nil {
					t.Errorf("unexpected workflow %v", b)
				}
			},
		},
		{
			name: "run a workflow", key: e.AdminKey, method: "/creativeops.v1.EngineService/RunWorkflow", resp: msg(&creativeopsv1.Job{}),
			req:        &creativeopsv1.RunWorkflowRequest{Vertical: "music", Workflow: "release-strategy", Context: ctx},
			httpMethod: "POST", path: "/v1/engine/run", body: map[string]any{"vertical": "music", "workflow": "release-strategy", "context": ctx.AsMap()},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["status"] != "completed" || b["result"] == nil {
					t.Errorf("synchronous run not completed: %v", b["status"])
				}
			},
		},
		{
			name: "run a workflow asynchronously", key: e.AdminKey, method: "/creativeops.v1.EngineService/RunWorkflow", resp: msg(&creativeopsv1.Job{}),
			req:        &creativeopsv1.RunWorkflowRequest{Vertical: "music", Workflow: "release-strategy", Context: ctx, Async: true},
			httpMethod: "POST", path: "/v1/engine/run", body: map[string]any{"vertical": "music", "workflow": "release-strategy", "context": ctx.AsMap(), "async": true},
			wantHTTP: map[string]int{"rest": http.StatusAccepted, "grpc": http.StatusOK}[transport],
		},
		{
			name: "get job", key: e.AdminKey, method: "/creativeops.v1.EngineService/GetJob", resp: msg(&creativeopsv1.Job{}),
			req: &creativeopsv1.GetJobRequest{Id: fx.jobID}, httpMethod: "GET", path: "/v1/engine/status/" + fx.jobID,
			wantHTTP: http.StatusOK,
		},
		{
			name: "get a job of another organization", key: e.otherOrg, method: "/creativeops.v1.EngineService/GetJob", resp: msg(&creativeopsv1.Job{}),
			req: &creativeopsv1.GetJobRequest{Id: fx.jobID}, httpMethod: "GET", path: "/v1/engine/status/" + fx.jobID,
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "list jobs", key: e.AdminKey, method: "/creativeops.v1.EngineService/ListJobs", resp: msg(&creativeopsv1.ListJobsResponse{}),
			req: &creativeopsv1.ListJobsRequest{Status: "completed"}, httpMethod: "GET", path: "/v1/engine/jobs?status=completed",
			wantHTTP: http.StatusOK,
		},
		{
			name: "cancel a finished job", key: e.AdminKey, method: "/creativeops.v1.EngineService/CancelJob", resp: msg(&creativeopsv1.Job{}),
			req: &creativeopsv1.CancelJobRequest{Id: fx.jobID}, httpMethod: "POST", path: "/v1/engine/jobs/" + fx.jobID + ":cancel", body: map[string]any{},
			wantHTTP: http.StatusConflict, wantCode: codes.FailedPrecondition, wantReason: "JOB_ALREADY_FINISHED",
		},

		// IP registry.
		{
			name: "register a work", key: e.AdminKey, method: "/creativeops.v1.IPService/RegisterWork", resp: msg(&creativeopsv1.IPRecord{}),
			req:        &creativeopsv1.RegisterWorkRequest{CreatorId: e.creatorID, Title: "Case " + transport, Type: "song", ContentHash: hash},
			httpMethod: "POST", path: "/v1/ip/register", body: map[string]any{"creator_id": e.creatorID, "title": "Case " + transport, "type": "song", "content_hash": hash},
			wantHTTP: http.StatusCreated,
		},
		{
			name: "register a work of an unknown creator", key: e.AdminKey, method: "/creativeops.v1.IPService/RegisterWork", resp: msg(&creativeopsv1.IPRecord{}),
			req:        &creativeopsv1.RegisterWorkRequest{CreatorId: "cr_01k0000000000000000000000", Title: "X", Type: "song", ContentHash: hash},
			httpMethod: "POST", path: "/v1/ip/register", body: map[string]any{"creator_id": "cr_01k0000000000000000000000", "title": "X", "type": "song", "content_hash": hash},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},
		{
			name: "list the catalog", key: e.AdminKey, method: "/creativeops.v1.IPService/ListCatalog", resp: msg(&creativeopsv1.ListCatalogResponse{}),
			req: &creativeopsv1.ListCatalogRequest{Q: "fixture"}, httpMethod: "GET", path: "/v1/ip/catalog?q=fixture",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["total"].(float64) < 1 {
					t.Errorf("the fixture work is not in the catalog: %v", b)
				}
			},
		},
		{
			name: "get a record", key: e.AdminKey, method: "/creativeops.v1.IPService/GetRecord", resp: msg(&creativeopsv1.IPRecord{}),
			req: &creativeopsv1.GetRecordRequest{Id: fx.workID}, httpMethod: "GET", path: "/v1/ip/records/" + fx.workID,
			wantHTTP: http.StatusOK,
		},
		{
			name: "get a certificate", key: e.AdminKey, method: "/creativeops.v1.IPService/GetCertificate", resp: msg(&creativeopsv1.Certificate{}),
			req: &creativeopsv1.GetCertificateRequest{CertificateId: fx.certificateID}, httpMethod: "GET", path: "/v1/ip/certificates/" + fx.certificateID,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["certificate_id"] != fx.certificateID || b["checkpoint"] == "" {
					t.Errorf("unexpected certificate %v", b)
				}
			},
		},
		{
			name: "get a certificate's token", key: e.AdminKey, method: "/creativeops.v1.IPService/GetCertificateToken", resp: msg(&httpbody.HttpBody{}),
			req: &creativeopsv1.GetCertificateTokenRequest{CertificateId: fx.certificateID}, httpMethod: "GET", path: "/v1/ip/certificates/" + fx.certificateID + "/token",
			wantHTTP: http.StatusOK,
		},
		{
			name: "get the checkpoint", key: e.AdminKey, method: "/creativeops.v1.IPService/GetCheckpoint", resp: msg(&creativeopsv1.Checkpoint{}),
			req: &creativeopsv1.GetCheckpointRequest{}, httpMethod: "GET", path: "/v1/ip/log/checkpoint",
			wantHTTP: http.StatusOK,
		},
		{
			name: "get a consistency proof", key: e.AdminKey, method: "/creativeops.v1.IPService/GetConsistencyProof", resp: msg(&creativeopsv1.ConsistencyProof{}),
			req: &creativeopsv1.GetConsistencyProofRequest{From: 1, To: 1}, httpMethod: "GET", path: "/v1/ip/log/consistency?from=1&to=1",
			wantHTTP: http.StatusOK,
		},
		{
			name: "a consistency proof past the log", key: e.AdminKey, method: "/creativeops.v1.IPService/GetConsistencyProof", resp: msg(&creativeopsv1.ConsistencyProof{}),
			req: &creativeopsv1.GetConsistencyProofRequest{From: 1, To: 1 << 40}, httpMethod: "GET", path: fmt.Sprintf("/v1/ip/log/consistency?from=1&to=%d", int64(1)<<40),
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"to"},
		},
		{
			name: "get the registry's keys", key: e.AdminKey, method: "/creativeops.v1.IPService/GetKeys", resp: msg(&creativeopsv1.IPKeys{}),
			req: &creativeopsv1.GetKeysRequest{}, httpMethod: "GET", path: "/v1/ip/keys",
			wantHTTP: http.StatusOK,
		},

		// Webhooks.
		{
			name: "create a webhook", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/CreateWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.CreateWebhookRequest{Url: fx.receiver + "/case", Events: []string{"ip.registered"}},
			httpMethod: "POST", path: "/v1/webhooks", body: map[string]any{"url": fx.receiver + "/case", "events": []string{"ip.registered"}},
			wantHTTP: http.StatusCreated,
			check: func(t *testing.T, b map[string]any) {
				if s, _ := b["secret"].(string); !strings.HasPrefix(s, "whsec_") {
					t.Errorf("secret %q not shown on creation", s)
				}
			},
		},
		{
			name: "create a webhook for an unknown event", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/CreateWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.CreateWebhookRequest{Url: fx.receiver + "/case", Events: []string{"nothing.happened"}},
			httpMethod: "POST", path: "/v1/webhooks", body: map[string]any{"url": fx.receiver + "/case", "events": []string{"nothing.happened"}},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"events[0]"},
		},
		{
			name: "list webhooks", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/ListWebhooks", resp: msg(&creativeopsv1.ListWebhooksResponse{}),
			req: &creativeopsv1.ListWebhooksRequest{}, httpMethod: "GET", path: "/v1/webhooks",
			wantHTTP: http.StatusOK,
		},
		{
			name: "get a webhook", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/GetWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req: &creativeopsv1.GetWebhookRequest{Id: fx.webhookID}, httpMethod: "GET", path: "/v1/webhooks/" + fx.webhookID,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if _, shown := b["secret"]; shown && b["secret"] != nil && b["secret"] != "" {
					t.Errorf("secret shown after creation: %v", b["secret"])
				}
			},
		},
		{
			name: "send a test event", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/TestWebhook", resp: msg(&creativeopsv1.Delivery{}),
			req: &creativeopsv1.TestWebhookRequest{Id: fx.webhookID}, httpMethod: "POST", path: "/v1/webhooks/" + fx.webhookID + ":test", body: map[string]any{},
			wantHTTP: map[string]int{"rest": http.StatusAccepted, "grpc": http.StatusOK}[transport],
		},
		{
			name: "list deliveries", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/ListDeliveries", resp: msg(&creativeopsv1.ListDeliveriesResponse{}),
			req: &creativeopsv1.ListDeliveriesRequest{Id: fx.webhookID}, httpMethod: "GET", path: "/v1/webhooks/" + fx.webhookID + "/deliveries",
			wantHTTP: http.StatusOK,
		},
		{
			name: "redeliver", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/RedeliverDelivery", resp: msg(&creativeopsv1.Delivery{}),
			req:        &creativeopsv1.RedeliverDeliveryRequest{Id: fx.webhookID, DeliveryId: fx.deliveryID},
			httpMethod: "POST", path: "/v1/webhooks/" + fx.webhookID + "/deliveries/" + fx.deliveryID + ":redeliver", body: map[string]any{},
			wantHTTP: map[string]int{"rest": http.StatusAccepted, "grpc": http.StatusOK}[transport],
		},
		{
			name: "update a webhook", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/UpdateWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.UpdateWebhookRequest{Id: fx.webhookToEdit, Description: proto.String("CRM"), Events: []string{"creator.created", "ip.registered"}},
			httpMethod: "PATCH", path: "/v1/webhooks/" + fx.webhookToEdit, body: map[string]any{"description": "CRM", "events": []string{"creator.created", "ip.registered"}},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["description"] != "CRM" || len(b["events"].([]any)) != 2 {
					t.Errorf("update: %v", b)
				}
			},
		},
		{
			name: "update a webhook with an unknown mask path", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/UpdateWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.UpdateWebhookRequest{Id: fx.webhookToEdit, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"status"}}},
			httpMethod: "PATCH", path: "/v1/webhooks/" + fx.webhookToEdit, body: map[string]any{"update_mask": "status"},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"update_mask"},
		},
		{
			name: "update another organization's webhook", key: e.otherOrg, method: "/creativeops.v1.WebhooksService/UpdateWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.UpdateWebhookRequest{Id: fx.webhookToEdit, Description: proto.String("mine")},
			httpMethod: "PATCH", path: "/v1/webhooks/" + fx.webhookToEdit, body: map[string]any{"description": "mine"},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},
		{
			name: "update a webhook without webhooks:write", key: e.readOnly, method: "/creativeops.v1.WebhooksService/UpdateWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.UpdateWebhookRequest{Id: fx.webhookToEdit, Description: proto.String("x")},
			httpMethod: "PATCH", path: "/v1/webhooks/" + fx.webhookToEdit, body: map[string]any{"description": "x"},
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied,
		},
		{
			name: "rotate a webhook's secret", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/RotateWebhookSecret", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.RotateWebhookSecretRequest{Id: fx.webhookToEdit},
			httpMethod: "POST", path: "/v1/webhooks/" + fx.webhookToEdit + ":rotateSecret", body: map[string]any{},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if s, _ := b["secret"].(string); !strings.HasPrefix(s, "whsec_") {
					t.Errorf("rotation: %v", b)
				}
			},
		},
		{
			name: "rotate another organization's webhook's secret", key: e.otherOrg, method: "/creativeops.v1.WebhooksService/RotateWebhookSecret", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.RotateWebhookSecretRequest{Id: fx.webhookToEdit},
			httpMethod: "POST", path: "/v1/webhooks/" + fx.webhookToEdit + ":rotateSecret", body: map[string]any{},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},
		{
			name: "disable a webhook", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/DisableWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.DisableWebhookRequest{Id: fx.webhookToEdit},
			httpMethod: "POST", path: "/v1/webhooks/" + fx.webhookToEdit + ":disable", body: map[string]any{},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["status"] != "disabled" || b["disabled_at"] == nil {
					t.Errorf("disable: %v", b)
				}
			},
		},
		{
			name: "disable another organization's webhook", key: e.otherOrg, method: "/creativeops.v1.WebhooksService/DisableWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.DisableWebhookRequest{Id: fx.webhookID},
			httpMethod: "POST", path: "/v1/webhooks/" + fx.webhookID + ":disable", body: map[string]any{},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},
		{
			name: "enable a webhook", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/EnableWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.EnableWebhookRequest{Id: fx.webhookToEdit},
			httpMethod: "POST", path: "/v1/webhooks/" + fx.webhookToEdit + ":enable", body: map[string]any{},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["status"] != "active" || b["disabled_at"] != nil {
					t.Errorf("enable: %v", b)
				}
			},
		},
		{
			name: "enable another organization's webhook", key: e.otherOrg, method: "/creativeops.v1.WebhooksService/EnableWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req:        &creativeopsv1.EnableWebhookRequest{Id: fx.webhookToEdit},
			httpMethod: "POST", path: "/v1/webhooks/" + fx.webhookToEdit + ":enable", body: map[string]any{},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},
		{
			name: "delete a webhook", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/DeleteWebhook", resp: msg(&emptypb.Empty{}),
			req: &creativeopsv1.DeleteWebhookRequest{Id: fx.webhookToDelete}, httpMethod: "DELETE", path: "/v1/webhooks/" + fx.webhookToDelete,
			wantHTTP: map[string]int{"rest": http.StatusNoContent, "grpc": http.StatusOK}[transport],
		},
		{
			name: "get a deleted webhook", key: e.AdminKey, method: "/creativeops.v1.WebhooksService/GetWebhook", resp: msg(&creativeopsv1.Webhook{}),
			req: &creativeopsv1.GetWebhookRequest{Id: fx.webhookToDelete}, httpMethod: "GET", path: "/v1/webhooks/" + fx.webhookToDelete,
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound,
		},

		// Events.
		{
			name: "list events", key: e.AdminKey, method: "/creativeops.v1.EventsService/ListEvents", resp: msg(&creativeopsv1.ListEventsResponse{}),
			req:        &creativeopsv1.ListEventsRequest{Type: []string{"creator.created"}, PageSize: 1},
			httpMethod: "GET", path: "/v1/events?type=creator.created&page_size=1",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				evs, _ := b["events"].([]any)
				if len(evs) != 1 {
					t.Fatalf("events: %v", b)
				}
				if ev := evs[0].(map[string]any); ev["type"] != "creator.created" || ev["object_id"] == "" || ev["data"].(map[string]any)["id"] != ev["object_id"] {
					t.Errorf("event: %v", ev)
				}
			},
		},
		{
			name: "list events after one", key: e.AdminKey, method: "/creativeops.v1.EventsService/ListEvents", resp: msg(&creativeopsv1.ListEventsResponse{}),
			req:        &creativeopsv1.ListEventsRequest{After: fx.eventID},
			httpMethod: "GET", path: "/v1/events?after=" + fx.eventID,
			wantHTTP: http.StatusOK,
		},
		{
			name: "list events after an unknown one", key: e.AdminKey, method: "/creativeops.v1.EventsService/ListEvents", resp: msg(&creativeopsv1.ListEventsResponse{}),
			req:        &creativeopsv1.ListEventsRequest{After: "evt_01k3zw0e2f4g6h8j0k2m4n6p8q"},
			httpMethod: "GET", path: "/v1/events?after=evt_01k3zw0e2f4g6h8j0k2m4n6p8q",
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"after"},
		},
		{
			name: "list events of an unknown type", key: e.AdminKey, method: "/creativeops.v1.EventsService/ListEvents", resp: msg(&creativeopsv1.ListEventsResponse{}),
			req:        &creativeopsv1.ListEventsRequest{Type: []string{"creator.created", "creator.created"}},
			httpMethod: "GET", path: "/v1/events?type=creator.created&type=creator.created",
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"type"},
		},
		{
			name: "list events without events:read", key: e.readOnly, method: "/creativeops.v1.EventsService/ListEvents", resp: msg(&creativeopsv1.ListEventsResponse{}),
			req: &creativeopsv1.ListEventsRequest{}, httpMethod: "GET", path: "/v1/events",
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied,
		},
		{
			name: "get an event", key: e.AdminKey, method: "/creativeops.v1.EventsService/GetEvent", resp: msg(&creativeopsv1.Event{}),
			req: &creativeopsv1.GetEventRequest{Id: fx.eventID}, httpMethod: "GET", path: "/v1/events/" + fx.eventID,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["id"] != fx.eventID || b["data"] == nil || b["sequence"] == nil {
					t.Errorf("event: %v", b)
				}
			},
		},
		{
			name: "list events of another organization", key: e.otherOrg, method: "/creativeops.v1.EventsService/ListEvents", resp: msg(&creativeopsv1.ListEventsResponse{}),
			req: &creativeopsv1.ListEventsRequest{ObjectId: e.creatorID}, httpMethod: "GET", path: "/v1/events?object_id=" + e.creatorID,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if evs, _ := b["events"].([]any); len(evs) != 0 {
					t.Errorf("another organization lists %v", evs)
				}
			},
		},

		// Analytics.
		{
			name: "get usage", key: e.AdminKey, method: "/creativeops.v1.AnalyticsService/GetUsage", resp: msg(&creativeopsv1.UsageReport{}),
			req: &creativeopsv1.GetUsageRequest{Granularity: "hour"}, httpMethod: "GET", path: "/v1/analytics/usage?granularity=hour&from=" + from,
			wantHTTP: http.StatusOK,
		},
		{
			name: "usage needs analytics:read", key: e.readOnly, method: "/creativeops.v1.AnalyticsService/GetUsage", resp: msg(&creativeopsv1.UsageReport{}),
			req: &creativeopsv1.GetUsageRequest{}, httpMethod: "GET", path: "/v1/analytics/usage",
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "MISSING_SCOPE",
		},

		// Plans.
		{
			name: "create plan from a job", key: e.AdminKey, method: "/creativeops.v1.PlansService/CreatePlan", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.CreatePlanRequest{JobId: fx.jobID, CreatorId: e.creatorID, RemindDaysBefore: proto.Int32(5)},
			httpMethod: "POST", path: "/v1/plans", body: map[string]any{"job_id": fx.jobID, "creator_id": e.creatorID, "remind_days_before": 5},
			wantHTTP: http.StatusCreated,
			check: func(t *testing.T, b map[string]any) {
				if id, _ := b["id"].(string); !strings.HasPrefix(id, "plan_") || b["job_id"] != fx.jobID || b["creator_id"] != e.creatorID ||
					b["remind_days_before"] != 5.0 || b["auto_replan"] != true || b["revision"] != 1.0 || b["state"] != "active" {
					t.Errorf("plan: %v", b)
				}
				if ms, _ := b["milestones"].([]any); len(ms) == 0 {
					t.Errorf("plan without milestones: %v", b)
				}
			},
		},
		{
			name: "create plan from another organization's job", key: e.otherOrg, method: "/creativeops.v1.PlansService/CreatePlan", resp: msg(&creativeopsv1.Plan{}),
			req: &creativeopsv1.CreatePlanRequest{JobId: fx.jobID}, httpMethod: "POST", path: "/v1/plans", body: map[string]any{"job_id": fx.jobID},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "create plan for another organization's creator", key: e.otherOrg, method: "/creativeops.v1.PlansService/CreatePlan", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.CreatePlanRequest{JobId: fx.jobID, CreatorId: e.creatorID},
			httpMethod: "POST", path: "/v1/plans", body: map[string]any{"job_id": fx.jobID, "creator_id": e.creatorID},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "create plan reminding too early", key: e.AdminKey, method: "/creativeops.v1.PlansService/CreatePlan", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.CreatePlanRequest{JobId: fx.jobID, RemindDaysBefore: proto.Int32(61)},
			httpMethod: "POST", path: "/v1/plans", body: map[string]any{"job_id": fx.jobID, "remind_days_before": 61},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"remind_days_before"},
		},
		{
			name: "list plans", key: e.AdminKey, method: "/creativeops.v1.PlansService/ListPlans", resp: msg(&creativeopsv1.ListPlansResponse{}),
			req: &creativeopsv1.ListPlansRequest{PageSize: 1, Vertical: "music"}, httpMethod: "GET", path: "/v1/plans?page_size=1&vertical=music",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if ps, _ := b["plans"].([]any); len(ps) != 1 || b["next_page_token"] == "" {
					t.Errorf("want a page of 1 plan and a next page: %v", b)
				}
			},
		},
		{
			name: "list plans of a creator", key: e.AdminKey, method: "/creativeops.v1.PlansService/ListPlans", resp: msg(&creativeopsv1.ListPlansResponse{}),
			req: &creativeopsv1.ListPlansRequest{CreatorId: e.creatorID, State: "active"}, httpMethod: "GET", path: "/v1/plans?creator_id=" + e.creatorID + "&state=active",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				ps, _ := b["plans"].([]any)
				for _, p := range ps {
					if p.(map[string]any)["creator_id"] != e.creatorID {
						t.Errorf("a plan of another creator: %v", p)
					}
				}
				if len(ps) == 0 {
					t.Errorf("no plan of %s: %v", e.creatorID, b)
				}
			},
		},
		{
			name: "list plans of another organization", key: e.otherOrg, method: "/creativeops.v1.PlansService/ListPlans", resp: msg(&creativeopsv1.ListPlansResponse{}),
			req: &creativeopsv1.ListPlansRequest{}, httpMethod: "GET", path: "/v1/plans",
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if ps, _ := b["plans"].([]any); len(ps) != 0 {
					t.Errorf("another organization lists %d plans of this one", len(ps))
				}
			},
		},
		{
			name: "list plans in an unknown state", key: e.AdminKey, method: "/creativeops.v1.PlansService/ListPlans", resp: msg(&creativeopsv1.ListPlansResponse{}),
			req: &creativeopsv1.ListPlansRequest{State: "paused"}, httpMethod: "GET", path: "/v1/plans?state=paused",
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"state"},
		},
		{
			name: "plans need plans:read", key: e.readOnly, method: "/creativeops.v1.PlansService/ListPlans", resp: msg(&creativeopsv1.ListPlansResponse{}),
			req: &creativeopsv1.ListPlansRequest{}, httpMethod: "GET", path: "/v1/plans",
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "MISSING_SCOPE",
		},
		{
			name: "get plan", key: e.AdminKey, method: "/creativeops.v1.PlansService/GetPlan", resp: msg(&creativeopsv1.Plan{}),
			req: &creativeopsv1.GetPlanRequest{Id: fx.planID}, httpMethod: "GET", path: "/v1/plans/" + fx.planID,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["id"] != fx.planID || b["as_of"] != "2026-11-23" || b["feed_active"] != false {
					t.Errorf("plan: %v", b)
				}
			},
		},
		{
			name: "update plan", key: e.AdminKey, method: "/creativeops.v1.PlansService/UpdatePlan", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.UpdatePlanRequest{Id: fx.planID, RemindDaysBefore: proto.Int32(7), AutoReplan: proto.Bool(false)},
			httpMethod: "PATCH", path: "/v1/plans/" + fx.planID, body: map[string]any{"remind_days_before": 7, "auto_replan": false},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["remind_days_before"] != 7.0 || b["auto_replan"] != false {
					t.Errorf("settings not changed: %v", b)
				}
			},
		},
		{
			name: "update a plan of another organization", key: e.otherOrg, method: "/creativeops.v1.PlansService/UpdatePlan", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.UpdatePlanRequest{Id: fx.planID, AutoReplan: proto.Bool(true)},
			httpMethod: "PATCH", path: "/v1/plans/" + fx.planID, body: map[string]any{"auto_replan": true},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "complete milestone", key: e.AdminKey, method: "/creativeops.v1.PlansService/CompleteMilestone", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.CompleteMilestoneRequest{Id: fx.planID, Key: "artwork-metadata"},
			httpMethod: "POST", path: "/v1/plans/" + fx.planID + "/milestones/artwork-metadata:complete", body: map[string]any{},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				for _, m := range b["milestones"].([]any) {
					if m := m.(map[string]any); m["key"] == "artwork-metadata" && (m["state"] != "done" || m["done_at"] == nil) {
						t.Errorf("not done: %v", m)
					}
				}
			},
		},
		{
			name: "complete a milestone of another organization", key: e.otherOrg, method: "/creativeops.v1.PlansService/CompleteMilestone", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.CompleteMilestoneRequest{Id: fx.planID, Key: "announce"},
			httpMethod: "POST", path: "/v1/plans/" + fx.planID + "/milestones/announce:complete", body: map[string]any{},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "complete an unknown milestone", key: e.AdminKey, method: "/creativeops.v1.PlansService/CompleteMilestone", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.CompleteMilestoneRequest{Id: fx.planID, Key: "encore"},
			httpMethod: "POST", path: "/v1/plans/" + fx.planID + "/milestones/encore:complete", body: map[string]any{},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "skip milestone", key: e.AdminKey, method: "/creativeops.v1.PlansService/SkipMilestone", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.SkipMilestoneRequest{Id: fx.planID, Key: "announce"},
			httpMethod: "POST", path: "/v1/plans/" + fx.planID + "/milestones/announce:skip", body: map[string]any{},
			wantHTTP: http.StatusOK,
		},
		{
			name: "skip a milestone of another organization", key: e.otherOrg, method: "/creativeops.v1.PlansService/SkipMilestone", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.SkipMilestoneRequest{Id: fx.planID, Key: "announce"},
			httpMethod: "POST", path: "/v1/plans/" + fx.planID + "/milestones/announce:skip", body: map[string]any{},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "reopen milestone", key: e.AdminKey, method: "/creativeops.v1.PlansService/ReopenMilestone", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.ReopenMilestoneRequest{Id: fx.planID, Key: "announce"},
			httpMethod: "POST", path: "/v1/plans/" + fx.planID + "/milestones/announce:reopen", body: map[string]any{},
			wantHTTP: http.StatusOK,
		},
		{
			name: "reopen a milestone of another organization", key: e.otherOrg, method: "/creativeops.v1.PlansService/ReopenMilestone", resp: msg(&creativeopsv1.Plan{}),
			req:        &creativeopsv1.ReopenMilestoneRequest{Id: fx.planID, Key: "artwork-metadata"},
			httpMethod: "POST", path: "/v1/plans/" + fx.planID + "/milestones/artwork-metadata:reopen", body: map[string]any{},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "replan", key: e.AdminKey, method: "/creativeops.v1.PlansService/ReplanPlan", resp: msg(&creativeopsv1.ReplanPlanResponse{}),
			req:        &creativeopsv1.ReplanPlanRequest{Id: fx.planID, Context: mustStruct(map[string]any{"releaseDate": "2027-03-31"}), AsOf: "2026-11-24"},
			httpMethod: "POST", path: "/v1/plans/" + fx.planID + ":replan", body: map[string]any{"context": map[string]any{"releaseDate": "2027-03-31"}, "as_of": "2026-11-24"},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				p, _ := b["plan"].(map[string]any)
				if p["revision"] != 2.0 || p["as_of"] != "2026-11-24" {
					t.Errorf("re-planned plan: %v", p)
				}
				if cs, _ := b["changes"].([]any); len(cs) == 0 {
					t.Errorf("a four-week slip changed nothing: %v", b)
				}
			},
		},
		{
			name: "replan with an invalid context", key: e.AdminKey, method: "/creativeops.v1.PlansService/ReplanPlan", resp: msg(&creativeopsv1.ReplanPlanResponse{}),
			req:        &creativeopsv1.ReplanPlanRequest{Id: fx.planID, Context: mustStruct(map[string]any{"releaseDate": "soon"})},
			httpMethod: "POST", path: "/v1/plans/" + fx.planID + ":replan", body: map[string]any{"context": map[string]any{"releaseDate": "soon"}},
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"context.release_date"},
		},
		{
			name: "replan a plan of another organization", key: e.otherOrg, method: "/creativeops.v1.PlansService/ReplanPlan", resp: msg(&creativeopsv1.ReplanPlanResponse{}),
			req: &creativeopsv1.ReplanPlanRequest{Id: fx.planID}, httpMethod: "POST", path: "/v1/plans/" + fx.planID + ":replan", body: map[string]any{},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "create plan feed", key: e.AdminKey, method: "/creativeops.v1.PlansService/CreatePlanFeed", resp: msg(&creativeopsv1.PlanFeed{}),
			req: &creativeopsv1.CreatePlanFeedRequest{Id: fx.planID}, httpMethod: "POST", path: "/v1/plans/" + fx.planID + ":createFeed", body: map[string]any{},
			wantHTTP: http.StatusCreated,
			check: func(t *testing.T, b map[string]any) {
				if u, _ := b["url"].(string); !strings.Contains(u, "/v1/plans/"+fx.planID+"/calendar.ics?token=pft_") {
					t.Errorf("feed URL: %v", b)
				}
			},
		},
		{
			name: "create a feed of another organization's plan", key: e.otherOrg, method: "/creativeops.v1.PlansService/CreatePlanFeed", resp: msg(&creativeopsv1.PlanFeed{}),
			req: &creativeopsv1.CreatePlanFeedRequest{Id: fx.planID}, httpMethod: "POST", path: "/v1/plans/" + fx.planID + ":createFeed", body: map[string]any{},
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "revoke plan feed", key: e.AdminKey, method: "/creativeops.v1.PlansService/RevokePlanFeed", resp: msg(&creativeopsv1.Plan{}),
			req: &creativeopsv1.RevokePlanFeedRequest{Id: fx.planID}, httpMethod: "POST", path: "/v1/plans/" + fx.planID + ":revokeFeed", body: map[string]any{},
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if b["feed_active"] != false || b["id"] != fx.planID {
					t.Errorf("revoked plan: %v", b)
				}
			},
		},
		{
			name: "delete a plan of another organization", key: e.otherOrg, method: "/creativeops.v1.PlansService/DeletePlan", resp: msg(&emptypb.Empty{}),
			req: &creativeopsv1.DeletePlanRequest{Id: fx.planToDelete}, httpMethod: "DELETE", path: "/v1/plans/" + fx.planToDelete,
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},
		{
			name: "delete plan", key: e.AdminKey, method: "/creativeops.v1.PlansService/DeletePlan", resp: msg(&emptypb.Empty{}),
			req: &creativeopsv1.DeletePlanRequest{Id: fx.planToDelete}, httpMethod: "DELETE", path: "/v1/plans/" + fx.planToDelete,
			wantHTTP: http.StatusNoContent,
		},
		{
			name: "get a deleted plan", key: e.AdminKey, method: "/creativeops.v1.PlansService/GetPlan", resp: msg(&creativeopsv1.Plan{}),
			req: &creativeopsv1.GetPlanRequest{Id: fx.planToDelete}, httpMethod: "GET", path: "/v1/plans/" + fx.planToDelete,
			wantHTTP: http.StatusNotFound, wantCode: codes.NotFound, wantReason: "NOT_FOUND",
		},

		// Audit log (after the key cases: the rotation above is recorded
		// with this transport as its origin).
		{
			name: "list audit events", key: e.AdminKey, method: "/creativeops.v1.AuditService/ListAuditEvents", resp: msg(&creativeopsv1.ListAuditEventsResponse{}),
			req:        &creativeopsv1.ListAuditEventsRequest{Action: "key.rotated", TargetId: fx.keyToRotate},
			httpMethod: "GET", path: "/v1/audit-events?action=key.rotated&target_id=" + fx.keyToRotate,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				evs, _ := b["audit_events"].([]any)
				if len(evs) != 1 {
					t.Fatalf("want the one rotation of %s: %v", fx.keyToRotate, b)
				}
				ev := evs[0].(map[string]any)
				origin, _ := ev["origin"].(map[string]any)
				if actor, _ := ev["actor"].(string); !strings.HasPrefix(actor, "key_") || ev["target_type"] != "api_key" ||
					origin["transport"] != transport || origin["client_ip"] != "127.0.0.1" || origin["request_id"] == "" {
					t.Errorf("rotation recorded with the wrong actor, target or origin: %v", ev)
				}
			},
		},
		{
			name: "audit events need keys:admin", key: e.readOnly, method: "/creativeops.v1.AuditService/ListAuditEvents", resp: msg(&creativeopsv1.ListAuditEventsResponse{}),
			req: &creativeopsv1.ListAuditEventsRequest{}, httpMethod: "GET", path: "/v1/audit-events",
			wantHTTP: http.StatusForbidden, wantCode: codes.PermissionDenied, wantReason: "MISSING_SCOPE",
		},
		{
			name: "audit events of another organization", key: e.otherOrg, method: "/creativeops.v1.AuditService/ListAuditEvents", resp: msg(&creativeopsv1.ListAuditEventsResponse{}),
			req: &creativeopsv1.ListAuditEventsRequest{TargetId: fx.keyToRotate}, httpMethod: "GET", path: "/v1/audit-events?target_id=" + fx.keyToRotate,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				if evs, _ := b["audit_events"].([]any); len(evs) != 0 {
					t.Errorf("another organization sees %d audit events of this one: %v", len(evs), b)
				}
			},
		},
		{
			name: "audit events with an unknown action", key: e.AdminKey, method: "/creativeops.v1.AuditService/ListAuditEvents", resp: msg(&creativeopsv1.ListAuditEventsResponse{}),
			req: &creativeopsv1.ListAuditEventsRequest{Action: "key.stolen"}, httpMethod: "GET", path: "/v1/audit-events?action=key.stolen",
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"action"},
		},
		{
			name: "audit events with a forged page token", key: e.AdminKey, method: "/creativeops.v1.AuditService/ListAuditEvents", resp: msg(&creativeopsv1.ListAuditEventsResponse{}),
			req: &creativeopsv1.ListAuditEventsRequest{PageToken: "djI6YXVkXzAxOmZvcmdlZA"}, httpMethod: "GET", path: "/v1/audit-events?page_token=djI6YXVkXzAxOmZvcmdlZA",
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantReason: "INVALID_PAGE_TOKEN", wantFields: []string{"page_token"},
		},
		{
			name: "audit events of a deleted plan", key: e.AdminKey, method: "/creativeops.v1.AuditService/ListAuditEvents", resp: msg(&creativeopsv1.ListAuditEventsResponse{}),
			req: &creativeopsv1.ListAuditEventsRequest{Action: "plan.deleted", TargetId: fx.planToDelete}, httpMethod: "GET", path: "/v1/audit-events?action=plan.deleted&target_id=" + fx.planToDelete,
			wantHTTP: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				evs, _ := b["audit_events"].([]any)
				if len(evs) != 1 || evs[0].(map[string]any)["target_type"] != "plan" {
					t.Errorf("want the one deletion of %s: %v", fx.planToDelete, b)
				}
			},
		},
		{
			name: "audit events with to before from", key: e.AdminKey, method: "/creativeops.v1.AuditService/ListAuditEvents", resp: msg(&creativeopsv1.ListAuditEventsResponse{}),
			req:        &creativeopsv1.ListAuditEventsRequest{From: timestamppb.New(now), To: timestamppb.New(now.Add(-time.Hour))},
			httpMethod: "GET", path: "/v1/audit-events?from=" + now.Format(time.RFC3339) + "&to=" + from,
			wantHTTP: http.StatusBadRequest, wantCode: codes.InvalidArgument, wantFields: []string{"to"},
		},
	}
}

// TestServicesOverBothTransports runs the case table of every service
// over REST and over gRPC, and fails when an RPC has no case: a new RPC
// cannot ship tested over one transport only.
func TestServicesOverBothTransports(t *testing.T) {
	covered := map[string]bool{}
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := newEnv(t, b)
			for _, transport := range []string{"rest", "grpc"} {
				t.Run(transport, func(t *testing.T) {
					fx := newFixture(t, e, transport)
					cases := append(creatorCases(e, transport), serviceCases(e, fx, transport)...)
					for _, c := range cases {
						covered[c.method] = true
						t.Run(c.name, func(t *testing.T) {
							if transport == "rest" {
								runREST(t, e, c)
							} else {
								runGRPC(t, e, c)
							}
						})
					}
				})
			}
		})
	}
	for _, m := range rpcrule.All() {
		if !covered[m.FullMethod] {
			t.Errorf("%s has no case in the REST+gRPC case table", m.FullMethod)
		}
	}
}

// Every RPC answers its declared success status over REST (the case table
// asserts the statuses; this ties them to the declarations).
func TestDeclaredStatusesMatchTheCases(t *testing.T) {
	e := &env{Server: &testserver.Server{AdminKey: "co_live_placeholder"}}
	cases := serviceCases(e, fixture{}, "rest")
	for _, c := range append(cases, creatorCases(e, "rest")...) {
		if c.wantHTTP >= 300 || c.name == "run a workflow asynchronously" {
			continue
		}
		m, ok := rpcrule.Lookup(c.method)
		if !ok {
			t.Fatalf("%s: unknown method", c.method)
		}
		if m.SuccessStatus != c.wantHTTP {
			t.Errorf("%s (%s) expects %d but declares %d", c.name, c.method, c.wantHTTP, m.SuccessStatus)
		}
	}
}

// privateJWKS is a JWK set holding a private key, which a client must never
// register (nor send anywhere).
func privateJWKS() *structpb.Struct {
	s, _ := structpb.NewStruct(map[string]any{"keys": []any{map[string]any{"kty": "EC", "crv": "P-256", "kid": "k1",
		"x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
		"d": "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}}})
	return s
}

func mustStruct(m map[string]any) *structpb.Struct {
	s, err := structpb.NewStruct(m)
	if err != nil {
		panic(err)
	}
	return s
}
