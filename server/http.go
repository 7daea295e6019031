package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/server/edge"
)

// requestInfo travels in the request context so that the HTTP layer and the
// interceptors share what each learns: the id, the route, the caller.
type requestInfo struct {
	id       string
	route    route
	keyID    string
	orgID    string
	grpcCode codes.Code
	// clientIP is the client's address (edge.Proxies), for the audit log
	// and the request log; userAgent that of REST requests.
	clientIP, userAgent string
	// admitted is what admission learned of a REST request (admittedFrom).
	admitted admitted
	// method is the API method the call runs, nil outside the API:
	// identify looks it up once for the interceptors.
	method *rpcrule.Method
	// viaGateway marks a REST call, which the in-process gateway runs.
	viaGateway bool
}

type requestInfoKey struct{}

func withRequestInfo(ctx context.Context, ri *requestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, ri)
}

func requestInfoFrom(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return ri
}

// requestOrg is the organization of the request ctx serves, "" for none.
func requestOrg(ctx context.Context) string {
	if ri := requestInfoFrom(ctx); ri != nil {
		return ri.orgID
	}
	return ""
}

func requestIDFrom(ctx context.Context) string {
	if ri := requestInfoFrom(ctx); ri != nil {
		return ri.id
	}
	return ""
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

// validRequestID accepts ids a client may reasonably send: short and made of
// safe characters, so an echoed id cannot inject into headers or logs.
func validRequestID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// rpcRequestID is the id of a Connect or gRPC-Web call: the client's
// X-Request-Id when valid, or a new one, which the call then carries to
// the gRPC server, so that a refusal before the interceptors and the
// interceptors' own response name the call alike.
func rpcRequestID(r *http.Request) string {
	id := r.Header.Get("X-Request-Id")
	if !validRequestID(id) {
		id = newRequestID()
		r.Header.Set("X-Request-Id", id)
	}
	return id
}

// statusRecorder captures the response status for the request log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// restRequest is what restMiddleware keeps of a request while serving it,
// in one allocation rather than one each.
type restRequest struct {
	info requestInfo
	rec  statusRecorder
}

// restMiddleware wraps every non-gRPC request: request id, the body limit,
// the literal DEL method, and one log line.
func (s *Server) restMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rr := &restRequest{
			info: requestInfo{id: r.Header.Get("X-Request-Id"), clientIP: edge.AddrString(s.proxies.Request(r)), userAgent: r.UserAgent()},
			rec:  statusRecorder{ResponseWriter: w},
		}
		ri, rec := &rr.info, &rr.rec
		if !validRequestID(ri.id) {
			ri.id = newRequestID()
		}
		// The one context of the request: what admission learns goes into
		// ri rather than into a context (and a copy of r) of its own.
		r = r.WithContext(withRequestInfo(r.Context(), ri))
		w.Header().Set("X-Request-Id", ri.id)
		defer func() {
			s.observeHTTP(r, ri, rec.status, start)
			s.traceRoute(r, ri)
		}()

		// The API listing writes DELETE as "DEL"; accept it literally.
		if r.Method == "DEL" {
			r.Method = http.MethodDelete
		}
		refuse := func(st *status.Status) { writeError(rec, r, st) }
		a, ok := s.admit(rec, r, ri, refuse)
		if !ok {
			s.logHTTP(r, ri, rec, start)
			return
		}
		ri.admitted = a
		if r.Body != nil && r.Body != http.NoBody {
			limit, release, ok := s.bodies.Admit(rec, r, a.p, refuse)
			if !ok {
				s.logHTTP(r, ri, rec, start)
				return
			}
			defer release()
			// Reading the body up front turns an oversized chunked body into
			// a clean 413 instead of a decoder error deep in the gateway.
			sent := r.Body
			body, err := io.ReadAll(http.MaxBytesReader(rec, sent, limit))
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				edge.DiscardRefusedBody(rec, r, sent)
				writeError(rec, r, edge.TooLarge(limit))
				s.logHTTP(r, ri, rec, start)
				return
			}
			if err != nil {
				writeError(rec, r, apierror.New(codes.InvalidArgument, "BAD_BODY", "could not read the request body").GRPCStatus())
				s.logHTTP(r, ri, rec, start)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(rec, r)
		s.logHTTP(r, ri, rec, start)
	})
}

