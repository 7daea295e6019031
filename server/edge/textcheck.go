package edge

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/creativeops/creativeops/apierror"
)

// MaxJSONDepth is how deeply JSON values in requests (creator metadata,
// workflow contexts: google.protobuf.Struct) may nest: each object or
// array is one level. Protobuf decoders stop at 10000 nested messages and
// every JSON level costs two (Value, then Struct or ListValue), so a
// 16 KiB document of nested arrays was accepted and stored, then could not
// be decoded by any gRPC client reading it back. 32 levels is far beyond
// what real metadata needs and far inside what every decoder accepts.
const MaxJSONDepth = 32

// maxTextViolations bounds the field violations one error lists.
const maxTextViolations = 20

// CheckText rejects what storage cannot hold or return faithfully: text
// with NUL bytes (PostgreSQL refuses them; SQLite stored them) or invalid
// UTF-8, in any string field, map key or value, repeated element and JSON
// value of the request, and JSON nested deeper than MaxJSONDepth. Each
// problem is a field violation naming the field by its path.
func CheckText(msg proto.Message) error {
	w := textWalker{}
	w.message(msg.ProtoReflect(), "", 0)
	if len(w.violations) == 0 {
		return nil
	}
	slices.SortFunc(w.violations, func(a, b apierror.FieldViolation) int { return strings.Compare(a.Field, b.Field) })
	omitted := 0
	if len(w.violations) > maxTextViolations {
		w.violations, omitted = w.violations[:maxTextViolations], len(w.violations)-maxTextViolations
	}
	if len(w.violations) == 1 {
		v := w.violations[0]
		return apierror.InvalidField(v.Field, v.Description)
	}
	parts := make([]string, len(w.violations))
	for i, v := range w.violations {
		parts[i] = v.Field + ": " + v.Description
	}
	e := apierror.InvalidFields("invalid request: "+strings.Join(parts, "; "), w.violations)
	if omitted > 0 {
		e.Message += fmt.Sprintf("; and %d more problems not listed", omitted)
		e.Metadata = map[string]string{"violations_omitted": strconv.Itoa(omitted)}
	}
	return e
}

type textWalker struct {
	violations []apierror.FieldViolation
}

func (w *textWalker) add(field, description string) {
	if field == "" {
		field = "request"
	}
	w.violations = append(w.violations, apierror.FieldViolation{Field: field, Description: description})
}

// text checks one string; it reports why the string cannot be stored.
func textProblem(s string) string {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return "must not contain NUL bytes"
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	}
	return ""
}

func (w *textWalker) str(field, s string) {
	if p := textProblem(s); p != "" {
		w.add(field, p)
	}
}

const (
	structName    protoreflect.FullName = "google.protobuf.Struct"
	listValueName protoreflect.FullName = "google.protobuf.ListValue"
)

// message walks m, found at path; depth counts the JSON objects and arrays
// around it.
func (w *textWalker) message(m protoreflect.Message, path string, depth int) {
	name := m.Descriptor().FullName()
	if name == structName || name == listValueName {
		depth++
		if depth > MaxJSONDepth {
			w.add(path, fmt.Sprintf("JSON nested deeper than %d levels", MaxJSONDepth))
			return
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		field := w.fieldPath(name, path, fd)
		switch {
		case fd.IsMap():
			w.mapField(name, field, fd, v.Map(), depth)
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				w.value(fd, fmt.Sprintf("%s[%d]", field, i), l.Get(i), depth)
			}
		default:
			w.value(fd, field, v, depth)
		}
		return true
	})
}

// fieldPath names a field. The fields of JSON values are their document
// path (metadata.label.items[0]), not the wrappers' field names.
func (w *textWalker) fieldPath(parent protoreflect.FullName, path string, fd protoreflect.FieldDescriptor) string {
	switch {
	case parent == structName, parent == listValueName:
		return path
	case parent == "google.protobuf.Value":
		return path
	case path == "":
		return fd.TextName()
	}
	return path + "." + fd.TextName()
}

func (w *textWalker) mapField(parent protoreflect.FullName, field string, fd protoreflect.FieldDescriptor, m protoreflect.Map, depth int) {
	isStruct := parent == structName
	m.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		var entry string
		if fd.MapKey().Kind() == protoreflect.StringKind {
			key := k.String()
			if p := textProblem(key); p != "" {
				// The key itself cannot be echoed: name the map.
				w.add(field, "keys "+p)
				return true
			}
			if isStruct {
				entry = joinJSONPath(field, key)
			} else {
				entry = field + "[" + strconv.Quote(key) + "]"
			}
		} else {
			entry = field + "[" + k.String() + "]"
		}
		w.value(fd.MapValue(), entry, v, depth)
		return true
	})
}

func joinJSONPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (w *textWalker) value(fd protoreflect.FieldDescriptor, field string, v protoreflect.Value, depth int) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		w.str(field, v.String())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		w.message(v.Message(), field, depth)
	}
}
