package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// noAutoFlush leaves flushing to the test, so it knows what is stored.
func noAutoFlush(c *server.Config) { c.AnalyticsFlushInterval = time.Hour }

type routeStatus struct {
	method, route string
	status        int
}

func TestUsageAnalytics(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { testUsageAnalytics(t, b) })
	}
}

func testUsageAnalytics(t *testing.T, b testdb.Backend) {
	s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), Configure: noAutoFlush})
	ctx := context.Background()
	readerKey := s.NewKey(t, "acme", auth.ScopeCreatorsRead)
	otherOrgKey := s.NewKey(t, "globex", auth.ScopeAll)

	do := func(method, path, key string, body any, want int) testserver.Response {
		t.Helper()
		r := s.Do(t, method, path, key, body)
		if r.Status != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, r.Status, want, r.Body)
		}
		return r
	}
	// Every recorded request starts and ends inside this window; the server's
	// clock for a request can stop after the client has its response, so no
	// single client-side timing bounds it.
	began := time.Now()
	// A known mix, errors included, over REST...
	want := map[routeStatus]int64{}
	id := do("POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"}, 201).JSON["id"].(string)
	want[routeStatus{"POST", "/v1/creators", 201}]++
	do("POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"}, 409)
	want[routeStatus{"POST", "/v1/creators", 409}]++
	for range 5 {
		do("GET", "/v1/creators/"+id, s.AdminKey, nil, 200)
		want[routeStatus{"GET", "/v1/creators/{id}", 200}]++
	}
	for i := range 3 {
		do("GET", fmt.Sprintf("/v1/creators/cr_missing%d", i), s.AdminKey, nil, 404)
		want[routeStatus{"GET", "/v1/creators/{id}", 404}]++
	}
	do("GET", "/v1/creators?page_token=garbage", s.AdminKey, nil, 400)
	want[routeStatus{"GET", "/v1/creators", 400}]++
	do("POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext}, 200)
	want[routeStatus{"POST", "/v1/engine/run", 200}]++
	// ...with a second key (one request it may make, one it may not)...
	do("GET", "/v1/creators/"+id, readerKey, nil, 200)
	do("POST", "/v1/creators", readerKey, map[string]any{"name": "X", "email": "x@example.com", "vertical": "music"}, 403)
	want[routeStatus{"GET", "/v1/creators/{id}", 200}]++
	want[routeStatus{"POST", "/v1/creators", 403}]++
	// ...and over native gRPC, counted under the same route.
	gctx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+s.AdminKey)
	client := creativeopsv1.NewCreatorsServiceClient(s.Conn(t))
	for range 2 {
		if _, err := client.GetCreator(gctx, &creativeopsv1.GetCreatorRequest{Id: id}); err != nil {
			t.Fatal(err)
		}
		want[routeStatus{"GET", "/v1/creators/{id}", 200}]++
	}
	if _, err := client.GetCreator(gctx, &creativeopsv1.GetCreatorRequest{Id: "cr_nope"}); err == nil {
		t.Fatal("missing creator found over gRPC")
	}
	want[routeStatus{"GET", "/v1/creators/{id}", 404}]++
	// Unauthenticated requests belong to no organization: not recorded.
	do("GET", "/v1/creators/"+id, "", nil, 401)
	// Another organization's traffic.
	do("GET", "/v1/creators/"+id, otherOrgKey, nil, 404)
	do("GET", "/v1/engine/verticals", otherOrgKey, nil, 200)

	if err := s.FlushAnalytics(ctx); err != nil {
		t.Fatal(err)
	}
	window := time.Since(began)

	// What is stored: exact counts per route and status, templates only.
	got := map[routeStatus]int64{}
	for _, row := range s.Store.Ent.UsageMinute.Query().AllX(ctx) {
		if row.OrganizationID == s.OrgID {
			got[routeStatus{row.Method, row.Route, row.Status}] += row.Requests
		}
		if strings.Contains(row.Route, "cr_") {
			t.Errorf("concrete id stored as a route: %s", row.Route)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stored usage per route and status:\n got %v\nwant %v", got, want)
	}

	// The report.
	r := do("GET", "/v1/analytics/usage", s.AdminKey, nil, 200)
	var total, errs int64
	perRoute := map[string][2]int64{}
	for k, n := range want {
		total += n
		v := perRoute[k.method+" "+k.route]
		v[0] += n
		if k.status >= 400 {
			errs += n
			v[1] += n
		}
		perRoute[k.method+" "+k.route] = v
	}
	totals := r.JSON["totals"].(map[string]any)
	if num(totals["requests"]) != float64(total) {
		t.Fatalf("totals.requests = %v, want %d: %s", totals["requests"], total, r.Body)
	}
	if num(totals["errors"]) != float64(errs) || fmt.Sprintf("%.4f", totals["error_rate"]) != fmt.Sprintf("%.4f", float64(errs)/float64(total)) {
		t.Fatalf("totals errors %v rate %v, want %d of %d", totals["errors"], totals["error_rate"], errs, total)
	}
	p50, p95, p99 := totals["p50_ms"].(float64), totals["p95_ms"].(float64), totals["p99_ms"].(float64)
	if !(0 < p50 && p50 <= p95 && p95 <= p99) || p99 > float64(window.Microseconds())/1000*(1+analytics.Resolution) {
		t.Fatalf("percentiles p50 %v p95 %v p99 %v (all requests took %v)", p50, p95, p99, window)
	}
	if r.JSON["granularity"] != "hour" || r.JSON["from"] == nil || r.JSON["to"] == nil {
		t.Fatalf("defaults: %s", r.Body)
	}
	eps := r.JSON["endpoints"].([]any)
	if len(eps) != len(perRoute) {
		t.Fatalf("%d endpoints, want %d: %s", len(eps), len(perRoute), r.Body)
	}
	for _, e := range eps {
		e := e.(map[string]any)
		w, ok := perRoute[e["method"].(string)+" "+e["route"].(string)]
		if !ok {
			t.Errorf("unexpected endpoint %v", e)
		}
		if num(e["requests"]) != float64(w[0]) || num(e["errors"]) != float64(w[1]) || e["p99_ms"].(float64) <= 0 {
			t.Errorf("endpoint %v: want %d requests %d errors", e, w[0], w[1])
		}
	}
	series := r.JSON["series"].([]any)
	if len(series) < 24 || len(series) > 25 {
		t.Fatalf("%d hourly points in 24 h", len(series))
	}
	var inSeries float64
	for _, p := range series {
		inSeries += num(p.(map[string]any)["requests"])
	}
	if inSeries != float64(total) {
		t.Fatalf("series sums to %v requests, want %d", inSeries, total)
	}
	if jobs := r.JSON["jobs"].(map[string]any); num(jobs["completed"]) != 1 || num(jobs["queued"]) != 0 || jobs["avg_duration_ms"].(float64) < 0 {
		t.Fatalf("jobs: %v", jobs)
	}

	// Minute granularity and a key filter.
	minute := time.Now().UTC().Truncate(time.Minute)
	q := url.Values{"granularity": {"minute"}, "key_id": {keyID(t, s, readerKey)},
		"from": {minute.Add(-10 * time.Minute).Format(time.RFC3339)}, "to": {minute.Add(time.Minute).Format(time.RFC3339)}}
	r = do("GET", "/v1/analytics/usage?"+q.Encode(), s.AdminKey, nil, 200)
	if totals := r.JSON["totals"].(map[string]any); num(totals["requests"]) != 2 || num(totals["errors"]) != 1 {
		t.Fatalf("one key's usage: %v", totals)
	}
	if n := len(r.JSON["series"].([]any)); n != 11 {
		t.Fatalf("%d minute points in 11 minutes", n)
	}

	// Another organization sees only its own requests.
	if err := s.FlushAnalytics(ctx); err != nil {
		t.Fatal(err)
	}
	r = do("GET", "/v1/analytics/usage", otherOrgKey, nil, 200)
	if totals := r.JSON["totals"].(map[string]any); num(totals["requests"]) != 2 || num(totals["errors"]) != 1 {
		t.Fatalf("other organization's usage: %s", r.Body)
	}
	for _, e := range r.JSON["endpoints"].([]any) {
		if route := e.(map[string]any)["route"]; route != "/v1/creators/{id}" && route != "/v1/engine/verticals" {
			t.Fatalf("other organization sees %v", route)
		}
	}
	if jobs := r.JSON["jobs"].(map[string]any); num(jobs["completed"]) != 0 {
		t.Fatalf("other organization sees jobs: %v", jobs)
	}

	// analytics:read is required.
	if r := s.Do(t, "GET", "/v1/analytics/usage", readerKey, nil); r.Status != 403 {
		t.Fatalf("without analytics:read: %d", r.Status)
	}
}

