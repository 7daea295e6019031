package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/server/wire"
	"github.com/creativeops/creativeops/storage"
)

// Three replicas on one PostgreSQL database take asynchronous runs, IP
// registrations and new creators, with a webhook receiver subscribed to
// every event. Mid-run one replica is killed (SIGKILL) and another is
// restarted the way an orchestrator does it (taken out of the balancer,
// SIGTERM, started again). Afterwards nothing is lost or doubled:
//   - every job ran to completion and has exactly one engine.job.completed
//     event;
//   - every IP record sits once in the transparency log, with a
//     certificate that verifies against the published keys;
//   - every event reached the receiver, correctly signed;
//   - the only failed requests were in flight on the killed replica.
func TestClusterSurvivesReplicaFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("starts, kills and restarts three server processes for about a minute")
	}
	pgURL := os.Getenv(clustertest.PostgresEnv)
	if pgURL == "" {
		t.Skipf("cluster failure test skipped: %s is not set (it needs PostgreSQL)", clustertest.PostgresEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	rc := newReceiver(t)
	c, client := startCluster(ctx, t, clustertest.Config{
		DB:          "postgres",
		PostgresURL: testdb.OnDemand(pgURL),
		Replicas:    3,
		Dir:         t.TempDir(),
		Launcher:    launcher(),
		// A killed replica's runs are rescued after 2 × 2 s; webhook
		// retries come within seconds instead of the production hours.
		Serve: clustertest.ServeArgs{JobTimeout: 2 * time.Second, WebhookSchedule: "0s,1s,2s,4s,8s,15s"},
	})
	if _, err := client.CreateWebhook(ctx, rc.URL+"/hook", rc.secret); err != nil {
		t.Fatalf("create webhook: %v", err)
	}
	load := &clustertest.Load{Client: client, RunID: fmt.Sprint(time.Now().UnixNano()), PollTimeout: 150 * time.Second}
	if os.Getenv(binEnv) == "" {
		// Test children know the slow workflow: runs last 700 ms, so the
		// kill interrupts some.
		load.AsyncWorkflow, load.AsyncContext = slowWorkflow, map[string]any{"label": "failure"}
	}
	if err := load.Seed(ctx, 20); err != nil {
		t.Fatal(err)
	}

	// Load for 36 s; kill r2 at 10 s, restart r3 at 20 s.
	const rps, loadFor = 40, 36 * time.Second
	mix := clustertest.Split(map[clustertest.Op]int{clustertest.AsyncRun: 40, clustertest.RegisterIP: 30, clustertest.CreateCreator: 30})
	loaded := make(chan clustertest.PhaseResult, 1)
	go func() { loaded <- load.RunRate(ctx, "failure", mix, rps, loadFor) }()

	time.Sleep(10 * time.Second)
	killed := c.Replica("r2")
	killAt := time.Now()
	if err := killed.Kill(); err != nil {
		t.Fatalf("kill r2: %v", err)
	}
	t.Logf("r2 killed (SIGKILL) at +10s")

	time.Sleep(10 * time.Second)
	restarted := c.Replica("r3")
	c.Proxy.Drain("r3")
	time.Sleep(time.Second) // let requests already sent to r3 finish
	if err := restarted.Terminate(30 * time.Second); err != nil {
		t.Errorf("r3 graceful shutdown: %v", err)
	}
	if err := restarted.ExitError(); err != nil {
		t.Errorf("r3 exited with %v after SIGTERM", err)
	}
	if err := restarted.Start(ctx); err != nil {
		t.Fatalf("restart r3: %v", err)
	}
	c.Proxy.Undrain("r3")
	t.Logf("r3 restarted (SIGTERM, start) at +%s", time.Since(killAt.Add(-10*time.Second)).Round(time.Second))

	phase := <-loaded
	t.Logf("load: %d requests, %d errors; proxy served %v", phase.Requests, phase.Errors, c.Proxy.Served())
	if phase.Requests < rps*int(loadFor.Seconds())*8/10 {
		t.Errorf("only %d requests sent of %d planned", phase.Requests, rps*int(loadFor.Seconds()))
	}

	// Failed requests: only proxy-reported failures of requests that were
	// on r2 when it died.
	errs, n := load.Errors()
	for _, e := range errs {
		onKilled := e.FromProxy && e.Backend == "r2"
		around := e.At.After(killAt.Add(-500*time.Millisecond)) && e.At.Before(killAt.Add(5*time.Second))
		if !onKilled || !around {
			t.Errorf("request failed other than in flight on the killed replica (+%s after the kill): %v", e.At.Sub(killAt).Round(time.Millisecond), e)
		}
	}
	for _, e := range c.Proxy.Errors() {
		if e.Backend != "r2" || e.At.Before(killAt.Add(-500*time.Millisecond)) || e.At.After(killAt.Add(5*time.Second)) {
			t.Errorf("proxy failed a request on %s at +%s after the kill: %s %s: %s", e.Backend, e.At.Sub(killAt).Round(time.Millisecond), e.Method, e.Path, e.Err)
		}
	}
	t.Logf("%d requests failed, all in flight on r2 when it was killed", n)
	for i, e := range errs[:min(3, len(errs))] {
		t.Logf("failed request %d, +%s after the kill: %v", i+1, e.At.Sub(killAt).Round(time.Millisecond), e)
	}

	st, err := storage.Open(ctx, c.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// Every job ends completed. A killed replica's runs are rescued once a
	// surviving replica is River's leader, which can take a while.
	jobs := waitForJobs(ctx, t, st, 120*time.Second)
	byID := map[string]*ent.Job{}
	for _, j := range jobs {
		byID[j.ID] = j
		if j.Status != "completed" {
			t.Errorf("job %s ended %s (attempts %d, error %s: %s)", j.ID, j.Status, j.Attempts, j.ErrorCode, j.ErrorMessage)
		}
	}
	accepted := load.Jobs()
	for _, id := range accepted {
		if byID[id] == nil {
			t.Errorf("accepted job %s is not in the database", id)
		}
	}

	evs, err := st.Ent.Event.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	completions := map[string]int{}
	for _, ev := range evs {
		switch ev.Type {
		case events.JobCompleted:
			var job struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal([]byte(ev.Data), &job); err != nil {
				t.Fatalf("event %s: %v", ev.ID, err)
			}
			completions[job.ID]++
		case events.JobFailed:
			t.Errorf("event %s: %s", ev.ID, ev.Type)
		}
	}
	for _, j := range jobs {
		if completions[j.ID] != 1 {
			t.Errorf("job %s has %d %s events, want exactly 1", j.ID, completions[j.ID], events.JobCompleted)
		}
	}
	retried := 0
	for _, j := range jobs {
		if j.Attempts > 1 {
			retried++
		}
	}
	t.Logf("%d jobs (%d accepted async, %d run more than once), each completed once", len(jobs), len(accepted), retried)

	checkIPLog(ctx, t, st, client, load.Records())

	// Every event reaches the receiver (retries come within seconds).
	var eventIDs []string
	for _, ev := range evs {
		eventIDs = append(eventIDs, ev.ID)
	}
	var missing []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if missing = rc.missing(eventIDs); len(missing) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d events never reached the receiver, e.g. %v", len(missing), len(eventIDs), missing[:min(5, len(missing))])
	}
	if bad := rc.badSignatures(); len(bad) > 0 {
		t.Errorf("%d deliveries with a bad signature, e.g. %v", len(bad), bad[:min(5, len(bad))])
	}
	t.Logf("%d events delivered to the receiver", len(eventIDs)-len(missing))
}

// waitForJobs waits until no job is queued or processing, and returns all.
func waitForJobs(ctx context.Context, t *testing.T, st *storage.Store, timeout time.Duration) []*ent.Job {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		jobs, err := st.Ent.Job.Query().All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pending := 0
		for _, j := range jobs {
			if j.Status == "queued" || j.Status == "processing" {
				pending++
			}
		}
		if pending == 0 {
			return jobs
		}
		if time.Now().After(deadline) {
			t.Errorf("%d of %d jobs still queued or processing after %s", pending, len(jobs), timeout)
			return jobs
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkIPLog: every record has its own log index, the indexes fill the
// log exactly, every accepted registration is there, and every
// certificate verifies against the keys the service publishes.
func checkIPLog(ctx context.Context, t *testing.T, st *storage.Store, client *clustertest.Client, accepted []clustertest.Registered) {
	t.Helper()
	recs, err := st.Ent.IPRecord.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	heads, err := st.Ent.LogState.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	for _, h := range heads {
		sizes[h.Origin] = h.Size
	}
	indexes := map[string][]int64{}
	byID := map[string]*ent.IPRecord{}
	for _, r := range recs {
		indexes[r.LogOrigin] = append(indexes[r.LogOrigin], r.LogIndex)
		byID[r.ID] = r
	}
	for origin, idx := range indexes {
		sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
		for i, x := range idx {
			if x != int64(i) {
				t.Fatalf("log %s: records hold indexes %v..., want each of 0..%d once", origin, idx[:min(len(idx), 20)], len(idx)-1)
			}
		}
		if sizes[origin] != int64(len(idx)) {
			t.Errorf("log %s has %d entries for %d records", origin, sizes[origin], len(idx))
		}
	}
	for _, a := range accepted {
		if byID[a.ID] == nil {
			t.Errorf("registration %s answered 201 but is not in the database", a.ID)
		}
	}
	keys, err := client.IPKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	verifierKeys := map[string]string{}
	for _, k := range keys.GetLogKeys() {
		verifierKeys[k.GetOrigin()] = k.GetVerifierKey()
	}
	for _, r := range recs {
		cert, err := client.Certificate(ctx, r.CertificateID)
		if err != nil {
			t.Errorf("certificate of %s: %v", r.ID, err)
			continue
		}
		b := wire.Bundle(cert)
		pin := ipreg.TrustAnchors{TSARootPEM: keys.GetTsaRootPem(), LogVerifierKey: verifierKeys[r.LogOrigin]}
		rep, err := ipreg.VerifyPinned(b, nil, pin)
		if err != nil {
			t.Errorf("certificate %s of %s does not verify: %v: %s", r.CertificateID, r.ID, err, strings.Join(rep.Failed(), ", "))
			continue
		}
		if b.ID != r.ID || b.LogIndex != r.LogIndex {
			t.Errorf("certificate %s names record %s at %d, want %s at %d", r.CertificateID, b.ID, b.LogIndex, r.ID, r.LogIndex)
		}
	}
	t.Logf("%d IP records (%d accepted), each once in the log with a verifying certificate", len(recs), len(accepted))
}
