package server

import (
	"context"
	"strconv"
	"sync"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/creativeops/creativeops/apierror"
)

// requestCodec is the gRPC proto codec with one difference: a request that
// does not decode (invalid UTF-8 in a string field, a truncated message) is
// the client's fault, an InvalidArgument naming the field, where gRPC
// reports any codec error as Internal.
//
// gRPC turns every error a codec returns into Internal, so the codec
// cannot return it: it records the failure against the message and returns
// nil, and rejectUndecodable, at the front of the interceptor chain, turns
// it into the error. gRPC runs the interceptors right after a successful
// decode, so every record is taken out again.
type requestCodec struct {
	encoding.CodecV2
	failed sync.Map // request message → error
}

func newRequestCodec() *requestCodec {
	return &requestCodec{CodecV2: encoding.GetCodecV2(proto.Name)}
}

func (c *requestCodec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	if err == nil || !deferrable(v) {
		return err
	}
	md := v.(protoreflect.ProtoMessage).ProtoReflect().Descriptor()
	c.failed.Store(v, decodeError(err, data.Materialize(), md))
	return nil
}

// deferrable reports whether v is a request of the service's own (unary)
// RPCs, which always pass through the interceptor chain after decoding;
// the streams of health checks and reflection keep gRPC's handling.
func deferrable(v any) bool {
	m, ok := v.(protoreflect.ProtoMessage)
	return ok && m.ProtoReflect().Descriptor().ParentFile().Package() == servicePackage
}

const servicePackage protoreflect.FullName = "creativeops.v1"

// rejectUndecodable fails a request whose message did not decode.
func (c *requestCodec) rejectUndecodable(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err, failed := c.failed.LoadAndDelete(req); failed {
		return nil, err.(error)
	}
	return handler(ctx, req)
}

func decodeError(err error, b []byte, md protoreflect.MessageDescriptor) error {
	if field := invalidUTF8Field(b, md, ""); field != "" {
		return apierror.InvalidField(field, "must be valid UTF-8")
	}
	return apierror.InvalidField("request", "not a valid protobuf message: "+err.Error())
}

// invalidUTF8Field finds the string field of an encoded message that is
// not UTF-8 (protobuf-go does not say which), by its path; "" if none.
func invalidUTF8Field(b []byte, md protoreflect.MessageDescriptor, path string) string {
	index := map[protoreflect.FieldNumber]int{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return ""
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return ""
		}
		value := b[:n]
		b = b[n:]
		fd := md.Fields().ByNumber(num)
		if fd == nil || typ != protowire.BytesType {
			continue
		}
		field := fd.TextName()
		if path != "" {
			field = path + "." + field
		}
		if fd.IsList() {
			field += "[" + strconv.Itoa(index[num]) + "]"
			index[num]++
		}
		content, _ := protowire.ConsumeBytes(value)
		switch {
		case fd.IsMap():
			if f := invalidUTF8Field(content, fd.Message(), field); f != "" {
				return field
			}
		case fd.Kind() == protoreflect.StringKind:
			if !utf8.Valid(content) {
				return field
			}
		case fd.Kind() == protoreflect.MessageKind:
			if f := invalidUTF8Field(content, fd.Message(), field); f != "" {
				return f
			}
		}
	}
	return ""
}
