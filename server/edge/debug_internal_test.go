package edge

import (
	"bytes"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
)

// The profiler's command line shows no secret given as a flag.
func TestDebugCmdlineRedactsSecrets(t *testing.T) {
	args := []string{"/usr/bin/creativeops", "serve",
		"--database-url", "postgres://app:hunter2@db.internal:5432/creativeops?sslmode=require",
		"--redis-url=redis://:r3dis-pass@cache:6379/0",
		"--database-url=host=db user=app password=kv-secret dbname=co",
		"--client-secret", "cs-value", "-master-key=mk-value", "--api-token", "tok-value",
		"postgres://x:un%parsable@h/db", "--http-addr", ":8080", "--master-key-file", "/etc/co/master.key"}
	rec := httptest.NewRecorder()
	DebugHandler(args).ServeHTTP(rec, httptest.NewRequest("GET", "/debug/pprof/cmdline", nil))
	got := rec.Body.String()
	for _, secret := range []string{"hunter2", "r3dis-pass", "kv-secret", "cs-value", "mk-value", "tok-value", "un%parsable"} {
		if strings.Contains(got, secret) {
			t.Errorf("cmdline shows %q: %q", secret, got)
		}
	}
	// What is not secret stays readable, in pprof's format.
	want := strings.Join([]string{"/usr/bin/creativeops", "serve",
		"--database-url", "postgres://app:REDACTED@db.internal:5432/creativeops?sslmode=require",
		"--redis-url=redis://:REDACTED@cache:6379/0",
		"--database-url=host=db user=app password=REDACTED dbname=co",
		"--client-secret", "REDACTED", "-master-key=REDACTED", "--api-token", "REDACTED",
		"postgres://x:REDACTED@h/db", "--http-addr", ":8080", "--master-key-file", "/etc/co/master.key"}, "\x00")
	if got != want {
		t.Errorf("cmdline\n got %q\nwant %q", got, want)
	}
}

func TestDebugAddrWarnsBeyondLoopback(t *testing.T) {
	for _, c := range []struct {
		addr string
		warn bool
	}{{"127.0.0.1:6060", false}, {"[::1]:6060", false}, {"0.0.0.0:6060", true}, {"[::]:6060", true}, {"192.0.2.7:6060", true}} {
		var buf bytes.Buffer
		a, err := net.ResolveTCPAddr("tcp", c.addr)
		if err != nil {
			t.Fatal(err)
		}
		WarnPublicDebugAddr(slog.New(slog.NewTextHandler(&buf, nil)), a)
		if got := strings.Contains(buf.String(), "level=WARN") && strings.Contains(buf.String(), "--debug-addr"); got != c.warn {
			t.Errorf("%s: warned %v, want %v: %s", c.addr, got, c.warn, buf.String())
		}
	}
}
