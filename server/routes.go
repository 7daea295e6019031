package server

import (
	"github.com/creativeops/creativeops/internal/rpcrule"
)

// route is the REST face of a gRPC method: logs and analytics name requests
// by it whichever transport they came over, and never by a concrete id.
type route struct {
	Method   string // HTTP method
	Template string // "/v1/creators/{id}"
}

// routeOfMethod is a method's REST route as its google.api.http
// annotation declares it (the zero route for nil and for methods without
// one).
func routeOfMethod(m *rpcrule.Method) route {
	if m == nil {
		return route{}
	}
	return route{m.HTTPMethod, m.Template}
}

// publicMethods skip authentication: operators' probes and discovery.
var publicMethods = map[string]bool{
	"/grpc.health.v1.Health/Check":                                   true,
	"/grpc.health.v1.Health/List":                                    true,
	"/grpc.health.v1.Health/Watch":                                   true,
	"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo":      true,
	"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": true,
}
