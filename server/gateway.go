package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"regexp"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/creativeops/creativeops/apierror"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/server/edge"
	"github.com/creativeops/creativeops/server/wire"
)

// Handlers set these response headers through grpc.SetHeader; the gateway
// turns them into the HTTP status and headers.
const (
	headerAccepted = "x-accepted"
	headerLocation = "location"
	// A deprecated method's (see announceDeprecation).
	headerDeprecation = "deprecation"
	headerSunset      = "sunset"
	headerLink        = "link"
)

// markAccepted tells the REST facade that the call queued its work rather
// than doing it, so it answers with the method's declared accepted status
// (202) and a Location to poll. gRPC callers see the location header only.
func markAccepted(ctx context.Context, location string) {
	_ = grpc.SetHeader(ctx, metadata.Pairs(headerAccepted, "1", headerLocation, location))
}

// forwardedResponseHeaders are the gRPC response headers exposed over REST.
var forwardedResponseHeaders = map[string]bool{
	headerLocation:        true,
	"ratelimit":           true,
	"ratelimit-policy":    true,
	"retry-after":         true,
	"idempotent-replayed": true,
	headerRedacted:        true,
	headerDeprecation:     true,
	headerSunset:          true,
	headerLink:            true,
}

// forwardedRequestHeaders are the HTTP request headers passed to the
// services as gRPC metadata, by their (canonical) name, with the metadata
// key each becomes. The gateway passes Authorization on by itself: naming
// it here too made every request carry its key twice, and the matcher's
// keys in lower case spare metadata.Pairs a copy of each.
var forwardedRequestHeaders = map[string]string{
	"Idempotency-Key": "idempotency-key",
	// A dashboard session: its cookie and CSRF token (dashboard/sessions.go).
	"Cookie":       "cookie",
	"X-Csrf-Token": "x-csrf-token",
}

type runtimeMux = runtime.ServeMux

func newGatewayMux() *runtime.ServeMux {
	jsonpb := &runtime.JSONPb{
		MarshalOptions:   protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true},
		UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
	}
	return runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.HTTPBodyMarshaler{Marshaler: jsonBodies{jsonpb}}),
		// The gateway hands the matcher each header's canonical name.
		runtime.WithIncomingHeaderMatcher(func(key string) (string, bool) {
			md, ok := forwardedRequestHeaders[key]
			return md, ok
		}),
		runtime.WithOutgoingHeaderMatcher(func(key string) (string, bool) {
			return key, forwardedResponseHeaders[key]
		}),
		runtime.WithForwardResponseOption(forwardHTTPStatus),
		runtime.WithMiddlewares(recordBodyErrors, refuseUnknownQuery),
		runtime.WithErrorHandler(func(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
			if md, ok := runtime.ServerMetadataFromContext(ctx); ok {
				for k, vs := range md.HeaderMD {
					if forwardedResponseHeaders[k] {
						for _, v := range vs {
							w.Header().Add(k, v)
						}
					}
				}
			}
			st := status.Convert(err)
			if b, ok := r.Body.(*decodedBody); ok && b.err != nil {
				// The gateway flattened the decoding error to text; answer
				// with its reason and field instead.
				st = b.err.GRPCStatus()
			}
			writeError(w, r, st)
		}),
		runtime.WithRoutingErrorHandler(func(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
			switch httpStatus {
			case http.StatusMethodNotAllowed:
				writeError(w, r, apierror.New(codes.Unimplemented, "METHOD_NOT_ALLOWED", r.Method+" is not allowed on "+r.URL.Path).GRPCStatus())
			default:
				writeError(w, r, apierror.New(codes.NotFound, "ROUTE_NOT_FOUND", "no route "+r.Method+" "+r.URL.Path).GRPCStatus())
			}
		}),
	)
}

// decodedBody is a REST request body that remembers why it could not be
// decoded: the generated gateway code turns a decoder's error into plain
// text (InvalidArgument, no details), and the error handler reads the
// typed error back from here.
type decodedBody struct {
	io.ReadCloser
	err *apierror.Error
}

func recordBodyErrors(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &decodedBody{ReadCloser: r.Body}
		}
		next(w, r, params)
	}
}

// jsonBodies decodes request bodies with error messages that say what is
// wrong and where, instead of the decoder's bare "unexpected EOF".
type jsonBodies struct{ *runtime.JSONPb }

// Marshal writes a response. A job (a run, a poll, a cancellation) and a
// creator are written directly rather than by protojson, which walks
// their maps and fields by reflection (wire.JobJSON, wire.CreatorJSON):
// the same JSON value, at a fraction of the cost.
func (m jsonBodies) Marshal(v any) ([]byte, error) {
	switch v := v.(type) {
	case *creativeopsv1.Job:
		if b, ok := wire.JobJSON(v); ok {
			return b, nil
		}
	case *creativeopsv1.Creator:
		if b, ok := wire.CreatorJSON(v); ok {
			return b, nil
		}
	}
	return m.JSONPb.Marshal(v)
}

func (m jsonBodies) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return io.EOF
		}
		msg, ok := v.(proto.Message)
		if !ok {
			return fmt.Errorf("cannot decode into %T", v)
		}
		if e := m.decode(data, msg); e != nil {
			if b, ok := r.(*decodedBody); ok {
				b.err = e
			}
			return e
		}
		return nil
	})
}

var (
	unknownFieldRe = regexp.MustCompile(`unknown field "([^"]+)"`)
	badValueRe     = regexp.MustCompile(`invalid value for [^ ]+ field ([^ :]+)`)
)

