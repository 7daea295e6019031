package eventtypes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/creativeops/creativeops/events"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/webhooks"
)

// The Go constants are generated from the declaration (internal/genevents):
// a declaration changed without `make generate` fails here, as does a
// subscription set that is not the declared one.
func TestGoConstantsAreTheDeclaration(t *testing.T) {
	declared, err := Types()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(events.Types(), declared) {
		t.Errorf("events.Types() = %q; the protos declare %q: run make generate", events.Types(), declared)
	}
	if !slices.Equal(webhooks.EventTypes(), declared) {
		t.Errorf("webhooks.EventTypes() = %q; the protos declare %q", webhooks.EventTypes(), declared)
	}
}

// Every declared event type is emitted by the service's code: a
// declaration whose constant nothing outside the events package names is a
// type webhooks can subscribe to and never receive.
func TestEveryDeclaredTypeIsEmitted(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string][]string{}
	root := filepath.Join("..", "..")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case "events", "gen", "ent", "internal", "bench", "clients", "dashboard", "tools", "third_party", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "events" {
					used[sel.Sel.Name] = append(used[sel.Sel.Name], rel)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		if len(used[e.GoName()]) == 0 {
			t.Errorf("%s (events.%s) is declared, but no code outside the events package and the tests emits it", e.Type, e.GoName())
		}
	}
}

func TestGoName(t *testing.T) {
	md := (&creativeopsv1.EventTypes{}).ProtoReflect().Descriptor()
	for field, want := range map[protoreflect.Name]string{"job_completed": "JobCompleted", "ip_registered": "IPRegistered", "webhook_test": "WebhookTest"} {
		if got := (Event{Field: md.Fields().ByName(field)}).GoName(); got != want {
			t.Errorf("%s: GoName %q, want %q", field, got, want)
		}
	}
}

// field is one field of a declaration message built for a test.
type field struct {
	name, typ, description string
	scalar, repeated       bool
}

// declaration builds a message like creativeops.v1.EventTypes from fields.
func declaration(t *testing.T, fields ...field) protoreflect.MessageDescriptor {
	t.Helper()
	msg := &descriptorpb.DescriptorProto{Name: proto.String("Declared")}
	for i, f := range fields {
		fd := &descriptorpb.FieldDescriptorProto{
			Name: proto.String(f.name), Number: proto.Int32(int32(i + 1)), JsonName: proto.String(f.name),
			Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			Type:     descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
			TypeName: proto.String(".creativeops.v1.Creator"),
			Options:  &descriptorpb.FieldOptions{},
		}
		if f.scalar {
			fd.Type, fd.TypeName = descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), nil
		}
		if f.repeated {
			fd.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
		}
		if f.typ != "" || f.description != "" {
			proto.SetExtension(fd.Options, creativeopsv1.E_Event, &creativeopsv1.EventType{Type: f.typ, Description: f.description})
		}
		msg.Field = append(msg.Field, fd)
	}
	file, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("test/declared.proto"), Package: proto.String("test"), Syntax: proto.String("proto3"),
		Dependency:  []string{"creativeops/v1/creators.proto", "creativeops/v1/options.proto"},
		MessageType: []*descriptorpb.DescriptorProto{msg},
	}, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return file.Messages().Get(0)
}

func TestDeclarationRules(t *testing.T) {
	ok := field{name: "creator_created", typ: "creator.created", description: "A creator was provisioned."}
	if got, err := Of(declaration(t, ok)); err != nil || len(got) != 1 || got[0].Type != "creator.created" || got[0].Payload.FullName() != "creativeops.v1.Creator" {
		t.Fatalf("a good declaration: %v %v", got, err)
	}
	for name, tc := range map[string]struct {
		fields []field
		want   string
	}{
		"no type":        {[]field{{name: "a", description: "x"}}, "no (creativeops.v1.event).type"},
		"wildcard":       {[]field{{name: "a", typ: "*", description: "x"}}, "not dot-separated"},
		"one word":       {[]field{{name: "a", typ: "created", description: "x"}}, "not dot-separated"},
		"capitals":       {[]field{{name: "a", typ: "Creator.Created", description: "x"}}, "not dot-separated"},
		"twice":          {[]field{ok, {name: "b", typ: "creator.created", description: "x"}}, "declared by test.Declared.creator_created too"},
		"no description": {[]field{{name: "a", typ: "creator.created"}}, "no (creativeops.v1.event).description"},
		"scalar payload": {[]field{{name: "a", typ: "creator.created", description: "x", scalar: true}}, "must be a message"},
		"list payload":   {[]field{{name: "a", typ: "creator.created", description: "x", repeated: true}}, "must be a message"},
		"nothing":        {nil, "declares no event type"},
	} {
		if _, err := Of(declaration(t, tc.fields...)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
}
