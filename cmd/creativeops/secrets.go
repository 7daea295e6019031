package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/server"
)

// masterKeyFiles is the --master-key-file flag of every command that
// seals or opens secrets at rest.
func (f *flagSet) masterKeyFiles() *string {
	return f.str("master-key-file", "", "master key files sealing secrets at rest, comma-separated, newest first (default <data-dir>/"+secrets.DefaultKeyFile+", created on the first start)")
}

func (f *flagSet) dataDir() *string {
	return f.str("data-dir", "./data", "directory for local state")
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// loadKeyring loads the master keys of an administration command. Unlike
// serve it never creates a key file: a key made up here would seal what
// the servers cannot open.
func loadKeyring(files, dataDir string) (*secrets.Keyring, error) {
	paths := splitList(files)
	if len(paths) == 0 {
		paths = []string{filepath.Join(dataDir, secrets.DefaultKeyFile)}
	}
	return secrets.LoadKeyFiles(paths...)
}

func secretsCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("secrets needs a subcommand: new-key or rotate")
	}
	fs := newFlagSet("secrets "+args[0], stderr)
	switch args[0] {
	case "new-key":
		out := fs.String("out", "", "file to write the new master key to (must not exist)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *out == "" {
			return errors.New("secrets new-key needs --out FILE")
		}
		if err := secrets.CreateKeyFile(*out); err != nil {
			return err
		}
		key, err := secrets.ReadKeyFile(*out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote master key %s to %s\n", secrets.KeyID(key), *out)
		return nil
	case "rotate":
		dbURL := fs.databaseURL()
		dataDir, masterKeys := fs.dataDir(), fs.masterKeyFiles()
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		keyring, err := loadKeyring(*masterKeys, *dataDir)
		if err != nil {
			return err
		}
		st, err := openStore(ctx, *dbURL)
		if err != nil {
			return err
		}
		defer st.Close()
		n, err := server.ResealSecrets(ctx, st, keyring)
		if err != nil {
			return fmt.Errorf("%w (sealed %d secrets before that)", err, n)
		}
		fmt.Fprintf(stdout, "sealed %d secrets under master key %s; every secret is now sealed under it\n", n, keyring.SealingKeyID())
		return nil
	}
	return fmt.Errorf("unknown secrets subcommand %q", args[0])
}
