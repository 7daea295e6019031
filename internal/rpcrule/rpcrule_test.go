package rpcrule_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/rpcrule"
)

// Every RPC declares exactly one known scope and a success status the REST
// facade can send, so no method ships without deciding who may call it and
// what it answers.
func TestEveryMethodDeclaresItsRule(t *testing.T) {
	methods := rpcrule.All()
	if len(methods) < 30 {
		t.Fatalf("found %d methods; the creativeops.v1 descriptors are not all registered", len(methods))
	}
	allowed := map[int]bool{http.StatusOK: true, http.StatusCreated: true, http.StatusAccepted: true, http.StatusNoContent: true}
	for _, m := range methods {
		if !m.HasRule {
			t.Errorf("%s has no (creativeops.v1.rule) option", m.FullMethod)
			continue
		}
		if !auth.ValidScope(m.Scope) || m.Scope == auth.ScopeAll {
			t.Errorf("%s declares scope %q, which is not one of %v", m.FullMethod, m.Scope, auth.AllScopes)
		}
		if !allowed[m.SuccessStatus] {
			t.Errorf("%s declares success status %d; want 200, 201, 202 or 204", m.FullMethod, m.SuccessStatus)
		}
		if m.AcceptedStatus != 0 && m.AcceptedStatus != http.StatusAccepted {
			t.Errorf("%s declares accepted status %d; want 202", m.FullMethod, m.AcceptedStatus)
		}
		if m.HTTPMethod == "" || m.Template == "" {
			t.Errorf("%s has no google.api.http route", m.FullMethod)
		}
		if m.HTTPMethod == http.MethodDelete && m.SuccessStatus != http.StatusNoContent {
			t.Errorf("%s is a DELETE answering %d; deletions answer 204", m.FullMethod, m.SuccessStatus)
		}
	}
}

func TestLookup(t *testing.T) {
	m, ok := rpcrule.Lookup("/creativeops.v1.CreatorsService/CreateCreator")
	if !ok || m.Scope != auth.ScopeCreatorsWrite || m.SuccessStatus != http.StatusCreated || m.Template != "/v1/creators" {
		t.Fatalf("CreateCreator = %+v, %v", m, ok)
	}
	m, ok = rpcrule.Lookup("/creativeops.v1.EngineService/RunWorkflow")
	if !ok || m.SuccessStatus != http.StatusOK || m.AcceptedStatus != http.StatusAccepted {
		t.Fatalf("RunWorkflow = %+v, %v", m, ok)
	}
	if _, ok := rpcrule.Lookup("/creativeops.v1.CreatorsService/Nope"); ok {
		t.Fatal("an unknown method was found")
	}
}

// Match routes a request as the gateway does, and every declared route
// matches itself.
func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		method, path, want string
	}{
		{"GET", "/v1/creators/cr_1", "/creativeops.v1.CreatorsService/GetCreator"},
		{"GET", "/v1/creators", "/creativeops.v1.CreatorsService/ListCreators"},
		{"POST", "/v1/creators", "/creativeops.v1.CreatorsService/CreateCreator"},
		{"POST", "/v1/keys/key_1:rotate", "/creativeops.v1.KeysService/RotateKey"},
		{"DELETE", "/v1/keys/key_1", "/creativeops.v1.KeysService/RevokeKey"},
		{"POST", "/v1/webhooks/wh_1/deliveries/dl_1:redeliver", "/creativeops.v1.WebhooksService/RedeliverDelivery"},
		{"POST", "/v1/engine/jobs/job_1:cancel", "/creativeops.v1.EngineService/CancelJob"},
		{"POST", "/v1/keys/key_1:revoke", ""},
		{"POST", "/v1/keys/:rotate", ""},
		{"GET", "/v1/creators/", ""},
		{"PUT", "/v1/creators", ""},
		{"GET", "/v1/creators/cr_1/extra", ""},
	} {
		m, ok := rpcrule.Match(tc.method, tc.path)
		if ok != (tc.want != "") || m.FullMethod != tc.want {
			t.Errorf("Match(%s %s) = %q, %v; want %q", tc.method, tc.path, m.FullMethod, ok, tc.want)
		}
	}
	for _, m := range rpcrule.All() {
		if m.Template == "" {
			continue
		}
		path := strings.NewReplacer("{", "", "}", "").Replace(m.Template)
		if got, ok := rpcrule.Match(m.HTTPMethod, path); !ok || got.FullMethod != m.FullMethod {
			t.Errorf("%s %s (from %s) matched %q, %v", m.HTTPMethod, path, m.Template, got.FullMethod, ok)
		}
	}
}
