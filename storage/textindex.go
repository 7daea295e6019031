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

// TitleWordIndex is the SQLite FTS5 table that indexes ip_records' titles
// by words (the unicode61 tokenizer: runs of letters and digits, case
// folded, accents kept), without positions: a title search of several
// words asks it for the words the title must hold whole, or begin with
// (ipreg's titleCandidates), where one word's posting list is far shorter
// than its trigrams' (a million "Seed Work N" share every trigram of a
// number with thousands of others, and no word). Like TitleIndex its
// rowids are ip_records' rowids, it holds no copy of the titles, and
// triggers keep it in step.
const TitleWordIndex = "ip_records_title_words"

// sqliteTextIndex returns the statements that create an FTS5 index of
// ip_records' titles named name, with its triggers, filled from the
// records already stored. Titles are immutable and records are not
// deleted, but an UPDATE or DELETE made by hand keeps the index whole all
// the same.
func sqliteTextIndex(name, options string) []string {
	return []string{
		`CREATE VIRTUAL TABLE ` + name + ` USING fts5(title, content='ip_records', content_rowid='rowid', ` + options + `)`,
		`CREATE TRIGGER ` + name + `_insert AFTER INSERT ON ip_records BEGIN
		INSERT INTO ` + name + `(rowid, title) VALUES (new.rowid, new.title);
	END`,
		`CREATE TRIGGER ` + name + `_delete AFTER DELETE ON ip_records BEGIN
		INSERT INTO ` + name + `(` + name + `, rowid, title) VALUES ('delete', old.rowid, old.title);
	END`,
		`CREATE TRIGGER ` + name + `_update AFTER UPDATE OF title ON ip_records BEGIN
		INSERT INTO ` + name + `(` + name + `, rowid, title) VALUES ('delete', old.rowid, old.title);
		INSERT INTO ` + name + `(rowid, title) VALUES (new.rowid, new.title);
	END`,
		// The records stored before the index existed, read once.
		`INSERT INTO ` + name + `(` + name + `) VALUES ('rebuild')`,
	}
}

// sqliteTextIndexes are SQLite's indexes of the titles and their FTS5
// options.
var sqliteTextIndexes = []struct{ name, options string }{
	{TitleIndex, `tokenize='trigram'`},
	{TitleWordIndex, `tokenize='unicode61 remove_diacritics 0', detail='none'`},
}

// migrateTitleIndex makes the text indexes of ip_records' titles, once.
//
// On SQLite they are the FTS5 tables TitleIndex and TitleWordIndex, each
// created with its triggers and filled from the existing records in one
// transaction, only when it does not exist yet: a database that has it is
// not read again.
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
	for _, ix := range sqliteTextIndexes {
		if err := s.migrateSQLiteTextIndex(ctx, ix.name, ix.options); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) migrateSQLiteTextIndex(ctx context.Context, name, options string) error {
	var n int
	if err := s.DB.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = ?", name).Scan(&n); err != nil {
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
	for _, stmt := range sqliteTextIndex(name, options) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("migrate schema: text index %s: %w", name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate schema: text index %s: %w", name, err)
	}
	return nil
}
