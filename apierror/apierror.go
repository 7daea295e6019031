// Package apierror carries the service's typed errors. Domain packages return
// them; they implement GRPCStatus so gRPC and the REST gateway render them the
// same way: a status code, a message, google.rpc.ErrorInfo with a stable
// reason, and google.rpc.BadRequest field violations.
package apierror

import (
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
)

// Domain names the service in ErrorInfo.
const Domain = "creativeops.dev"

// FieldViolation names one invalid request field by its JSON path.
type FieldViolation struct {
	Field       string
	Description string
}

// Error is an error a client can act on.
type Error struct {
	Code       codes.Code
	Reason     string
	Message    string
	Metadata   map[string]string
	Violations []FieldViolation
}

func (e *Error) Error() string { return e.Message }

// GRPCStatus renders the error with its details.
func (e *Error) GRPCStatus() *status.Status {
	st := status.New(e.Code, e.Message)
	var details []protoadapt.MessageV1
	if e.Reason != "" {
		details = append(details, &errdetails.ErrorInfo{Reason: e.Reason, Domain: Domain, Metadata: e.Metadata})
	}
	if len(e.Violations) > 0 {
		br := &errdetails.BadRequest{}
		for _, v := range e.Violations {
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Field: v.Field, Description: v.Description})
		}
		details = append(details, br)
	}
	if len(details) == 0 {
		return st
	}
	withDetails, err := st.WithDetails(details...)
	if err != nil {
		return st
	}
	return withDetails
}

// NotFound reports a missing resource. Resources of other organizations are
// reported the same way, so their existence does not leak.
func NotFound(kind, id string) *Error {
	return &Error{Code: codes.NotFound, Reason: "NOT_FOUND", Message: fmt.Sprintf("%s %s not found", kind, id),
		Metadata: map[string]string{"resource": kind, "id": id}}
}

// InvalidField reports one bad request field.
func InvalidField(field, description string) *Error {
	return &Error{Code: codes.InvalidArgument, Reason: "INVALID_ARGUMENT", Message: field + ": " + description,
		Violations: []FieldViolation{{Field: field, Description: description}}}
}

// InvalidFields reports several bad request fields.
func InvalidFields(message string, violations []FieldViolation) *Error {
	return &Error{Code: codes.InvalidArgument, Reason: "INVALID_ARGUMENT", Message: message, Violations: violations}
}

// Invalid reports a request rejected by a business rule about one field,
// with a stable reason such as UNKNOWN_VERTICAL.
func Invalid(reason, field, message string) *Error {
	e := &Error{Code: codes.InvalidArgument, Reason: reason, Message: message}
	if field != "" {
		e.Violations = []FieldViolation{{Field: field, Description: message}}
	}
	return e
}

// Conflict reports a request that collides with existing state (HTTP 409).
func Conflict(reason, message string, metadata map[string]string) *Error {
	return &Error{Code: codes.AlreadyExists, Reason: reason, Message: message, Metadata: metadata}
}

// New builds an error with any code and reason.
func New(code codes.Code, reason, message string) *Error {
	return &Error{Code: code, Reason: reason, Message: message}
}
