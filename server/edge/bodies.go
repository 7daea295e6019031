package edge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
)

// The REST, Connect and gRPC-Web transports read a request's body into
// memory before decoding it. Three rules keep that memory bounded whoever
// sends the bodies:
//
//   - a request to the API is authenticated from its headers, before a
//     byte of its body is read: without a valid credential it is answered
//     401 and its connection closed, so an anonymous client cannot make the
//     server hold bodies;
//   - a request outside the API (dashboard sign-in, the OAuth endpoints,
//     probes, unknown paths) may carry at most SmallBodyBytes;
//   - the bodies held at once share one budget (server.Config.BodyMemory), of
//     which one organization may hold an eighth and one client address
//     (for requests outside the API) a sixty-fourth: past its share a
//     request gets 429 at once; when the whole budget is taken it waits
//     bodyWait and then gets 503, both with Retry-After, instead of growing
//     the heap.
//
// The first rule is the server's admit (server/admission.go), which also
// checks the method's scope and spends the key's rate-limit token before
// the body is read.

const (
	// bodyWait is how long a request waits for room in the body budget.
	bodyWait = 2 * time.Second
	// SmallBodyBytes bounds bodies sent outside the API.
	SmallBodyBytes = 64 << 10
)

// MaxBodyBytes is the largest request body accepted (1 MiB).
const MaxBodyBytes = 1 << 20

// Bodies applies the rules above: one per server.
type Bodies struct {
	budget  *bodyBudget
	proxies Proxies
}

// NewBodies is the body budget of a server holding at most memory bytes
// of request bodies at once, counting anonymous clients by their address
// as proxies tell it.
func NewBodies(memory int64, proxies Proxies) *Bodies {
	return &Bodies{budget: newBodyBudget(memory), proxies: proxies}
}

// bodyBudget is the server-wide allowance of buffered request bodies.
type bodyBudget struct {
	sem *semaphore.Weighted
	max int64

	mu   sync.Mutex
	held map[string]int64 // by holder: "org:<id>" or "addr:<ip>"
}

func newBodyBudget(bytes int64) *bodyBudget {
	return &bodyBudget{sem: semaphore.NewWeighted(bytes), max: bytes, held: map[string]int64{}}
}

// share is how much of the budget one holder may hold at once, never less
// than one body of the largest size it may send.
func (b *bodyBudget) share(holder string, limit int64) int64 {
	div := int64(8)
	if strings.HasPrefix(holder, "addr:") {
		div = 64
	}
	return max(b.max/div, limit)
}

var (
	errHolderFull = errors.New("the caller holds its share of the body budget")
	errBudgetFull = errors.New("the body budget is full")
)

// reserve takes room for a body of n bytes (limit when unknown) for
// holder, and returns how much it took.
func (b *bodyBudget) reserve(ctx context.Context, holder string, n, limit int64) (int64, error) {
	if n < 0 || n > limit {
		n = limit
	}
	n = min(n, b.max)
	b.mu.Lock()
	if b.held[holder]+n > b.share(holder, limit) {
		b.mu.Unlock()
		return 0, errHolderFull
	}
	b.held[holder] += n
	b.mu.Unlock()
	if b.sem.TryAcquire(n) {
		return n, nil
	}
	ctx, cancel := context.WithTimeout(ctx, bodyWait)
	defer cancel()
	if b.sem.Acquire(ctx, n) != nil {
		b.forget(holder, n)
		return 0, errBudgetFull
	}
	return n, nil
}

func (b *bodyBudget) release(holder string, n int64) {
	b.sem.Release(n)
	b.forget(holder, n)
}

func (b *bodyBudget) forget(holder string, n int64) {
	b.mu.Lock()
	if b.held[holder] -= n; b.held[holder] <= 0 {
		delete(b.held, holder)
	}
	b.mu.Unlock()
}

func serverBusy() *status.Status {
	return apierror.New(codes.Unavailable, "SERVER_BUSY", "the server is receiving too many request bodies at once; retry shortly").GRPCStatus()
}

func tooManyBodies() *status.Status {
	return apierror.New(codes.ResourceExhausted, "TOO_MANY_BODIES", "too many request bodies from this caller are being received at once; retry shortly").GRPCStatus()
}

func TooLarge(limit int64) *status.Status {
	size := fmt.Sprintf("%d KiB", limit>>10)
	if limit%(1<<20) == 0 {
		size = fmt.Sprintf("%d MiB", limit>>20)
	}
	return apierror.New(codes.ResourceExhausted, "PAYLOAD_TOO_LARGE", "the request body is larger than "+size).GRPCStatus()
}

// Admit applies the rules to a request that has a body, before any of
// it is read, for the caller the server's admission found (p, nil outside the API). When
// it refuses the request it answers through refuse (in the caller's
// protocol) and returns false; otherwise it returns the largest body the
// request may send, and release, to be called once the body is no longer
// held.
func (b *Bodies) Admit(w http.ResponseWriter, r *http.Request, p *auth.Principal, refuse func(*status.Status)) (limit int64, release func(), ok bool) {
	refuse = Closing(w, refuse)
	limit = SmallBodyBytes
	holder := "addr:" + b.proxies.RequestLimitKey(r)
	if p != nil {
		limit, holder = MaxBodyBytes, "org:"+p.OrganizationID
	}
	if r.ContentLength > limit {
		if p != nil {
			DiscardRefusedBody(w, r, r.Body)
		}
		refuse(TooLarge(limit))
		return 0, nil, false
	}
	held, err := b.budget.reserve(r.Context(), holder, r.ContentLength, limit)
	if err != nil {
		w.Header().Set("Retry-After", strconv.Itoa(int(bodyWait/time.Second)))
		if errors.Is(err, errHolderFull) {
			refuse(tooManyBodies())
		} else {
			refuse(serverBusy())
		}
		return 0, nil, false
	}
	return limit, func() { b.budget.release(holder, held) }, true
}

// A client that writes its whole body before reading the answer (most do)
// and is answered 413 while still writing often never sees the answer:
// the server closes the connection with the client's bytes unread, its
// kernel resets the connection, and the client's kernel drops the 413
// with it, so the client reports a broken pipe. So the body of a request
// refused as too large is read and thrown away before the answer, up to
// refusedBodyDrain bytes and for at most refusedBodyWait, then the
// connection is closed as before. Only an authenticated caller's body is
// read (an anonymous one is refused from its headers alone), and none is
// held in memory.
const (
	refusedBodyDrain = 4 << 20
	refusedBodyWait  = 5 * time.Second
)

// DiscardRefusedBody reads and discards what body may still send (r's
// body or what remains of it), within the bounds above. A client that
// asked to be told before sending (Expect: 100-continue) is answered at
// once: reading would invite the body.
func DiscardRefusedBody(w http.ResponseWriter, r *http.Request, body io.Reader) {
	if body == nil || body == http.NoBody || strings.EqualFold(r.Header.Get("Expect"), "100-continue") || r.ProtoMajor != 1 {
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(refusedBodyWait))
	_, _ = io.Copy(io.Discard, io.LimitReader(body, refusedBodyDrain))
}

// Closing answers through refuse and closes the connection after the
// answer: a refused body is never read, and closing spares it, as
// net/http would otherwise drain the body first.
func Closing(w http.ResponseWriter, refuse func(*status.Status)) func(*status.Status) {
	return func(st *status.Status) {
		w.Header().Set("Connection", "close")
		refuse(st)
	}
}
