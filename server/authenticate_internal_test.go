package server

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
)

// authenticate lets gRPC's own public methods through without a
// credential, refuses a method outside the API (or one declaring no
// scope) even to a key holding every scope, and hands the API's methods
// their caller, for the services and for the audit log.
func TestAuthenticateByMethod(t *testing.T) {
	s := &Server{}
	p := &auth.Principal{KeyID: "key_1", OrganizationID: "org_1", Scopes: []string{auth.ScopeAll}}
	admittedCtx := func() context.Context {
		ri := &requestInfo{id: "req_1", clientIP: "192.0.2.1", userAgent: "test", viaGateway: true}
		return withRequestInfo(context.WithValue(context.Background(), admittedKey{}, admitted{p: p}), ri)
	}
	var seen context.Context
	handler := func(ctx context.Context, _ any) (any, error) { seen = ctx; return "ok", nil }
	call := func(ctx context.Context, method string) error {
		seen = nil
		_, err := s.authenticate(ctx, nil, &grpc.UnaryServerInfo{FullMethod: method}, handler)
		return err
	}

	if err := call(context.Background(), "/grpc.health.v1.Health/Check"); err != nil || seen == nil {
		t.Errorf("a health check without a credential: %v", err)
	}
	err := call(admittedCtx(), "/creativeops.v1.CreatorsService/NoSuchMethod")
	var ae *apierror.Error
	if !errors.As(err, &ae) || ae.Code != codes.PermissionDenied || ae.Reason != "METHOD_NOT_AVAILABLE" || seen != nil {
		t.Errorf("a method outside the API: %v, want METHOD_NOT_AVAILABLE", err)
	}
	if err := call(admittedCtx(), "/creativeops.v1.CreatorsService/GetCreator"); err != nil || seen == nil {
		t.Fatalf("GetCreator with an admitted key: %v", err)
	}
	if got, ok := auth.FromContext(seen); !ok || got != p {
		t.Errorf("the handler's principal is %v, want the admitted key's", got)
	}
	want := audit.Origin{ClientIP: "192.0.2.1", UserAgent: "test", RequestID: "req_1", Transport: audit.TransportREST}
	if actor, origin := audit.ActorFrom(seen), audit.OriginFrom(seen); actor != "key_1" || origin != want {
		t.Errorf("audit caller %q from %+v; want key_1 from %+v", actor, origin, want)
	}
}
