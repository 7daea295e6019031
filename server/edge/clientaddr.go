package edge

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// Client addresses. Every rule that counts or records where a request
// came from (the per-address limits of sign-in, the token endpoint and
// anonymous request bodies; the audit log's client_ip; the request log)
// takes the address from Proxies, and nowhere else.
//
// The address is the TCP peer's, unless the peer is one of
// --trusted-proxies: then the proxy's word is taken, from the one header
// --client-ip-header says the proxies write: X-Forwarded-For (the default:
// nginx, HAProxy, Envoy and the cloud load balancers write it) or
// Forwarded (RFC 7239). The other header is not read at all: a proxy
// passes on what the client sent beside what it writes, so behind a proxy
// that writes only Forwarded, an X-Forwarded-For believed over it (as it
// once was) was the client naming its own address. A proxy appends the
// address it received the request from to what the request already
// carried, so the list is read from the right: past every trusted proxy,
// the first address is the client's. Anything to its left was written by
// the client and is not believed. A request straight from an untrusted
// peer is judged by that peer, whatever its headers say.

// ParseTrustedProxies reads --trusted-proxies: CIDR prefixes or single
// addresses, comma-separated.
func ParseTrustedProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is neither a CIDR prefix (10.0.0.0/8, fd00::/8) nor an address", s)
		}
		a = a.Unmap().WithZone("")
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// The values of --client-ip-header.
const (
	HeaderXForwardedFor = "x-forwarded-for"
	HeaderForwarded     = "forwarded"
)

// CheckClientIPHeader reads --client-ip-header: x-forwarded-for or
// forwarded, in any case; empty is x-forwarded-for.
func CheckClientIPHeader(name string) (string, error) {
	switch n := strings.ToLower(strings.TrimSpace(name)); n {
	case "", HeaderXForwardedFor:
		return HeaderXForwardedFor, nil
	case HeaderForwarded:
		return n, nil
	}
	return "", fmt.Errorf("%q: want %s or %s, the header the trusted proxies write", name, HeaderXForwardedFor, HeaderForwarded)
}

// Proxies are the peers whose forwarding header is believed, and which
// header that is.
type Proxies struct {
	prefixes []netip.Prefix
	// forwarded: the proxies write Forwarded, not X-Forwarded-For.
	forwarded bool
}

// NewProxies are the proxies of --trusted-proxies (see
// ParseTrustedProxies), writing the header of --client-ip-header (see
// CheckClientIPHeader).
func NewProxies(trusted []string, header string) (Proxies, error) {
	prefixes, err := ParseTrustedProxies(trusted)
	if err != nil {
		return Proxies{}, err
	}
	h, err := CheckClientIPHeader(header)
	if err != nil {
		return Proxies{}, err
	}
	return Proxies{prefixes: prefixes, forwarded: h == HeaderForwarded}, nil
}

func (ps Proxies) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Client is the address of the client of a request from peer ("host:port"
// or a bare address) whose header values of a name are header(name).
func (ps Proxies) Client(peerAddr string, header func(name string) []string) netip.Addr {
	p, ok := parseNode(peerAddr)
	if !ok || len(ps.prefixes) == 0 || !ps.trusted(p) {
		return p
	}
	forwarded := ps.forwarded
	var hops []string
	if forwarded {
		hops = header("Forwarded")
	} else {
		hops = header("X-Forwarded-For")
	}
	client := p
	// Header lines in the order received, each a list: read them all
	// from the right.
	for i := len(hops) - 1; i >= 0; i-- {
		line := hops[i]
		for line != "" {
			elem := line
			if j := strings.LastIndexByte(line, ','); j >= 0 {
				elem, line = line[j+1:], line[:j]
			} else {
				line = ""
			}
			if forwarded {
				elem = forwardedFor(elem)
			}
			a, ok := parseNode(elem)
			if !ok {
				// "unknown", an obfuscated node (RFC 7239 section 6.3) or
				// garbage: the client is not known beyond the last
				// trusted hop, which stands for it.
				return client
			}
			client = a
			if !ps.trusted(a) {
				return a
			}
		}
	}
	return client
}

// forwardedFor is the for= value of one Forwarded element (pairs
// separated by ";"), "" when it has none.
func forwardedFor(elem string) string {
	for pair := range strings.SplitSeq(elem, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(pair), "=")
		if strings.EqualFold(k, "for") {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// parseNode reads an address as peers and proxies write it: "a.b.c.d",
// "a.b.c.d:port", an IPv6 address, bracketed or not, with or without a
// port.
func parseNode(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

// limitKey is what per-address limits count a client by: its IPv4
// address, or its IPv6 /64, the smallest network a host is commonly
// given (one host has all 2^64 addresses of its /64 to send from).
func limitKey(a netip.Addr) string {
	switch {
	case !a.IsValid():
		return "unknown"
	case a.Is6():
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}

// Request is the address of an HTTP request's client.
func (ps Proxies) Request(r *http.Request) netip.Addr {
	return ps.Client(r.RemoteAddr, r.Header.Values)
}

// RequestLimitKey is the key of per-address limits for an HTTP request.
func (ps Proxies) RequestLimitKey(r *http.Request) string { return limitKey(ps.Request(r)) }

// Call is the address of the client of a gRPC call (native, or Connect
// and gRPC-Web through the transcoder, whose headers arrive as metadata).
func (ps Proxies) Call(ctx context.Context) netip.Addr {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return netip.Addr{}
	}
	return ps.Client(p.Addr.String(), func(name string) []string {
		// Not FromIncomingContext, which copies every header.
		return metadata.ValueFromIncomingContext(ctx, strings.ToLower(name))
	})
}

// AddrString is an address for the logs: "" when unknown.
func AddrString(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}