// decode unmarshals a body, reporting malformed JSON as MALFORMED_BODY
// and a field the message does not have as UNKNOWN_FIELD, naming the field
// whenever the decoder does.
func (m jsonBodies) decode(data []byte, msg proto.Message) *apierror.Error {
	if e := edge.CheckBodyDepth(data); e != nil {
		return e
	}
	if err := checkJSON(data); err != nil {
		return apierror.New(codes.InvalidArgument, "MALFORMED_BODY", err.Error())
	}
	err := m.UnmarshalOptions.Unmarshal(data, msg)
	if err == nil {
		return nil
	}
	text := "invalid request body: " + strings.TrimPrefix(err.Error(), "proto: ")
	if f := unknownFieldRe.FindStringSubmatch(text); f != nil {
		return apierror.Invalid("UNKNOWN_FIELD", f[1], text)
	}
	if f := badValueRe.FindStringSubmatch(text); f != nil {
		return apierror.Invalid("INVALID_ARGUMENT", f[1], text)
	}
	return apierror.New(codes.InvalidArgument, "INVALID_ARGUMENT", text)
}

// checkJSON reports malformed JSON with its line and column.
func checkJSON(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	switch {
	case err == nil:
		if _, isObject := v.(map[string]any); !isObject {
			return errors.New("malformed JSON body: the body must be a JSON object")
		}
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected end of JSON input"):
		line, col := position(data, int64(len(data)))
		return fmt.Errorf("malformed JSON body: it ends unexpectedly at line %d, column %d", line, col)
	case errors.As(err, &se):
		line, col := position(data, se.Offset)
		return fmt.Errorf("malformed JSON body at line %d, column %d: %s", line, col, se.Error())
	}
	return fmt.Errorf("malformed JSON body: %v", err)
}

func position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// forwardHTTPStatus answers with the success status the method declares
// (creativeops.v1.rule), or its accepted status when the handler queued
// the work (markAccepted).
func forwardHTTPStatus(ctx context.Context, w http.ResponseWriter, _ proto.Message) error {
	name, _ := runtime.RPCMethod(ctx)
	md, _ := runtime.ServerMetadataFromContext(ctx)
	code := successStatus(name, len(md.HeaderMD.Get(headerAccepted)) > 0)
	if code == http.StatusOK {
		return nil
	}
	if code == http.StatusNoContent {
		w.Header().Del("Content-Type")
	}
	w.WriteHeader(code)
	return nil
}

// successStatus is the HTTP status of a successful call of the method: the
// one its rule declares, or its accepted status when the work was queued.
func successStatus(fullMethod string, accepted bool) int {
	m, ok := rpcrule.Lookup(fullMethod)
	switch {
	case !ok:
		return http.StatusOK
	case accepted && m.AcceptedStatus != 0:
		return m.AcceptedStatus
	}
	return m.SuccessStatus
}

// gatewayRouter hands a REST request to the gateway of the service whose
// route it matches (rpcrule.Match, as admission does), and anything else
// to the gateway of every service, which answers unknown routes and
// methods. grpc-gateway tries its routes one by one, newest first, and
// each route it tries allocates: one mux of every service made a creator's
// read try some twenty routes (a tenth of its allocations) before its own.
type gatewayRouter struct {
	all       *runtimeMux
	byService map[string]*runtimeMux // by full service name
	byRoute   map[route]*runtimeMux  // by REST route, of the methods that have one
}

// ServeHTTP serves what apiFirst did not hand to a service's gateway
// itself: a route it matches again, or the gateway of every service.
func (g *gatewayRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m, ok := rpcrule.Match(r.Method, r.URL.Path); ok {
		if own := g.byService[serviceOf(m.FullMethod)]; own != nil {
			own.ServeHTTP(w, r)
			return
		}
	}
	g.all.ServeHTTP(w, r)
}

// admittedRoute is the gateway of the service whose route admission found
// the request to match (requestInfo.route), nil when it found none:
// matching the path again cost a split of it per request.
func (g *gatewayRouter) admittedRoute(r *http.Request) *runtimeMux {
	if ri := requestInfoFrom(r.Context()); ri != nil && ri.route.Template != "" {
		return g.byRoute[ri.route]
	}
	return nil
}

// apiFirst serves the REST requests whose route admission matched with the
// gateway of their service, and every other request with the ServeMux of
// the server's routes, whose catch-all is the gateway. The ServeMux would
// hand the former to the gateway too: no route of its own serves an API
// route's path (TestServeMuxLeavesAPIRoutesToTheGateway), and a path it
// would clean and redirect is left to it. But finding that out, its
// patterns tried and then tried again with a trailing slash, cost some
// seven allocations per request.
type apiFirst struct {
	gateway *gatewayRouter
	mux     http.Handler
}

func (h apiFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if own := h.gateway.admittedRoute(r); own != nil && cleanPath(r.URL.EscapedPath()) {
		own.ServeHTTP(w, r)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// cleanPath reports whether http.ServeMux serves p as it is, rather than
// redirecting to its cleaned form (an API route's path has no trailing
// slash, which ServeMux would keep).
func cleanPath(p string) bool {
	return strings.HasPrefix(p, "/") && path.Clean(p) == p
}

// serviceOf is the service of a full method name:
// "/creativeops.v1.CreatorsService/GetCreator" → "creativeops.v1.CreatorsService".
func serviceOf(fullMethod string) string {
	svc, _, _ := strings.Cut(strings.TrimPrefix(fullMethod, "/"), "/")
	return svc
}
