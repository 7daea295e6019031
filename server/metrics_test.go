package server_test

import (
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

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
