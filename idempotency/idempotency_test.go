package idempotency

import (
	"context"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
)

// Organizations' keys are apart: two organizations sending the same
// Idempotency-Key with the same request each run it once, and each
// retry is answered with its own organization's stored response, never
// the other's.
func TestKeysAreScopedToTheOrganization(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			s := NewStore(teststore.Open(t, b))
			const key, method, fingerprint = "retry-1", "/creativeops.v1.CreatorsService/CreateCreator", "same body"
			for _, org := range []string{"org_a", "org_b"} {
				begun, err := s.Begin(ctx, org, key, method, fingerprint)
				if err != nil || !begun.Run {
					t.Fatalf("%s's first request: %+v, %v; want it run", org, begun, err)
				}
				if err := s.Finish(ctx, begun.ID, Outcome{Response: []byte(org + "'s creator"), HTTPStatus: 201}); err != nil {
					t.Fatal(err)
				}
			}
			for _, org := range []string{"org_b", "org_a"} {
				begun, err := s.Begin(ctx, org, key, method, fingerprint)
				if err != nil || begun.Replay == nil {
					t.Fatalf("%s's retry: %+v, %v; want a replay", org, begun, err)
				}
				if got := string(begun.Replay.Response); got != org+"'s creator" {
					t.Fatalf("%s's retry answered with %q", org, got)
				}
			}
		})
	}
}
