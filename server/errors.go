package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/storage"
)

// toStatusError is the one place where errors become API errors. Anything
// not recognised is an internal error: its cause is logged with the request
// id and never sent to the client.
func toStatusError(ctx context.Context, log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var ce *engine.ContextError
	switch {
	case errors.As(err, &ce):
		violations := make([]apierror.FieldViolation, len(ce.Violations))
		for i, v := range ce.Violations {
			violations[i] = apierror.FieldViolation{Field: v.Field, Description: v.Description}
		}
		e := apierror.InvalidFields(ce.Error(), violations)
		if ce.Omitted > 0 {
			e.Metadata = map[string]string{"violations_omitted": strconv.Itoa(ce.Omitted)}
		}
		return e
	case storage.IsNotFound(err):
		return apierror.New(codes.NotFound, "NOT_FOUND", "resource not found")
	case storage.IsConflict(err):
		return apierror.New(codes.AlreadyExists, "CONFLICT", "the request conflicts with an existing resource")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "request canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "deadline exceeded")
	}
	log.ErrorContext(ctx, "internal error", "request_id", requestIDFrom(ctx), "error", err)
	return status.Error(codes.Internal, "internal error")
}

// httpStatusOverrides are business errors whose HTTP status has no gRPC
// code of its own.
var httpStatusOverrides = map[string]int{
	"PAYLOAD_TOO_LARGE":        http.StatusRequestEntityTooLarge,
	"IDEMPOTENCY_KEY_MISMATCH": http.StatusUnprocessableEntity,
	"METHOD_NOT_ALLOWED":       http.StatusMethodNotAllowed,
	"JOB_ALREADY_FINISHED":     http.StatusConflict,
	"WEBHOOK_DISABLED":         http.StatusConflict,
}

func httpStatus(st *status.Status) int { return httpStatusOf(st, st.Details()) }

// httpStatusOf is httpStatus with the status's details already decoded.
func httpStatusOf(st *status.Status, details []any) int {
	for _, d := range details {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			if s, ok := httpStatusOverrides[info.Reason]; ok {
				return s
			}
		}
	}
	return runtime.HTTPStatusFromCode(st.Code())
}

type errorBody struct {
	Error errorPayload `json:"error"`
}

type errorPayload struct {
	Code      int               `json:"code"`
	Status    string            `json:"status"`
	Message   string            `json:"message"`
	Details   []json.RawMessage `json:"details"`
	RequestID string            `json:"request_id"`
}

// writeError renders a status as the AIP-193 JSON error body.
func writeError(w http.ResponseWriter, r *http.Request, st *status.Status) {
	// The details are decoded once, for the HTTP status, Retry-After and
	// the body alike.
	details := st.Details()
	httpCode := httpStatusOf(st, details)
	body := errorBody{Error: errorPayload{
		Code:      httpCode,
		Status:    code.Code_name[int32(st.Code())],
		Message:   st.Message(),
		Details:   make([]json.RawMessage, 0, len(details)),
		RequestID: requestIDFrom(r.Context()),
	}}
	for i, a := range st.Proto().GetDetails() {
		if b, err := detailJSON(a, details[i]); err == nil {
			body.Error.Details = append(body.Error.Details, b)
		}
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	if httpCode == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="creativeops"`)
	}
	for _, d := range details {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			if s := info.Metadata["retry_after_seconds"]; s != "" {
				if _, err := strconv.Atoi(s); err == nil {
					h.Set("Retry-After", s)
				}
			}
		}
	}
	b, _ := json.Marshal(body)
	w.WriteHeader(httpCode)
	_, _ = w.Write(b)
	if info := requestInfoFrom(r.Context()); info != nil {
		info.grpcCode = st.Code()
	}
}

// detailJSON renders one error detail as protojson renders a
// google.protobuf.Any ("@type", then the message's fields by their JSON
// names, empty ones left out). The two kinds the service sends, ErrorInfo
// and BadRequest, are written directly: through protojson, which resolves
// the type and walks the message by reflection, they were most of the cost
// of an error answer, which a client beyond its rate limit gets a thousand
// times a second. decoded is the detail as st.Details() decoded it. (A
// detail's strings are valid UTF-8: a status cannot carry one that is
// not.)
func detailJSON(a *anypb.Any, decoded any) ([]byte, error) {
	switch d := decoded.(type) {
	case *errdetails.ErrorInfo:
		return json.Marshal(errorInfoJSON{Type: a.GetTypeUrl(), Reason: d.Reason, Domain: d.Domain, Metadata: d.Metadata})
	case *errdetails.BadRequest:
		out := badRequestJSON{Type: a.GetTypeUrl(), FieldViolations: make([]fieldViolationJSON, 0, len(d.FieldViolations))}
		simple := true
		for _, v := range d.FieldViolations {
			// Only the fields the service sets; anything else goes the
			// general way.
			if v.Reason != "" || v.LocalizedMessage != nil {
				simple = false
				break
			}
			out.FieldViolations = append(out.FieldViolations, fieldViolationJSON{Field: v.Field, Description: v.Description})
		}
		if simple {
			if len(out.FieldViolations) == 0 {
				out.FieldViolations = nil
			}
			return json.Marshal(out)
		}
	}
	return protojson.Marshal(a)
}

type errorInfoJSON struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason,omitempty"`
	Domain   string            `json:"domain,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

type badRequestJSON struct {
	Type            string               `json:"@type"`
	FieldViolations []fieldViolationJSON `json:"fieldViolations,omitempty"`
}

type fieldViolationJSON struct {
	Field       string `json:"field,omitempty"`
	Description string `json:"description,omitempty"`
}
