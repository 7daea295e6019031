//go:build !unix

package storage

// lockFile is a no-op where flock is missing: processes sharing one
// SQLite file must not migrate it at the same moment there.
func lockFile(string) (func(), error) { return func() {}, nil }
