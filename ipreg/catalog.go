package ipreg

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/iprecord"
	"github.com/creativeops/creativeops/ent/predicate"
	"github.com/creativeops/creativeops/storage"
)

// Work is a registered work as the catalog shows it.
type Work struct {
	ID             string
	OrganizationID string
	CreatorID      string
	Title          string
	Type           string
	ContentHash    string
	Description    string
	Timestamp      time.Time
	CertificateID  string
	Status         string
	LogIndex       int64
	// Token is the RFC 3161 timestamp response (DER).
	Token []byte

	logOrigin   string
	recordBytes []byte
}

func toWork(r *ent.IPRecord) *Work {
	return &Work{
		ID: r.ID, OrganizationID: r.OrganizationID, CreatorID: r.CreatorID, Title: r.Title,
		Type: r.Type, ContentHash: r.ContentHash, Description: r.Description, Timestamp: r.Timestamp,
		CertificateID: r.CertificateID, Status: r.Status, LogIndex: r.LogIndex, Token: r.Token,
		logOrigin: r.LogOrigin, recordBytes: r.RecordBytes,
	}
}

// CatalogQuery selects a page of an organization's registered works,
// newest first. Empty fields do not filter.
type CatalogQuery struct {
	CreatorID        string
	Type             string
	TitleContains    string
	ContentHash      string // normalised (NormalizeContentHash)
	RegisteredAfter  *time.Time
	RegisteredBefore *time.Time
	After            string // the last id of the previous page
	Limit            int
}

// Catalog returns up to q.Limit works matching q, and how many match in
// all (across pages), counted up to catalogTotalCap: when more match,
// total is the cap and more is true. The count rides along with the page
// as a subquery, so a page costs one round trip to the database; only a
// page past the end, which has no row to carry it, counts on its own.
//
// The filters read indexes, so that a page and its count read about what
// they return and count, not the organization's whole catalog: type
// (organization_id, type, id), creator (organization_id, creator_id, id),
// content hash its unique index, and a title search of at least
// trigramMin characters the titles' trigram index (titleCandidates). The
// registration-time window filters the rows those read.
func (r *Registry) Catalog(ctx context.Context, orgID string, q CatalogQuery) (works []*Work, total int, more bool, err error) {
	match := []predicate.IPRecord{iprecord.OrganizationID(orgID)}
	// exact is a title search when the index is asked for less than it
	// (uncommonWords): it filters what match finds.
	var exact string
	if q.CreatorID != "" {
		match = append(match, iprecord.CreatorID(q.CreatorID))
	}
	if q.Type != "" {
		match = append(match, iprecord.Type(q.Type))
	}
	if v := strings.TrimSpace(q.TitleContains); v != "" {
		var words []string
		if r.store.Dialect == dialect.Postgres {
			words = r.uncommonWords(ctx, v)
		}
		if p := r.titleCandidates(ctx, v); p != nil {
			match = append(match, p)
			if q.ContentHash == "" {
				// The candidates lead: SQLite, which keeps no statistics
				// here, would otherwise walk the organization's records in
				// id order and test each against them.
				match[0] = notIndexed(iprecord.FieldOrganizationID, orgID)
			}
		}
		if words != nil && r.store.Dialect == dialect.Postgres {
			for _, w := range words {
				match = append(match, iprecord.TitleContainsFold(w))
			}
			exact = v
		} else {
			match = append(match, titleHolds(r.store.Dialect, v))
		}
	}
	if q.RegisteredAfter != nil {
		match = append(match, iprecord.TimestampGT(*q.RegisteredAfter))
	}
	if q.RegisteredBefore != nil {
		match = append(match, iprecord.TimestampLT(*q.RegisteredBefore))
	}
	if q.ContentHash != "" {
		match = append(match, iprecord.ContentHash(q.ContentHash))
	}
	ordered := strings.TrimSpace(q.TitleContains) == ""
	page := r.store.Read.IPRecord.Query()
	if ordered {
		page = page.Where(match...)
		if q.After != "" {
			page = page.Where(iprecord.IDLT(q.After))
		}
		page.Modify(func(s *sql.Selector) {
			s.AppendSelectExprAs(catalogCount(s.Dialect(), match, ordered), catalogTotal)
		})
	} else {
		page = page.Where(iprecord.OrganizationID(orgID))
		page.Modify(func(s *sql.Selector) {
			searchOnce(s, titleSearch(s.Dialect(), match, exact), q.After, q.Limit)
		})
	}
	rows, err := page.Order(ent.Desc(iprecord.FieldID)).Limit(q.Limit).All(ctx)
	if err != nil {
		return nil, 0, false, err
	}
	if len(rows) == 0 {
		if q.After == "" {
			return nil, 0, false, nil
		}
		var count *sql.Selector
		if ordered {
			count = catalogCount(r.store.Dialect, match, ordered)
		} else {
			count = countToCap(r.store.Dialect, titleSearch(r.store.Dialect, match, exact).As("m"))
		}
		query, args := count.Query()
		var n int64
		if err := r.store.ReadDB().QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
			return nil, 0, false, err
		}
		total, more := capTotal(n)
		return nil, total, more, nil
	}
	v, err := rows[0].Value(catalogTotal)
	if err != nil {
		return nil, 0, false, err
	}
	n, ok := v.(int64)
	if !ok {
		return nil, 0, false, fmt.Errorf("catalog: count is a %T", v)
	}
	out := make([]*Work, len(rows))
	for i, w := range rows {
		out[i] = toWork(w)
	}
	total, more = capTotal(n)
	return out, total, more, nil
}

