package ipreg

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"entgo.io/ent/dialect"
)

// A title search of several words asks PostgreSQL's trigram index for
// its uncommon words only, when it also holds a common one. The GIN scan
// of a search tests every candidate of its rarest trigram against the
// posting list of every other trigram, and a word most titles share (the
// "Work" of a catalog of "Work 1", "Work 2", ...) brings posting lists as
// long as the catalog: at a million records they were most of a search's
// cost, and they narrow its matches by half at most. The search's own
// predicate still filters the candidates, so the matches are the same.

// commonWordShare is the share of titles from which a word is common.
const commonWordShare = 0.5

// titleStatsTTL is how long the titles' statistics are kept between reads
// of pg_stats; ANALYZE (autovacuum's) renews them far less often.
const titleStatsTTL = 10 * time.Minute

// titleStats is what PostgreSQL's statistics say of ip_records.title: its
// most common values with their shares, and a histogram sampling the rest.
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

// uncommonWords returns the words of a title search (sub) that the
// trigram index is asked for in its place, or nil to ask it for the whole
// search: on SQLite (whose FTS5 index skips through long posting lists),
// for a single word, when no word is common, or when no uncommon word is
// long enough for a trigram.
func (r *Registry) uncommonWords(ctx context.Context, sub string) []string {
	if r.store.Dialect != dialect.Postgres {
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