func TestUsageValidation(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	now := time.Now().UTC()
	ts := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339) }
	for _, c := range []struct {
		query, field string
	}{
		{"granularity=week", "granularity"},
		{"from=" + ts(0) + "&to=" + ts(-time.Hour), "from"},
		{"from=" + ts(0) + "&to=" + ts(0), "from"},
		{"granularity=minute&from=" + ts(-8*24*time.Hour) + "&to=" + ts(0), "granularity"},
		{"granularity=day&from=" + ts(-400*24*time.Hour) + "&to=" + ts(0), "from"},
	} {
		r := s.Do(t, "GET", "/v1/analytics/usage?"+c.query, s.AdminKey, nil)
		if r.Status != 400 || !strings.Contains(fmt.Sprint(r.ViolatedFields()), c.field) {
			t.Errorf("%s: %d %v, want 400 naming %s: %s", c.query, r.Status, r.ViolatedFields(), c.field, r.Body)
		}
	}
	// The refusal of an unknown granularity lists the accepted values.
	if r := s.Do(t, "GET", "/v1/analytics/usage?granularity=week", s.AdminKey, nil); !strings.Contains(string(r.Body), "must be minute, hour or day") {
		t.Errorf("granularity=week: %s", r.Body)
	}
	if r := s.Do(t, "GET", "/v1/analytics/usage?from=yesterday", s.AdminKey, nil); r.Status != 400 {
		t.Errorf("unparsable from: %d", r.Status)
	}
	r := s.Do(t, "GET", "/v1/analytics/usage?granularity=day&from="+ts(-7*24*time.Hour)+"&to="+ts(0), s.AdminKey, nil)
	if r.Status != 200 || len(r.JSON["series"].([]any)) != 8 || r.JSON["granularity"] != "day" {
		t.Fatalf("a week by day: %d %s", r.Status, r.Body)
	}
}

