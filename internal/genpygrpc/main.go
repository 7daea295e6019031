// Command genpygrpc writes the Python client's optional gRPC stubs,
// clients/python/creativeops/grpc/v1, with protoc's python and pyi
// generators and grpc_python_plugin (Debian's protobuf-compiler and
// protobuf-compiler-grpc are enough).
//
// It does not hand protoc our .proto sources: protoc 3.21 rejects newer
// descriptor options (debug_redact), and stubs generated from them would
// import the modules of every option's file (google.api.annotations,
// buf.validate) at run time. Instead it takes the descriptors compiled into
// gen/creativeops/v1 and writes a descriptor set of our service files
// where options that only matter to the server — google.api.http routes,
// buf.validate rules, creativeops.v1.rule and nullable, debug_redact — are
// stripped and the files declaring them dropped from the imports. The
// stubs then need only the protobuf and grpcio packages. Wire names
// (packages, messages, services, field numbers) are untouched; only the
// files' paths change, so that Python imports them from
// creativeops.grpc.v1.
package main

import (
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	_ "github.com/creativeops/creativeops/gen/creativeops/v1"
)

const (
	// outRoot is where protoc writes; the modules land under pyPackage.
	outRoot   = "clients/python"
	pyPackage = "creativeops/grpc/v1"
)

// dropped are files whose only use in our protos is options the server
// reads; they are removed from the imports.
var dropped = []string{
	"google/api/annotations.proto",
	"buf/validate/validate.proto",
	"creativeops/v1/options.proto",
}

// renamed maps a source file to the path of its stub. google.api.HttpBody
// is a message our RPCs return: its file is generated beside ours so the
// stubs do not need googleapis-common-protos.
func renamed(path string) (string, bool) {
	switch {
	case path == "google/api/httpbody.proto":
		return pyPackage + "/google_api_httpbody.proto", true
	case strings.HasPrefix(path, "creativeops/v1/") && !slices.Contains(dropped, path):
		return pyPackage + "/" + strings.TrimPrefix(path, "creativeops/v1/"), true
	}
	return "", false
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("genpygrpc: ")
	set, outputs, err := descriptorSet()
	if err != nil {
		log.Fatal(err)
	}
	if err := generate(set, outputs); err != nil {
		log.Fatal(err)
	}
}

// descriptorSet is the set handed to protoc: our files, stripped and
// renamed, with the well-known types they import; and the names of the
// files to generate.
func descriptorSet() (*descriptorpb.FileDescriptorSet, []string, error) {
	var ours []protoreflect.FileDescriptor
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if _, ok := renamed(fd.Path()); ok && strings.HasPrefix(fd.Path(), "creativeops/") {
			ours = append(ours, fd)
		}
		return true
	})
	if len(ours) == 0 {
		return nil, nil, errors.New("no creativeops/v1 files registered")
	}
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var outputs []string
	// add appends fd after its imports, as protoc wants them.
	var add func(fd protoreflect.FileDescriptor) error
	add = func(fd protoreflect.FileDescriptor) error {
		if seen[fd.Path()] || slices.Contains(dropped, fd.Path()) {
			return nil
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			if err := add(imports.Get(i).FileDescriptor); err != nil {
				return err
			}
		}
		fdp := protodesc.ToFileDescriptorProto(fd)
		name, ours := renamed(fd.Path())
		if !ours {
			if !strings.HasPrefix(fd.Path(), "google/protobuf/") {
				return fmt.Errorf("%s: imported file neither ours nor a well-known type", fd.Path())
			}
			set.File = append(set.File, fdp)
			return nil
		}
		if len(fdp.PublicDependency) > 0 || len(fdp.WeakDependency) > 0 {
			return fmt.Errorf("%s: public or weak imports are not handled", fd.Path())
		}
		fdp.Name = proto.String(name)
		var deps []string
		for _, dep := range fdp.Dependency {
			if slices.Contains(dropped, dep) {
				continue
			}
			if to, ok := renamed(dep); ok {
				dep = to
			}
			deps = append(deps, dep)
		}
		fdp.Dependency = deps
		fdp.SourceCodeInfo = nil
		stripOptions(fdp.ProtoReflect())
		set.File = append(set.File, fdp)
		outputs = append(outputs, name)
		return nil
	}
	for _, fd := range ours {
		if err := add(fd); err != nil {
			return nil, nil, err
		}
	}
	// Check the result stands on its own before protoc sees it.
	if _, err := protodesc.NewFiles(set); err != nil {
		return nil, nil, fmt.Errorf("stripped descriptor set: %w", err)
	}
	return set, outputs, nil
}

// stripOptions removes, from every *Options message within m, the
// extensions (google.api.http, buf.validate, creativeops.v1.rule and
// nullable), unknown fields and debug_redact; an options message left
// empty is removed.
func stripOptions(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			list := v.List()
			for i := range list.Len() {
				stripOptions(list.Get(i).Message())
			}
			return true
		}
		sub := v.Message()
		if !strings.HasSuffix(string(sub.Descriptor().FullName()), "Options") {
			stripOptions(sub)
			return true
		}
		sub.Range(func(ofd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
			if ofd.IsExtension() || ofd.Name() == "debug_redact" {
				sub.Clear(ofd)
			}
			return true
		})
		sub.SetUnknown(nil)
		if proto.Size(sub.Interface()) == 0 {
			m.Clear(fd)
		}
		return true
	})
}

// generate runs protoc over the set, replacing what an earlier run wrote.
func generate(set *descriptorpb.FileDescriptorSet, outputs []string) error {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		return errors.New("protoc not found: install protobuf-compiler (Debian) or set PATH")
	}
	plugin, err := exec.LookPath("grpc_python_plugin")
	if err != nil {
		return errors.New("grpc_python_plugin not found: install protobuf-compiler-grpc (Debian) or set PATH")
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "genpygrpc")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	setFile := filepath.Join(tmp, "set.binpb")
	if err := os.WriteFile(setFile, b, 0o644); err != nil {
		return err
	}
	dir := filepath.Join(outRoot, pyPackage)
	old, _ := filepath.Glob(filepath.Join(dir, "*_pb2*.py*"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	args := append([]string{
		"--descriptor_set_in=" + setFile,
		"--plugin=protoc-gen-grpc_python=" + plugin,
		"--python_out=" + outRoot, "--pyi_out=" + outRoot, "--grpc_python_out=" + outRoot,
	}, outputs...)
	cmd := exec.Command(protoc, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("protoc %s: %w", strings.Join(args, " "), err)
	}
	init := "# Generated by internal/genpygrpc (make python-grpc) from proto/creativeops/v1: do not edit.\n"
	return os.WriteFile(filepath.Join(dir, "__init__.py"), []byte(init), 0o644)
}
