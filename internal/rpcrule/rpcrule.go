// Package rpcrule reads what the creativeops.v1 protos declare about each
// RPC: its REST route (google.api.http) and its rule (creativeops.v1.rule:
// scope and success status). The scope check, the REST gateway and the
// OpenAPI generator all read these declarations from here, so a fact about
// an RPC is written once, next to the RPC.
package rpcrule

import (
	"net/http"
	"sort"
	"strings"
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

// Match returns the method whose REST route serves an HTTP request of
// the given method and path, as the gateway routes it: each {variable}
// of the template stands for one non-empty path segment, and a template's
// custom verb (":cancel") must end the last segment. It lets a request be
// authorized (scope, rate limit) before its body is read.
func Match(httpMethod, path string) (Method, bool) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for _, m := range all().routes[httpMethod] {
		if m.matches(segs) {
			return m.Method, true
		}
	}
	return Method{}, false
}

// route is a method's REST template split into segments.
type route struct {
	Method
	segs []string
	verb string
}

func newRoute(m Method) route {
	tmpl := strings.TrimPrefix(m.Template, "/")
	var verb string
	if i := strings.LastIndex(tmpl, ":"); i > strings.LastIndex(tmpl, "}") {
		tmpl, verb = tmpl[:i], tmpl[i:]
	}
	return route{Method: m, segs: strings.Split(tmpl, "/"), verb: verb}
}

func (r route) matches(segs []string) bool {
	if len(segs) != len(r.segs) {
		return false
	}
	if r.verb != "" {
		last, ok := strings.CutSuffix(segs[len(segs)-1], r.verb)
		if !ok {
			return false
		}
		segs = append(segs[:len(segs)-1:len(segs)-1], last)
	}
	for i, t := range r.segs {
		if strings.HasPrefix(t, "{") {
			if segs[i] == "" {
				return false
			}
		} else if segs[i] != t {
			return false
		}
	}
	return true
}

type table struct {
	list   []Method
	byName map[string]Method
	// routes are the methods with a REST route, by HTTP method.
	routes map[string][]route
}

func load() table {
	// Referencing the generated package guarantees its files are
	// registered before the registry is read.
	_ = creativeopsv1.File_creativeops_v1_options_proto
	t := table{byName: map[string]Method{}, routes: map[string][]route{}}
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
				if m.Template != "" {
					t.routes[m.HTTPMethod] = append(t.routes[m.HTTPMethod], newRoute(m))
				}
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
