package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/storage"
)

// masterKeyFlag declares --master-key-file on fs.
func masterKeyFlag(fs *flagSet, files *[]string) {
	var list string
	fs.env(textValue{&list, func(s string) error {
		*files = splitList(s)
		return nil
	}}, "master-key-file", "master key files sealing secrets at rest, comma-separated, newest first (default <data-dir>/"+secrets.DefaultKeyFile+", created on the first start)")
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
func loadKeyring(files []string, dataDir string) (*secrets.Keyring, error) {
	if len(files) == 0 {
		files = []string{filepath.Join(dataDir, secrets.DefaultKeyFile)}
	}
	return secrets.LoadKeyFiles(files...)
}

func secretsNewKey(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("secrets new-key --out FILE", 0)
	var out string
	fs.env(textValue{&out, nonEmpty("a file path")}, "out", "file to write the new master key to (must not exist)")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if out == "" {
		return usagef("secrets new-key needs --out FILE")
	}
	if err := secrets.CreateKeyFile(out); err != nil {
		return err
	}
	key, err := secrets.ReadKeyFile(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote master key %s to %s\n", secrets.KeyID(key), out)
	return nil
}

// openSealed parses the flags of a command that works on secrets at rest
// (the database flags and --master-key-file) and opens the database with
// the master keys that seal them.
func openSealed(ctx context.Context, synopsis string, args []string, stdout io.Writer) (*storage.Store, *secrets.Keyring, error) {
	fs := newFlagSet(synopsis, 0)
	var dataDir string
	var keyFiles []string
	dbURL := fs.database(&dataDir)
	masterKeyFlag(fs, &keyFiles)
	if err := fs.parse(args, stdout); err != nil {
		return nil, nil, err
	}
	keyring, err := loadKeyring(keyFiles, dataDir)
	if err != nil {
		return nil, nil, err
	}
	st, err := openStore(ctx, dbURL())
	if err != nil {
		return nil, nil, err
	}
	return st, keyring, nil
}

func secretsRotate(ctx context.Context, args []string, stdout, _ io.Writer) error {
	st, keyring, err := openSealed(ctx, "secrets rotate [flags]", args, stdout)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := server.ResealSecrets(audit.CLI(ctx), st, keyring)
	if err != nil {
		return fmt.Errorf("%w (sealed %d secrets before that)", err, n)
	}
	fmt.Fprintf(stdout, "sealed %d secrets under master key %s; every secret is now sealed under it\n", n, keyring.SealingKeyID())
	return nil
}

func ipRotateKeys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	st, keyring, err := openSealed(ctx, "ip rotate-keys [flags]", args, stdout)
	if err != nil {
		return err
	}
	defer st.Close()
	k, err := ipreg.RotateKeys(audit.CLI(ctx), st, keyring)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "new log origin %s\nverifier key %s\n", k.Origin(), k.VerifierKey())
	fmt.Fprintln(stderr, "restart every server to sign with the new keys; the old ones stay published")
	return nil
}
