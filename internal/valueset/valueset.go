// Package valueset reads the closed sets of string values the protos
// declare: a request field's buf.validate string.in rule (on the field, or
// on the items of a repeated one), or the creativeops.v1.values option of a
// field the API returns (whose event_types is the set of webhook event types
// internal/eventtypes reads). The OpenAPI generator makes them enums, and tests
// hold the domain's constants to them.
package valueset

import (
	"fmt"
	"slices"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/eventtypes"
)

// Of returns the values field f (or each item of it, when repeated) may
// hold, in the order declared, or nil when the protos declare no set. The
// "" of a string.in rule, which lets a request leave the field unset, is
// not a value.
func Of(f protoreflect.FieldDescriptor) ([]string, error) {
	return of(f, map[protoreflect.FullName]bool{})
}

// Named is Of for the field of that full name, e.g.
// "creativeops.v1.Job.status".
func Named(name string) ([]string, error) {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, fmt.Errorf("no field %s: %w", name, err)
	}
	f, ok := d.(protoreflect.FieldDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a field", name)
	}
	return Of(f)
}

func of(f protoreflect.FieldDescriptor, seen map[protoreflect.FullName]bool) ([]string, error) {
	if seen[f.FullName()] {
		return nil, fmt.Errorf("%s: same_as goes round in a circle", f.FullName())
	}
	seen[f.FullName()] = true
	if f.Kind() != protoreflect.StringKind {
		if declared(f) {
			return nil, fmt.Errorf("%s: only string fields have a set of values", f.FullName())
		}
		return nil, nil
	}
	if in := ruleIn(f); len(in) > 0 {
		return without(in, []string{""}), nil
	}
	v, _ := proto.GetExtension(f.Options(), creativeopsv1.E_Values).(*creativeopsv1.Values)
	if v == nil {
		return nil, nil
	}
	switch {
	case v.GetSameAs() != "" && (len(v.GetIn()) > 0 || v.GetEventTypes()):
		return nil, fmt.Errorf("%s: values declares same_as beside in or event_types", f.FullName())
	case v.GetEventTypes():
		types, err := eventtypes.Types()
		if err != nil {
			return nil, fmt.Errorf("%s: event_types: %w", f.FullName(), err)
		}
		return without(append(slices.Clone(v.GetIn()), types...), v.GetExcept()), nil
	case len(v.GetIn()) > 0:
		return without(v.GetIn(), v.GetExcept()), nil
	case v.GetSameAs() != "":
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(v.GetSameAs()))
		if err != nil {
			return nil, fmt.Errorf("%s: same_as %s: %w", f.FullName(), v.GetSameAs(), err)
		}
		other, ok := d.(protoreflect.FieldDescriptor)
		if !ok {
			return nil, fmt.Errorf("%s: same_as %s is not a field", f.FullName(), v.GetSameAs())
		}
		set, err := of(other, seen)
		if err != nil {
			return nil, err
		}
		if len(set) == 0 {
			return nil, fmt.Errorf("%s: same_as %s, which declares no values", f.FullName(), v.GetSameAs())
		}
		for _, e := range v.GetExcept() {
			if !slices.Contains(set, e) {
				return nil, fmt.Errorf("%s: except %q, which %s does not hold", f.FullName(), e, v.GetSameAs())
			}
		}
		return without(set, v.GetExcept()), nil
	}
	return nil, fmt.Errorf("%s: values declares neither in, same_as nor event_types", f.FullName())
}

// ruleIn is the string.in rule of f, or of its items when f is repeated.
func ruleIn(f protoreflect.FieldDescriptor) []string {
	rules, _ := proto.GetExtension(f.Options(), validate.E_Field).(*validate.FieldRules)
	if f.IsList() {
		return rules.GetRepeated().GetItems().GetString().GetIn()
	}
	return rules.GetString().GetIn()
}

func declared(f protoreflect.FieldDescriptor) bool {
	v, _ := proto.GetExtension(f.Options(), creativeopsv1.E_Values).(*creativeopsv1.Values)
	return v != nil
}

func without(set, drop []string) []string {
	out := make([]string, 0, len(set))
	for _, s := range set {
		if !slices.Contains(drop, s) {
			out = append(out, s)
		}
	}
	return out
}
