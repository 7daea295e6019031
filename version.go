package creativeops

import (
	_ "embed"
	"strings"
)

//go:embed VERSION
var version string

// Version is the version of the last release this tree is or follows
// ("0.1.0"), kept in the file VERSION: the npm and Python packages carry
// the same one (version_test.go fails when they drift), make release stamps
// the binaries with it, and a binary built without a stamp reports it with
// a "-devel" suffix (internal/buildinfo).
func Version() string { return strings.TrimSpace(version) }
