package analytics_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/storage"
)

// exactQuantile is the nearest-rank percentile of sorted values.
func exactQuantile(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

func within(got, want time.Duration) bool {
	diff := math.Abs(float64(got - want))
	return diff <= analytics.Resolution*float64(want)+float64(time.Microsecond)
}

func TestHistogramQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, spread := range []time.Duration{50 * time.Microsecond, 3 * time.Millisecond, 2 * time.Second} {
		var h analytics.Histogram
		values := make([]time.Duration, 5000)
		for i := range values {
			// Log-normal-ish latencies around spread.
			values[i] = time.Duration(float64(spread) * math.Exp(rng.NormFloat64()))
			h.Observe(values[i])
		}
		slices.Sort(values)
		for _, q := range []float64{0.01, 0.5, 0.9, 0.95, 0.99, 0.999, 1} {
			got, want := h.Quantile(q), exactQuantile(values, q).Truncate(time.Microsecond)
			if !within(got, want) {
				t.Errorf("spread %v q%.3f: %v, exact %v (resolution %.2f%%)", spread, q, got, want, 100*analytics.Resolution)
			}
		}
		if h.Count() != uint64(len(values)) {
			t.Fatalf("count %d", h.Count())
		}
	}
	var empty analytics.Histogram
	if empty.Quantile(0.99) != 0 {
		t.Fatal("empty histogram has a p99")
	}
}

func TestHistogramEncodingMerges(t *testing.T) {
	var a, b, both analytics.Histogram
	for i := range 1000 {
		d := time.Duration(i*i) * time.Microsecond
		if i%2 == 0 {
			a.Observe(d)
		} else {
			b.Observe(d)
		}
		both.Observe(d)
	}
	encA, _ := a.MarshalBinary()
	encB, _ := b.MarshalBinary()
	var decoded analytics.Histogram
	if err := decoded.UnmarshalBinary(encA); err != nil {
		t.Fatal(err)
	}
	if err := decoded.UnmarshalBinary(encB); err != nil { // decoding adds
		t.Fatal(err)
	}
	for _, q := range []float64{0.5, 0.95, 0.99} {
		if decoded.Quantile(q) != both.Quantile(q) {
			t.Fatalf("q%v: merged %v, direct %v", q, decoded.Quantile(q), both.Quantile(q))
		}
	}
	if err := decoded.UnmarshalBinary([]byte{0xff}); err == nil {
		t.Fatal("corrupt encoding accepted")
	}
}

func TestRecorderConcurrent(t *testing.T) {
	r := analytics.NewRecorder()
	at := time.Date(2026, 11, 20, 10, 0, 30, 0, time.UTC)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				status := 200
				if i%10 == 0 {
					status = 404
				}
				r.Record(at.Add(time.Duration(g)*time.Second), "org_a", "key_a", "GET", "/v1/creators/{id}", status, time.Millisecond)
			}
		}()
	}
	wg.Wait()
	aggs := r.Drain()
	if len(aggs) != 2 {
		t.Fatalf("%d aggregates, want 2 (one per status)", len(aggs))
	}
	for k, a := range aggs {
		want := int64(7200)
		if k.Status == 404 {
			want = 800
		}
		if k.Minute != at.Truncate(time.Minute).Unix() || a.Requests != want || int64(a.Latency.Count()) != want {
			t.Fatalf("%+v: %d requests", k, a.Requests)
		}
	}
	if len(r.Drain()) != 0 {
		t.Fatal("drained recorder not empty")
	}
}

