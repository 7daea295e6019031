package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// The buf.validate rules of the protos, said in JSON Schema: what a
// request must set, and the bounds of what it may set. The server enforces
// the rules (one protovalidate interceptor); the document says them, so a
// client or a validator in front of the server refuses what the server
// would.

var validator = sync.OnceValues(func() (protovalidate.Validator, error) { return protovalidate.New() })

// zeroRefused lists the fields of a message whose zero value its rules
// refuse: the fields a request must set. protovalidate itself answers, over
// a message with nothing set, so every rule that refuses the zero value
// counts — required, a minimum length, a pattern, a set without "", a
// lower bound above zero — and a field with presence (proto3 optional)
// does not, since its rules apply only when it is set.
func zeroRefused(md protoreflect.MessageDescriptor) (map[string]bool, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		return nil, err
	}
	v, err := validator()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	err = v.Validate(mt.New().Interface())
	var ve *protovalidate.ValidationError
	if errors.As(err, &ve) {
		for _, viol := range ve.Violations {
			elems := viol.Proto.GetField().GetElements()
			if len(elems) == 1 {
				out[elems[0].GetFieldName()] = true
			}
		}
	} else if err != nil {
		return nil, err
	}
	return out, nil
}

// applyRules writes a field's buf.validate bounds on its schema (prop, or
// its items for a repeated field): lengths, patterns and formats of
// strings, bounds of numbers, item and pair counts.
func applyRules(f protoreflect.FieldDescriptor, prop map[string]any) error {
	rules, _ := proto.GetExtension(f.Options(), validate.E_Field).(*validate.FieldRules)
	if rules == nil {
		return nil
	}
	if r := rules.GetRepeated(); r != nil && f.IsList() {
		if r.HasMinItems() {
			prop["minItems"] = r.GetMinItems()
		}
		if r.HasMaxItems() {
			prop["maxItems"] = r.GetMaxItems()
		}
		if r.GetUnique() {
			prop["uniqueItems"] = true
		}
		if items, _ := prop["items"].(map[string]any); items != nil && r.GetItems() != nil {
			return scalarRules(f, r.GetItems(), items)
		}
		return nil
	}
	if m := rules.GetMap(); m != nil && f.IsMap() {
		if m.HasMinPairs() {
			prop["minProperties"] = m.GetMinPairs()
		}
		if m.HasMaxPairs() {
			prop["maxProperties"] = m.GetMaxPairs()
		}
		return nil
	}
	return scalarRules(f, rules, prop)
}

