package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// TitleIndex is the SQLite FTS5 table that indexes ip_records' titles by
// trigrams, for the catalog's title search (ipreg's CatalogQuery.TitleContains):
// its rowids are ip_records' rowids. It holds no copy of the titles (an
// external-content table reads them from ip_records); triggers keep it in
// step with the records.
const TitleIndex = "ip_records_title_fts"

// TitleTrigramIndex is PostgreSQL's GIN index of ip_records' titles by
// trigrams (pg_trgm), which serves the catalog's title ILIKE.
const TitleTrigramIndex = "iprecord_title_trgm"

// sqliteTitleIndex creates the title index and its triggers. Titles are
// immutable and records are not deleted, but an UPDATE or DELETE made by
// hand keeps the index whole all the same.
var sqliteTitleIndex = []string{
	`CREATE VIRTUAL TABLE ` + TitleIndex + ` USING fts5(title, content='ip_records', content_rowid='rowid', tokenize='trigram')`,
	`CREATE TRIGGER ` + TitleIndex + `_insert AFTER INSERT ON ip_records BEGIN
		INSERT INTO ` + TitleIndex + `(rowid, title) VALUES (new.rowid, new.title);
	END`,
	`CREATE TRIGGER ` + TitleIndex + `_delete AFTER DELETE ON ip_records BEGIN
		INSERT INTO ` + TitleIndex + `(` + TitleIndex + `, rowid, title) VALUES ('delete', old.rowid, old.title);
	END`,
	`CREATE TRIGGER ` + TitleIndex + `_update AFTER UPDATE OF title ON ip_records BEGIN
		INSERT INTO ` + TitleIndex + `(` + TitleIndex + `, rowid, title) VALUES ('delete', old.rowid, old.title);
		INSERT INTO ` + TitleIndex + `(rowid, title) VALUES (new.rowid, new.title);
	END`,
	// The records stored before the index existed, read once.
	`INSERT INTO ` + TitleIndex + `(` + TitleIndex + `) VALUES ('rebuild')`,
}

// migrateTitleIndex makes the text index of ip_records' titles, once.
//
// On SQLite it is the FTS5 table TitleIndex, created with its triggers and
// filled from the existing records in one transaction, only when it does
// not exist yet: a database that has it is not read again.
//
// On PostgreSQL it is the GIN index TitleTrigramIndex, which needs the
// pg_trgm extension. Creating the extension takes the CREATE privilege on
// the database (pg_trgm is a trusted extension); when PostgreSQL refuses
// it, Migrate logs a warning and goes on without the index: title searches
// then scan the organization's records, as they did before it.
func (s *Store) migrateTitleIndex(ctx context.Context) error {
	if s.Pool == nil {
		return s.migrateSQLiteTitleIndex(ctx)
	}
	if _, err := s.DB.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm"); err != nil {
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			return fmt.Errorf("migrate schema: create extension pg_trgm: %w", err)
		}
		s.log.Warn("catalog title search will scan each organization's records: PostgreSQL refused to create the pg_trgm extension "+
			"(a superuser can run CREATE EXTENSION pg_trgm in this database, or grant CREATE on it; see docs/deployment.md)",
			"err", err.Error())
		return nil
	}
	if _, err := s.DB.ExecContext(ctx, "CREATE INDEX IF NOT EXISTS "+TitleTrigramIndex+" ON ip_records USING gin (title gin_trgm_ops)"); err != nil {
		return fmt.Errorf("migrate schema: create index %s: %w", TitleTrigramIndex, err)
	}
	return nil
}

func (s *Store) migrateSQLiteTitleIndex(ctx context.Context) error {
	var n int
	if err := s.DB.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = ?", TitleIndex).Scan(&n); err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	if n > 0 {
		return nil
	}
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	defer func(tx *sql.Tx) { _ = tx.Rollback() }(tx)
	for _, stmt := range sqliteTitleIndex {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("migrate schema: title index: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate schema: title index: %w", err)
	}
	return nil
}
