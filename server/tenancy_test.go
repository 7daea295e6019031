package server_test

import (
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/internal/testdb"
)

// sharedReads are the read RPCs whose resources belong to no organization.
var sharedReads = map[string]string{
	"/creativeops.v1.EngineService/GetWorkflow": "the workflow catalog is the same for every organization",
}

// readsByID reports whether a method reads a resource it names by id: a
// GET whose route holds a path variable.
func readsByID(m rpcrule.Method) bool {
	return m.HTTPMethod == http.MethodGet && strings.Contains(m.Template, "{")
}

// Tenancy per query, not per endpoint: every read RPC that names a
// resource, as the protos declare them, answers NOT_FOUND (404) to
// another organization's key for this organization's ids, over REST and
// gRPC, exactly as for an id that does not exist. Each is run from the
// successful call of the service case table with the other
// organization's key, so a new read RPC is covered as soon as it has its
// case, and fails this test until it does.
func TestReadsOfAnotherOrganizationsIDsAreNotFound(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := newEnv(t, b)
			fx := newFixture(t, e, "rest")
			succeeding := map[string]apiCase{}
			for _, c := range append(creatorCases(e, "rest"), serviceCases(e, fx, "rest")...) {
				if _, seen := succeeding[c.method]; !seen && c.httpMethod == http.MethodGet && c.wantHTTP < 300 {
					succeeding[c.method] = c
				}
			}
			n := 0
			for _, m := range rpcrule.All() {
				if !readsByID(m) || sharedReads[m.FullMethod] != "" {
					continue
				}
				c, ok := succeeding[m.FullMethod]
				if !ok {
					t.Errorf("%s reads by id but the case table has no successful GET of it to repeat from another organization", m.FullMethod)
					continue
				}
				n++
				// The call succeeds for its own organization...
				t.Run(m.Name+"/own", func(t *testing.T) { runREST(t, e, c) })
				// ...and is NOT_FOUND for another's.
				c.key, c.wantHTTP, c.wantCode, c.wantReason, c.wantFields, c.check = e.otherOrg, http.StatusNotFound, codes.NotFound, "", nil, nil
				t.Run(m.Name+"/rest", func(t *testing.T) { runREST(t, e, c) })
				t.Run(m.Name+"/grpc", func(t *testing.T) { runGRPC(t, e, c) })
			}
			if n < 8 {
				t.Fatalf("only %d read RPCs by id were found in the descriptors", n)
			}
		})
	}
}
