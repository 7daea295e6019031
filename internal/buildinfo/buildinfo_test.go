package buildinfo

import (
	"testing"

	"github.com/creativeops/creativeops"
)

// What the build stamps with -ldflags -X wins over what Go recorded, and
// is reported as given (a stamped commit is not marked dirty again).
func TestStamped(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v1.2.3", "0123456789abcdef0123456789abcdef01234567"
	got := Read()
	if got.Version != "v1.2.3" || got.Commit != commit {
		t.Fatalf("stamped build reads %+v", got)
	}
	if want := "creativeops v1.2.3 (commit " + commit + ", " + got.GoVersion + ")"; got.String() != want {
		t.Fatalf("String() = %q; want %q", got.String(), want)
	}
	version, commit = "", ""
	if got, want := Read(), "v"+creativeops.Version()+"-devel"; got.Commit != "unknown" || got.Version != want {
		t.Fatalf("a test binary without stamps reads %+v; want commit unknown, version %s", got, want)
	}
}
