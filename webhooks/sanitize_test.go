package webhooks

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// rawReceiver answers every request on a loopback TCP listener with the
// bytes given, which lets a test send what no HTTP server library would.
func rawReceiver(t *testing.T, response string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				_, _ = c.Write([]byte(response))
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/hook"
}

func storable(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// What a receiver sends is stored: its status line, its body and transport
// errors quoting its bytes must all be valid UTF-8 without NULs, and
// bounded, whatever it sends.
func TestDeliverSanitisesWhatTheReceiverSends(t *testing.T) {
	cases := map[string]string{
		"invalid UTF-8 status line": "HTTP/1.1 500 Bad\xff\xfe\x00Thing\r\nContent-Length: 4\r\nConnection: close\r\n\r\n\xff\x00ab",
		"long status line":          "HTTP/1.1 503 " + strings.Repeat("\xc3", 64<<10) + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		"malformed status":          "HTTP/1.1 5\xff0 x\r\n\r\n",
		"garbage":                   strings.Repeat("\xff\x00", 8<<10) + "\r\n\r\n",
	}
	for name, response := range cases {
		t.Run(name, func(t *testing.T) {
			url := rawReceiver(t, response)
			a := Deliver(context.Background(), NewClient(true, 5*time.Second), url, "s", testEvent(), time.Now())
			if a.Outcome != Retry || a.Err == "" {
				t.Fatalf("outcome %s err %q", a.Outcome, a.Err)
			}
			if !storable(a.Err) || !storable(a.ResponseBody) {
				t.Fatalf("not storable: err %q body %q", a.Err, a.ResponseBody)
			}
			if len(a.Err) > MaxErrorLength || len(a.ResponseBody) > MaxResponseBody {
				t.Fatalf("unbounded: err %d bytes, body %d bytes", len(a.Err), len(a.ResponseBody))
			}
		})
	}
}

func TestSanitizeBounded(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"ok", 10, "ok"},
		{"a\x00b", 10, "ab"},
		{"a\xffb", 10, "a\uFFFDb"},
		{"a\xffb", 3, "a"}, // U+FFFD is 3 bytes: kept whole or not at all
		{"éé", 3, "é"},
	} {
		if got := sanitizeBounded(c.in, c.max); got != c.want {
			t.Errorf("sanitizeBounded(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
