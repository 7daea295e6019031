package server

import (
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/creativeops/creativeops/auth"
)

// route is the REST face of a gRPC method: logs and analytics name requests
// by it whichever transport they came over, and never by a concrete id.
type route struct {
	Method   string // HTTP method
	Template string // "/v1/creators/{id}"
}

// routesFromDescriptors reads the google.api.http annotations of every
// registered service in the creativeops.v1 package.
func routesFromDescriptors() map[string]route {
	out := map[string]route{}
	protoregistry.GlobalFiles.RangeFilesByPackage("creativeops.v1", func(fd protoreflect.FileDescriptor) bool {
		svcs := fd.Services()
		for i := 0; i < svcs.Len(); i++ {
			svc := svcs.Get(i)
			methods := svc.Methods()
			for j := 0; j < methods.Len(); j++ {
				m := methods.Get(j)
				rule, ok := proto.GetExtension(m.Options(), annotations.E_Http).(*annotations.HttpRule)
				if !ok || rule == nil {
					continue
				}
				full := "/" + string(svc.FullName()) + "/" + string(m.Name())
				switch p := rule.Pattern.(type) {
				case *annotations.HttpRule_Get:
					out[full] = route{"GET", p.Get}
				case *annotations.HttpRule_Post:
					out[full] = route{"POST", p.Post}
				case *annotations.HttpRule_Put:
					out[full] = route{"PUT", p.Put}
				case *annotations.HttpRule_Patch:
					out[full] = route{"PATCH", p.Patch}
				case *annotations.HttpRule_Delete:
					out[full] = route{"DELETE", p.Delete}
				}
			}
		}
		return true
	})
	return out
}

// scopes names the scope each method needs. A method missing here is
// refused, so a new RPC cannot ship without deciding who may call it.
var scopes = map[string]string{
	"/creativeops.v1.CreatorsService/CreateCreator": auth.ScopeCreatorsWrite,
	"/creativeops.v1.CreatorsService/GetCreator":    auth.ScopeCreatorsRead,
	"/creativeops.v1.CreatorsService/ListCreators":  auth.ScopeCreatorsRead,

	"/creativeops.v1.KeysService/CreateKey": auth.ScopeKeysAdmin,
	"/creativeops.v1.KeysService/ListKeys":  auth.ScopeKeysAdmin,
	"/creativeops.v1.KeysService/RotateKey": auth.ScopeKeysAdmin,
	"/creativeops.v1.KeysService/RevokeKey": auth.ScopeKeysAdmin,

	"/creativeops.v1.EngineService/ListVerticals": auth.ScopeEngineRead,
	"/creativeops.v1.EngineService/ListWorkflows": auth.ScopeEngineRead,
	"/creativeops.v1.EngineService/GetWorkflow":   auth.ScopeEngineRead,
	"/creativeops.v1.EngineService/RunWorkflow":   auth.ScopeEngineRun,
	"/creativeops.v1.EngineService/GetJob":        auth.ScopeEngineRead,
	"/creativeops.v1.EngineService/ListJobs":      auth.ScopeEngineRead,
	"/creativeops.v1.EngineService/CancelJob":     auth.ScopeEngineRun,

	"/creativeops.v1.IPService/RegisterWork":        auth.ScopeIPWrite,
	"/creativeops.v1.IPService/ListCatalog":         auth.ScopeIPRead,
	"/creativeops.v1.IPService/GetRecord":           auth.ScopeIPRead,
	"/creativeops.v1.IPService/GetCertificate":      auth.ScopeIPRead,
	"/creativeops.v1.IPService/GetCertificateToken": auth.ScopeIPRead,
	"/creativeops.v1.IPService/GetCheckpoint":       auth.ScopeIPRead,
	"/creativeops.v1.IPService/GetConsistencyProof": auth.ScopeIPRead,
	"/creativeops.v1.IPService/GetKeys":             auth.ScopeIPRead,

	"/creativeops.v1.WebhooksService/CreateWebhook":     auth.ScopeWebhooksWrite,
	"/creativeops.v1.WebhooksService/ListWebhooks":      auth.ScopeWebhooksRead,
	"/creativeops.v1.WebhooksService/GetWebhook":        auth.ScopeWebhooksRead,
	"/creativeops.v1.WebhooksService/DeleteWebhook":     auth.ScopeWebhooksWrite,
	"/creativeops.v1.WebhooksService/TestWebhook":       auth.ScopeWebhooksWrite,
	"/creativeops.v1.WebhooksService/ListDeliveries":    auth.ScopeWebhooksRead,
	"/creativeops.v1.WebhooksService/RedeliverDelivery": auth.ScopeWebhooksWrite,

	"/creativeops.v1.AnalyticsService/GetUsage": auth.ScopeAnalyticsRead,
}

// publicMethods skip authentication: operators' probes and discovery.
var publicMethods = map[string]bool{
	"/grpc.health.v1.Health/Check":                                   true,
	"/grpc.health.v1.Health/List":                                    true,
	"/grpc.health.v1.Health/Watch":                                   true,
	"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo":      true,
	"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": true,
}
