package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"
)

// openKeyring loads the master keys that seal secrets at rest (making
// <data-dir>/master.key on the first start when none is configured) and
// seals every secret stored in the clear by an earlier version or under an
// older master key. A database sealed under other keys fails the start
// with a message naming the key files, before any key file is written: a
// new key is written only once nothing stands in its way, and before
// anything is sealed under it.
func openKeyring(ctx context.Context, cfg Config, store *storage.Store) (*secrets.Keyring, error) {
	if len(cfg.MasterKeyFiles) == 0 && cfg.DataDir == "" {
		// Not the working directory: a key made there is easily lost.
		return nil, errors.New("no master key: set --master-key-file, or --data-dir to keep one in")
	}
	keyring, pending, err := secrets.Open(cfg.MasterKeyFiles, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	files := cfg.MasterKeyFiles
	if len(files) == 0 {
		files = []string{filepath.Join(cfg.DataDir, secrets.DefaultKeyFile)}
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().Perm()&0o077 != 0 {
			cfg.Logger.Warn("master key file is readable by other users than its owner: restrict it to 0600 or 0400", "file", f, "mode", fi.Mode().Perm().String())
		}
	}
	if pending != nil {
		// A key made now cannot open what the database already holds.
		sealed, err := sealingKeyIDs(ctx, store)
		if err != nil {
			return nil, err
		}
		if len(sealed) > 0 {
			return nil, fmt.Errorf("master key: the database holds secrets sealed under master key %s, and %s does not exist: pass the key files with --master-key-file, or the data directory that holds them with --data-dir (no key file was written)",
				strings.Join(sealed, ", "), pending.Path)
		}
		if err := pending.Write(); err != nil {
			return nil, err
		}
		cfg.Logger.Warn("created a master key file: secrets at rest are sealed with it; back it up apart from the database and give the same file to every replica (--master-key-file)", "file", pending.Path)
	}
	n, err := ResealSecrets(ctx, store, keyring)
	if err != nil {
		return nil, fmt.Errorf("%w (the database was written with other master key files: pass them with --master-key-file, newest first)", err)
	}
	if n > 0 {
		cfg.Logger.Info("sealed secrets under the master key", "secrets", n, "master_key", keyring.SealingKeyID())
	}
	return keyring, nil
}

// sealingKeyIDs lists the master keys the database's sealed secrets were
// sealed under (secrets an earlier version stored in the clear have none).
func sealingKeyIDs(ctx context.Context, store *storage.Store) ([]string, error) {
	ids := map[string]bool{}
	for _, list := range []func() ([]string, error){
		func() ([]string, error) { return ipreg.SealingKeyIDs(ctx, store) },
		func() ([]string, error) { return webhooks.SealingKeyIDs(ctx, store) },
		func() ([]string, error) { return oauth.SealingKeyIDs(ctx, store.Ent) },
	} {
		found, err := list()
		if err != nil {
			return nil, fmt.Errorf("master key: find sealed secrets: %w", err)
		}
		for _, id := range found {
			if id != "" {
				ids[id] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(ids)), nil
}

// ResealSecrets seals under keyring's newest master key every secret at
// rest not yet sealed under it (the IP registry's keys, webhook secrets,
// the OAuth signing keys)
// and returns how many it rewrote: `creativeops secrets rotate`, and every
// start.
func ResealSecrets(ctx context.Context, store *storage.Store, keyring *secrets.Keyring) (int, error) {
	keys, err := ipreg.ResealKeys(ctx, store, keyring)
	if err != nil {
		return keys, fmt.Errorf("master key: %w", err)
	}
	hooks, err := webhooks.ResealSecrets(ctx, store, keyring)
	if err != nil {
		return keys + hooks, fmt.Errorf("master key: %w", err)
	}
	tokenKeys, err := oauth.ResealKeys(ctx, store.Ent, keyring)
	if err != nil {
		return keys + hooks + tokenKeys, fmt.Errorf("master key: %w", err)
	}
	return keys + hooks + tokenKeys, nil
}
