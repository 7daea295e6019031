package server_test

import (
	"context"
	"database/sql"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

// Metric labels come from closed sets: requests with methods and paths
// nobody declared add no series, however many distinct ones arrive.
func TestMetricsLabelsFromClosedSets(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	shapes := []func(method, word string) (string, string){
		func(m, w string) (string, string) { return m, "/v1/" + w },               // no such API route
		func(m, w string) (string, string) { return m, "/healthz" },               // a known path, an unknown method
		func(m, w string) (string, string) { return m, "/" + w + "/" + w },        // outside the API
		func(m, w string) (string, string) { return "GET", "/v1/creators/" + w },  // a route, unauthenticated
		func(m, w string) (string, string) { return "POST", "/v1/" + w + "/run" }, // a known method, no route
	}
	send := func(method, path string) {
		req, err := http.NewRequest(method, s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// One request of each shape creates the series they all share.
	for _, shape := range shapes {
		send(shape("FETCH", "warm"))
	}
	requestSeries(t, s) // the scrape counts itself
	before := requestSeries(t, s)
	for i := 0; i < 20; i++ {
		word := randomWord()
		send(shapes[i%len(shapes)](strings.ToUpper(randomWord()), word))
	}
	after := requestSeries(t, s)
	for series := range after {
		if !before[series] {
			t.Errorf("new series %s", series)
		}
	}
	for series := range after {
		if strings.Contains(series, "FETCH") || strings.Contains(series, "warm") {
			t.Errorf("a request's own method or path became a label: %s", series)
		}
	}
}

func randomWord() string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 8+rand.IntN(8))
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))]
	}
	return string(b)
}

// requestSeries is the set of creativeops_requests_total series /metrics
// shows, by their labels.
func requestSeries(t *testing.T, s *testserver.Server) map[string]bool {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	out := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		if labels, ok := strings.CutPrefix(line, "creativeops_requests_total{"); ok {
			out[labels[:strings.LastIndexByte(labels, '}')]] = true
		}
	}
	return out
}

// On PostgreSQL a request waiting for a pool connection waits in pgxpool,
// where database/sql's figures cannot see it: /metrics reports the pool's
// own, and a wait shows there.
func TestMetricsPoolWaits(t *testing.T) {
	s := testserver.Start(t, testserver.Options{DatabaseURL: testdb.PostgresURL(t), NoWorkers: true})
	pool := s.Store.Pool
	metric := func(text, name string) float64 {
		for _, line := range strings.Split(text, "\n") {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err == nil {
					return f
				}
			}
		}
		t.Fatalf("/metrics lacks %s", name)
		return 0
	}
	scrape := func() string {
		r := s.Do(t, "GET", "/metrics", "", nil)
		return string(r.Body)
	}
	before := scrape()
	if got := metric(before, `creativeops_db_pool_max_connections{pool="main"}`); got != float64(pool.Config().MaxConns) {
		t.Fatalf("max connections %v, want %d", got, pool.Config().MaxConns)
	}
	// Hold every connection the server's database/sql pool can get (its
	// idle ones, then all pgxpool will open), send a request, and let go
	// once it has had time to ask for a connection: it waited in pgxpool.
	// A wait is counted when it ends, so a request that had not reached
	// the pool yet (a slow machine) is tried again, given longer.
	waits := pool.Stat().EmptyAcquireCount()
	for _, pause := range []time.Duration{200 * time.Millisecond, time.Second, 5 * time.Second} {
		var held []*sql.Conn
		for {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			c, err := s.Store.DB.Conn(ctx)
			cancel()
			if err != nil {
				break
			}
			held = append(held, c)
		}
		waits = pool.Stat().EmptyAcquireCount()
		done := make(chan int)
		go func() {
			req, _ := http.NewRequest("GET", s.URL+"/v1/creators", nil)
			req.Header.Set("Authorization", "Bearer "+s.AdminKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- 0
				return
			}
			resp.Body.Close()
			done <- resp.StatusCode
		}()
		time.Sleep(pause)
		for _, c := range held {
			c.Close()
		}
		if code := <-done; code != 200 {
			t.Fatalf("the request: %d", code)
		}
		if pool.Stat().EmptyAcquireCount() > waits {
			break
		}
	}
	if pool.Stat().EmptyAcquireCount() == waits {
		t.Fatal("no request waited for a connection")
	}
	after := scrape()
	if got := metric(after, `creativeops_db_pool_acquire_waits_total{pool="main"}`); got < float64(waits+1) {
		t.Errorf("acquire waits %v, want at least %v", got, waits+1)
	}
	if got := metric(after, `creativeops_db_pool_acquire_wait_seconds_total{pool="main"}`); got <= 0 {
		t.Errorf("acquire wait seconds %v, want > 0", got)
	}
	for _, state := range []string{"acquired", "idle", "constructing"} {
		metric(after, `creativeops_db_pool_connections{pool="main",state="`+state+`"}`)
	}
	metric(after, `creativeops_db_pool_acquires_total{pool="background"}`)
}

// A request refused before its body is read (no key, past its limit) is
// counted under its route, like one the interceptors refuse.
func TestMetricsNameRefusedRequestsByRoute(t *testing.T) {
	s := testserver.Start(t, testserver.Options{NoWorkers: true})
	if r := s.Do(t, "GET", "/v1/creators/cr_1", "", nil); r.Status != 401 {
		t.Fatalf("no key: %d", r.Status)
	}
	if r := s.Do(t, "POST", "/v1/creators", "", `{"name": `); r.Status != 401 {
		t.Fatalf("no key, with a body: %d", r.Status)
	}
	text := string(s.Do(t, "GET", "/metrics", "", nil).Body)
	for _, want := range []string{
		`creativeops_requests_total{code="401",method="GET",route="/v1/creators/{id}",transport="rest"} 1`,
		`creativeops_requests_total{code="401",method="POST",route="/v1/creators",transport="rest"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
