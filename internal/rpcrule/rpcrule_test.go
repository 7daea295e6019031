package rpcrule_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	_ "google.golang.org/protobuf/types/known/emptypb"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
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
		if err := m.Check(); err != nil {
			t.Errorf("%s: %v", m.FullMethod, err)
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
		{"GET", "/v1/creators/cr_1:export", "/creativeops.v1.CreatorsService/ExportCreator"},
		{"GET", "/v1/creators/cr_1", "/creativeops.v1.CreatorsService/GetCreator"},
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

// A deprecation is read from the method's options as declared, and Check
// holds it to the policy of docs/versioning.md. Nothing in the API is
// deprecated yet, so the methods here are built for the test.
func TestDeprecationDeclarations(t *testing.T) {
	for _, tc := range []struct {
		name       string
		deprecated bool
		d          *creativeopsv1.Deprecation
		want       rpcrule.Deprecation
		wantErr    string
	}{
		{name: "current"},
		{name: "dated", deprecated: true,
			d:    &creativeopsv1.Deprecation{Since: "2027-01-15", Sunset: "2027-07-15", Link: "https://example.com/v1/new"},
			want: rpcrule.Deprecation{Since: date(2027, 1, 15), Sunset: date(2027, 7, 15), Link: "https://example.com/v1/new"}},
		{name: "no sunset yet", deprecated: true,
			d: &creativeopsv1.Deprecation{Since: "2027-01-15"}, want: rpcrule.Deprecation{Since: date(2027, 1, 15)}},
		{name: "undated", deprecated: true, wantErr: "without rule.deprecation.since"},
		{name: "dated only", d: &creativeopsv1.Deprecation{Since: "2027-01-15"}, wantErr: "without option deprecated = true"},
		{name: "short notice", deprecated: true, d: &creativeopsv1.Deprecation{Since: "2027-01-15", Sunset: "2027-07-14"}, wantErr: "less than 6 months"},
		{name: "bad since", deprecated: true, d: &creativeopsv1.Deprecation{Since: "15/01/2027"}, wantErr: `since "15/01/2027": want YYYY-MM-DD`},
		{name: "bad sunset", deprecated: true, d: &creativeopsv1.Deprecation{Since: "2027-01-15", Sunset: "2027-13-01"}, wantErr: "sunset"},
		{name: "plain link", deprecated: true, d: &creativeopsv1.Deprecation{Since: "2027-01-15", Link: "http://example.com"}, wantErr: "want an https URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := rpcrule.Describe(testMethod(t, tc.deprecated, tc.d))
			if m.Deprecated != tc.deprecated {
				t.Errorf("Deprecated = %v", m.Deprecated)
			}
			err := m.Check()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Check() = %v; want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check() = %v", err)
			}
			if m.Deprecation != tc.want {
				t.Fatalf("Deprecation = %+v; want %+v", m.Deprecation, tc.want)
			}
		})
	}
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// testMethod builds a service with one method declaring the given
// deprecation, over the real options.proto.
func testMethod(t *testing.T, deprecated bool, d *creativeopsv1.Deprecation) (protoreflect.ServiceDescriptor, protoreflect.MethodDescriptor) {
	t.Helper()
	opts := &descriptorpb.MethodOptions{}
	if deprecated {
		opts.Deprecated = proto.Bool(true)
	}
	proto.SetExtension(opts, creativeopsv1.E_Rule, &creativeopsv1.MethodRule{Scope: auth.ScopeCreatorsRead, Deprecation: d})
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name:       proto.String("rpcrule_test.proto"),
		Package:    proto.String("rpcruletest"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/empty.proto"},
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("TestService"),
			Method: []*descriptorpb.MethodDescriptorProto{{
				Name: proto.String("Old"), InputType: proto.String(".google.protobuf.Empty"),
				OutputType: proto.String(".google.protobuf.Empty"), Options: opts,
			}},
		}},
	}, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	svc := fd.Services().Get(0)
	return svc, svc.Methods().Get(0)
}
