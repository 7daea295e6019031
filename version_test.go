package creativeops_test

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/creativeops/creativeops"
)

// The packages a release ships carry the version in VERSION (make
// set-version writes every copy): a bump that misses one fails here, not
// in a user's package manager.
func TestPackagesCarryVersion(t *testing.T) {
	v := creativeops.Version()
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Fatalf("VERSION holds %q; want MAJOR.MINOR.PATCH (no v, no suffix)", v)
	}

	var pkg struct{ Version string }
	readJSON(t, "clients/typescript/package.json", &pkg)
	if pkg.Version != v {
		t.Errorf("clients/typescript/package.json: version %q, VERSION %q", pkg.Version, v)
	}
	var lock struct {
		Version  string
		Packages map[string]struct{ Version string }
	}
	readJSON(t, "clients/typescript/package-lock.json", &lock)
	if lock.Version != v || lock.Packages[""].Version != v {
		t.Errorf("clients/typescript/package-lock.json: version %q and %q, VERSION %q (run npm install there)", lock.Version, lock.Packages[""].Version, v)
	}

	py := readFile(t, "clients/python/creativeops/_version.py")
	if m := regexp.MustCompile(`(?m)^__version__ = "([^"]*)"$`).FindStringSubmatch(py); m == nil || m[1] != v {
		t.Errorf("clients/python/creativeops/_version.py: no __version__ = %q line", v)
	}
	// pyproject.toml takes the version from _version.py rather than
	// holding a copy of its own.
	toml := readFile(t, "clients/python/pyproject.toml")
	for _, want := range []string{`(?m)^dynamic = \["version"\]$`, `(?m)^version = \{attr = "creativeops\._version\.__version__"\}$`} {
		if !regexp.MustCompile(want).MatchString(toml) {
			t.Errorf("clients/python/pyproject.toml lacks %s", want)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(readFile(t, name)), v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
