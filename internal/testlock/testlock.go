// Package testlock makes the test packages that start server processes
// under load take turns. `go test ./...` runs two packages at a time on a
// 2-core machine; when two of these ran side by side, each starving the
// other's servers of CPU, their timing assumptions failed (a killed
// replica's requests still in flight 6 s later, a restarted one answering
// after the client's 15 s timeout), on the old code as on the new.
package testlock

import (
	"fmt"
	"os"
	"path/filepath"
)

// Run holds the lock shared by every such package while run runs (its
// TestMain's m.Run) and returns run's exit code. The lock is a file lock
// in the temporary directory: it dies with the process.
func Run(run func() int) int {
	path := filepath.Join(os.TempDir(), "creativeops-server-tests.lock")
	unlock, err := lock(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testlock: %v; running without it\n", err)
		return run()
	}
	defer unlock()
	return run()
}