// Shutdown writes what is still buffered.
func TestUsageFlushedOnShutdown(t *testing.T) {
	url := testdb.SQLiteURL(t)
	s := testserver.Start(t, testserver.Options{DatabaseURL: url, Configure: noAutoFlush})
	for range 3 {
		s.Do(t, "GET", "/v1/engine/verticals", s.AdminKey, nil)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	s2 := testserver.Start(t, testserver.Options{DatabaseURL: url, Configure: noAutoFlush})
	r := s2.Do(t, "GET", "/v1/analytics/usage", s2.AdminKey, nil)
	if totals := r.JSON["totals"].(map[string]any); num(totals["requests"]) != 3 {
		t.Fatalf("after a restart: %s", r.Body)
	}
}

// Several replicas write into the same rows: counts and histograms add up.
func TestUsageReplicasAddUp(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL := b.URL(t)
			s1 := testserver.Start(t, testserver.Options{DatabaseURL: dbURL, Configure: noAutoFlush})
			s2 := testserver.Start(t, testserver.Options{DatabaseURL: dbURL, Configure: noAutoFlush, NoWorkers: true})
			for range 4 {
				s1.Do(t, "GET", "/v1/engine/verticals", s1.AdminKey, nil)
			}
			for range 3 {
				s2.Do(t, "GET", "/v1/engine/verticals", s1.AdminKey, nil)
			}
			ctx := context.Background()
			if err := s1.FlushAnalytics(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s2.FlushAnalytics(ctx); err != nil {
				t.Fatal(err)
			}
			r := s2.Do(t, "GET", "/v1/analytics/usage", s1.AdminKey, nil)
			eps := r.JSON["endpoints"].([]any)
			if len(eps) != 1 || num(eps[0].(map[string]any)["requests"]) != 7 {
				t.Fatalf("two replicas: %s", r.Body)
			}
			var hist int
			for _, row := range s1.Store.Ent.UsageMinute.Query().AllX(ctx) {
				var h analytics.Histogram
				if err := h.UnmarshalBinary(row.Histogram); err != nil {
					t.Fatal(err)
				}
				if int64(h.Count()) != row.Requests {
					t.Fatalf("row of %d requests has a histogram of %d", row.Requests, h.Count())
				}
				hist += int(h.Count())
			}
			if hist != 7 {
				t.Fatalf("histograms hold %d latencies, want 7", hist)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"})
	id := r.JSON["id"].(string)
	s.Do(t, "GET", "/v1/creators/"+id, s.AdminKey, nil)
	s.Do(t, "GET", "/v1/creators/cr_nope", s.AdminKey, nil)
	s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext})
	gctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+s.AdminKey)
	if _, err := creativeopsv1.NewCreatorsServiceClient(s.Conn(t)).GetCreator(gctx, &creativeopsv1.GetCreatorRequest{Id: id}); err != nil {
		t.Fatal(err)
	}

	resp, err := http.Get(s.URL + "/metrics") // no auth
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	text := string(body)
	for _, want := range []string{
		`creativeops_requests_total{code="201",method="POST",route="/v1/creators",transport="rest"} 1`,
		`creativeops_requests_total{code="200",method="GET",route="/v1/creators/{id}",transport="rest"} 1`,
		`creativeops_requests_total{code="404",method="GET",route="/v1/creators/{id}",transport="rest"} 1`,
		`creativeops_requests_total{code="200",method="GET",route="/v1/creators/{id}",transport="grpc"} 1`,
		`creativeops_request_duration_seconds_bucket{code="200",method="GET",route="/v1/creators/{id}",transport="rest",le="+Inf"} 1`,
		`creativeops_request_duration_seconds_count{code="200",method="POST",route="/v1/engine/run",transport="rest"} 1`,
		`creativeops_jobs{status="completed"} 1`,
		`creativeops_jobs_finished_total{async="false",status="completed"} 1`,
		`creativeops_table_scrape_error 0`,
		`creativeops_build_info{commit="`,
		`go_goroutines `,
		`go_sql_open_connections`,
		`creativeops_rate_limited_requests_total 0`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(text, id) {
		t.Error("a concrete id became a metric label")
	}
}

func num(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case string:
		var f float64
		fmt.Sscan(n, &f)
		return f
	}
	return -1
}

