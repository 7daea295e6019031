package main

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// The set handed to protoc keeps every service and message of ours under
// its wire name, and nothing of the options only the server reads.
func TestDescriptorSetStripsServerOptions(t *testing.T) {
	set, outputs, err := descriptorSet()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"creativeops/grpc/v1/creators.proto", "creativeops/grpc/v1/ip.proto", "creativeops/grpc/v1/google_api_httpbody.proto"} {
		if !slices.Contains(outputs, want) {
			t.Errorf("%s not generated (outputs %v)", want, outputs)
		}
	}
	if slices.ContainsFunc(outputs, func(s string) bool { return strings.Contains(s, "options.proto") }) {
		t.Errorf("options.proto generated: %v", outputs)
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		t.Fatal(err)
	}
	for _, fdp := range set.File {
		for _, dep := range fdp.Dependency {
			if slices.Contains(dropped, dep) || strings.HasPrefix(dep, "google/api/") || strings.HasPrefix(dep, "buf/") {
				t.Errorf("%s still imports %s", fdp.GetName(), dep)
			}
		}
		var walk func(m protoreflect.Message, where string)
		walk = func(m protoreflect.Message, where string) {
			m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
				if fd.Kind() != protoreflect.MessageKind {
					return true
				}
				if fd.IsList() {
					for i := range v.List().Len() {
						walk(v.List().Get(i).Message(), where)
					}
					return true
				}
				if sub := v.Message(); strings.HasSuffix(string(sub.Descriptor().FullName()), "Options") {
					sub.Range(func(ofd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
						if ofd.IsExtension() || ofd.Name() == "debug_redact" {
							t.Errorf("%s: %s keeps %s", where, fd.Name(), ofd.FullName())
						}
						return true
					})
					if len(sub.GetUnknown()) > 0 {
						t.Errorf("%s: %s keeps unknown fields", where, fd.Name())
					}
				} else {
					walk(sub, where)
				}
				return true
			})
		}
		walk(fdp.ProtoReflect(), fdp.GetName())
	}
	// Wire names are untouched: the service and its method, a message,
	// and HttpBody under google.api.
	for _, name := range []protoreflect.FullName{"creativeops.v1.CreatorsService.CreateCreator", "creativeops.v1.Creator", "google.api.HttpBody"} {
		if _, err := files.FindDescriptorByName(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The stripped option really was there before: the webhook secret's
	// debug_redact, gone from the copy.
	orig, err := protoregistry.GlobalFiles.FindDescriptorByName("creativeops.v1.Webhook.secret")
	if err != nil || !orig.Options().(*descriptorpb.FieldOptions).GetDebugRedact() {
		t.Fatalf("the source's Webhook.secret is not debug_redact (%v): the test checks nothing", err)
	}
	d, err := files.FindDescriptorByName("creativeops.v1.Webhook.secret")
	if err != nil {
		t.Fatal(err)
	}
	if opts := d.Options(); opts != nil && proto.Size(opts) > 0 {
		t.Errorf("Webhook.secret keeps options %v", opts)
	}
}
