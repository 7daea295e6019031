package webhooks

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
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
	host, err := normalizeHost(u.Hostname())
	if err != nil {
		return err
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%w: invalid port %q", ErrInvalidURL, p)
		}
	}
	// Link-local addresses (169.254.0.0/16, fe80::/10: cloud metadata) and
	// metadata host names are refused in every mode, as the dialer refuses
	// them; --allow-insecure-webhooks only opens loopback and private
	// networks.
	g := strictGuardian
	if allowInsecure {
		g = insecureGuardian
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if metadataAddrs[ip.Unmap().WithZone("")] {
			return fmt.Errorf("%w: %s is a cloud metadata service", ErrInvalidURL, ip)
		}
		if err := g.SafeAddr(ip.WithZone("")); err != nil {
			return fmt.Errorf("%w: %s is not a public address; %s", ErrInvalidURL, ip, insecureHint)
		}
		return nil
	}
	if metadataHosts[host] {
		return fmt.Errorf("%w: %s is a cloud metadata service", ErrInvalidURL, host)
	}
	// Some resolvers (getaddrinfo via inet_aton) read "127.1", "2130706433"
	// or "0x7f.1" as IPv4 addresses; no real DNS name ends in a numeric
	// label, so refusing them closes that bypass of the literal-IP check.
	if numericLabel(host[strings.LastIndexByte(host, '.')+1:]) {
		return fmt.Errorf("%w: %s looks like a numeric address", ErrInvalidURL, host)
	}
	if allowInsecure {
		return nil
	}
	// RFC 6761 reserves localhost and everything under it for loopback.
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%w: %s is a loopback name; %s", ErrInvalidURL, host, insecureHint)
	}
	return nil
}

// metadataHosts are the names cloud metadata services answer on; their
// addresses are link-local (or, on some clouds, only reachable from the
// instance), and no webhook receiver lives there.
var metadataHosts = map[string]bool{
	"metadata":                   true,
	"metadata.google.internal":   true,
	"metadata.goog":              true,
	"instance-data":              true,
	"instance-data.ec2.internal": true,
}

// lookupProfile maps a host the way resolvers and browsers do (UTS #46):
// full-width and ideographic dots become ".", letters are lower-cased and
// Unicode labels become their xn-- form.
var lookupProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.StrictDomainName(false))

// normalizeHost returns the host the checks apply to: an IP literal as is,
// a name in its ASCII lookup form without trailing dots, so that
// "127。0。0。1", "LOCALHOST." and "localhost.." are judged as the
// addresses they resolve to.
func normalizeHost(host string) (string, error) {
	if host == "" {
		return "", fmt.Errorf("%w: missing host", ErrInvalidURL)
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return host, nil
	}
	ascii, err := lookupProfile.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("%w: host %q is not a valid domain name", ErrInvalidURL, host)
	}
	ascii = strings.TrimRight(ascii, ".")
	if ascii == "" || strings.Contains(ascii, "..") {
		return "", fmt.Errorf("%w: host %q is not a valid domain name", ErrInvalidURL, host)
	}
	return ascii, nil
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