func keyID(t *testing.T, s *testserver.Server, secret string) string {
	t.Helper()
	p, err := s.Keys.Authenticate(context.Background(), secret)
	if err != nil {
		t.Fatal(err)
	}
	return p.KeyID
}

// waitMetrics waits (up to 30 s, for a loaded machine) for /metrics to contain every line of want
// (counters are bumped just after the change they count commits).
func waitMetrics(t *testing.T, s *testserver.Server, want ...string) {
	t.Helper()
	var text string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(s.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		text = string(body)
		missing := false
		for _, w := range want {
			missing = missing || !strings.Contains(text, w)
		}
		if !missing {
			return
		}
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("/metrics lacks %s", w)
		}
	}
}

// Usage older than the retention is deleted by the clean-up; newer usage,
// and everything when retention is off, is kept.
func TestAnalyticsRetention(t *testing.T) {
	for _, tc := range []struct {
		name      string
		retention time.Duration
		wantRows  int
	}{
		{"30 days", 30 * 24 * time.Hour, 1},
		{"off", 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.AnalyticsRetention = tc.retention }})
			ctx := context.Background()
			for _, age := range []time.Duration{31 * 24 * time.Hour, time.Hour} {
				minute := time.Now().Add(-age).Truncate(time.Minute).Unix()
				err := s.Store.Ent.UsageMinute.Create().SetMinute(minute).SetOrganizationID(s.OrgID).SetKeyID("key_x").
					SetMethod("GET").SetRoute("/v1/creators/{id}").SetStatus(200).SetRequests(1).SetHistogram([]byte{}).Exec(ctx)
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := s.CleanUp(ctx); err != nil {
				t.Fatal(err)
			}
			rows, err := s.Store.Ent.UsageMinute.Query().All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.wantRows {
				t.Fatalf("%d usage rows left, want %d", len(rows), tc.wantRows)
			}
			if tc.retention > 0 && time.Since(time.Unix(rows[0].Minute, 0)) > tc.retention {
				t.Fatalf("kept the old minute %d", rows[0].Minute)
			}
		})
	}
}
