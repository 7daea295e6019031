package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"golang.org/x/sync/semaphore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/apierror"
)

// The REST, Connect and gRPC-Web transports read a request's body into
// memory before decoding it (at most MaxBodyBytes). Two rules keep that
// memory bounded whoever sends the bodies:
//
//   - a request to the API that carries no credential at all is answered
//     401 from its headers, before a byte of its body is read, so an
//     anonymous client cannot make the server hold bodies;
//   - the bodies held at once, across every request, share one budget
//     (Config.BodyMemory); a request that cannot get its share within
//     bodyWait gets 503 with Retry-After instead of growing the heap.

// bodyWait is how long a request waits for room in the body budget.
const bodyWait = 2 * time.Second

// bodyBudget is the server-wide allowance of buffered request bodies.
type bodyBudget struct {
	sem *semaphore.Weighted
	max int64
}

func newBodyBudget(bytes int64) *bodyBudget {
	return &bodyBudget{sem: semaphore.NewWeighted(bytes), max: bytes}
}

// reserve takes room for a body of n bytes (MaxBodyBytes when unknown) and
// returns how much it took; false when none came within bodyWait or the
// request ended first.
func (b *bodyBudget) reserve(ctx context.Context, n int64) (int64, bool) {
	if n < 0 || n > MaxBodyBytes {
		n = MaxBodyBytes
	}
	n = min(n, b.max)
	if b.sem.TryAcquire(n) {
		return n, true
	}
	ctx, cancel := context.WithTimeout(ctx, bodyWait)
	defer cancel()
	return n, b.sem.Acquire(ctx, n) == nil
}

func (b *bodyBudget) release(n int64) {
	if n > 0 {
		b.sem.Release(n)
	}
}

func serverBusy() *status.Status {
	return apierror.New(codes.Unavailable, "SERVER_BUSY", "the server is receiving too many request bodies at once; retry shortly").GRPCStatus()
}

// needsCredential reports whether a request goes to a method that requires
// authentication: every REST route under /v1/ but the API description, and
// every Connect or gRPC-Web call to the creativeops services.
func needsCredential(r *http.Request) bool {
	p := r.URL.Path
	return strings.HasPrefix(p, "/v1/") && p != "/v1/openapi.json" || strings.HasPrefix(p, "/creativeops.v1.")
}

// carriesCredential reports whether a request brings anything the
// authenticate interceptor could accept; whether it is valid is decided
// there, once, for every transport.
func carriesCredential(r *http.Request) bool {
	return r.Header.Get("Authorization") != "" || carriesSession(r)
}

// admitBody applies both rules to a request that has a body, before any of
// it is read. When it refuses the request it answers through refuse (in
// the caller's protocol) and returns false; otherwise the caller must call
// release once the body is no longer held.
func (s *Server) admitBody(w http.ResponseWriter, r *http.Request, refuse func(*status.Status)) (release func(), ok bool) {
	if needsCredential(r) && !carriesCredential(r) {
		// Closing the connection spares reading the body: net/http would
		// otherwise drain it before answering.
		w.Header().Set("Connection", "close")
		refuse(errUnauthenticated.GRPCStatus())
		return nil, false
	}
	held, ok := s.bodies.reserve(r.Context(), r.ContentLength)
	if !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(bodyWait/time.Second)))
		refuse(serverBusy())
		return nil, false
	}
	return func() { s.bodies.release(held) }, true
}

// rpcErrors writes an error in the protocol of a Connect or gRPC-Web call.
var rpcErrors = connect.NewErrorWriter()

func writeRPCError(w http.ResponseWriter, r *http.Request, st *status.Status) {
	err := connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	for _, d := range st.Proto().GetDetails() {
		if det, derr := connect.NewErrorDetail(d); derr == nil {
			err.AddDetail(det)
		}
	}
	_ = rpcErrors.Write(w, r, err)
}
