package server

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/creativeops/creativeops/internal/rpcrule"
)

// A deprecated method's responses, errors included, carry Deprecation,
// Sunset and Link; a current method's carry none. Nothing in the API is
// deprecated yet, so the methods are made up here.
func TestDeprecatedMethodsAnnounceIt(t *testing.T) {
	since, sunset := time.Date(2027, 1, 15, 0, 0, 0, 0, time.UTC), time.Date(2027, 7, 15, 0, 0, 0, 0, time.UTC)
	methods := map[string]rpcrule.Method{
		"/t.S/Old":     {Deprecated: true, Deprecation: rpcrule.Deprecation{Since: since, Sunset: sunset, Link: "https://example.com/new"}},
		"/t.S/Undated": {Deprecated: true, Deprecation: rpcrule.Deprecation{Since: since}},
		"/t.S/Current": {},
	}
	lookup := func(name string) (rpcrule.Method, bool) { m, ok := methods[name]; return m, ok }
	for _, tc := range []struct {
		method string
		fail   bool
		want   metadata.MD
	}{
		{"/t.S/Old", false, metadata.Pairs("deprecation", "@1799971200", "sunset", "Thu, 15 Jul 2027 00:00:00 GMT", "link", `<https://example.com/new>; rel="deprecation"`)},
		{"/t.S/Old", true, metadata.Pairs("deprecation", "@1799971200", "sunset", "Thu, 15 Jul 2027 00:00:00 GMT", "link", `<https://example.com/new>; rel="deprecation"`)},
		{"/t.S/Undated", false, metadata.Pairs("deprecation", "@1799971200")},
		{"/t.S/Current", false, nil},
		{"/t.S/Unknown", false, nil},
	} {
		stream := &inProcessStream{method: tc.method}
		ctx := grpc.NewContextWithServerTransportStream(context.Background(), stream)
		handler := func(context.Context, any) (any, error) {
			if tc.fail {
				return nil, errors.New("refused")
			}
			return "ok", nil
		}
		_, _ = announceDeprecation(lookup)(ctx, nil, &grpc.UnaryServerInfo{FullMethod: tc.method}, handler)
		if !reflect.DeepEqual(stream.header, tc.want) {
			t.Errorf("%s (failing: %v) sent headers %v; want %v", tc.method, tc.fail, stream.header, tc.want)
		}
	}
}

// The interceptor runs on every call, and REST answers carry what it sets.
func TestDeprecationHeadersReachEveryTransport(t *testing.T) {
	chain := (&Server{}).interceptorChain()
	if !slices.ContainsFunc(chain, func(ic grpc.UnaryServerInterceptor) bool {
		return reflect.ValueOf(ic).Pointer() == reflect.ValueOf(deprecations).Pointer()
	}) {
		t.Error("the interceptor chain does not announce deprecations")
	}
	for _, h := range []string{"deprecation", "sunset", "link"} {
		if !forwardedResponseHeaders[h] {
			t.Errorf("the gateway does not forward %s over REST", h)
		}
	}
}
