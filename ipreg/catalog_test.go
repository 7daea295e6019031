package ipreg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/iprecord"
	"github.com/creativeops/creativeops/ent/predicate"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/storage"
)

// A catalog page carries the count of every match, whichever page it is,
// filtered like the page but not cut by the page's position; a page past
// the end (its works gone since the token was issued) still counts. A page
// with works is one statement: the count rides along with it.
func TestCatalogTotalOnEveryPage(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			r, _ := openSealTest(t, b, func([]*ent.Event) error { return nil })
			var batch []*pending
			for i, org := range []string{"org_a", "org_a", "org_b", "org_a", "org_a", "org_a"} {
				batch = append(batch, r.testWork(t, org, "work", string(rune('1'+i))))
			}
			<-r.seal(ctx, batch, nil).done
			for _, p := range batch {
				if p.err != nil {
					t.Fatal(p.err)
				}
			}
			var statements atomic.Int64
			r.store.Read = ent.NewClient(ent.Driver(dialect.DebugWithContext(
				entsql.OpenDB(r.store.Dialect, r.store.ReadDB()),
				func(context.Context, ...any) { statements.Add(1) })))
			var ids []string
			after := ""
			for {
				statements.Store(0)
				page, total, more, err := r.Catalog(ctx, "org_a", CatalogQuery{After: after, Limit: 2})
				if err != nil {
					t.Fatal(err)
				}
				if total != 5 || more {
					t.Fatalf("page after %q: total %d, want 5", after, total)
				}
				if len(page) == 0 {
					break
				}
				if n := statements.Load(); n != 1 {
					t.Fatalf("page after %q took %d statements, want 1", after, n)
				}
				for _, w := range page {
					if w.OrganizationID != "org_a" {
						t.Fatalf("another organization's work %s", w.ID)
					}
					ids = append(ids, w.ID)
				}
				after = page[len(page)-1].ID
			}
			if len(ids) != 5 {
				t.Fatalf("paged through %d works, want 5", len(ids))
			}
			if page, total, _, err := r.Catalog(ctx, "org_a", CatalogQuery{CreatorID: "nobody", Limit: 2}); err != nil || len(page) != 0 || total != 0 {
				t.Fatalf("no match: %d works, total %d (%v)", len(page), total, err)
			}
		})
	}
}

// storeWorks stores records of org with the given titles and types
// straight into ip_records (the catalog reads nothing else), oldest first,
// and returns their ids.
func storeWorks(t testing.TB, st *storage.Store, org string, titles, types []string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for start := 0; start < len(titles); start += 1000 {
		var bulk []*ent.IPRecordCreate
		for i := start; i < min(start+1000, len(titles)); i++ {
			n := storedWorks.Add(1)
			id := ids.New(ids.IPRecord)
			out = append(out, id)
			bulk = append(bulk, st.Ent.IPRecord.Create().SetID(id).SetOrganizationID(org).SetCreatorID("cr_"+org).
				SetTitle(titles[i]).SetType(types[i%len(types)]).SetContentHash(fmt.Sprintf("sha256:%064d", n)).
				SetTimestamp(time.Now().UTC().Truncate(time.Second)).SetCertificateID(fmt.Sprintf("cert_%d", n)).
				SetLogOrigin("test").SetLogIndex(n).SetRecordBytes([]byte("{}")).SetToken([]byte("token")))
		}
		if err := st.Ent.IPRecord.CreateBulk(bulk...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

var storedWorks atomic.Int64

// Past catalogTotalCap matches a page's count stops: total is the cap and
// the flag says more match, on every page and on a page past the end,
// while the pages themselves still reach every match. The count's own
// query reads at most one match past the cap. Up to the cap the count is
// exact (TestCatalogTotalOnEveryPage).
func TestCatalogTotalStopsAtTheCap(t *testing.T) {
	saved := catalogTotalCap
	catalogTotalCap = 3
	t.Cleanup(func() { catalogTotalCap = saved })
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			r, st := openSealTest(t, b, func([]*ent.Event) error { return nil })
			ids := storeWorks(t, st, "org_a", []string{"One song", "Two songs", "Three", "Four songs", "Five songs"}, []string{"song", "book"})
			storeWorks(t, st, "org_b", []string{"Other song", "Other songs"}, []string{"song"})
			for _, c := range []struct {
				name  string
				q     CatalogQuery
				want  int
				more  bool
				works int
			}{
				{"every work", CatalogQuery{}, 3, true, 5},
				{"by type", CatalogQuery{Type: "song"}, 3, false, 3}, // exactly the cap
				{"title contains", CatalogQuery{TitleContains: "SONG"}, 3, true, 4},
				{"title contains, short", CatalogQuery{TitleContains: "o"}, 3, true, 4},
			} {
				var got []string
				after := ""
				for {
					q := c.q
					q.After, q.Limit = after, 2
					page, total, more, err := r.Catalog(ctx, "org_a", q)
					if err != nil {
						t.Fatal(err)
					}
					if total != c.want || more != c.more {
						t.Fatalf("%s, page after %q: total %d (more: %v), want %d (%v)", c.name, after, total, more, c.want, c.more)
					}
					if len(page) == 0 {
						break
					}
					for _, w := range page {
						got = append(got, w.ID)
					}
					after = page[len(page)-1].ID
				}
				if len(got) != c.works {
					t.Errorf("%s: pages reached %d works, want %d", c.name, len(got), c.works)
				}
			}
			// The count reads one match past the cap, not every match.
			for _, ordered := range []bool{true, false} {
				query, args := catalogCount(st.Dialect, []predicate.IPRecord{iprecord.OrganizationID("org_a")}, ordered).Query()
				var n int
				if err := st.ReadDB().QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != catalogTotalCap+1 {
					t.Errorf("ordered %v: the count read %d of %d matches, want the cap + 1 = %d", ordered, n, len(ids), catalogTotalCap+1)
				}
			}
		})
	}
}

