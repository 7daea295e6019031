package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/creativeops/creativeops/server"
)

// openPTY opens a pseudo-terminal: what the program writes to slave, the
// test reads from master.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Skipf("unlock pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Skipf("pseudo-terminal number: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("open pseudo-terminal: %v", err)
	}
	return master, slave
}

// With a terminal on stderr an operator is watching: the key is shown
// there, once, and no file is written.
func TestBootstrapKeyOnATerminal(t *testing.T) {
	master, slave := openPTY(t)
	var screen syncBuffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	dataDir := t.TempDir()
	_, stop := startServe(t, slave, "--data-dir", dataDir, "--log-format", "text")
	waitFor(t, "the key on the terminal", func() bool { return keyRe.MatchString(screen.String()) })
	stop()
	slave.Close() // the reader sees EIO once no one holds the terminal
	<-copied
	master.Close()
	if !strings.Contains(screen.String(), "It is shown only this once") {
		t.Fatalf("no banner on the terminal:\n%s", screen.String())
	}
	if _, err := os.Stat(filepath.Join(dataDir, server.BootstrapKeyFile)); !os.IsNotExist(err) {
		t.Fatalf("a key file was written beside the terminal (%v)", err)
	}
}
