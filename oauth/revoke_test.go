package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/creativeops/creativeops/ent/keyepoch"
	"github.com/creativeops/creativeops/internal/testdb"
)

// revokeRequest posts a revocation of token by the fixture's client.
func (f *fixture) revokeRequest(t testing.TB, token string) (int, string) {
	t.Helper()
	form := url.Values{"token": {token}}
	req := httptest.NewRequest("POST", RevokePath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(f.client.ID), url.QueryEscape(f.secret))
	rec := httptest.NewRecorder()
	mux := http.NewServeMux()
	f.svc.Register(mux)
	mux.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// RFC 7009 section 2.2: revoking a token already revoked is answered 200,
// like the first revocation, on every database (ent's insert with ON
// CONFLICT DO NOTHING reads back no row there, which was answered 500),
// and changes nothing the second time.
func TestRevokeTwiceIsOK(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			f := newFixtureOn(t, b.URL(t))
			ctx := context.Background()
			tok := f.issue(t)
			if code, body := f.revokeRequest(t, tok); code != 200 {
				t.Fatalf("first revocation: %d %s", code, body)
			}
			epoch := func() int64 {
				ep, err := f.store.Ent.KeyEpoch.Query().Where(keyepoch.ID(epochID)).Only(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return ep.Epoch
			}
			before := epoch()
			for i := range 3 {
				if code, body := f.revokeRequest(t, tok); code != 200 {
					t.Fatalf("revocation %d of a revoked token: %d %s", i+2, code, body)
				}
			}
			if after := epoch(); after != before {
				t.Fatalf("revoking a revoked token moved the OAuth epoch from %d to %d", before, after)
			}

			// Concurrent revocations of one token all succeed: those that
			// lose the race to insert find the row there.
			st, _ := f.svc.current()
			c, err := f.svc.parse(st, f.issue(t))
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for range 8 {
				wg.Go(func() { errs <- f.svc.revoke(ctx, c) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("concurrent revocation: %v", err)
				}
			}
		})
	}
}
