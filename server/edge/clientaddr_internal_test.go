package edge

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestClientAddress(t *testing.T) {
	trusted := []string{"10.0.0.0/8", "192.0.2.10", "fd00::/8"}
	xff, err := NewProxies(trusted, "")
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := NewProxies(trusted, "Forwarded")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		peer   string
		header http.Header
		want   string
	}{
		{"untrusted peer, no header", "203.0.113.5:4000", nil, "203.0.113.5"},
		{"untrusted peer spoofing X-Forwarded-For", "203.0.113.5:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "203.0.113.5"},
		{"untrusted peer spoofing Forwarded", "203.0.113.5:4000", http.Header{"Forwarded": {"for=198.51.100.1"}}, "203.0.113.5"},
		{"trusted peer, no header", "10.1.2.3:4000", nil, "10.1.2.3"},
		{"trusted peer", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"single trusted address", "192.0.2.10:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"a neighbour of the trusted address", "192.0.2.11:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "192.0.2.11"},
		// The client wrote the left entries; the proxy appended the
		// address it saw: the right-most untrusted one is believed.
		{"client-written entries are skipped", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"1.1.1.1, 8.8.8.8, 198.51.100.1"}}, "198.51.100.1"},
		{"chain of trusted proxies", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"1.1.1.1, 198.51.100.1, 10.9.9.9"}}, "198.51.100.1"},
		{"several header lines", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"1.1.1.1", "198.51.100.1, 10.9.9.9"}}, "198.51.100.1"},
		{"client spoofs a trusted address", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"10.0.0.1, 198.51.100.1"}}, "198.51.100.1"},
		{"all trusted", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"10.7.7.7, 10.8.8.8"}}, "10.7.7.7"},
		{"unknown node stops at the proxy", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"198.51.100.1, unknown"}}, "10.1.2.3"},
		{"garbage stops at the last trusted hop", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"198.51.100.1, <script>, 10.9.9.9"}}, "10.9.9.9"},
		{"with a port", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"198.51.100.1:5555"}}, "198.51.100.1"},
		{"IPv6 client", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"2001:db8::7"}}, "2001:db8::7"},
		{"IPv4-mapped", "[::ffff:10.1.2.3]:4000", http.Header{"X-Forwarded-For": {"::ffff:198.51.100.1"}}, "198.51.100.1"},
		{"IPv6 proxy", "[fd00::5]:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"Forwarded", "10.1.2.3:4000", http.Header{"Forwarded": {`for=1.1.1.1, for=198.51.100.1;proto=https;by=10.1.2.3`}}, "198.51.100.1"},
		{"Forwarded, IPv6 and port", "10.1.2.3:4000", http.Header{"Forwarded": {`for="[2001:db8:cafe::17]:4711"`}}, "2001:db8:cafe::17"},
		{"Forwarded, case and spaces", "10.1.2.3:4000", http.Header{"Forwarded": {`proto=https; For="198.51.100.1"`}}, "198.51.100.1"},
		{"Forwarded, obfuscated", "10.1.2.3:4000", http.Header{"Forwarded": {`for=_hidden`}}, "10.1.2.3"},
		// Only the header the proxies write is read: what the client sent
		// in the other one, passed on by the proxy, is not believed.
		{"X-Forwarded-For proxies: a client's Forwarded", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}, "Forwarded": {"for=1.1.1.1"}}, "198.51.100.1"},
		{"X-Forwarded-For proxies: only a client's Forwarded", "10.1.2.3:4000", http.Header{"Forwarded": {"for=1.1.1.1"}}, "10.1.2.3"},
		{"Forwarded proxies: a client's X-Forwarded-For", "10.1.2.3:4000", http.Header{"Forwarded": {"for=198.51.100.1"}, "X-Forwarded-For": {"1.1.1.1"}}, "198.51.100.1"},
		{"Forwarded proxies: only a client's X-Forwarded-For", "10.1.2.3:4000", http.Header{"X-Forwarded-For": {"1.1.1.1"}}, "10.1.2.3"},
	} {
		h := c.header
		if h == nil {
			h = http.Header{}
		}
		ps := xff
		if strings.HasPrefix(c.name, "Forwarded") {
			ps = fwd
		}
		got := ps.Client(c.peer, h.Values)
		if got.String() != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	for _, bad := range []string{"x-real-ip", "both", "x-forwarded-for,forwarded"} {
		if _, err := NewProxies(trusted, bad); err == nil {
			t.Errorf("client IP header %q accepted", bad)
		}
	}
	// Without trusted proxies no header is read.
	if got := (Proxies{}).Client("10.1.2.3:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}.Values); got.String() != "10.1.2.3" {
		t.Fatalf("no trusted proxies: %s", got)
	}
}

func TestParseTrustedProxies(t *testing.T) {
	got, err := ParseTrustedProxies([]string{" 10.1.2.3/8", "::ffff:192.0.2.1", "2001:db8::/48", ""})
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("2001:db8::/48")}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.internal", "10.0.0.1-10.0.0.9"} {
		if _, err := ParseTrustedProxies([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Per-address limits count an IPv6 client by its /64: it can send from
// any of that network's addresses.
func TestLimitKeyGroupsIPv6By64(t *testing.T) {
	a, b := netip.MustParseAddr("2001:db8:1:2::1"), netip.MustParseAddr("2001:db8:1:2:ffff:ffff:ffff:ffff")
	other := netip.MustParseAddr("2001:db8:1:3::1")
	if limitKey(a) != limitKey(b) || limitKey(a) != "2001:db8:1:2::/64" {
		t.Fatalf("one /64: %q and %q", limitKey(a), limitKey(b))
	}
	if limitKey(a) == limitKey(other) {
		t.Fatal("two /64s share a key")
	}
	if v4 := netip.MustParseAddr("198.51.100.1"); limitKey(v4) != "198.51.100.1" || limitKey(netip.MustParseAddr("198.51.100.2")) == limitKey(v4) {
		t.Fatal("IPv4 addresses are not counted one by one")
	}
}
