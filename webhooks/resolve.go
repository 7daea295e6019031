package webhooks

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"
)

// resolveTimeout bounds the lookup made when a webhook is registered; a
// slow resolver must not hold up the API call.
const resolveTimeout = 2 * time.Second

// Resolver looks names up, as *net.Resolver does.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckResolved resolves the host of an endpoint URL that passed
// ValidateURL and refuses it when any of its addresses is not public, so
// that a name pointing inside the network (an internal DNS name, a
// "127.0.0.1.example" wildcard service, an /etc/hosts entry) is refused when
// it is registered rather than failing every delivery later. A lookup that
// fails or times out is not an error: the name may simply not be published
// yet, and the dial-time check of NewClient's client still guards every
// delivery. A nil resolver means net.DefaultResolver.
func CheckResolved(ctx context.Context, raw string, r Resolver) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	// Resolve the name the dialer will: in its ASCII lookup form.
	host, err := normalizeHost(u.Hostname())
	if err != nil {
		return err
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil // literal addresses are ValidateURL's job
	}
	if r == nil {
		r = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if err := strictGuardian.SafeAddr(a.Unmap().WithZone("")); err != nil {
			return fmt.Errorf("%w: %s resolves to %s, which is not a public address", ErrInvalidURL, host, a)
		}
	}
	return nil
}