func openStore(t testing.TB, url string) *storage.Store {
	t.Helper()
	st, err := storage.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

// Two replicas flush into the same rows; the report merges them exactly
// and computes percentiles from the summed histograms.
func TestWriteAndReport(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := openStore(t, b.URL(t))
			base := time.Now().UTC().Truncate(time.Hour).Add(-2 * time.Hour)
			replicas := []*analytics.Recorder{analytics.NewRecorder(), analytics.NewRecorder()}
			var latencies []time.Duration
			for i := range 600 {
				at := base.Add(time.Duration(i%120) * time.Minute) // two hours
				status := 200
				if i%6 == 0 {
					status = 500
				}
				d := time.Duration(100+i*i%9000) * time.Microsecond
				latencies = append(latencies, d)
				replicas[i%2].Record(at, "org_a", "key_"+string(rune('a'+i%3)), "GET", "/v1/creators/{id}", status, d)
				replicas[(i+1)%2].Record(at, "org_b", "key_z", "POST", "/v1/creators", 201, time.Millisecond)
			}
			for round := range 2 { // the second round adds onto existing rows
				for _, r := range replicas {
					if round == 1 {
						r.Record(base, "org_a", "key_a", "GET", "/v1/creators/{id}", 200, time.Millisecond)
					}
					if err := analytics.Write(ctx, st, r.Drain()); err != nil {
						t.Fatal(err)
					}
				}
			}
			latencies = append(latencies, time.Millisecond, time.Millisecond)
			slices.Sort(latencies)

			rep, err := analytics.Usage(ctx, st, analytics.Query{Org: "org_a", From: base, To: base.Add(3 * time.Hour), Granularity: analytics.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Totals.Requests != 602 || rep.Totals.Errors != 100 || len(rep.Endpoints) != 1 || len(rep.Series) != 3 {
				t.Fatalf("totals %d/%d, %d endpoints, %d points", rep.Totals.Requests, rep.Totals.Errors, len(rep.Endpoints), len(rep.Series))
			}
			if rep.Series[0].Requests != 302 || rep.Series[1].Requests != 300 || rep.Series[2].Requests != 0 {
				t.Fatalf("series %d %d %d", rep.Series[0].Requests, rep.Series[1].Requests, rep.Series[2].Requests)
			}
			for _, q := range []float64{0.5, 0.95, 0.99} {
				if got, want := rep.Totals.Latency.Quantile(q), exactQuantile(latencies, q); !within(got, want) {
					t.Errorf("q%v: %v, exact %v", q, got, want)
				}
			}
			// One key, and a window that ends just after a minute starts.
			rep, err = analytics.Usage(ctx, st, analytics.Query{Org: "org_a", KeyID: "key_a", From: base, To: base.Add(500 * time.Millisecond), Granularity: analytics.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Totals.Requests != 7 || len(rep.Series) != 1 { // i = 0, 120, ... 480, and the two extra requests
				t.Fatalf("key_a in the first minute: %d requests, %d points", rep.Totals.Requests, len(rep.Series))
			}
			rep, err = analytics.Usage(ctx, st, analytics.Query{Org: "org_c", From: base, To: base.Add(time.Hour), Granularity: analytics.Day})
			if err != nil || rep.Totals.Requests != 0 || len(rep.Endpoints) != 0 {
				t.Fatalf("unknown organization: %v %+v", err, rep)
			}
		})
	}
}

func TestQueryCheck(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		q     analytics.Query
		field string
	}{
		{analytics.Query{From: now.Add(-time.Hour), To: now, Granularity: analytics.Minute}, ""},
		{analytics.Query{From: now.Add(-7 * 24 * time.Hour), To: now.Add(-time.Minute), Granularity: analytics.Minute}, ""},
		{analytics.Query{From: now.Add(-8 * 24 * time.Hour), To: now, Granularity: analytics.Minute}, "granularity"},
		{analytics.Query{From: now.Add(-93 * 24 * time.Hour), To: now, Granularity: analytics.Hour}, ""},
		{analytics.Query{From: now.Add(-94 * 24 * time.Hour), To: now, Granularity: analytics.Day}, "from"},
		{analytics.Query{From: now, To: now, Granularity: analytics.Hour}, "from"},
		{analytics.Query{From: now.Add(-time.Hour), To: now, Granularity: "week"}, "granularity"},
	} {
		if field, problem := c.q.Check(); field != c.field {
			t.Errorf("%v → %s %q, want %s", c.q, field, problem, c.field)
		}
	}
}

// BenchmarkRecord is the cost added to a request: parallel Record calls on
// the same few keys.
func BenchmarkRecord(b *testing.B) {
	r := analytics.NewRecorder()
	routes := []string{"/v1/creators/{id}", "/v1/creators", "/v1/engine/run"}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			r.Record(time.Now(), "org_01m80hfec8d934zfdp8w2reafh", "key_01m80hfec8d934zfdp8w2reafh", "GET", routes[i%3], 200, time.Duration(i%5000)*time.Microsecond)
			i++
		}
	})
}

// Drain runs while requests are recorded: the race detector holds it to
// reading only maps it took from the shards.
func TestDrainWhileRecording(t *testing.T) {
	r := analytics.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20000 {
			r.Record(time.Unix(int64(i), 0), "org", "key", "GET", "/v1/creators", 200, time.Millisecond)
		}
	}()
	var total int64
	for {
		for _, a := range r.Drain() {
			total += a.Requests
		}
		select {
		case <-done:
			for _, a := range r.Drain() {
				total += a.Requests
			}
			if total != 20000 {
				t.Fatalf("drained %d requests, want 20000", total)
			}
			return
		default:
		}
	}
}
