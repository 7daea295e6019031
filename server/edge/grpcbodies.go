package edge

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/auth"
)

// A native gRPC call on the API port is a stream of length-prefixed
// messages that grpc-go's ServeHTTP reads eagerly and buffers whole. So
// its body is let through one message at a time: a message's 5-byte
// prefix declares its length, and the bytes after it are read only once
// that length has been checked against the caller's limit and taken from
// the body budget, for as long as the call holds the message (until the
// next message's prefix, or the end of the call). The rules are those of
// the other transports (see Bodies): a caller with a credential may send
// messages of up to MaxBodyBytes and holds its organization's share; a
// call that needs none (health checks, reflection) messages of up to
// SmallBodyBytes and holds its address's.

// On the gRPC port (--grpc-addr) grpc-go's own transport receives a call's
// message before the server's code sees it, and grants a stream the
// flow-control window for the whole message (up to MaxBodyBytes) once the
// call is dispatched. A call without a valid credential is refused from
// its headers before that (the server's tap handle), so what a connection
// can make the server hold is bounded by its authenticated streams:
// GRPCStreamsPerConnection at once, each with a fixed window of
// grpcStreamWindow until its message is read, and at most MaxBodyBytes
// per message. grpc-go's default windows grow with the connection's
// measured bandwidth-delay product (to 16 MiB per stream); fixed windows
// do not. (MaxRecvMsgSize applies on the API port too.)
const (
	// GRPCStreamsPerConnection bounds the concurrent calls on one
	// connection to the gRPC port (grpc-go's default is unlimited).
	GRPCStreamsPerConnection = 100
	grpcStreamWindow         = 64 << 10
	grpcConnWindow           = 1 << 20
)

// GRPCConnectionLimits are the gRPC port's bounds on one connection, as
// described above.
func GRPCConnectionLimits() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxConcurrentStreams(GRPCStreamsPerConnection),
		grpc.MaxRecvMsgSize(MaxBodyBytes),
		grpc.StaticStreamWindowSize(grpcStreamWindow),
		grpc.StaticConnWindowSize(grpcConnWindow),
	}
}

// grpcPrefixLen is the length of a gRPC message's prefix: a flag byte and
// the message's length, 4 bytes big-endian.
const grpcPrefixLen = 5

// MeterGRPC wraps a native gRPC call's body, for the caller admission
// found (p, nil when the method needs no credential), so that each of its
// messages is admitted as above before it is read. The server admits a
// unary call's one message before handing the call to grpc-go
// (AdmitFirst), to answer a refusal with its own status; a later message
// of a stream refused is an error of the body's Read, which grpc-go
// answers as UNAVAILABLE, with the refusal in its message. Release gives
// back what the call still holds; call it once the call has ended.
func (b *Bodies) MeterGRPC(r *http.Request, p *auth.Principal) *GRPCBody {
	m := &GRPCBody{body: r.Body, budget: b.budget,
		limit: SmallBodyBytes, holder: "addr:" + b.proxies.RequestLimitKey(r)}
	m.ctx, m.cancel = context.WithCancel(r.Context())
	if p != nil {
		m.limit, m.holder = MaxBodyBytes, "org:"+p.OrganizationID
	}
	return m
}

// GRPCBody is a native gRPC call's body, metered (see MeterGRPC).
type GRPCBody struct {
	body io.ReadCloser
	// ctx ends a wait for room in the budget when the call ends (Close).
	ctx    context.Context
	cancel context.CancelFunc
	budget *bodyBudget
	holder string
	limit  int64

	// Only grpc-go's reader goroutine reads, and release runs after it
	// has stopped (ServeHTTP waits for it), so nothing here needs a lock.
	prefix [grpcPrefixLen]byte
	have   int   // bytes of the next message's prefix read so far
	left   int64 // bytes of the current message still to read
	held   int64 // taken from the budget for the current message
	err    error // the refusal, returned from every later Read
	// replay is what AdmitFirst read, for grpc-go to read again.
	replay []byte
}

// AdmitFirst reads the prefix of the call's first message and admits the
// message, before grpc-go reads any of the body. It returns the refusal,
// a status error, or nil: then the call goes on, and a body that ended
// before a whole prefix is left for grpc-go to find so.
func (m *GRPCBody) AdmitFirst() error {
	n, err := io.ReadFull(m.body, m.prefix[:])
	m.replay = m.prefix[:n:n]
	if err != nil {
		m.have = n
		return nil
	}
	return m.admit(int64(binary.BigEndian.Uint32(m.prefix[1:])))
}

func (m *GRPCBody) Read(p []byte) (int, error) {
	if len(m.replay) > 0 {
		n := copy(p, m.replay)
		m.replay = m.replay[n:]
		return n, nil
	}
	if m.err != nil {
		return 0, m.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// Never past the end of the current message or of the next prefix:
	// a message's bytes are read only once it has been admitted.
	want := int64(grpcPrefixLen - m.have)
	if m.left > 0 {
		want = m.left
	}
	if int64(len(p)) > want {
		p = p[:want]
	}
	n, err := m.body.Read(p)
	if m.left > 0 {
		m.left -= int64(n)
		return n, err
	}
	m.have += copy(m.prefix[m.have:], p[:n])
	if m.have < grpcPrefixLen {
		return n, err
	}
	m.have = 0
	if aerr := m.admit(int64(binary.BigEndian.Uint32(m.prefix[1:]))); aerr != nil {
		m.err = aerr
		return n, aerr
	}
	return n, err
}

// admit takes room for a message of n bytes, in place of the previous
// message's, which grpc-go has finished reading.
func (m *GRPCBody) admit(n int64) error {
	m.release()
	if m.ctx.Err() != nil {
		return m.ctx.Err()
	}
	if n > m.limit {
		return refusal{st: TooLarge(m.limit)}
	}
	held, err := m.budget.reserve(m.ctx, m.holder, n, m.limit)
	switch {
	case errors.Is(err, errHolderFull):
		return refusal{st: tooManyBodies(), retry: true}
	case err != nil:
		return refusal{st: serverBusy(), retry: true}
	}
	m.held, m.left = held, n
	return nil
}

// refusal is a message the budget refused: its status, and whether the
// caller should retry after bodyWait.
type refusal struct {
	st    *status.Status
	retry bool
}

func (r refusal) Error() string              { return r.st.Message() }
func (r refusal) GRPCStatus() *status.Status { return r.st }

// SetRetryAfter sets Retry-After on a refusal's response when err, a
// refusal of AdmitFirst, says when to retry.
func SetRetryAfter(h http.Header, err error) {
	var r refusal
	if errors.As(err, &r) && r.retry {
		h.Set("Retry-After", strconv.Itoa(int(bodyWait/time.Second)))
	}
}

func (m *GRPCBody) release() {
	if m.held > 0 {
		m.budget.release(m.holder, m.held)
		m.held = 0
	}
}

func (m *GRPCBody) Close() error {
	m.cancel()
	return m.body.Close()
}

// Release gives back what the call holds of the budget, once it has ended.
func (m *GRPCBody) Release() {
	m.cancel()
	m.release()
}
