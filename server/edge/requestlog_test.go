package edge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/server/edge"
)

// syncBuffer collects log output written from the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// requestLines returns the request log lines, decoded.
func (b *syncBuffer) requestLines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", sc.Bytes())
		}
		if m["msg"] == "request" {
			out = append(out, m)
		}
	}
	return out
}

func startLogged(t *testing.T, mode string, slow time.Duration) (*testserver.Server, *syncBuffer) {
	buf := &syncBuffer{}
	s := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(buf, nil))
		c.LogRequests, c.LogSlow = mode, slow
	}})
	return s, buf
}

// countBy counts request lines by their HTTP status or gRPC code.
func countBy(lines []map[string]any) map[string]int {
	out := map[string]int{}
	for _, l := range lines {
		if st, ok := l["status"].(float64); ok {
			out[statusClass(int(st))]++
		} else {
			out[l["code"].(string)]++
		}
	}
	return out
}

func statusClass(status int) string { return "http " + string(rune('0'+status/100)) + "xx" }

func TestRequestLogModes(t *testing.T) {
	const ok, bad = 250, 7
	for _, tc := range []struct {
		mode     string
		slow     time.Duration
		wantOK   int
		wantFail int
	}{
		{edge.LogRequestsAll, time.Minute, ok, bad},
		// 1 in 100 of the successful requests: the 1st, 101st and 201st.
		{edge.LogRequestsSampled, time.Minute, 3, bad},
		{edge.LogRequestsErrors, time.Minute, 0, bad},
		// Every request is slow: all are logged whatever the mode.
		{edge.LogRequestsErrors, time.Nanosecond, ok, bad},
	} {
		t.Run(tc.mode+"/slow="+tc.slow.String(), func(t *testing.T) {
			s, buf := startLogged(t, tc.mode, tc.slow)
			for range ok {
				if r := s.Do(t, "GET", "/v1/creators", s.AdminKey, nil); r.Status != 200 {
					t.Fatalf("list: %d", r.Status)
				}
			}
			for range bad {
				if r := s.Do(t, "GET", "/v1/creators", "", nil); r.Status != 401 {
					t.Fatalf("without key: %d", r.Status)
				}
			}
			got := countBy(buf.requestLines(t))
			if got["http 2xx"] != tc.wantOK || got["http 4xx"] != tc.wantFail {
				t.Fatalf("logged %v, want %d successes and %d failures", got, tc.wantOK, tc.wantFail)
			}
		})
	}
}

// The line keeps its documented fields, and native gRPC calls follow the
// same policy (a failure is logged, a success is not in errors mode).
func TestRequestLogGRPC(t *testing.T) {
	s, buf := startLogged(t, edge.LogRequestsErrors, time.Minute)
	c := creativeopsv1.NewCreatorsServiceClient(s.Conn(t))
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+s.AdminKey)
	if _, err := c.ListCreators(ctx, &creativeopsv1.ListCreatorsRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetCreator(ctx, &creativeopsv1.GetCreatorRequest{Id: "cr_missing"}); err == nil {
		t.Fatal("GetCreator of a missing id succeeded")
	}
	lines := buf.requestLines(t)
	if len(lines) != 1 {
		t.Fatalf("%d request lines, want 1: %v", len(lines), lines)
	}
	l := lines[0]
	for _, f := range []string{"time", "level", "transport", "request_id", "method", "route", "code", "latency_ms", "key_id"} {
		if _, ok := l[f]; !ok {
			t.Errorf("log line lacks %q: %v", f, l)
		}
	}
	if l["code"] != "NotFound" || l["route"] != "/v1/creators/{id}" || l["level"] != "INFO" {
		t.Errorf("log line: %v", l)
	}
}

// A client flooding bad requests adds at most the client-error budget to
// the log (unauthenticated requests share one), while another
// organization's failures are still logged, and the lines keep count of
// what was left out.
func TestRequestLogBoundsClientErrors(t *testing.T) {
	s, buf := startLogged(t, edge.LogRequestsSampled, time.Minute)
	const flood = 3 * edge.ErrorLineBurst
	start := time.Now()
	for range flood {
		if r := s.Do(t, "GET", "/v1/creators", "", nil); r.Status != 401 {
			t.Fatalf("without key: %d", r.Status)
		}
	}
	elapsed := time.Since(start)
	if r := s.Do(t, "GET", "/v1/creators/cr_missing", s.AdminKey, nil); r.Status != 404 {
		t.Fatalf("missing creator: %d", r.Status)
	}
	lines := buf.requestLines(t)
	var anonymous, unlogged int
	var missing bool
	for _, l := range lines {
		if l["status"] == float64(401) {
			anonymous++
			if n, ok := l["unlogged_client_errors"].(float64); ok {
				unlogged += int(n)
			}
		}
		if l["status"] == float64(404) {
			missing = true
		}
	}
	most := edge.ErrorLineBurst + int(elapsed.Seconds()*edge.ErrorLinesPerSecond) + 1
	if anonymous < edge.ErrorLineBurst || anonymous > most {
		t.Fatalf("%d of %d unauthenticated failures logged in %v, want %d to %d", anonymous, flood, elapsed, edge.ErrorLineBurst, most)
	}
	if anonymous+unlogged > flood || (anonymous > edge.ErrorLineBurst && unlogged == 0) {
		t.Fatalf("%d logged and %d reported unlogged of %d", anonymous, unlogged, flood)
	}
	if !missing {
		t.Fatal("another organization's failure was not logged during the flood")
	}
}
