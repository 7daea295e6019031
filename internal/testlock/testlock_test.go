//go:build unix

package testlock

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Two holders never overlap: the second waits for the first to finish.
func TestRunTakesTurns(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	path := filepath.Join(os.TempDir(), "creativeops-server-tests.lock")
	first, second := make(chan struct{}), make(chan struct{})
	release := make(chan struct{})
	go Run(func() int { close(first); <-release; return 0 })
	<-first
	// lock opens its own descriptor, so flock treats it as another holder.
	go func() {
		unlock, err := lock(path)
		if err != nil {
			t.Error(err)
			return
		}
		defer unlock()
		close(second)
	}()
	select {
	case <-second:
		t.Fatal("the second holder ran while the first held the lock")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	<-second
}
