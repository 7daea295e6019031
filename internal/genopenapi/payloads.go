package main

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/creativeops/creativeops/internal/eventtypes"
	"github.com/creativeops/creativeops/internal/rpcrule"
)

// addPayloadSchemas gives the API's document a schema for each webhook
// event payload no RPC returns (a plan's reminder, a re-plan's report),
// which protoc-gen-openapi only writes for messages it reaches from an
// RPC; messages the document already has are referred to. The schemas take
// the shape protoc-gen-openapi gives messages, so describeSchemas completes
// them (required, nullable, enums) like the others; the description names
// the events (the webhooks document describes each).
func addPayloadSchemas(schemas map[string]any) error {
	all, err := eventtypes.All()
	if err != nil {
		return err
	}
	var order []protoreflect.MessageDescriptor
	types := map[protoreflect.FullName][]string{}
	for _, e := range all {
		name := e.Payload.FullName()
		if _, ok := schemas[string(e.Payload.Name())]; ok {
			continue
		}
		if types[name] == nil {
			order = append(order, e.Payload)
		}
		types[name] = append(types[name], e.Type)
	}
	for _, md := range order {
		ts := types[md.FullName()]
		if err := addMessageSchema(schemas, md, "The data of "+strings.Join(ts, " and ")+" events."); err != nil {
			return fmt.Errorf("event %s: %w", ts[0], err)
		}
	}
	return nil
}

func addMessageSchema(schemas map[string]any, md protoreflect.MessageDescriptor, description string) error {
	props := map[string]any{}
	schemas[string(md.Name())] = map[string]any{"type": "object", "properties": props, "description": description}
	fs := md.Fields()
	for i := range fs.Len() {
		f := fs.Get(i)
		s, err := fieldSchema(schemas, f)
		if err != nil {
			return fmt.Errorf("%s: %w", f.FullName(), err)
		}
		if f.IsList() {
			s = map[string]any{"type": "array", "items": s}
		}
		props[string(f.Name())] = s
	}
	return nil
}

func fieldSchema(schemas map[string]any, f protoreflect.FieldDescriptor) (map[string]any, error) {
	switch f.Kind() {
	case protoreflect.StringKind:
		return map[string]any{"type": "string"}, nil
	case protoreflect.BoolKind:
		return map[string]any{"type": "boolean"}, nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return map[string]any{"type": "integer", "format": "int32"}, nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return map[string]any{"type": "string"}, nil // describeSchemas adds the int64 format
	case protoreflect.MessageKind:
		md := f.Message()
		switch md.FullName() {
		case "google.protobuf.Timestamp":
			return map[string]any{"type": "string", "format": "date-time"}, nil
		case "google.protobuf.Struct":
			return map[string]any{"type": "object"}, nil
		}
		if md.ParentFile().Package() != rpcrule.Package {
			return nil, fmt.Errorf("message %s has no schema form here", md.FullName())
		}
		if _, ok := schemas[string(md.Name())]; !ok {
			if err := addMessageSchema(schemas, md, ""); err != nil {
				return nil, err
			}
		}
		return map[string]any{"$ref": "#/components/schemas/" + string(md.Name())}, nil
	}
	return nil, fmt.Errorf("kind %s has no schema form here", f.Kind())
}