// A title search finds exactly what TitleContainsFold finds, whether the
// trigram index narrows it (3 characters and more) or not: case mixed, %,
// _, \ and double quotes in the search (literal characters, not
// wildcards or FTS5 syntax), non-ASCII text, searches that are FTS5
// operators. Another organization's titles, the same ones, never appear.
func TestCatalogTitleSearchMatchesThePredicate(t *testing.T) {
	titles := []string{
		"Night River", "NIGHT RIVER", "night river", "Midnight Riverside", "100% Pure", "100 Pure",
		"snake_case title", "snakeXcase title", `He said "hello"`, `He said hello`, `a "" b`,
		"Café Society", "CAFÉ SOCIETY", "café society", "École de nuit", "ÉCOLE", "école",
		"Straße", "STRASSE", "İstanbul", "istanbul", "ISTANBUL", "日本語のタイトル", "emoji 🎵 song",
		`back\slash`, `back\\slash`, "ﬁne ligature", "fine print", "5K run", "5\u212a run",
		"ΣΊΣΥΦΟΣ", "σίσυφος", "abc*def", "x-y (z)", "AND OR NOT", "NEAR(x y)", "col:umn", "^caret",
		"  spaced  out  ", "tab\there", "Ünïcödé", "ünïcödé", "a", "ab", "abc",
	}
	searches := []string{
		"night", "NIGHT RIV", "ight r", "iver", "100%", "0% p", "%", "%%", "% pure", "_", "e_c", "snake_",
		"_case", `"hello"`, `"`, `""`, `d "h`, `" b`, "café", "CAFÉ", "afé", "éco", "École", "ÉCOLE",
		"straße", "STRASSE", "ss", "istanbul", "İstanbul", "İSTANBUL", "本語の", "🎵", "🎵 s", `\s`,
		`\`, `\\`, `k\\s`, "fine", "ﬁne", "5k", "5K", "5\u212a r", "σίσυφος", "ΣΊΣΥΦΟΣ", "*", "c*d",
		"abc*", "AND", "and or not", "near(", "NEAR(x", "col:", "col:u", "^ca", "spaced  out", "  night  ",
		"tab\th", "ünï", "ÜNÏ", "zz", "a", "ab", "abc", "no such title", "x-y", "(z)",
	}
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			r, st := openSealTest(t, b, func([]*ent.Event) error { return nil })
			storeWorks(t, st, "org_a", titles, []string{"song"})
			storeWorks(t, st, "org_b", titles, []string{"song"})
			for _, q := range searches {
				want, err := st.Ent.IPRecord.Query().
					Where(iprecord.OrganizationID("org_a"), iprecord.TitleContainsFold(strings.TrimSpace(q))).
					Order(ent.Desc(iprecord.FieldID)).IDs(ctx)
				if err != nil {
					t.Fatal(err)
				}
				page, total, _, err := r.Catalog(ctx, "org_a", CatalogQuery{TitleContains: q, Limit: 200})
				if err != nil {
					t.Fatalf("q=%q: %v", q, err)
				}
				var got []string
				for _, w := range page {
					if w.OrganizationID != "org_a" {
						t.Fatalf("q=%q: another organization's work %s", q, w.ID)
					}
					got = append(got, w.ID)
				}
				if !slices.Equal(got, want) || total != len(want) {
					t.Errorf("q=%q: %d works (total %d), want %d: %v", q, len(got), total, len(want), titlesOf(page))
				}
			}
		})
	}
}

func titlesOf(works []*Work) []string {
	var out []string
	for _, w := range works {
		out = append(out, w.Title)
	}
	return out
}

// A catalog page by type reads the (organization_id, type, id) index, and
// a title search of 3 characters or more the titles' trigram index, once
// for the page and its count: on SQLite the FTS5 table leads, each
// candidate looked up by rowid, instead of the organization's records
// being walked and tested against it, and only the page's own records are
// read again, by id. The plans are asked of the database for the
// statement Catalog sends.
func TestCatalogPlansUseTheIndexes(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			r, st := openSealTest(t, b, func([]*ent.Event) error { return nil })
			// Enough records that PostgreSQL's statistics tell a rare title
			// from a whole organization.
			titles := make([]string, 20000)
			for i := range titles {
				titles[i] = fmt.Sprintf("Untitled %d", i)
			}
			titles[1234] = "Quartz Lullaby"
			storeWorks(t, st, "org_a", titles, []string{"song", "script", "book", "artwork", "concept", "other"})
			storeWorks(t, st, "org_b", titles[:300], []string{"song"})
			if st.Dialect == dialect.Postgres {
				if _, err := st.DB.Exec("ANALYZE ip_records"); err != nil {
					t.Fatal(err)
				}
			}
			byType := explainCatalog(t, r, CatalogQuery{Type: "book", Limit: 20})
			if !strings.Contains(byType, "iprecord_organization_id_type_id") {
				t.Errorf("a page by type does not use the (organization_id, type, id) index:\n%s", byType)
			}
			search := explainCatalog(t, r, CatalogQuery{TitleContains: "quartz", Limit: 20})
			if st.Dialect == dialect.Postgres {
				if n := strings.Count(search, "Bitmap Index Scan on "+storage.TitleTrigramIndex); n != 1 {
					t.Errorf("a title search reads the trigram index %d times, not once:\n%s", n, search)
				}
				return
			}
			if n := strings.Count(search, "SCAN "+storage.TitleIndex+" VIRTUAL TABLE"); n != 1 {
				t.Errorf("a title search reads the trigram index %d times, not once:\n%s", n, search)
			}
			for _, line := range strings.Split(search, "\n") {
				if strings.Contains(line, "ip_records ") && !strings.Contains(line, "SEARCH ip_records USING INTEGER PRIMARY KEY (rowid=?)") &&
					!strings.Contains(line, "SEARCH ip_records USING INDEX iprecord_organization_id_id (organization_id=? AND id=?)") {
					t.Errorf("a title search reads ip_records other than by the trigram index's rowids: %s\n%s", line, search)
				}
			}
			if short := explainCatalog(t, r, CatalogQuery{TitleContains: "qu", Limit: 20}); strings.Contains(short, storage.TitleIndex) {
				t.Errorf("a 2-character search uses the trigram index, which finds nothing shorter than 3:\n%s", short)
			}
		})
	}
}

// explainCatalog is the database's plan for the statement Catalog sends
// for a page of org_a's catalog. On PostgreSQL sequential scans are
// discouraged, so that the choice is between indexes even on a table this
// small.
func explainCatalog(t *testing.T, r *Registry, q CatalogQuery) string {
	t.Helper()
	ctx := context.Background()
	st := r.store
	capture := &capturingDriver{dialect: st.Dialect}
	read := st.Read
	st.Read = ent.NewClient(ent.Driver(capture))
	_, _, _, _ = r.Catalog(ctx, "org_a", q)
	st.Read = read
	if capture.query == "" {
		t.Fatal("Catalog sent no query")
	}
	tx, err := st.ReadDB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	explain := "EXPLAIN QUERY PLAN "
	if st.Dialect == dialect.Postgres {
		explain = "EXPLAIN "
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := tx.QueryContext(ctx, explain+capture.query, capture.args...)
	if err != nil {
		t.Fatal(err)
	}
	_, vals := testdb.Values(t, rows)
	var lines []string
	for _, row := range vals {
		lines = append(lines, fmt.Sprint(row[len(row)-1])) // SQLite's detail, PostgreSQL's line
	}
	return strings.Join(lines, "\n")
}

// capturingDriver keeps the query sent to it instead of running it.
type capturingDriver struct {
	dialect string
	query   string
	args    []any
}

func (d *capturingDriver) Exec(context.Context, string, any, any) error {
	return errors.New("capturing driver: no exec")
}

func (d *capturingDriver) Query(_ context.Context, query string, args, _ any) error {
	d.query = query
	d.args, _ = args.([]any)
	return errors.New("captured")
}

func (d *capturingDriver) Tx(context.Context) (dialect.Tx, error) {
	return nil, errors.New("capturing driver: no transaction")
}

func (d *capturingDriver) Close() error    { return nil }
func (d *capturingDriver) Dialect() string { return d.dialect }

// A title search of several words asks the trigram index for its
// uncommon words only when one of its words is in most titles (as the
// statistics ANALYZE gathers say on PostgreSQL, a sample of the titles on
// SQLite), and still finds exactly what its own predicate finds, page by
// page: the dropped word, its spacing and its case still decide.
func TestCatalogTitleSearchSkipsCommonWords(t *testing.T) {
	common := func(w string) bool { return w == "work" || w == "the" }
	for s, want := range map[string]string{
		"work 123457":      `"123457"*`,
		"seed work 123457": `"123457"*`,
		"k 123":            `"123"*`,
		"night river side": `"river" "side"*`,
		"in the mood":      `"mood"*`,
		"the_mood-x":       `"mood"`,
		"a bc":             ``,
		"midnight":         ``,
		"café society":     ``,
		"100% pure":        `"pure"*`,
	} {
		if got := titleWordQuery(s, common); got != want {
			t.Errorf("titleWordQuery(%q) = %s, want %s", s, got, want)
		}
	}
	for s, want := range map[string][]string{"123457": {"123", "457"}, "1234": {"123", "234"}, "abc": {"abc"},
		"work 1234": {"wor", "k 1", "234"}, "héllo": {"hél", "llo"}} {
		if got := trigramCover(s); !slices.Equal(got, want) {
			t.Errorf("trigramCover(%q) = %q, want %q", s, got, want)
		}
	}
	titles := make([]string, 3000)
	for i := range titles {
		titles[i] = fmt.Sprintf("Seed Work %d", i)
	}
	titles = append(titles, "work123", "Work-123 remix", "WORK 1234 (live)", "Homework 123", "Quartz Work", "Work Quartz",
		"Work 1230 234") // every trigram of the cover of "1234", not "1234"
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			r, st := openSealTest(t, b, func([]*ent.Event) error { return nil })
			storeWorks(t, st, "org_a", titles, []string{"song"})
			storeWorks(t, st, "org_b", titles[:500], []string{"song"})
			if st.Dialect == dialect.Postgres {
				if _, err := st.DB.Exec("ANALYZE ip_records"); err != nil {
					t.Fatal(err)
				}
			}
			words := map[string][]string{"Work 123": {"123"}, "seed work 1234": {"1234"}, "Work Quartz": {"quartz"},
				"Work 12": nil, "Seed Work": nil, "Quartz": nil, "1234": nil}
			for q, want := range words {
				got := r.uncommonWords(ctx, q)
				if !slices.Equal(got, want) {
					t.Errorf("uncommonWords(%q) = %q, want %q", q, got, want)
				}
			}
			for _, q := range []string{"Work 123", "work 1234", "seed work 12", "Work-123", "Work Quartz", "ork 12", "eed work 299", "k 123"} {
				want, err := st.Ent.IPRecord.Query().
					Where(iprecord.OrganizationID("org_a"), iprecord.TitleContainsFold(q)).
					Order(ent.Desc(iprecord.FieldID)).IDs(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				after := ""
				for {
					page, total, _, err := r.Catalog(ctx, "org_a", CatalogQuery{TitleContains: q, After: after, Limit: 4})
					if err != nil {
						t.Fatalf("q=%q: %v", q, err)
					}
					if total != len(want) {
						t.Errorf("q=%q: total %d, want %d", q, total, len(want))
					}
					for _, w := range page {
						got = append(got, w.ID)
					}
					if len(page) < 4 {
						break
					}
					after = page[len(page)-1].ID
				}
				if !slices.Equal(got, want) {
					t.Errorf("q=%q: found %d works, want %d", q, len(got), len(want))
				}
			}
			if st.Dialect == dialect.Postgres {
				plan := explainCatalog(t, r, CatalogQuery{TitleContains: "Work 1234", Limit: 20})
				if !strings.Contains(plan, "~~* '%1234%'") || strings.Contains(plan, "Index Cond: ((title)::text ~~* '%work 1234%'") {
					t.Errorf("the trigram index is not asked for the uncommon word alone:\n%s", plan)
				}
				return
			}
			capture := &capturingDriver{dialect: st.Dialect}
			read := st.Read
			st.Read = ent.NewClient(ent.Driver(capture))
			defer func() { st.Read = read }()
			for q, want := range map[string]string{
				"Work 1234": `"1234"*`,           // the word index: "work" is common, "1234" begins a word
				"1234":      `"123" "234"`,       // the trigram index: "1234" may be inside a word
				"Work 12":   `"wor" "k 1" " 12"`, // "12" is too short a prefix
			} {
				_, _, _, _ = r.Catalog(ctx, "org_a", CatalogQuery{TitleContains: q, Limit: 20})
				if !slices.Contains(capture.args, any(want)) {
					t.Errorf("q=%q: the FTS5 index is not asked for %s: %q", q, want, capture.args)
				}
			}
		})
	}
}
