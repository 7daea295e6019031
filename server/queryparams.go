package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/internal/rpcrule"
)

// Query parameters: the gateway fills a GET or DELETE request's message
// from its query and ignores any parameter the message has no field for,
// so a misspelt filter (GET /v1/creators?verticle=music) answered every
// creator as if filtered. A parameter is refused instead, as an unknown
// body field is: a 400 UNKNOWN_PARAMETER naming it. What a route accepts is read from its
// method's request message (each field not bound by the path, by its proto
// and its JSON name, a nested message's fields as "field.sub"), so a field
// added to a request is accepted the day it is declared. No parameter is
// accepted by every route: the calendar feed's token is read by its own
// handler, not the gateway's.

// queryParams are the query parameters of each GET and DELETE route.
var queryParams = sync.OnceValue(func() map[route]map[string]bool {
	out := map[route]map[string]bool{}
	for _, m := range rpcrule.All() {
		if m.HTTPMethod != http.MethodGet && m.HTTPMethod != http.MethodDelete {
			continue
		}
		inPath := map[string]bool{}
		for _, seg := range strings.Split(m.Template, "/") {
			if name, ok := strings.CutPrefix(seg, "{"); ok {
				name, _, _ = strings.Cut(name, "}")
				name, _, _ = strings.Cut(name, "=")
				inPath[name] = true
			}
		}
		params := map[string]bool{}
		addFields(params, m.Descriptor.Input(), "", "", inPath, 0)
		out[route{m.HTTPMethod, m.Template}] = params
	}
	return out
})

// addFields adds the query parameters a message's fields take, prefixed
// by the path of the message in the request (proto names, then JSON names).
func addFields(params map[string]bool, md protoreflect.MessageDescriptor, protoPrefix, jsonPrefix string, inPath map[string]bool, depth int) {
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		protoName, jsonName := protoPrefix+string(f.Name()), jsonPrefix+f.JSONName()
		if inPath[protoName] {
			continue
		}
		// A message field that is not a well-known type (whose value is
		// one parameter, a Timestamp's RFC 3339 text) is set field by
		// field: "filter.vertical".
		if f.Kind() == protoreflect.MessageKind && f.Message().FullName().Parent() != "google.protobuf" && !f.IsList() && !f.IsMap() && depth < 4 {
			addFields(params, f.Message(), protoName+".", jsonName+".", inPath, depth+1)
			continue
		}
		params[protoName], params[jsonName] = true, true
	}
}

// refuseUnknownQuery answers 400 to a GET or DELETE request with a query
// parameter its method does not take.
func refuseUnknownQuery(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		if r.URL.RawQuery != "" {
			if err := checkQuery(r); err != nil {
				writeError(w, r, err.GRPCStatus())
				return
			}
		}
		next(w, r, params)
	}
}

// checkQuery reports the first query parameter (in the order of names)
// the request's route does not take.
func checkQuery(r *http.Request) *apierror.Error {
	rt := route{}
	if ri := requestInfoFrom(r.Context()); ri != nil {
		rt = ri.route
	}
	if rt.Template == "" {
		m, ok := rpcrule.Match(r.Method, r.URL.Path)
		if !ok {
			return nil // the gateway answers it: no route
		}
		rt = route{m.HTTPMethod, m.Template}
	}
	known, ok := queryParams()[rt]
	if !ok {
		return nil // a route whose body carries the request
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil // the gateway refuses a malformed query itself
	}
	var unknown []string
	for name := range q {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	accepted := make([]string, 0, len(known))
	for name := range known {
		accepted = append(accepted, name)
	}
	slices.Sort(accepted)
	takes := "takes no query parameters"
	if len(accepted) > 0 {
		takes = "takes " + strings.Join(protoNamesOnly(accepted), ", ")
	}
	return apierror.Invalid("UNKNOWN_PARAMETER", unknown[0],
		fmt.Sprintf("unknown query parameter %q: %s %s %s", unknown[0], rt.Method, rt.Template, takes))
}

// protoNamesOnly leaves out the lowerCamelCase spellings of names that
// differ from their proto name, which a message lists beside them.
func protoNamesOnly(names []string) []string {
	out := names[:0:0]
	for _, n := range names {
		if strings.ToLower(n) == n {
			out = append(out, n)
		}
	}
	return out
}
