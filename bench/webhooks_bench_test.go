package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
)

// webhookReceiver is a loopback endpoint that counts deliveries and, for
// each, the delay from the event's timestamp to the attempt's arrival.
type webhookReceiver struct {
	*httptest.Server
	n      atomic.Int64
	mu     sync.Mutex
	delays []time.Duration
	done   chan struct{}
	want   int64
}

func newWebhookReceiver(b *testing.B, want int) *webhookReceiver {
	rc := &webhookReceiver{done: make(chan struct{}), want: int64(want)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived := time.Now()
		var ev struct {
			Timestamp time.Time `json:"timestamp"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &ev); err == nil {
			rc.mu.Lock()
			rc.delays = append(rc.delays, arrived.Sub(ev.Timestamp))
			rc.mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
		if rc.n.Add(1) == rc.want {
			close(rc.done)
		}
	}))
	b.Cleanup(rc.Close)
	return rc
}

func (rc *webhookReceiver) percentile(p float64) time.Duration {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.delays) == 0 {
		return 0
	}
	d := slices.Clone(rc.delays)
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// createCreators makes n creator.created events over REST, c at a time.
func createCreators(b *testing.B, s *testserver.Server, n, c int) {
	client := Client()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				body, _ := json.Marshal(map[string]any{"name": "Bench", "email": fmt.Sprintf("bench%d-%d@example.com", i, time.Now().UnixNano()), "vertical": "music"})
				req, _ := http.NewRequest("POST", s.URL+"/v1/creators", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+s.AdminKey)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d creator creations failed", f)
	}
}

// BenchmarkWebhookDeliveries measures, on SQLite over loopback:
//
//   - throughput: 2,000 deliveries (200 events × 10 webhooks) queued while
//     workers are stopped, then drained by the default 20 delivery workers;
//     deliveries/s from worker start until the receiver got the last one;
//   - latency: events at 20/s to one webhook with the workers running; the
//     delay from the event's timestamp to the first attempt's arrival.
func BenchmarkWebhookDeliveries(b *testing.B) {
	const events, hooks = 200, 10
	b.Run("throughput", func(b *testing.B) {
		for range b.N {
			s := testserver.Start(b, testserver.Options{NoWorkers: true})
			rc := newWebhookReceiver(b, events*hooks)
			for range hooks {
				r := s.Do(b, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": rc.URL, "events": []string{"*"}})
				if r.Status != http.StatusCreated {
					b.Fatalf("create webhook: %d %s", r.Status, r.Body)
				}
			}
			createCreators(b, s, events, 8)
			start := time.Now()
			if err := s.StartWorkers(context.Background()); err != nil {
				b.Fatal(err)
			}
			select {
			case <-rc.done:
			case <-time.After(60 * time.Second):
				b.Fatalf("only %d of %d deliveries within 60 s", rc.n.Load(), events*hooks)
			}
			elapsed := time.Since(start)
			rate := float64(events*hooks) / elapsed.Seconds()
			b.ReportMetric(rate, "deliveries/s")
			b.Logf("%d deliveries in %v: %.0f/s", events*hooks, elapsed.Round(time.Millisecond), rate)
		}
	})
	b.Run("event-to-first-attempt", func(b *testing.B) {
		for range b.N {
			n := int(20 * loadSeconds().Seconds())
			s := testserver.Start(b, testserver.Options{})
			rc := newWebhookReceiver(b, n)
			r := s.Do(b, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": rc.URL, "events": []string{"creator.created"}})
			if r.Status != http.StatusCreated {
				b.Fatalf("create webhook: %d %s", r.Status, r.Body)
			}
			res := Rate(context.Background(), 20, loadSeconds(), 4, func(ctx context.Context) error {
				createCreators(b, s, 1, 1)
				return nil
			})
			select {
			case <-rc.done:
			case <-time.After(30 * time.Second):
				b.Fatalf("only %d of %d deliveries within 30 s", rc.n.Load(), n)
			}
			p50, p99, max := rc.percentile(0.50), rc.percentile(0.99), rc.percentile(1)
			b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
			b.Logf("%d events at 20/s (%d sent): event to first attempt p50 %v p99 %v max %v", n, res.Sent, p50, p99, max)
		}
	})
}
