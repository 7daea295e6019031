package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/idempotency"
	"github.com/creativeops/creativeops/internal/rpcrule"
)

const idempotencyKeyHeader = "idempotency-key"

// idempotent makes every POST with an Idempotency-Key header (gRPC
// metadata idempotency-key) run at most once per organization and key;
// the idempotency store decides, across replicas, which request runs, and
// the others get its stored response, or 409 while it runs.
func (s *Server) idempotent(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if m := methodOfCall(requestInfoFrom(ctx), info.FullMethod); m == nil || m.HTTPMethod != http.MethodPost {
		return handler(ctx, req)
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(idempotencyKeyHeader)
	if len(vals) == 0 {
		return handler(ctx, req)
	}
	key := vals[0]
	if problem := idempotency.CheckKey(key); problem != "" {
		return nil, apierror.Invalid("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key", "Idempotency-Key "+problem)
	}
	p, ok := auth.FromContext(ctx)
	msg, isMsg := req.(proto.Message)
	if !ok || !isMsg {
		return handler(ctx, req)
	}
	fp, err := fingerprint(info.FullMethod, msg)
	if err != nil {
		return nil, err
	}
	begun, err := s.idempotency.Begin(ctx, p.OrganizationID, key, info.FullMethod, fp)
	if err != nil {
		return nil, err
	}
	if begun.Replay != nil {
		return s.replay(ctx, info, begun.Replay)
	}
	return s.runIdempotent(ctx, req, info, handler, begun.ID)
}

// runIdempotent runs the request that won the key and stores its outcome.
// Client errors (4xx) are stored and replayed like successes: the same
// request would fail the same way. Server errors and cancellations drop
// the key, so a retry runs the request again.
func (s *Server) runIdempotent(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler, id int) (any, error) {
	ctx, hc := captureHeaders(ctx)
	resp, err := handler(ctx, req)
	err = toStatusError(ctx, s.log, err)

	saveCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err != nil {
		st := status.Convert(err)
		code := httpStatus(st)
		if code >= 500 || code == http.StatusTooManyRequests || st.Code() == codes.Canceled || st.Code() == codes.DeadlineExceeded {
			if derr := s.idempotency.Release(saveCtx, id); derr != nil {
				s.log.WarnContext(ctx, "idempotency key not released", "request_id", requestIDFrom(ctx), "error", derr)
			}
			return nil, err
		}
		b, merr := proto.Marshal(st.Proto())
		if merr == nil {
			merr = s.idempotency.Finish(saveCtx, id, idempotency.Outcome{Failed: true, Response: b, HTTPStatus: code})
		}
		if merr != nil {
			s.log.WarnContext(ctx, "idempotent response not stored", "request_id", requestIDFrom(ctx), "error", merr)
		}
		return nil, err
	}
	// Secrets are never stored: a replay says what was done, without them,
	// and names what it left out.
	msg, _ := resp.(proto.Message)
	msg, redacted := redactSecrets(msg)
	b, merr := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if merr == nil {
		headers := map[string]string{}
		if loc := hc.locationHeader(); loc != "" {
			headers[headerLocation] = loc
		}
		if len(redacted) > 0 {
			headers[headerRedacted] = redactedHeader(redacted)
		}
		merr = s.idempotency.Finish(saveCtx, id, idempotency.Outcome{
			Response: b, HTTPStatus: successStatus(info.FullMethod, hc.wasAccepted()), Headers: headers,
		})
	}
	if merr != nil {
		// The key stays in progress until the lock timeout; the response
		// itself is fine, so the client still gets it.
		s.log.WarnContext(ctx, "idempotent response not stored", "request_id", requestIDFrom(ctx), "error", merr)
	}
	return resp, nil
}

// replay answers with a stored outcome: same HTTP status, headers and body,
// marked Idempotent-Replayed.
func (s *Server) replay(ctx context.Context, info *grpc.UnaryServerInfo, o *idempotency.Outcome) (any, error) {
	md := metadata.Pairs("idempotent-replayed", "true")
	if rule, ok := rpcrule.Lookup(info.FullMethod); ok && !o.Failed && rule.AcceptedStatus != 0 && o.HTTPStatus == rule.AcceptedStatus {
		md.Set(headerAccepted, "1")
	}
	for k, v := range o.Headers {
		md.Set(k, v)
	}
	_ = grpc.SetHeader(ctx, md)
	s.metrics.replays.Inc()
	if o.Failed {
		var sp spb.Status
		if err := proto.Unmarshal(o.Response, &sp); err != nil {
			return nil, fmt.Errorf("stored idempotent response: %w", err)
		}
		return nil, status.FromProto(&sp).Err()
	}
	mt, err := replyType(info.FullMethod)
	if err != nil {
		return nil, err
	}
	msg := mt.New().Interface()
	if err := proto.Unmarshal(o.Response, msg); err != nil {
		return nil, fmt.Errorf("stored idempotent response: %w", err)
	}
	return msg, nil
}

// fingerprint identifies a request by its method and content: the
// deterministic proto encoding does not depend on JSON key order or
// spacing, so the same request sent twice has the same fingerprint.
func fingerprint(method string, msg proto.Message) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// replyType finds the Go type of a method's response message.
func replyType(fullMethod string) (protoreflect.MessageType, error) {
	svc, method, ok := strings.Cut(strings.TrimPrefix(fullMethod, "/"), "/")
	if !ok {
		return nil, fmt.Errorf("bad method name %q", fullMethod)
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
	if err != nil {
		return nil, err
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a service", svc)
	}
	md := sd.Methods().ByName(protoreflect.Name(method))
	if md == nil {
		return nil, fmt.Errorf("no method %s", fullMethod)
	}
	return protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
}
