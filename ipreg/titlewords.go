package ipreg

import (
	"context"
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
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

// titleSample is how many records SQLite's estimate reads (at random
// rowids, each one lookup).
const titleSample = 256

// titleStats is what a sample says of ip_records.title: on PostgreSQL
// its statistics' most common values with their shares, and a histogram
// sampling the rest; on SQLite titles read at random (hist).
type titleStats struct {
	mu   sync.Mutex
	read time.Time
	ok   bool
	mcv  []string
	freq []float64
	hist []string
	// rest is the share of titles that are neither null nor among mcv,
	// which hist samples.
	rest float64
}

// share estimates the share of titles containing word (lowercase).
func (t *titleStats) share(word string) float64 {
	s := 0.0
	for i, v := range t.mcv {
		if strings.Contains(strings.ToLower(v), word) {
			s += t.freq[i]
		}
	}
	if len(t.hist) > 0 {
		n := 0
		for _, v := range t.hist {
			if strings.Contains(strings.ToLower(v), word) {
				n++
			}
		}
		s += t.rest * float64(n) / float64(len(t.hist))
	}
	return s
}

// load reads the statistics, at most once per titleStatsTTL; ok is false
// when there are none (the table was never analyzed) or they could not be
// read, and searches then ask the index for every trigram.
func (t *titleStats) load(ctx context.Context, r *Registry) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.read.IsZero() && time.Since(t.read) < titleStatsTTL {
		return t.ok
	}
	t.read, t.ok = time.Now(), false
	if r.store.Dialect == dialect.SQLite {
		t.ok = t.sample(ctx, r) == nil && len(t.hist) > 0
		return t.ok
	}
	var mcv, freq, hist []byte
	var nullFrac float64
	err := r.store.ReadDB().QueryRowContext(ctx, `SELECT
		COALESCE(array_to_json(most_common_vals::text::text[]), '[]'),
		COALESCE(array_to_json(most_common_freqs), '[]'),
		COALESCE(array_to_json(histogram_bounds::text::text[]), '[]'),
		null_frac
		FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'ip_records' AND attname = 'title'`).
		Scan(&mcv, &freq, &hist, &nullFrac)
	if err != nil {
		// No row: never analyzed. Anything else: searches go on
		// unnarrowed, as they would without the statistics.
		return false
	}
	t.mcv, t.freq, t.hist = nil, nil, nil
	if json.Unmarshal(mcv, &t.mcv) != nil || json.Unmarshal(freq, &t.freq) != nil ||
		json.Unmarshal(hist, &t.hist) != nil || len(t.mcv) != len(t.freq) {
		return false
	}
	t.rest = 1 - nullFrac
	for _, f := range t.freq {
		t.rest -= f
	}
	t.ok = len(t.mcv)+len(t.hist) > 0
	return t.ok
}

// sample reads up to titleSample titles at random rowids below the
// largest: each a lookup by rowid, whatever the table's size.
func (t *titleStats) sample(ctx context.Context, r *Registry) error {
	db := r.store.ReadDB()
	var top sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT max(rowid) FROM ip_records").Scan(&top); err != nil || !top.Valid || top.Int64 < 1 {
		return err
	}
	ids := make([]any, titleSample)
	marks := make([]string, titleSample)
	for i := range ids {
		ids[i], marks[i] = rand.Int64N(top.Int64)+1, "?"
	}
	rows, err := db.QueryContext(ctx, "SELECT title FROM ip_records WHERE rowid IN ("+strings.Join(marks, ",")+")", ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	t.mcv, t.freq, t.hist, t.rest = nil, nil, nil, 1
	for rows.Next() {
		var title string
		if err := rows.Scan(&title); err != nil {
			return err
		}
		t.hist = append(t.hist, title)
	}
	return rows.Err()
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
	if len(words) < 2 || !r.titleStats.load(ctx, r) {
		return nil
	}
	var keep []string
	common := false
	for _, w := range words {
		switch {
		case r.titleStats.share(w) >= commonWordShare:
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
