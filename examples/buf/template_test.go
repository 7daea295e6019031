// Package buf holds the buf.gen.yaml template for programs outside this
// repository (buf.gen.yaml beside this file) and its test.
package buf

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The template does what its comments say, as a user would run it: copied
// into an empty project beside a checkout of this repository, with the
// plugins it names on PATH, buf generate writes Go packages under the
// project's module path, and those packages build in a module of their own,
// offline, with only the modules the template lists.
func TestTemplateGeneratesAModuleThatBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs buf and the go command")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tools := filepath.Join(repo, "tools", "go.mod")
	project := t.TempDir()
	if err := os.Symlink(repo, filepath.Join(project, "creativeops")); err != nil {
		t.Fatal(err)
	}
	template, err := os.ReadFile("buf.gen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(project, "buf.gen.yaml"), string(template))

	// The plugins the template names, from the versions tools/go.mod pins
	// (go tool -n builds one, or finds it in the build cache, and prints
	// its path), under the names buf looks for on PATH.
	bin := filepath.Join(project, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, plugin := range []string{"protoc-gen-go", "protoc-gen-connect-go"} {
		if err := os.Symlink(goIn(t, repo, "tool", "-modfile="+tools, "-n", plugin), filepath.Join(bin, plugin)); err != nil {
			t.Fatal(err)
		}
	}
	bufPath := goIn(t, repo, "tool", "-modfile="+tools, "-n", "buf")
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	runIn(t, project, env, bufPath, "generate")

	connectFile := filepath.Join(project, "gen", "creativeops", "v1", "creativeopsv1connect", "creators.connect.go")
	src, err := os.ReadFile(connectFile)
	if err != nil {
		t.Fatalf("buf generate wrote no connect-go stubs: %v", err)
	}
	if !bytes.Contains(src, []byte(`"example.com/myapp/gen/creativeops/v1"`)) {
		t.Fatalf("%s does not import the messages from under go_package_prefix:\n%s", connectFile, src)
	}

	// A module of its own that requires, at this module's versions, what
	// the template's comment lists; go.sum is this module's, so that the
	// go command needs no network (GOPROXY=off).
	var require strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(goIn(t, repo, "list", "-m",
		"connectrpc.com/connect", "google.golang.org/protobuf",
		"google.golang.org/genproto/googleapis/api", "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go")), "\n") {
		require.WriteString("\t" + line + "\n")
	}
	write(t, filepath.Join(project, "go.mod"), "module example.com/myapp\n\ngo 1.26\n\nrequire (\n"+require.String()+")\n")
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(project, "go.sum"), string(sum))
	write(t, filepath.Join(project, "main.go"), `package main

import (
	"fmt"
	"net/http"

	creativeopsv1 "example.com/myapp/gen/creativeops/v1"
	"example.com/myapp/gen/creativeops/v1/creativeopsv1connect"
)

func main() {
	client := creativeopsv1connect.NewCreatorsServiceClient(http.DefaultClient, "http://localhost:8080")
	fmt.Println(client != nil, (&creativeopsv1.GetCreatorRequest{Id: "cr_1"}).GetId())
}
`)
	goEnv := append(env, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	runIn(t, project, goEnv, "go", "build", "-o", filepath.Join(project, "myapp"), ".")
	runIn(t, project, goEnv, "go", "vet", "./...")
}

// The go install lines of the template's comment, and of the Go section of
// docs/clients.md, name the versions tools/go.mod pins, which are the ones
// make generate runs and the test above uses.
func TestTemplatePluginVersionsArePinned(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	install := regexp.MustCompile(`go install (\S+)@(\S+)`)
	for _, file := range []string{"examples/buf/buf.gen.yaml", "docs/clients.md"} {
		text, err := os.ReadFile(filepath.Join(repo, file))
		if err != nil {
			t.Fatal(err)
		}
		installs := install.FindAllStringSubmatch(string(text), -1)
		if len(installs) != 3 {
			t.Errorf("%d go install lines in %s, want 3 (protoc-gen-go, protoc-gen-connect-go, buf)", len(installs), file)
		}
		for _, m := range installs {
			pkg, version := m[1], m[2]
			pinned := goIn(t, repo, "list", "-modfile="+filepath.Join(repo, "tools", "go.mod"), "-f", "{{.Module.Version}}", pkg)
			if version != pinned {
				t.Errorf("%s installs %s@%s; tools/go.mod pins %s", file, pkg, version, pinned)
			}
		}
	}
}

// goIn runs the go command in the repository and returns its output.
func goIn(t *testing.T, repo string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

func runIn(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
