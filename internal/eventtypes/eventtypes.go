// Package eventtypes reads the webhook event types the protos declare, each
// once, as a field of creativeops.v1.EventTypes: the type string and when it
// is sent from the field's creativeops.v1.event option, the payload from the
// field's message. The subscribable set (internal/valueset), the Go
// constants of the events package, the OpenAPI document's webhooks, the
// TypeScript client's types and the docs are all derived from it.
package eventtypes

import (
	"fmt"
	"regexp"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
)

// Declaration is the full name of the message whose fields declare the
// event types.
const Declaration = "creativeops.v1.EventTypes"

// Event is one declared event type.
type Event struct {
	// Type is what a delivery carries, e.g. "engine.job.completed".
	Type string
	// Description says when the event is sent.
	Description string
	// Field is the declaring field; its name in CamelCase (GoName) names
	// the event in code: the Go constant, the TypeScript interface.
	Field protoreflect.FieldDescriptor
	// Payload is the message the event's data renders.
	Payload protoreflect.MessageDescriptor
}

// GoName is the event's name in code: the declaring field's name in
// CamelCase, with the initialisms Go spells in capitals ("ip_registered":
// IPRegistered).
func (e Event) GoName() string {
	var b strings.Builder
	for part := range strings.SplitSeq(string(e.Field.Name()), "_") {
		if initialisms[part] {
			b.WriteString(strings.ToUpper(part))
			continue
		}
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

var initialisms = map[string]bool{"ip": true, "id": true, "url": true, "api": true, "http": true, "json": true}

// typePattern is what an event type looks like: dot-separated lowercase
// words, so that it is neither the "*" wildcard nor a prefix pattern.
var typePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

// All returns the declared event types in declaration order, or an error
// naming the field whose declaration is wrong.
func All() ([]Event, error) {
	return Of((&creativeopsv1.EventTypes{}).ProtoReflect().Descriptor())
}

// Of reads the event types declared by the fields of md (All's message;
// tests give it others).
func Of(md protoreflect.MessageDescriptor) ([]Event, error) {
	fs := md.Fields()
	out := make([]Event, 0, fs.Len())
	seen := map[string]protoreflect.FullName{}
	for i := 0; i < fs.Len(); i++ {
		f := fs.Get(i)
		decl, _ := proto.GetExtension(f.Options(), creativeopsv1.E_Event).(*creativeopsv1.EventType)
		switch {
		case decl == nil || decl.GetType() == "":
			return nil, fmt.Errorf("%s: no (creativeops.v1.event).type", f.FullName())
		case !typePattern.MatchString(decl.GetType()):
			return nil, fmt.Errorf("%s: event type %q is not dot-separated lowercase words", f.FullName(), decl.GetType())
		case seen[decl.GetType()] != "":
			return nil, fmt.Errorf("%s: event type %q is declared by %s too", f.FullName(), decl.GetType(), seen[decl.GetType()])
		case decl.GetDescription() == "":
			return nil, fmt.Errorf("%s: no (creativeops.v1.event).description", f.FullName())
		case f.Message() == nil || f.IsList() || f.IsMap():
			return nil, fmt.Errorf("%s: the payload must be a message field, not a list, map or scalar", f.FullName())
		}
		seen[decl.GetType()] = f.FullName()
		out = append(out, Event{Type: decl.GetType(), Description: decl.GetDescription(), Field: f, Payload: f.Message()})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s declares no event type", md.FullName())
	}
	return out, nil
}

// Types returns the declared type strings in declaration order.
func Types() ([]string, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(all))
	for i, e := range all {
		out[i] = e.Type
	}
	return out, nil
}
