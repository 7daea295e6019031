// Package rpcrule reads what the creativeops.v1 protos declare about each
// RPC: its REST route (google.api.http) and its rule (creativeops.v1.rule:
// scope and success status). The scope check, the REST gateway and the
// OpenAPI generator all read these declarations from here, so a fact about
// an RPC is written once, next to the RPC.
package rpcrule

import (
	"net/http"
	"sort"
	"sync"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
)

// Package is the protobuf package whose services are the API.
const Package = "creativeops.v1"

// Method is one RPC of the API and what its protos declare about it.
type Method struct {
	// FullMethod is the gRPC method name, "/creativeops.v1.CreatorsService/GetCreator".
	FullMethod string
	Service    string // "CreatorsService"
	Name       string // "GetCreator"
	// HTTPMethod and Template are the REST route: "GET", "/v1/creators/{id}".
	HTTPMethod string
	Template   string
	// Scope is the scope an API key needs; empty when undeclared.
	Scope string
	// SuccessStatus is the HTTP status of a successful REST response.
	SuccessStatus int
	// AcceptedStatus, when not zero, is the status of a response to work
	// that was queued rather than done (see MethodRule.accepted_status).
	AcceptedStatus int
	// HasRule reports whether the method declares creativeops.v1.rule.
	HasRule bool
	// Descriptor is the method's descriptor.
	Descriptor protoreflect.MethodDescriptor
}

var all = sync.OnceValue(load)

// All lists the API's methods ordered by service then declaration order.
func All() []Method { return all().list }

// Lookup returns the method with the given gRPC full name.
func Lookup(fullMethod string) (Method, bool) {
	m, ok := all().byName[fullMethod]
	return m, ok
}

type table struct {
	list   []Method
	byName map[string]Method
}

func load() table {
	// Referencing the generated package guarantees its files are
	// registered before the registry is read.
	_ = creativeopsv1.File_creativeops_v1_options_proto
	t := table{byName: map[string]Method{}}
	var files []protoreflect.FileDescriptor
	protoregistry.GlobalFiles.RangeFilesByPackage(Package, func(fd protoreflect.FileDescriptor) bool {
		files = append(files, fd)
		return true
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Path() < files[j].Path() })
	for _, fd := range files {
		svcs := fd.Services()
		for i := 0; i < svcs.Len(); i++ {
			svc := svcs.Get(i)
			methods := svc.Methods()
			for j := 0; j < methods.Len(); j++ {
				m := describe(svc, methods.Get(j))
				t.list = append(t.list, m)
				t.byName[m.FullMethod] = m
			}
		}
	}
	return t
}

func describe(svc protoreflect.ServiceDescriptor, md protoreflect.MethodDescriptor) Method {
	m := Method{
		FullMethod:    "/" + string(svc.FullName()) + "/" + string(md.Name()),
		Service:       string(svc.Name()),
		Name:          string(md.Name()),
		SuccessStatus: http.StatusOK,
		Descriptor:    md,
	}
	if rule, ok := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule); ok && rule != nil {
		switch p := rule.Pattern.(type) {
		case *annotations.HttpRule_Get:
			m.HTTPMethod, m.Template = http.MethodGet, p.Get
		case *annotations.HttpRule_Post:
			m.HTTPMethod, m.Template = http.MethodPost, p.Post
		case *annotations.HttpRule_Put:
			m.HTTPMethod, m.Template = http.MethodPut, p.Put
		case *annotations.HttpRule_Patch:
			m.HTTPMethod, m.Template = http.MethodPatch, p.Patch
		case *annotations.HttpRule_Delete:
			m.HTTPMethod, m.Template = http.MethodDelete, p.Delete
		}
	}
	if proto.HasExtension(md.Options(), creativeopsv1.E_Rule) {
		rule := proto.GetExtension(md.Options(), creativeopsv1.E_Rule).(*creativeopsv1.MethodRule)
		m.HasRule = true
		m.Scope = rule.GetScope()
		if s := rule.GetSuccessStatus(); s != 0 {
			m.SuccessStatus = int(s)
		}
		m.AcceptedStatus = int(rule.GetAcceptedStatus())
	}
	return m
}
