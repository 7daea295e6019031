package ipreg

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/event"
	"github.com/creativeops/creativeops/ent/ipexternaltimestamp"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testtsa"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

func TestCheckAuthorities(t *testing.T) {
	if err := CheckAuthorities([]string{"https://freetsa.org/tsr", "http://127.0.0.1:3180/"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"ftp://tsa.example/"}, {"tsa.example/tsr"}, {"https://u:p@tsa.example/"}, {"https:///tsr"},
		{"https://tsa.example/#x"}, {"https://a.example/", "https://a.example/"},
		strings.Split(strings.Repeat("https://a.example/x,", MaxAuthorities+1), ",")[:MaxAuthorities+1],
	} {
		if err := CheckAuthorities(bad); err == nil {
			t.Errorf("CheckAuthorities(%q) accepted", bad)
		}
	}
}

// externalBundle is a bundle of a record registered at `at` with one
// external token, fetched now from tsa.
func externalBundle(t *testing.T, tsa *testtsa.TSA, at time.Time) Bundle {
	t.Helper()
	rec := Record{ID: "ipr_1", OrganizationID: "org_1", CreatorID: "cr_1", Title: "T", Type: "song",
		ContentHash: "sha256:" + strings.Repeat("ab", 32), Timestamp: at.UTC().Truncate(time.Second), CertificateID: "cert_1"}
	b := Bundle{Record: CanonicalBytes(rec)}
	der, info, err := NewTSAClient(10*time.Second).Fetch(t.Context(), tsa.URL, sha256.Sum256(b.Record))
	if err != nil {
		t.Fatal(err)
	}
	b.ExternalTimestamps = []ExternalTimestamp{{AuthorityURL: tsa.URL, Status: ExternalOK, Token: der, GenTime: &info.GenTime}}
	return b
}

func TestVerifyExternal(t *testing.T) {
	tsa := testtsa.Start(t, testtsa.Options{})
	other := testtsa.Start(t, testtsa.Options{Name: "Other TSA", ESSv2: true})
	now := time.Now()
	check := func(b Bundle, ca []byte) Check {
		t.Helper()
		checks, err := VerifyExternal(b, ca)
		if err != nil || len(checks) != 1 {
			t.Fatalf("VerifyExternal: %v, %d checks", err, len(checks))
		}
		return checks[0]
	}
	b := externalBundle(t, tsa, now)
	if c := check(b, tsa.CAPEM); !c.OK || c.Skipped || !strings.Contains(c.Detail, "within 5m0s") {
		t.Errorf("pinned: %+v", c)
	}
	if c := check(b, nil); !c.OK || !c.Skipped || !strings.HasPrefix(c.Detail, "UNCHECKED") {
		t.Errorf("unpinned: %+v", c)
	}
	if c := check(b, other.CAPEM); c.OK {
		t.Errorf("another authority's CA: %+v", c)
	}
	if _, err := VerifyExternal(b, []byte("no pem")); err == nil {
		t.Error("a CA file without a certificate was accepted")
	}
	// A token much later than the record proves only its own time.
	if c := check(externalBundle(t, tsa, now.Add(-time.Hour)), tsa.CAPEM); !c.OK || !strings.Contains(c.Detail, "only, 1h0m") {
		t.Errorf("late token: %+v", c)
	}
	// A token before the record's time contradicts it.
	if c := check(externalBundle(t, tsa, now.Add(time.Hour)), tsa.CAPEM); c.OK || !strings.Contains(c.Detail, "before the record's time") {
		t.Errorf("early token: %+v", c)
	}
	// A token of other bytes, or a displayed time that is not the token's.
	changed := b
	changed.Record = append([]byte(nil), b.Record...)
	changed.Record[len(changed.Record)-2] ^= 1
	if c := check(changed, tsa.CAPEM); c.OK || !strings.Contains(c.Detail, "record hashes to") {
		t.Errorf("changed record: %+v", c)
	}
	shown := b
	shownTime := now.Add(-time.Minute)
	shown.ExternalTimestamps = []ExternalTimestamp{b.ExternalTimestamps[0]}
	shown.ExternalTimestamps[0].GenTime = &shownTime
	if c := check(shown, tsa.CAPEM); c.OK || !strings.Contains(c.Detail, "bundle shows") {
		t.Errorf("displayed time: %+v", c)
	}
	for _, st := range []string{ExternalPending, ExternalFailed} {
		p := Bundle{Record: b.Record, ExternalTimestamps: []ExternalTimestamp{{AuthorityURL: tsa.URL, Status: st, Error: "HTTP 503"}}}
		if c := check(p, tsa.CAPEM); !c.OK || !c.Skipped || !strings.Contains(c.Detail, st) {
			t.Errorf("%s: %+v", st, c)
		}
	}
	if c := check(Bundle{Record: b.Record, ExternalTimestamps: []ExternalTimestamp{{AuthorityURL: tsa.URL, Status: ExternalOK}}}, tsa.CAPEM); c.OK {
		t.Errorf("ok without a token: %+v", c)
	}
}

