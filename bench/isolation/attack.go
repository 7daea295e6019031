package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creativeops/creativeops/bench"
	"github.com/creativeops/creativeops/webhooks"
)

// attacker is organization A. It holds two keys, each with the default
// rate limit: one floods bad input and requests beyond the limit, the
// other subscribes webhooks and creates the events they carry.
type attacker struct {
	base      string
	floodKey  string
	eventsKey string
	http      *http.Client
	// receivers are A's slow and failing endpoints, each on its own host.
	receivers []string

	sent     atomic.Int64
	limit    int64
	outcomes outcomes
	seq      atomic.Int64
}

// outcomes counts A's answers per kind of request and status (0: no
// response).
type outcomes struct {
	mu sync.Mutex
	m  map[string]map[int]int
}

func (o *outcomes) add(kind string, status int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string]map[int]int{}
	}
	if o.m[kind] == nil {
		o.m[kind] = map[int]int{}
	}
	o.m[kind][status]++
}

func (o *outcomes) snapshot() map[string]map[int]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]map[int]int{}
	for k, v := range o.m {
		out[k] = map[int]int{}
		for s, n := range v {
			out[k][s] = n
		}
	}
	return out
}

// badRequest is one kind of input the service must refuse.
type badRequest struct {
	kind, method, path string
	body               []byte
}

// Kinds of A's requests, as the report names them.
const (
	kindSubscribe = "subscribe a webhook (up to the quota, then beyond)"
	kindEvent     = "create a creator (an event for each of A's webhooks)"
	kindValidRead = "valid read, beyond the rate limit"
)

func badRequests() []badRequest {
	creator := func(name string) []byte {
		return []byte(`{"name":"` + name + `","email":"x@example.com","vertical":"music"}`)
	}
	deep := `{"name":"Deep","email":"deep@example.com","vertical":"music","metadata":{"a":` +
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}`
	oversize := creator(strings.Repeat("x", 2<<20))
	return []badRequest{
		{"NUL byte in a field", "POST", "/v1/creators", creator(`Nova\u0000Reyes`)},
		{"invalid UTF-8", "POST", "/v1/creators", creator("Nova \xff\xfe Reyes")},
		{"JSON nested 5000 deep", "POST", "/v1/creators", []byte(deep)},
		{"huge number", "GET", "/v1/creators?page_size=99999999999999999999999", nil},
		{"huge number in a workflow context", "POST", "/v1/engine/run", []byte(`{"vertical":"music","workflow":"release-strategy","context":{"artist":"A","genre":"pop","release_date":"2030-01-04","budget":1e400}}`)},
		{"oversize body (2 MiB)", "POST", "/v1/creators", oversize},
		{"forged page token", "GET", "/v1/creators?page_token=Zm9yZ2VkLXRva2Vu", nil},
		{"malformed JSON", "POST", "/v1/creators", []byte(`{"name":"Nova","email":`)},
		{kindValidRead, "GET", "/v1/creators?page_size=1", nil},
	}
}

// do sends one request and counts its outcome under kind.
func (a *attacker) do(ctx context.Context, kind, key, method, path string, body []byte) (int, []byte) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		a.outcomes.add(kind, 0)
		return 0, nil
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			a.outcomes.add(kind, 0)
		}
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	_, _ = io.Copy(io.Discard, resp.Body)
	a.outcomes.add(kind, resp.StatusCode)
	return resp.StatusCode, b
}

// allowed spends one of A's request budget.
func (a *attacker) allowed() bool { return a.sent.Add(1) <= a.limit }

// subscribe registers webhooks to A's receivers, in turn, until the
// service refuses (the quota), and tries a few more past it.
func (a *attacker) subscribe(ctx context.Context) (created int) {
	refused := 0
	for i := 0; i < webhooks.MaxWebhooksPerOrganization+20 && refused < 5 && ctx.Err() == nil && a.allowed(); i++ {
		body, _ := json.Marshal(map[string]any{"url": a.receivers[i%len(a.receivers)], "events": []string{"*"}})
		st, _ := a.do(ctx, kindSubscribe, a.eventsKey, "POST", "/v1/webhooks", body)
		switch {
		case st == http.StatusCreated:
			created++
		case st == http.StatusTooManyRequests:
			time.Sleep(100 * time.Millisecond)
		default:
			refused++
		}
	}
	return created
}

// run floods for d: bad input and over-limit reads at floodRPS on one key,
// creators (events) at eventRPS on the other. Both are open loops, so a
// server that slows down is not spared: A keeps sending.
func (a *attacker) run(ctx context.Context, d time.Duration, floodRPS, eventRPS, floodClients, eventClients int) {
	reqs := badRequests()
	var wg sync.WaitGroup
	var next atomic.Int64
	wg.Add(2)
	go func() {
		defer wg.Done()
		bench.Rate(ctx, floodRPS, d, floodClients, func(ctx context.Context) error {
			if !a.allowed() {
				return nil
			}
			r := reqs[int(next.Add(1)-1)%len(reqs)]
			a.do(ctx, r.kind, a.floodKey, r.method, r.path, r.body)
			return nil
		})
	}()
	go func() {
		defer wg.Done()
		bench.Rate(ctx, eventRPS, d, eventClients, func(ctx context.Context) error {
			if !a.allowed() {
				return nil
			}
			n := a.seq.Add(1)
			body := fmt.Appendf(nil, `{"name":"Flood %d","email":"flood-%d@example.com","vertical":"music"}`, n, n)
			a.do(ctx, kindEvent, a.eventsKey, "POST", "/v1/creators", body)
			return nil
		})
	}()
	wg.Wait()
}

// kinds lists the kinds of request A made, in a stable order.
func kinds(m map[string]map[int]int) []string {
	order := []string{kindSubscribe, kindEvent}
	for _, r := range badRequests() {
		order = append(order, r.kind)
	}
	var out []string
	for _, k := range order {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	for k := range m {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