func scalarRules(f protoreflect.FieldDescriptor, rules *validate.FieldRules, s map[string]any) error {
	if r := rules.GetString(); r != nil {
		if r.HasMinLen() {
			s["minLength"] = r.GetMinLen()
		}
		if r.HasMaxLen() {
			s["maxLength"] = r.GetMaxLen()
		}
		if r.HasLen() {
			s["minLength"], s["maxLength"] = r.GetLen(), r.GetLen()
		}
		if r.HasPattern() {
			p, err := ecmaPattern(r.GetPattern())
			if err != nil {
				return fmt.Errorf("%s: %w", f.FullName(), err)
			}
			s["pattern"] = p
		}
		switch {
		case r.GetEmail():
			s["format"] = "email"
		case r.GetUri():
			s["format"] = "uri"
		case r.GetUuid():
			s["format"] = "uuid"
		case r.GetHostname():
			s["format"] = "hostname"
		}
	}
	// Bounds of numbers the JSON carries as numbers; a 64-bit integer
	// travels as a decimal string, where JSON Schema has no bounds, and its
	// bounds are said in words.
	type bounds struct {
		gte, gt, lte, lt any
	}
	var b bounds
	set := func(has bool, v any, to *any) {
		if has {
			*to = v
		}
	}
	int64Bounds := false
	switch {
	case rules.GetInt32() != nil:
		r := rules.GetInt32()
		set(r.HasGte(), r.GetGte(), &b.gte)
		set(r.HasGt(), r.GetGt(), &b.gt)
		set(r.HasLte(), r.GetLte(), &b.lte)
		set(r.HasLt(), r.GetLt(), &b.lt)
	case rules.GetUint32() != nil:
		r := rules.GetUint32()
		set(r.HasGte(), r.GetGte(), &b.gte)
		set(r.HasGt(), r.GetGt(), &b.gt)
		set(r.HasLte(), r.GetLte(), &b.lte)
		set(r.HasLt(), r.GetLt(), &b.lt)
	case rules.GetDouble() != nil:
		r := rules.GetDouble()
		set(r.HasGte(), r.GetGte(), &b.gte)
		set(r.HasGt(), r.GetGt(), &b.gt)
		set(r.HasLte(), r.GetLte(), &b.lte)
		set(r.HasLt(), r.GetLt(), &b.lt)
	case rules.GetFloat() != nil:
		r := rules.GetFloat()
		set(r.HasGte(), r.GetGte(), &b.gte)
		set(r.HasGt(), r.GetGt(), &b.gt)
		set(r.HasLte(), r.GetLte(), &b.lte)
		set(r.HasLt(), r.GetLt(), &b.lt)
	case rules.GetInt64() != nil:
		r := rules.GetInt64()
		set(r.HasGte(), r.GetGte(), &b.gte)
		set(r.HasGt(), r.GetGt(), &b.gt)
		set(r.HasLte(), r.GetLte(), &b.lte)
		set(r.HasLt(), r.GetLt(), &b.lt)
		int64Bounds = true
	case rules.GetDuration() != nil:
		r := rules.GetDuration()
		var words []string
		if r.HasGte() {
			words = append(words, fmt.Sprintf("at least %ds", r.GetGte().GetSeconds()))
		}
		if r.HasGt() {
			words = append(words, fmt.Sprintf("more than %ds", r.GetGt().GetSeconds()))
		}
		if r.HasLte() {
			words = append(words, fmt.Sprintf("at most %ds", r.GetLte().GetSeconds()))
		}
		if r.HasLt() {
			words = append(words, fmt.Sprintf("less than %ds", r.GetLt().GetSeconds()))
		}
		if len(words) > 0 {
			addSentence(s, "A duration of "+strings.Join(words, " and ")+".")
		}
		return nil
	}
	if int64Bounds {
		var words []string
		for _, w := range []struct {
			v    any
			word string
		}{{b.gte, "at least"}, {b.gt, "more than"}, {b.lte, "at most"}, {b.lt, "less than"}} {
			if w.v != nil {
				words = append(words, fmt.Sprintf("%s %v", w.word, w.v))
			}
		}
		if len(words) > 0 {
			addSentence(s, "Must be "+strings.Join(words, " and ")+".")
		}
		return nil
	}
	if b.gte != nil {
		s["minimum"] = b.gte
	}
	if b.gt != nil {
		s["exclusiveMinimum"] = b.gt
	}
	if b.lte != nil {
		s["maximum"] = b.lte
	}
	if b.lt != nil {
		s["exclusiveMaximum"] = b.lt
	}
	return nil
}

func addSentence(s map[string]any, sentence string) {
	d, _ := s["description"].(string)
	if d != "" && !strings.HasSuffix(d, ".") {
		d += "."
	}
	s["description"] = strings.TrimSpace(d + " " + sentence)
}

// ecmaPattern turns an RE2 pattern of a buf.validate rule into the ECMA-262
// dialect JSON Schema uses. The one construct the protos use that ECMA
// lacks is a leading case-insensitive flag, (?i) (after an optional ^):
// every letter becomes a class of both cases. Other flags are refused, so
// that a rule the document cannot say fails generation instead of being
// said wrongly.
func ecmaPattern(re string) (string, error) {
	anchor := ""
	if strings.HasPrefix(re, "^") {
		anchor, re = "^", re[1:]
	}
	if !strings.HasPrefix(re, "(?i)") {
		if strings.Contains(re, "(?") && !strings.Contains(re, "(?:") {
			return "", fmt.Errorf("pattern %q has flags JSON Schema cannot say", re)
		}
		return anchor + re, nil
	}
	re = re[len("(?i)"):]
	if strings.Contains(re, "(?") && !strings.Contains(re, "(?:") {
		return "", fmt.Errorf("pattern %q has flags JSON Schema cannot say", re)
	}
	var b strings.Builder
	b.WriteString(anchor)
	inClass, escaped := false, false
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case escaped:
			escaped = false
			b.WriteByte(c)
		case c == '\\':
			escaped = true
			b.WriteByte(c)
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		case inClass && isLetter(c) && i+2 < len(re) && re[i+1] == '-' && isLetter(re[i+2]):
			// A range of letters, and the same range in the other case.
			lo, hi := c, re[i+2]
			b.WriteString(string([]byte{lo, '-', hi, otherCase(lo), '-', otherCase(hi)}))
			i += 2
		case inClass && isLetter(c):
			b.WriteByte(c)
			b.WriteByte(otherCase(c))
		case isLetter(c):
			b.WriteString(string([]byte{'[', c, otherCase(c), ']'}))
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func otherCase(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c - 'A' + 'a'
}
