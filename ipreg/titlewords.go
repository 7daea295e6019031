package ipreg

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"entgo.io/ent/dialect"
)

// A title search of several words asks the trigram index for its
// uncommon words only, when it also holds a common one. Both indexes
// test the candidates of a search's rarest trigram against the posting
// list of every other trigram (PostgreSQL's GIN scan, SQLite's FTS5
// phrase), and a word most titles share (the "Work" of a catalog of
// "Work 1", "Work 2", ...) brings posting lists as long as the catalog: at
// a million records they were most of a search's cost, and they narrow
// its matches by half at most. The search's own predicate still filters
// the candidates, so the matches are the same.
//
// Which words are common is estimated from a sample of the titles:
// PostgreSQL's statistics (pg_stats, which ANALYZE keeps), or on SQLite
// titleSample records read by random rowids.

// commonWordShare is the share of titles from which a word is common.
const commonWordShare = 0.5

// titleStatsTTL is how long the titles' statistics are kept between reads
// of pg_stats; ANALYZE (autovacuum's) renews them far less often.
const titleStatsTTL = 10 * time.Minute

// titleSampleSize is how many records SQLite's estimate reads (at random
// rowids, each one lookup).
const titleSampleSize = 256

// titleStats keeps the latest sample of the titles for every search to
// read; one search at a time renews it, once it is titleStatsTTL old.
type titleStats struct {
	mu  sync.Mutex // held while renewing
	cur atomic.Pointer[titleSample]
}

// titleSample is what a sample says of ip_records.title, lowercased: on
// PostgreSQL its statistics' most common values with their shares, and a
// histogram sampling the rest; on SQLite titles read at random (hist).
// It is never changed once made.
type titleSample struct {
	read time.Time
	mcv  []string
	freq []float64
	hist []string
	// rest is the share of titles that are neither null nor among mcv,
	// which hist samples.
	rest float64
}

// share estimates the share of titles containing word (lowercase).
func (t *titleSample) share(word string) float64 {
	s := 0.0
	for i, v := range t.mcv {
		if strings.Contains(v, word) {
			s += t.freq[i]
		}
	}
	if len(t.hist) > 0 {
		n := 0
		for _, v := range t.hist {
			if strings.Contains(v, word) {
				n++
			}
		}
		s += t.rest * float64(n) / float64(len(t.hist))
	}
	return s
}

// empty reports whether the sample holds no title: the table was never
// analyzed or is empty, or the sample could not be read.
func (t *titleSample) empty() bool { return len(t.mcv)+len(t.hist) == 0 }

// get returns the current sample, reading a new one when it is
// titleStatsTTL old. The read does not stop with the search that makes
// it: its result serves every search for the next titleStatsTTL.
func (t *titleStats) get(ctx context.Context, r *Registry) *titleSample {
	fresh := func() *titleSample {
		if s := t.cur.Load(); s != nil && time.Since(s.read) < titleStatsTTL {
			return s
		}
		return nil
	}
	if s := fresh(); s != nil {
		return s
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := fresh(); s != nil {
		return s
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	s := &titleSample{read: time.Now()}
	var err error
	if r.store.Dialect == dialect.SQLite {
		err = s.readSQLite(ctx, r.store.ReadDB())
	} else {
		err = s.readPostgres(ctx, r.store.ReadDB())
	}
	if err != nil {
		// Searches go on unnarrowed, as they would without a sample.
		s = &titleSample{read: s.read}
	}
	t.cur.Store(s)
	return s
}

// readPostgres reads PostgreSQL's statistics of the titles; no row (never
// analyzed) leaves the sample empty.
func (t *titleSample) readPostgres(ctx context.Context, db *sql.DB) error {
	var mcv, freq, hist []byte
	var nullFrac float64
	err := db.QueryRowContext(ctx, `SELECT
		COALESCE(array_to_json(most_common_vals::text::text[]), '[]'),
		COALESCE(array_to_json(most_common_freqs), '[]'),
		COALESCE(array_to_json(histogram_bounds::text::text[]), '[]'),
		null_frac
		FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'ip_records' AND attname = 'title'`).
		Scan(&mcv, &freq, &hist, &nullFrac)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := errors.Join(json.Unmarshal(mcv, &t.mcv), json.Unmarshal(freq, &t.freq), json.Unmarshal(hist, &t.hist)); err != nil {
		return err
	}
	if len(t.mcv) != len(t.freq) {
		return fmt.Errorf("pg_stats: %d most common titles, %d shares", len(t.mcv), len(t.freq))
	}
	lower(t.mcv)
	lower(t.hist)
	t.rest = 1 - nullFrac
	for _, f := range t.freq {
		t.rest -= f
	}
	return nil
}

// readSQLite reads up to titleSampleSize titles at random rowids below
// the largest: each a lookup by rowid, whatever the table's size.
func (t *titleSample) readSQLite(ctx context.Context, db *sql.DB) error {
	var top sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT max(rowid) FROM ip_records").Scan(&top); err != nil || !top.Valid || top.Int64 < 1 {
		return err
	}
	ids := make([]any, titleSampleSize)
	marks := make([]string, titleSampleSize)
	for i := range ids {
		ids[i], marks[i] = rand.Int64N(top.Int64)+1, "?"
	}
	rows, err := db.QueryContext(ctx, "SELECT title FROM ip_records WHERE rowid IN ("+strings.Join(marks, ",")+")", ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	t.rest = 1
	for rows.Next() {
		var title string
		if err := rows.Scan(&title); err != nil {
			return err
		}
		t.hist = append(t.hist, strings.ToLower(title))
	}
	return rows.Err()
}

func lower(vs []string) {
	for i, v := range vs {
		vs[i] = strings.ToLower(v)
	}
}

// uncommonWords returns the words of a title search (sub) that the
// trigram index is asked for in its place, or nil to ask it for the whole
// search: for a single word, when no word is common, when no uncommon
// word is long enough for a trigram, or without a sample.
func (r *Registry) uncommonWords(ctx context.Context, sub string) []string {
	if utf8.RuneCountInString(sub) < trigramMin {
		return nil
	}
	words := strings.FieldsFunc(strings.ToLower(sub), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
	if len(words) < 2 {
		return nil
	}
	sample := r.titleStats.get(ctx, r)
	if sample.empty() {
		return nil
	}
	var keep []string
	common := false
	for _, w := range words {
		switch {
		case sample.share(w) >= commonWordShare:
			common = true
		case utf8.RuneCountInString(w) >= trigramMin:
			keep = append(keep, w)
		}
	}
	if !common || len(keep) == 0 {
		return nil
	}
	return keep
}
