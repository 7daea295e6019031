package server

import (
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// headerRedacted lists, on a replayed response, the fields that were
// removed from it because they held secrets.
const headerRedacted = "idempotent-redacted"

// redactSecrets returns msg without the fields marked [debug_redact = true]
// in the protos (API key and webhook secrets), and the JSON names of the
// fields it cleared. msg itself is not changed. Idempotency records go
// through it: a secret is shown once, to the request that created it, and
// is never stored, so a replay cannot hand it to whoever repeats the key.
func redactSecrets(msg proto.Message) (proto.Message, []string) {
	if msg == nil || !typeHasRedacted(msg.ProtoReflect().Descriptor()) {
		return msg, nil
	}
	out := proto.Clone(msg)
	var cleared []string
	clearRedacted(out.ProtoReflect(), "", &cleared)
	return out, cleared
}

func isRedacted(fd protoreflect.FieldDescriptor) bool {
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	return ok && opts.GetDebugRedact()
}

// redactedTypes caches hasRedacted per response type.
var redactedTypes sync.Map // protoreflect.FullName → bool

func typeHasRedacted(md protoreflect.MessageDescriptor) bool {
	if v, ok := redactedTypes.Load(md.FullName()); ok {
		return v.(bool)
	}
	has := hasRedacted(md, map[protoreflect.FullName]bool{})
	redactedTypes.Store(md.FullName(), has)
	return has
}

// hasRedacted reports whether a message type can hold a redacted field, so
// that responses without secrets are not copied.
func hasRedacted(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if isRedacted(fd) {
			return true
		}
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() != nil && hasRedacted(fd.Message(), seen) {
			return true
		}
	}
	return false
}

func clearRedacted(m protoreflect.Message, path string, cleared *[]string) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := joinPath(path, fd.TextName())
		switch {
		case isRedacted(fd):
			m.Clear(fd)
			*cleared = append(*cleared, name)
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					clearRedacted(mv.Message(), name+"."+k.String(), cleared)
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				l := v.List()
				for i := range l.Len() {
					clearRedacted(l.Get(i).Message(), name, cleared)
				}
			}
		case fd.Message() != nil:
			clearRedacted(v.Message(), name, cleared)
		}
		return true
	})
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// redactedHeader is the value of Idempotent-Redacted: the cleared fields,
// each named once.
func redactedHeader(fields []string) string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fields {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return strings.Join(out, ",")
}
