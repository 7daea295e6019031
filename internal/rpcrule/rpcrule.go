// Package rpcrule reads what the creativeops.v1 protos declare about each
// RPC: its REST route (google.api.http) and its rule (creativeops.v1.rule:
// scope and success status). The scope check, the REST gateway and the
// OpenAPI generator all read these declarations from here, so a fact about
// an RPC is written once, next to the RPC.
package rpcrule

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

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
	// Deprecated reports the method's option deprecated = true, and
	// Deprecation what its rule declares about it (docs/versioning.md).
	Deprecated  bool
	Deprecation Deprecation
	// declErr is a declaration that could not be read (see Check).
	declErr error
	// Descriptor is the method's descriptor.
	Descriptor protoreflect.MethodDescriptor
}

// Deprecation is when a deprecated method was deprecated and when it may
// stop working; zero times are undeclared.
type Deprecation struct {
	Since, Sunset time.Time
	Link          string
}

// MinSunsetNotice is the least time between a method's deprecation and its
// sunset that docs/versioning.md promises.
const MinSunsetNotice = 6 // months

// Check reports what is wrong with what the protos declare about the
// method's deprecation: a deprecated method must say since when, a method
// that says so must be deprecated, and a sunset comes MinSunsetNotice
// months or more after the deprecation.
func (m Method) Check() error {
	d := m.Deprecation
	switch {
	case m.declErr != nil:
		return m.declErr
	case m.Deprecated && d.Since.IsZero():
		return errors.New("option deprecated = true without rule.deprecation.since")
	case !m.Deprecated && (!d.Since.IsZero() || !d.Sunset.IsZero() || d.Link != ""):
		return errors.New("rule.deprecation without option deprecated = true")
	case !d.Sunset.IsZero() && d.Sunset.Before(d.Since.AddDate(0, MinSunsetNotice, 0)):
		return fmt.Errorf("rule.deprecation.sunset %s is less than %d months after since %s", d.Sunset.Format(time.DateOnly), MinSunsetNotice, d.Since.Format(time.DateOnly))
	}
	if d.Link != "" {
		if u, err := url.Parse(d.Link); err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("rule.deprecation.link %q: want an https URL", d.Link)
		}
	}
	return nil
}

var all = sync.OnceValue(load)

// All lists the API's methods ordered by service then declaration order.
func All() []Method { return all().list }

// Lookup returns the method with the given gRPC full name.
func Lookup(fullMethod string) (Method, bool) {
	if m := Find(fullMethod); m != nil {
		return *m, true
	}
	return Method{}, false
}

// Find is Lookup without the copy, for the hot paths that ask of every
// call (nil: no such method). The Method is shared: read it, never
// change it.
func Find(fullMethod string) *Method { return all().byName[fullMethod] }

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
	byName map[string]*Method
	// routes are the methods with a REST route, by HTTP method.
	routes map[string][]route
}

func load() table {
	// Referencing the generated package guarantees its files are
	// registered before the registry is read.
	_ = creativeopsv1.File_creativeops_v1_options_proto
	t := table{byName: map[string]*Method{}, routes: map[string][]route{}}
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
				t.byName[m.FullMethod] = &m
				if m.Template != "" {
					t.routes[m.HTTPMethod] = append(t.routes[m.HTTPMethod], newRoute(m))
				}
			}
		}
	}
	// A route with a custom verb is tried before the routes without one,
	// as the gateway does: GET /v1/creators/cr_1:export is ExportCreator's,
	// though GetCreator's {id} could take "cr_1:export" as a segment.
	for _, routes := range t.routes {
		sort.SliceStable(routes, func(i, j int) bool { return routes[i].verb != "" && routes[j].verb == "" })
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
		if d := rule.GetDeprecation(); d != nil {
			m.Deprecation.Link = d.GetLink()
			m.Deprecation.Since, m.declErr = day("since", d.GetSince())
			if m.declErr == nil {
				m.Deprecation.Sunset, m.declErr = day("sunset", d.GetSunset())
			}
		}
	}
	if opts, ok := md.Options().(*descriptorpb.MethodOptions); ok {
		m.Deprecated = opts.GetDeprecated()
	}
	return m
}

// day reads a date of rule.deprecation: a day in UTC, or zero when unset.
func day(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("rule.deprecation.%s %q: want YYYY-MM-DD", field, s)
	}
	return t, nil
}
