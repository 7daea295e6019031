package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/ent/deliveryattempt"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

// fixture is a migrated SQLite store with a River client that inserts but
// never works jobs: the tests call Worker.Work themselves, to run a job
// twice or out of order as a crash or a rescue would.
type fixture struct {
	store   *storage.Store
	disp    *Dispatcher
	worker  *Worker
	keyring *secrets.Keyring
	hits    atomic.Int32
	code    atomic.Int32
	srv     *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "wh.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: st, disp: &Dispatcher{Schedule: Schedule{0, time.Minute, time.Minute}, Jitter: func() float64 { return 0.5 }}}
	f.code.Store(http.StatusOK)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		w.WriteHeader(int(f.code.Load()))
	}))
	t.Cleanup(f.srv.Close)
	f.keyring, err = secrets.NewKeyring(secrets.GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	f.worker = &Worker{Store: st, Dispatcher: f.disp, Client: NewClient(true, 5*time.Second), Keyring: f.keyring}
	workers := river.NewWorkers()
	river.AddWorker(workers, f.worker)
	river.AddWorker(workers, &FanOutWorker{Store: st, Dispatcher: f.disp})
	f.disp.River, err = river.NewClient(st.River, &river.Config{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) webhook(t *testing.T, orgID string, events ...string) *ent.Webhook {
	t.Helper()
	id := ids.New(ids.Webhook)
	keyID, sealed := SealSecret(f.keyring, id, GenerateSecret())
	wh, err := f.store.Ent.Webhook.Create().SetID(id).SetOrganizationID(orgID).
		SetURL(f.srv.URL).SetEvents(events).SetSecret(sealed).SetSecretKeyID(keyID).Save(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return wh
}

// emit writes an event and fans it out, as events.Emitter does.
func (f *fixture) emit(t *testing.T, orgID, typ string) *ent.Event {
	t.Helper()
	var ev *ent.Event
	err := f.store.Tx(context.Background(), func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		var err error
		ev, err = tx.Event.Create().SetID(ids.New(ids.Event)).SetOrganizationID(orgID).SetType(typ).SetData(`{"id":"x"}`).Save(context.Background())
		if err != nil {
			return err
		}
		return f.disp.FanOut(context.Background(), tx, sqlTx, []*ent.Event{ev})
	})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func (f *fixture) deliveries(t *testing.T) []*ent.Delivery {
	t.Helper()
	ds, err := f.store.Ent.Delivery.Query().Order(ent.Asc(delivery.FieldID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func work(t *testing.T, w *Worker, deliveryID string, attempt int) error {
	t.Helper()
	return w.Work(context.Background(), &river.Job[DeliverArgs]{JobRow: &rivertype.JobRow{}, Args: DeliverArgs{DeliveryID: deliveryID, Attempt: attempt}})
}

func TestFanOutMatchesSubscriptions(t *testing.T) {
	f := newFixture(t)
	all := f.webhook(t, "org_a", EventWildcard)
	jobs := f.webhook(t, "org_a", events.JobCompleted)
	f.webhook(t, "org_a", events.IPRegistered)
	f.webhook(t, "org_b", EventWildcard)
	gone := f.webhook(t, "org_a", EventWildcard)
	if _, err := f.store.Ent.Webhook.UpdateOne(gone).SetDeletedAt(time.Now()).Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	disabled := f.webhook(t, "org_a", EventWildcard)
	if _, err := f.store.Ent.Webhook.UpdateOne(disabled).SetStatus(WebhookDisabled).Save(context.Background()); err != nil {
		t.Fatal(err)
	}

	ev := f.emit(t, "org_a", events.JobCompleted)
	f.emit(t, "org_a", events.WebhookTest) // addressed by :test only
	ds := f.deliveries(t)
	got := map[string]bool{}
	for _, d := range ds {
		got[d.WebhookID] = true
		if d.EventID != ev.ID || d.Status != DeliveryPending || d.OrganizationID != "org_a" {
			t.Errorf("delivery %+v", d)
		}
	}
	if len(ds) != 2 || !got[all.ID] || !got[jobs.ID] {
		t.Fatalf("deliveries to %v, want %s and %s", got, all.ID, jobs.ID)
	}
	n, err := f.store.DB.QueryContext(context.Background(), "SELECT count(*) FROM river_job WHERE queue = ?", Queue)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	var jobsQueued int
	for n.Next() {
		_ = n.Scan(&jobsQueued)
	}
	if jobsQueued != 2 {
		t.Fatalf("%d jobs queued, want 2", jobsQueued)
	}
}

// A batch of events from several organizations (an IP registry seal) fans
// out in one call: each event reaches its own organization's subscribers.
func TestFanOutBatch(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	allA := f.webhook(t, "org_a", EventWildcard)
	ipA := f.webhook(t, "org_a", events.IPRegistered)
	allB := f.webhook(t, "org_b", EventWildcard)
	emitter := events.NewEmitter(func(v any) ([]byte, error) { return json.Marshal(v) }, f.disp.FanOut)
	var evs []*ent.Event
	err := f.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		var err error
		evs, err = emitter.EmitBatch(ctx, tx, sqlTx, []events.Encoded{
			{OrganizationID: "org_a", Type: events.IPRegistered, Data: []byte(`{"id":"ip_1"}`)},
			{OrganizationID: "org_b", Type: events.IPRegistered, Data: []byte(`{"id":"ip_2"}`)},
			{OrganizationID: "org_a", Type: events.CreatorCreated, Data: []byte(`{"id":"cr_1"}`)},
			{OrganizationID: "org_c", Type: events.IPRegistered, Data: []byte(`{"id":"ip_3"}`)},
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, d := range f.deliveries(t) {
		got[d.EventID] = append(got[d.EventID], d.WebhookID)
	}
	want := map[string][]string{
		evs[0].ID: {allA.ID, ipA.ID},
		evs[1].ID: {allB.ID},
		evs[2].ID: {allA.ID},
	}
	for ev, hooks := range want {
		slices.Sort(hooks)
		slices.Sort(got[ev])
		if !slices.Equal(got[ev], hooks) {
			t.Errorf("event %s delivered to %v, want %v", ev, got[ev], hooks)
		}
	}
	if len(got) != len(want) {
		t.Errorf("deliveries for %d events, want %d: %v", len(got), len(want), got)
	}
}

// A job that runs again after its attempt was recorded (a rescue after a
// crash, a duplicate) does nothing: one request, one attempt logged.
func TestWorkerIsIdempotent(t *testing.T) {
	f := newFixture(t)
	f.webhook(t, "org_a", EventWildcard)
	f.emit(t, "org_a", events.CreatorCreated)
	d := f.deliveries(t)[0]
	for range 3 {
		if err := work(t, f.worker, d.ID, 0); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.hits.Load(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	d = f.deliveries(t)[0]
	if d.Status != DeliverySucceeded || d.Attempts != 1 || d.CompletedAt == nil || d.ResponseStatus != 200 {
		t.Fatalf("delivery %+v", d)
	}
	if n, _ := f.store.Ent.DeliveryAttempt.Query().Where(deliveryattempt.DeliveryID(d.ID)).Count(context.Background()); n != 1 {
		t.Fatalf("%d attempts logged", n)
	}
}

// A failed attempt schedules the next one by the schedule; the job of that
// next attempt waits (snoozes) until it is due; a stale job does nothing.
func TestWorkerSchedulesRetries(t *testing.T) {
	f := newFixture(t)
	f.webhook(t, "org_a", EventWildcard)
	f.emit(t, "org_a", events.CreatorCreated)
	f.code.Store(http.StatusInternalServerError)
	d := f.deliveries(t)[0]
	before := time.Now()
	if err := work(t, f.worker, d.ID, 0); err != nil {
		t.Fatal(err)
	}
	d = f.deliveries(t)[0]
	if d.Status != DeliveryPending || d.Attempts != 1 || d.NextRetryAt == nil || d.ResponseStatus != 500 || !strings.Contains(d.LastError, "500") {
		t.Fatalf("delivery %+v", d)
	}
	if wait := d.NextRetryAt.Sub(before); wait < 59*time.Second || wait > 61*time.Second+time.Second {
		t.Fatalf("next retry in %v, want 1 min", wait)
	}
	// The scheduled job of attempt 2 exists.
	var args string
	if err := f.store.DB.QueryRow("SELECT args FROM river_job WHERE state = 'scheduled'").Scan(&args); err != nil || !strings.Contains(args, `"attempt":1`) {
		t.Fatalf("scheduled retry job: %q %v", args, err)
	}
	// Run early, it snoozes until due.
	var snooze *river.JobSnoozeError
	if err := work(t, f.worker, d.ID, 1); !errors.As(err, &snooze) || snooze.Duration < 55*time.Second {
		t.Fatalf("early run: %v", err)
	}
	// The first job again is stale.
	if err := work(t, f.worker, d.ID, 0); err != nil || f.hits.Load() != 1 {
		t.Fatalf("stale job: %v, %d requests", err, f.hits.Load())
	}
}

// Retries of a webhook deleted or disabled meanwhile are not sent.
func TestWorkerSkipsGoneWebhooks(t *testing.T) {
	f := newFixture(t)
	deleted := f.webhook(t, "org_a", EventWildcard)
	disabled := f.webhook(t, "org_a", EventWildcard)
	f.emit(t, "org_a", events.CreatorCreated)
	ctx := context.Background()
	if _, err := f.store.Ent.Webhook.UpdateOne(deleted).SetDeletedAt(time.Now()).Save(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Ent.Webhook.UpdateOne(disabled).SetStatus(WebhookDisabled).SetDisabledReason("endpoint answered 410 Gone").Save(ctx); err != nil {
		t.Fatal(err)
	}
	for _, d := range f.deliveries(t) {
		if err := work(t, f.worker, d.ID, 0); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.hits.Load(); n != 0 {
		t.Fatalf("%d requests to gone webhooks", n)
	}
	for _, d := range f.deliveries(t) {
		want := "webhook deleted"
		if d.WebhookID == disabled.ID {
			want = "webhook disabled: endpoint answered 410 Gone"
		}
		if d.Status != DeliveryFailed || d.LastError != want || d.Attempts != 0 {
			t.Errorf("delivery %+v", d)
		}
	}
}

// 410 disables the webhook and fails its other pending deliveries at once.
func TestWorkerGoneDisables(t *testing.T) {
	f := newFixture(t)
	wh := f.webhook(t, "org_a", EventWildcard)
	f.emit(t, "org_a", events.CreatorCreated)
	f.emit(t, "org_a", events.CreatorCreated)
	f.code.Store(http.StatusGone)
	ds := f.deliveries(t)
	if err := work(t, f.worker, ds[0].ID, 0); err != nil {
		t.Fatal(err)
	}
	got, err := f.store.Ent.Webhook.Get(context.Background(), wh.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != WebhookDisabled || !strings.Contains(got.DisabledReason, "410") || got.DisabledAt == nil {
		t.Fatalf("webhook %+v", got)
	}
	for _, d := range f.deliveries(t) {
		if d.Status != DeliveryFailed {
			t.Errorf("delivery %+v", d)
		}
	}
	if err := work(t, f.worker, ds[1].ID, 0); err != nil || f.hits.Load() != 1 {
		t.Fatalf("second delivery: %v, %d requests", err, f.hits.Load())
	}
}

func TestValidateSecret(t *testing.T) {
	for _, tc := range []struct {
		secret string
		ok     bool
	}{
		{GenerateSecret(), true},
		{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true},
		{"sixteen-chars-ok", true},
		{"ünïcödé-sëcrët-16", true},
		{"too-short", false},
		{"whsec_c2hvcnQ=", false}, // 5-byte key
		{"whsec_***", false},
		{strings.Repeat("x", MaxSecretLength+1), false},
		{"sixteen-chars\xffxx", false},
	} {
		err := ValidateSecret(tc.secret)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateSecret(%q) = %v, want ok=%v", tc.secret, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidSecret) {
			t.Errorf("ValidateSecret(%q) error does not wrap ErrInvalidSecret: %v", tc.secret, err)
		}
	}
}

func TestCheckResolved(t *testing.T) {
	// DNS is made to fail at once; /etc/hosts still answers for localhost.
	noDNS := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no DNS in this test")
	}}
	ctx := context.Background()
	if err := CheckResolved(ctx, "https://localhost:8443/hook", noDNS); !errors.Is(err, ErrInvalidURL) {
		t.Errorf("localhost: %v", err)
	}
	for _, u := range []string{"https://93.184.215.14/hook", "https://unpublished.example/hook"} {
		if err := CheckResolved(ctx, u, noDNS); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// fakeResolver answers every name with the same addresses.
type fakeResolver []netip.Addr

func (f fakeResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return f, nil
}

// A name is refused when any address it resolves to is not public,
// however the address is written; one that resolves to public addresses
// only is accepted.
func TestCheckResolvedRefusesPrivateAnswers(t *testing.T) {
	ctx := context.Background()
	public := netip.MustParseAddr("93.184.215.14")
	for _, c := range []struct {
		name  string
		addrs []string
	}{
		{"private IPv4", []string{"10.0.0.1"}},
		{"private beside a public one", []string{"93.184.215.14", "192.168.1.20"}},
		{"unique-local IPv6", []string{"fd00::1"}},
		{"unique-local IPv6 with a zone", []string{"fd12:3456::7%eth0"}},
		{"IPv4-mapped private", []string{"::ffff:10.0.0.1"}},
		{"IPv4-mapped loopback", []string{"::ffff:127.0.0.1"}},
		{"link-local (cloud metadata)", []string{"169.254.169.254"}},
		{"CGNAT", []string{"100.64.0.1"}},
	} {
		var r fakeResolver
		for _, a := range c.addrs {
			r = append(r, netip.MustParseAddr(a))
		}
		err := CheckResolved(ctx, "https://hooks.customer.example/in", r)
		if !errors.Is(err, ErrInvalidURL) || !strings.Contains(err.Error(), "not a public address") {
			t.Errorf("%s: %v, want the name refused as not public", c.name, err)
		}
	}
	if err := CheckResolved(ctx, "https://hooks.customer.example/in", fakeResolver{public, netip.MustParseAddr("2606:2800:220:1:248:1893:25c8:1946")}); err != nil {
		t.Errorf("public addresses: %v", err)
	}
}
