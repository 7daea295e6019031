package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/term"

	"github.com/creativeops/creativeops/auth"
)

// BootstrapKeyFile is the file in the data directory that receives the
// first key when no terminal is there to show it.
const BootstrapKeyFile = "bootstrap-key"

// Bootstrap gives a brand-new installation a way in: on an empty database it
// creates the organization "default" with one all-scopes key, shown once.
// The organization and its key commit together, and when replicas start
// together only the one whose insert wins shows a key; the others carry on
// silently. A database with organizations but no usable key gets a warning
// saying how to make one.
func (s *Server) Bootstrap(ctx context.Context) error {
	// An operator watching a terminal reads the key there. Otherwise (a
	// service manager, a container, a pipe into log storage) the console
	// carries JSON log lines, which a banner would break and where a
	// secret does not belong: the key goes to a file only its owner can
	// read, written before the key commits, so that a key that cannot be
	// saved is never created.
	terminal := false
	if f, ok := s.cfg.Console.(*os.File); ok {
		terminal = term.IsTerminal(int(f.Fd()))
	}
	var keyFile string
	orgID, secret, err := s.keys.Bootstrap(ctx, func(secret string) error {
		if terminal {
			return nil
		}
		var err error
		keyFile, err = writeKeyFile(cmp.Or(s.cfg.DataDir, DefaultConfig().DataDir), secret)
		return err
	})
	switch {
	case errors.Is(err, auth.ErrBootstrapped):
		return s.warnWithoutKeys(ctx)
	case err != nil:
		return fmt.Errorf("bootstrap: %w", err)
	}
	if terminal {
		fmt.Fprintf(s.cfg.Console, "\nCreated organization %q (%s) and an API key with all scopes.\nIt is shown only this once:\n\n    %s\n\n", auth.DefaultOrganization, orgID, secret)
		return nil
	}
	s.log.Warn("created organization \"default\" and an API key with all scopes; the key is in a file readable only by this user: keep it elsewhere and delete the file",
		"org", auth.DefaultOrganization, "org_id", orgID, "key_file", keyFile)
	return nil
}

// writeKeyFile writes the first key to dir/BootstrapKeyFile, mode 0600. A
// file left by an earlier installation is replaced, never read by anyone
// in between: it is removed, then the new one created exclusively.
func writeKeyFile(dir, secret string) (string, error) {
	path := filepath.Join(dir, BootstrapKeyFile)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", fmt.Errorf("bootstrap key file: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("bootstrap key file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("bootstrap key file: %w", err)
	}
	_, err = fmt.Fprintln(f, secret)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("bootstrap key file %s: %w", path, err)
	}
	return path, nil
}

// warnWithoutKeys tells the operator of an installation that no key can
// open how to make one.
func (s *Server) warnWithoutKeys(ctx context.Context) error {
	usable, err := s.keys.HasUsableKey(ctx)
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if !usable {
		s.log.Warn("no active API key: every request will be refused; create one with: creativeops keys create --org NAME --scopes '*' (creativeops orgs list shows the organizations)")
	}
	return nil
}
