package creativeops_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/creativeops/creativeops"

// layer names the packages of each layer (docs/architecture.md). A new
// package must be placed in one, so the rules below cover it.
var layer = map[string]string{
	"":                    "root",
	"cmd/creativeops":     "command",
	"server":              "transport",
	"server/wire":         "transport",
	"server/edge":         "transport",
	"dashboard":           "transport",
	"analytics":           "domain",
	"audit":               "domain",
	"auth":                "domain",
	"creators":            "domain",
	"engine":              "domain",
	"engine/workflows":    "domain",
	"events":              "domain",
	"idempotency":         "domain",
	"ipreg":               "domain",
	"oauth":               "domain",
	"jobs":                "domain",
	"plans":               "domain",
	"ratelimit":           "domain",
	"webhooks":            "domain",
	"apierror":            "shared",
	"ids":                 "shared",
	"storage":             "storage",
	"ent":                 "storage",
	"gen":                 "generated",
	"internal":            "support",
	"bench":               "support",
	"tools":               "support",
	"third_party":         "support",
	"proto":               "support",
	"docs":                "support",
	"engine/enginetest":   "support",
	"examples":            "example",
	"internal/rpcrule":    "transport",
	"internal/genopenapi": "support",
	"internal/genpygrpc":  "support",
}

// layerOf finds a package's layer by its longest listed prefix.
func layerOf(rel string) (string, bool) {
	for p := rel; ; {
		if l, ok := layer[p]; ok {
			return l, true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			if p == "" {
				return "", false
			}
			p = ""
			continue
		}
		p = p[:i]
	}
}

// TestLayers checks the direction of dependencies: the domain never
// imports the wire types (gen/) or the transports, and the transports reach
// storage only through the domain (no ent/ imports).
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports ","}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		l, ok := layerOf(rel)
		if !ok {
			t.Errorf("package %s belongs to no layer; add it to the table in layers_test.go", pkg)
			continue
		}
		for _, imp := range strings.Split(imports, ",") {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			switch {
			case l == "domain" && (dep == "gen" || strings.HasPrefix(dep, "gen/")):
				t.Errorf("domain package %s imports the wire types %s", rel, dep)
			case l == "domain" && (dep == "server" || strings.HasPrefix(dep, "server/")):
				t.Errorf("domain package %s imports the transport %s", rel, dep)
			case strings.HasPrefix(rel, "server/edge") && dep == "server":
				// The edge is put in front of the services; it cannot
				// reach back into them.
				t.Errorf("edge package %s imports the server", rel)
			case l == "example" && dep != "gen" && !strings.HasPrefix(dep, "gen/"):
				// An example is what a program outside the module can
				// write: the generated API and nothing else of ours.
				t.Errorf("example %s imports %s: examples use only the generated API (gen/)", rel, dep)
			case l == "transport" && (dep == "ent" || strings.HasPrefix(dep, "ent/")):
				t.Errorf("transport package %s imports storage directly: %s", rel, dep)
			case l == "storage" && (dep == "storage" || strings.HasPrefix(dep, "storage/")):
				// Storage's own packages (storage/jsondoc, the encoding
				// of stored documents, used by ent's generated code).
			case (l == "storage" || l == "shared") && !strings.HasPrefix(dep, "ent") && dep != "ids" && dep != "apierror":
				t.Errorf("%s package %s imports %s above it", l, rel, dep)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("checked only %d packages", checked)
	}
}
