package server

import (
	"errors"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/creativeops/creativeops/server/edge"
)

// newRPCWeb serves the RPC surface to clients that cannot speak native
// gRPC — browsers and plain HTTP tools — over the Connect protocol (unary
// JSON or binary POSTs, e.g. with curl) and gRPC-Web. Vanguard transcodes
// each call to gRPC and hands it to the gRPC server, so it runs the same
// interceptor chain (auth, scopes, limits, validation, idempotency) as a
// native call. JSON is rendered as REST renders it: proto field names,
// every field present.
func newRPCWeb(server *grpc.Server) (http.Handler, error) {
	return vanguardgrpc.NewTranscoder(server,
		vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec {
			return &vanguard.JSONCodec{
				MarshalOptions:   protojson.MarshalOptions{Resolver: res, UseProtoNames: true, EmitUnpopulated: true},
				UnmarshalOptions: protojson.UnmarshalOptions{Resolver: res},
			}
		}),
		vanguard.WithDefaultServiceOptions(vanguard.WithMaxMessageBufferBytes(edge.MaxBodyBytes)),
	)
}

// isNativeGRPC reports whether a content type is gRPC's own
// (application/grpc, application/grpc+proto), not gRPC-Web's.
func isNativeGRPC(contentType string) bool {
	return contentType == "application/grpc" ||
		strings.HasPrefix(contentType, "application/grpc+") ||
		strings.HasPrefix(contentType, "application/grpc;")
}

// isNativeGRPCRequest reports whether r is a native gRPC call (HTTP/2 and
// gRPC's content type).
func isNativeGRPCRequest(r *http.Request) bool {
	return r.ProtoMajor == 2 && isNativeGRPC(r.Header.Get("Content-Type"))
}

// isRPCPath reports whether a path names an RPC ("/package.Service/Method")
// rather than a REST resource (REST paths start with /v1/).
func isRPCPath(path string) bool {
	return strings.HasPrefix(path, "/creativeops.v1.") || strings.HasPrefix(path, "/grpc.health.v1.")
}

// asConnectCall marks a unary POST to an RPC path as a Connect call when
// the client left out Connect-Protocol-Version, as connect-go servers
// accept by default: such a path is never a REST resource, so a plain
// `curl -H 'Content-Type: application/json'` reaches the method.
func asConnectCall(r *http.Request) {
	ct := r.Header.Get("Content-Type")
	if r.Method == http.MethodPost && r.Header.Get("Connect-Protocol-Version") == "" &&
		(ct == "application/json" || ct == "application/proto" || strings.HasPrefix(ct, "application/json;")) {
		r.Header.Set("Connect-Protocol-Version", "1")
	}
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
