package webhooks

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// MaxURLLength bounds endpoint URLs; anything longer is almost certainly a
// mistake or an attempt to smuggle data, and it has to fit in storage.
const MaxURLLength = 2048

// ErrInvalidURL is wrapped by ValidateURL errors so that the API can answer
// 400 without matching on text.
var ErrInvalidURL = errors.New("invalid webhook URL")

// insecureHint tells whoever reads a refusal how a development server
// accepts such a URL.
const insecureHint = "http:// and private or loopback addresses are accepted only by a server started with --allow-insecure-webhooks (CREATIVEOPS_ALLOW_INSECURE_WEBHOOKS=true), for development"

// ValidateURL checks an endpoint URL when a webhook is registered. With
// allowInsecure false it also refuses literal internal addresses and
// localhost, so customers get an immediate error instead of a webhook whose
// deliveries all fail; hostnames that merely resolve to internal addresses
// are caught later, at dial time, by the client from NewClient.
func ValidateURL(raw string, allowInsecure bool) error {
	if len(raw) > MaxURLLength {
		return fmt.Errorf("%w: longer than %d characters", ErrInvalidURL, MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allowInsecure {
			return fmt.Errorf("%w: scheme must be https; %s", ErrInvalidURL, insecureHint)
		}
	case "":
		return fmt.Errorf("%w: not an absolute URL", ErrInvalidURL)
	default:
		return fmt.Errorf("%w: scheme %q is not supported", ErrInvalidURL, u.Scheme)
	}
	if u.Opaque != "" {
		return fmt.Errorf("%w: not a hierarchical URL", ErrInvalidURL)
	}
	// Credentials in a URL end up in logs and dashboards; customers should
	// authenticate the signature instead.
	if u.User != nil {
		return fmt.Errorf("%w: must not contain user info", ErrInvalidURL)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%w: missing host", ErrInvalidURL)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%w: invalid port %q", ErrInvalidURL, p)
		}
	}
	if allowInsecure {
		return nil
	}

	if ip, err := netip.ParseAddr(host); err == nil {
		if err := strictGuardian.SafeAddr(ip.WithZone("")); err != nil {
			return fmt.Errorf("%w: %s is not a public address; %s", ErrInvalidURL, ip, insecureHint)
		}
		return nil
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	// RFC 6761 reserves localhost and everything under it for loopback.
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return fmt.Errorf("%w: %s is a loopback name; %s", ErrInvalidURL, host, insecureHint)
	}
	// Some resolvers (getaddrinfo via inet_aton) read "127.1", "2130706433"
	// or "0x7f.1" as IPv4 addresses; no real DNS name ends in a numeric
	// label, so refusing them closes that bypass of the literal-IP check.
	if numericLabel(name[strings.LastIndexByte(name, '.')+1:]) {
		return fmt.Errorf("%w: %s looks like a numeric address", ErrInvalidURL, host)
	}
	return nil
}

func numericLabel(l string) bool {
	digits := "0123456789"
	if h, ok := strings.CutPrefix(l, "0x"); ok {
		l, digits = h, "0123456789abcdef"
	} else if l == "" {
		return false
	}
	for _, c := range l {
		if !strings.ContainsRune(digits, c) {
			return false
		}
	}
	return true
}
