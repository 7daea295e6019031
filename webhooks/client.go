package webhooks

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// DefaultTimeout is the per-attempt limit used when NewClient is given none.
// It matches Svix's: long enough for a receiver that does its work inline,
// short enough that one slow customer cannot tie up delivery workers.
const DefaultTimeout = 15 * time.Second

// strictGuardian refuses every special-purpose address (private, loopback,
// link-local, unspecified, multicast, CGNAT, documentation, ...) on any
// port. Any port is allowed because customers legitimately run receivers
// on ports like 8443, and a port alone does not reach internal systems.
var strictGuardian = ssrf.New(ssrf.WithAnyPort())

// insecureGuardian is for local development and tests, where receivers run
// on loopback or a private network. Link-local stays refused even here:
// it holds cloud metadata endpoints and no development setup needs it.
var insecureGuardian = ssrf.New(
	ssrf.WithAnyPort(),
	ssrf.WithAllowedV4Prefixes(
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("100.64.0.0/10"),
	),
	ssrf.WithAllowedV6Prefixes(
		netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("fc00::/7"),
	),
)

// metadataAddrs are cloud metadata services outside link-local, refused in
// every mode: AWS's IPv6 endpoint (inside fc00::/7, which development mode
// allows), Alibaba's (inside CGNAT, likewise) and Azure's wire server (a
// public address reachable only from inside Azure).
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("fd00:ec2::254"):   true,
	netip.MustParseAddr("100.100.100.200"): true,
	netip.MustParseAddr("168.63.129.16"):   true,
}

var errMetadataAddr = errors.New("webhooks: refusing to connect to a cloud metadata address")

// guard is the dialer's Control hook: the metadata addresses, then g.
func guard(g *ssrf.Guardian) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, c syscall.RawConn) error {
		if ap, err := netip.ParseAddrPort(address); err == nil && metadataAddrs[ap.Addr().Unmap().WithZone("")] {
			return errMetadataAddr
		}
		return g.Safe(network, address, c)
	}
}

// NewClient returns the HTTP client deliveries must use. The SSRF check runs
// as the dialer's Control hook, after DNS resolution and for every address
// tried, so a hostname that resolves (or is rebound) to an internal address
// is refused even though it passed ValidateURL. allowInsecure lets loopback
// and private addresses through, for local development and tests only.
//
// The client is meant to be shared by all deliveries so connections to busy
// endpoints are reused.
func NewClient(allowInsecure bool, timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	g := strictGuardian
	if allowInsecure {
		g = insecureGuardian
	}
	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   guard(g),
	}
	transport := &http.Transport{
		// Never a proxy: the proxy would do the DNS resolution and dial,
		// bypassing the Control hook, and environment variables are not
		// configuration we want deliveries to depend on.
		Proxy:       nil,
		DialContext: dialer.DialContext,
		// A custom DialContext turns HTTP/2 off unless forced; receivers
		// that speak it handle many concurrent deliveries on one connection.
		ForceAttemptHTTP2: true,
		TLSClientConfig:   &tls.Config{MinVersion: tls.VersionTLS12},
		// Bursts of events to one customer are common, so keep enough idle
		// connections per host to avoid a TLS handshake per delivery.
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		ExpectContinueTimeout: time.Second,
		// We keep 1 KiB of the body; huge headers are only a way to make
		// us spend memory.
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		// A redirect target was never validated and could be internal; the
		// receiver must register the final URL instead.
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