// catalogTotalCap is how many matches a catalog page counts at most: past
// it the count would cost in proportion to the catalog, not to the page
// (a type, or a common word, can match most of a million records).
// Tests lower it.
var catalogTotalCap = 10000

// catalogCount counts the records matching match, up to one more than
// catalogTotalCap (which tells that more match than the cap). Ordered, the
// matches are taken in the page's order (id descending), which an index
// ending in id serves: PostgreSQL then walks that index and stops at the
// cap, where without the order it may gather every match into a bitmap
// first. A title search is not ordered: its matches come from the trigram
// index, whichever their ids.
func catalogCount(d string, match []predicate.IPRecord, ordered bool) *sql.Selector {
	b := sql.Dialect(d)
	matches := b.Select().AppendSelectExpr(sql.Expr("1")).From(sql.Table(iprecord.Table))
	for _, p := range match {
		p(matches)
	}
	if ordered {
		matches.OrderBy(sql.Desc(matches.C(iprecord.FieldID)))
	}
	matches.Limit(catalogTotalCap + 1)
	return b.Select(sql.Count("*")).From(matches.As("matches"))
}

// titleMatches names the common table expression of a title search's
// matches (searchOnce).
const titleMatches = "catalog_title_matches"

// titleSearch selects the ids of a title search's matches: the records
// match selects, and when exact is set those whose titles contain it
// (TitleContainsFold's predicate). exact then applies to what a subquery
// found, behind an OFFSET 0 that PostgreSQL does not plan through, so that
// its ILIKE is not added to the trigram index's search, which match asks
// for the search's uncommon words only.
func titleSearch(d string, match []predicate.IPRecord, exact string) *sql.Selector {
	b := sql.Dialect(d)
	found := b.Select(iprecord.FieldID).From(sql.Table(iprecord.Table))
	if exact != "" {
		found.Select(found.C(iprecord.FieldID), found.C(iprecord.FieldTitle))
	}
	for _, p := range match {
		p(found)
	}
	if exact == "" {
		return found
	}
	t := found.Offset(0).As("found")
	return b.Select(t.C(iprecord.FieldID)).From(t).Where(sql.ContainsFold(t.C(iprecord.FieldTitle), exact))
}

// searchOnce makes s, a page of the organization's records, the page of a
// title search whose matches (titleSearch) are found once, in a common
// table expression that both the page and its count read. The page and the count
// would each search the titles' trigram index on their own, and at a
// million records a search's common trigrams (every "wor" of "Work") cost
// more than the rest of the page. Read twice, the expression is
// materialised (AS MATERIALIZED: PostgreSQL 12, SQLite 3.35).
func searchOnce(s *sql.Selector, matches *sql.Selector, after string, limit int) {
	b := sql.Dialect(s.Dialect())
	with := &materialized{name: titleMatches, s: matches}
	m := sql.Table(titleMatches)
	ids := b.Select(m.C(iprecord.FieldID)).From(m)
	if after != "" {
		ids.Where(sql.LT(m.C(iprecord.FieldID), after))
	}
	ids.OrderBy(sql.Desc(m.C(iprecord.FieldID))).Limit(limit)
	s.Prefix(with)
	s.Where(sql.In(s.C(iprecord.FieldID), ids))
	s.AppendSelectExprAs(countToCap(s.Dialect(), m), catalogTotal)
}