func (s *Server) logHTTP(r *http.Request, ri *requestInfo, rec *statusRecorder, start time.Time) {
	latency := time.Since(start)
	o := edge.OutcomeOf(rec.status)
	log, unlogged := s.reqLog.Wants(ri.orgID, o, latency)
	if !log {
		return
	}
	routeName := ri.route.Template
	if routeName == "" {
		routeName = r.URL.Path
		if strings.HasPrefix(routeName, "/v1/") {
			routeName = "unmatched"
		}
	}
	// Probes come every few seconds from every load balancer and
	// orchestrator: at INFO they would drown the requests.
	level := slog.LevelInfo
	if routeName == "/healthz" || routeName == "/readyz" {
		level = slog.LevelDebug
	}
	attrs := []any{"transport", "http", "request_id", ri.id, "method", r.Method,
		"route", routeName, "status", rec.status, "latency_ms", ms(latency), "key_id", ri.keyID, "client_ip", ri.clientIP}
	if unlogged > 0 {
		attrs = append(attrs, edge.UnloggedAttr(o), unlogged)
	}
	s.log.Log(r.Context(), level, "request", attrs...)
}

// serveGRPC hands a native gRPC call on the HTTP server to the gRPC
// server, once admitted from its headers (admit) and with its messages
// metered against the body budget (edge.Bodies.MeterGRPC): grpc-go reads
// and buffers a call's message before any interceptor runs. The HTTP
// server bounds each HTTP/2 stream by the read and write timeouts from its
// headers, which are a unary call's limits as edge.Timeouts.GRPCOptions
// sets them on gRPC's own transport; streaming methods are long-lived by
// design and left to keepalive, there as here.
func (s *Server) serveGRPC(w http.ResponseWriter, r *http.Request) {
	start, ri := time.Now(), &requestInfo{id: rpcRequestID(r)}
	refuse := func(st *status.Status) {
		w.Header().Set("X-Request-Id", ri.id)
		writeGRPCError(w, st)
		s.observeRefusedCall(ri, httpStatus(st), start)
	}
	a, ok := s.admit(w, r, ri, refuse)
	if !ok {
		return
	}
	r = withAdmitted(r, a)
	body := s.bodies.MeterGRPC(r, a.p)
	defer body.Release()
	r.Body = body
	streaming := s.isStreaming(r.URL.Path)
	if !streaming {
		if err := body.AdmitFirst(); err != nil {
			if errors.Is(err, context.Canceled) {
				return
			}
			edge.SetRetryAfter(w.Header(), err)
			refuse(status.Convert(err))
			return
		}
	}
	if streaming {
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
	}
	s.grpc.ServeHTTP(w, r)
}

// writeGRPCError answers a native gRPC call with st, before the gRPC
// server has seen the call, as grpc-go's ServeHTTP answers an error: the
// headers set so far (the request id, the rate-limit state) as the
// response's headers, the status in its trailers.
func writeGRPCError(w http.ResponseWriter, st *status.Status) {
	h := w.Header()
	h.Set("Content-Type", "application/grpc")
	w.WriteHeader(http.StatusOK)
	h.Set(http.TrailerPrefix+"Grpc-Status", strconv.Itoa(int(st.Code())))
	h.Set(http.TrailerPrefix+"Grpc-Message", encodeGRPCMessage(st.Message()))
	if len(st.Proto().GetDetails()) > 0 {
		if b, err := proto.Marshal(st.Proto()); err == nil {
			h.Set(http.TrailerPrefix+"Grpc-Status-Details-Bin", base64.RawStdEncoding.EncodeToString(b))
		}
	}
}

// encodeGRPCMessage percent-encodes a grpc-message value: every byte
// outside printable ASCII, and '%' itself (the gRPC over HTTP/2 spec).
func encodeGRPCMessage(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c >= ' ' && c <= '~' && c != '%' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