func TestFetchFromAnAuthorityThatIsDown(t *testing.T) {
	tsa := testtsa.Start(t, testtsa.Options{})
	tsa.SetDown(true)
	if _, _, err := NewTSAClient(10*time.Second).Fetch(t.Context(), tsa.URL, sha256.Sum256([]byte("x"))); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Fetch from a down authority: %v", err)
	}
}

// jobs records the jobs queued in a batch's transaction.
type jobs struct{ args []TimestampArgs }

func (j *jobs) InsertTx(_ context.Context, _ *sql.Tx, args river.JobArgs, _ *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	j.args = append(j.args, args.(TimestampArgs))
	return &rivertype.JobInsertResult{}, nil
}

// A registration with an authority down commits with its timestamp
// pending and one job; the job's attempts keep it pending until the last,
// which marks it failed and tells the organization. A token already
// stored is never replaced by a job run again.
func TestTimestampJob(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { testTimestampJob(t, b) })
	}
}

func testTimestampJob(t *testing.T, b testdb.Backend) {
	up := testtsa.Start(t, testtsa.Options{Name: "Up TSA"})
	down := testtsa.Start(t, testtsa.Options{Name: "Down TSA"})
	down.SetDown(true)
	ctx := context.Background()
	st, err := storage.Open(ctx, b.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	keyring, err := secrets.NewKeyring(secrets.GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	emitter := events.NewEmitter(json.Marshal, func(context.Context, *ent.Client, *sql.Tx, []*ent.Event) error { return nil })
	queued := &jobs{}
	r, err := OpenRegistry(ctx, st, keyring, emitter, slog.New(slog.DiscardHandler),
		WithExternal(External{Authorities: []string{up.URL, down.URL}, Queue: queued}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	w, err := r.Register(ctx, Registration{OrganizationID: "org_1", CreatorID: "cr_1", Title: "T", Type: "song", ContentHash: "sha256:" + strings.Repeat("cd", 32)})
	if err != nil {
		t.Fatalf("register with an authority down: %v", err)
	}
	if len(queued.args) != 1 || len(queued.args[0].RecordIDs) != 1 || queued.args[0].RecordIDs[0] != w.ID {
		t.Fatalf("queued %+v", queued.args)
	}
	failures := map[string]int{}
	worker := &TimestampWorker{Store: st, Events: emitter, Client: NewTSAClient(5 * time.Second), Log: slog.New(slog.DiscardHandler),
		Failed: func(a string) { failures[a]++ }}
	work := func(attempt int) error {
		return worker.Work(ctx, &river.Job[TimestampArgs]{JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: timestampAttempts}, Args: queued.args[0]})
	}
	statuses := func() string {
		bundle, err := r.Certificate(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, e := range bundle.ExternalTimestamps {
			s = append(s, e.Status)
		}
		return strings.Join(s, ",")
	}
	updates := func() int {
		n, err := st.Ent.Event.Query().Where(event.Type(events.IPCertificateUpdated), event.OrganizationID("org_1")).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := statuses(); got != "pending,pending" {
		t.Fatalf("before the job: %s", got)
	}
	if err := work(1); err == nil {
		t.Fatal("the job succeeded with a timestamp still pending")
	}
	if got := statuses(); got != "ok,pending" || updates() != 1 || failures[down.URL] != 1 {
		t.Fatalf("after attempt 1: %s, %d events, failures %v", got, updates(), failures)
	}
	first, err := st.Ent.IPExternalTimestamp.Query().Where(ipexternaltimestamp.Authority(up.URL)).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := work(timestampAttempts); err != nil {
		t.Fatalf("last attempt: %v", err)
	}
	if got := statuses(); got != "ok,failed" || updates() != 2 {
		t.Fatalf("after the last attempt: %s, %d events", got, updates())
	}
	// Run again (a rescue): nothing pending, nothing rewritten.
	if err := work(timestampAttempts); err != nil {
		t.Fatal(err)
	}
	again, err := st.Ent.IPExternalTimestamp.Get(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(*again.Token) != string(*first.Token) || again.Attempts != 1 || updates() != 2 {
		t.Fatalf("a job run again rewrote the token or told again: attempts %d, %d events", again.Attempts, updates())
	}
}
