// Package buildinfo says which build of creativeops is running: its
// version, the VCS commit it was built from and the Go version that built
// it. Go records them in the binary; a release build can set the first two
// explicitly:
//
//	go build -ldflags "-X github.com/creativeops/creativeops/internal/buildinfo.version=v1.2.0 \
//	  -X github.com/creativeops/creativeops/internal/buildinfo.commit=$(git rev-parse HEAD)" ./cmd/creativeops
package buildinfo

import (
	"cmp"
	"runtime/debug"
	"strings"

	"github.com/creativeops/creativeops"
)

// Set with -ldflags -X; empty means "as Go recorded it".
var (
	version string
	commit  string
)

// Info describes a build.
type Info struct {
	Version   string
	Commit    string
	GoVersion string
}

// Read returns the running binary's build information. What is unknown
// (a binary built with -buildvcs=false, or a test binary) reads
// "unknown"; a build from a source tree without a version stamp reads the
// tree's VERSION with a "-devel" suffix ("v0.1.0-devel"): not the release,
// but the line it follows.
func Read() Info {
	info := Info{Version: version, Commit: commit}
	var modified bool
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		// Go writes "(devel)" when it knows no version, and a v0.0.0
		// pseudo-version when it knows a commit but no tag: VERSION
		// knows better (the commit is reported on its own).
		if info.Version == "" && bi.Main.Version != "(devel)" && !strings.HasPrefix(bi.Main.Version, "v0.0.0-") {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Commit == "" {
					info.Commit = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified && commit == "" && !strings.HasSuffix(info.Commit, "-dirty") && info.Commit != "" {
		info.Commit += "-dirty"
	}
	info.Version = cmp.Or(info.Version, DevelVersion())
	info.Commit = cmp.Or(info.Commit, "unknown")
	info.GoVersion = cmp.Or(info.GoVersion, "unknown")
	return info
}

// DevelVersion is what a build without a version stamp reports.
func DevelVersion() string { return "v" + creativeops.Version() + "-devel" }

// String is the one-line form creativeops version prints.
func (i Info) String() string {
	return "creativeops " + i.Version + " (commit " + i.Commit + ", " + i.GoVersion + ")"
}