// countToCap counts the rows of from up to one more than catalogTotalCap.
func countToCap(d string, from sql.TableView) *sql.Selector {
	b := sql.Dialect(d)
	counted := b.Select().AppendSelectExpr(sql.Expr("1")).From(from).Limit(catalogTotalCap + 1)
	return b.Select(sql.Count("*")).From(counted.As("matches"))
}

// materialized is WITH name AS MATERIALIZED (s): SQLite would otherwise
// inline a common table expression into each statement that reads it
// (ent's sql.With writes no MATERIALIZED).
type materialized struct {
	sql.Builder // the dialect and the count of arguments before it
	name        string
	s           *sql.Selector
}

func (w *materialized) Query() (string, []any) {
	w.WriteString("WITH ").Ident(w.name).WriteString(" AS MATERIALIZED ")
	w.Wrap(func(b *sql.Builder) { b.Join(w.s) })
	return w.Builder.Query()
}

// capTotal is a count of up to catalogTotalCap+1 matches as the catalog
// reports it: the cap, and whether more match.
func capTotal(n int64) (int, bool) {
	if n > int64(catalogTotalCap) {
		return catalogTotalCap, true
	}
	return int(n), false
}

// trigramMin is the shortest title search a trigram index serves; shorter
// ones scan the organization's records.
const trigramMin = 3

// titleCandidates narrows a title search to the records whose titles hold
// its whole words (titleWordQuery), or else the trigrams that cover sub or
// its uncommon words (uncommonWords, asked only then), through
// SQLite's FTS5 indexes (storage.TitleWordIndex, storage.TitleIndex), or
// returns nil where there is nothing to add: a search shorter than
// trigramMin, or PostgreSQL, whose GIN trigram index
// (storage.TitleTrigramIndex) serves the ILIKE of TitleContainsFold
// itself. The candidates are only a superset: the search keeps
// TitleContainsFold's predicate beside them, so it finds exactly what that
// predicate finds. (The indexes fold case over all of Unicode, SQLite's
// LOWER and LIKE over ASCII only; sub is lowered as TitleContainsFold
// lowers it, so every title the predicate accepts holds its trigrams.)
func (r *Registry) titleCandidates(ctx context.Context, sub string) predicate.IPRecord {
	w := strings.ToLower(sub)
	if r.store.Dialect != dialect.SQLite || utf8.RuneCountInString(w) < trigramMin {
		return nil
	}
	index := storage.TitleWordIndex
	query := titleWordQuery(w, func(word string) bool {
		return r.titleStats.get(ctx, r).share(word) >= commonWordShare
	})
	if query == "" {
		index, query = storage.TitleIndex, trigramQuery(w, r.uncommonWords(ctx, sub))
	}
	return func(s *sql.Selector) {
		rowid := s.C("rowid")
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString(rowid).WriteString(" IN (SELECT rowid FROM " + index + " WHERE " + index + " MATCH ")
			b.Arg(query)
			b.WriteString(")")
		}))
	}
}

// titleWordQuery returns the query of the titles' word index
// (storage.TitleWordIndex) that every title holding sub (lowercase)
// matches, or "" when it has nothing to ask: a word of sub that a
// separator precedes and follows is a whole word of such a title; one a
// separator only precedes (sub's last) begins one, and is asked for as a
// prefix when it has trigramMin characters. Sub's first word may end a
// longer word of the title, and common words (as common tells) would
// bring lists as long as the catalog: neither is asked for. Only a search
// of ASCII characters is asked: there the word index's tokenizer
// (unicode61, whose word characters are letters and digits) and sub's
// separators agree on where a word of the title begins and ends.
func titleWordQuery(sub string, common func(string) bool) string {
	for i := range len(sub) {
		if sub[i] >= utf8.RuneSelf {
			return ""
		}
	}
	inWord := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	var terms []string
	for i := 0; i < len(sub); {
		if !inWord(sub[i]) {
			i++
			continue
		}
		j := i
		for j < len(sub) && inWord(sub[j]) {
			j++
		}
		word := sub[i:j]
		switch begins, ends := i > 0, j < len(sub); {
		case !begins:
		case ends && !common(word):
			terms = append(terms, `"`+word+`"`)
		case !ends && len(word) >= trigramMin && !common(word):
			terms = append(terms, `"`+word+`"*`)
		}
		i = j
	}
	return strings.Join(terms, " ")
}

// trigramQuery is the query of the titles' trigram index
// (storage.TitleIndex) for sub, or for its uncommon words when words
// names them: one FTS5 string of one trigram each, which the index ANDs.
// Inside double quotes every character but the quote (doubled) is
// literal, so %, _ and * search for themselves.
func trigramQuery(sub string, words []string) string {
	if words == nil {
		words = []string{sub}
	}
	var query strings.Builder
	seen := map[string]bool{}
	for _, word := range words {
		for _, g := range trigramCover(word) {
			if seen[g] {
				continue
			}
			seen[g] = true
			if query.Len() > 0 {
				query.WriteByte(' ')
			}
			query.WriteString(`"` + strings.ReplaceAll(g, `"`, `""`) + `"`)
		}
	}
	return query.String()
}

// trigramCover returns trigrams of s (of at least trigramMin runes) that
// together cover each of its characters: every third one, and the last.
// A title holding s holds them all. FTS5 reads a posting list per
// trigram, and for a phrase (all of s's overlapping trigrams) it reads
// each one's list and matches their positions besides: the cover reads a
// third of the lists and no positions, and leaves the order of the
// trigrams to the search's own predicate. At a million titles of numbers,
// where each trigram is in thousands of titles, a search took half the
// time.
func trigramCover(s string) []string {
	runes := []rune(s)
	var out []string
	for i := 0; i < len(runes); i += trigramMin {
		j := min(i, len(runes)-trigramMin)
		out = append(out, string(runes[j:j+trigramMin]))
	}
	return out
}

// titleHolds is TitleContainsFold(sub): on SQLite written as the
// position of sub in the lowered title, which finds the same records (both
// sides are lowered, so LIKE's ASCII case folding has nothing left to
// fold, and sub's own % and _ are literal either way). SQLite plans a
// LIKE again whenever its bound pattern changes, in case the pattern's
// prefix could use an index: 9 µs more a call than instr when the pattern
// alternates, on top of a slower comparison.
func titleHolds(d, sub string) predicate.IPRecord {
	if d != dialect.SQLite {
		return iprecord.TitleContainsFold(sub)
	}
	return func(s *sql.Selector) {
		c := s.C(iprecord.FieldTitle)
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("instr(LOWER(" + c + "), ")
			b.Arg(strings.ToLower(sub))
			b.WriteString(") > 0")
		}))
	}
}

// notIndexed is column = v written so that SQLite does not look it up by
// an index (a unary + on the column), for a query another index leads.
func notIndexed(column, v string) predicate.IPRecord {
	return func(s *sql.Selector) {
		c := s.C(column)
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("+" + c + " = ")
			b.Arg(v)
		}))
	}
}

// catalogTotal names the count selected beside a catalog page's columns.
const catalogTotal = "catalog_total"

// Work returns a registered work of the organization by its id.
func (r *Registry) Work(ctx context.Context, orgID, id string) (*Work, error) {
	w, err := r.store.Read.IPRecord.Query().Where(iprecord.ID(id), iprecord.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("ip record", id)
	}
	if err != nil {
		return nil, err
	}
	return toWork(w), nil
}

// WorkByCertificate returns a registered work of the organization by its
// certificate id.
func (r *Registry) WorkByCertificate(ctx context.Context, orgID, certificateID string) (*Work, error) {
	w, err := r.store.Read.IPRecord.Query().Where(iprecord.CertificateID(certificateID), iprecord.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("certificate", certificateID)
	}
	if err != nil {
		return nil, err
	}
	return toWork(w), nil
}
