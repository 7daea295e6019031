package webhooks

import (
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// Webhook URLs: every refusal wraps ErrInvalidURL (a 400, never a 500); a
// URL accepted for production is also accepted in development, is an
// absolute https URL with a host and no credentials, within the length
// limit, and does not name a loopback or other special-purpose address
// literally.
func FuzzValidateURL(f *testing.F) {
	for _, seed := range []string{
		"https://example.com/hooks", "https://example.com:8443/hooks?x=1", "https://93.184.216.34/hook",
		"https://[2606:2800:220:1:248:1893:25c8:1946]/hook", "http://example.com", "https://127.0.0.1:8443/x",
		"https://169.254.169.254/latest/meta-data", "https://[fe80::1%25eth0]", "https://[::ffff:127.0.0.1]",
		"https://LocalHost./", "https://2130706433", "https://0x7f.1", "https://user:pw@example.com",
		"https://example.com:0", "https://example.com:99999", "https:example.com", "ftp://example.com",
		"//example.com", "https://", "https://exa mple.com", "https://例え.jp/フック", "https://example。com",
		"https://example.com./", "https://[::1]:443", "https://%31%32%37.0.0.1", "https://\x00example.com",
		"https://" + strings.Repeat("a", MaxURLLength),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		strictErr := ValidateURL(raw, false)
		insecureErr := ValidateURL(raw, true)
		for _, err := range []error{strictErr, insecureErr} {
			if err != nil && !errors.Is(err, ErrInvalidURL) {
				t.Fatalf("%q: %v does not wrap ErrInvalidURL", raw, err)
			}
		}
		if strictErr != nil {
			return
		}
		if insecureErr != nil {
			t.Fatalf("%q accepted for production but not for development: %v", raw, insecureErr)
		}
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "https" || u.Hostname() == "" || u.User != nil || u.Opaque != "" || len(raw) > MaxURLLength {
			t.Fatalf("%q accepted: %+v %v", raw, u, err)
		}
		if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
			if ip := ip.Unmap().WithZone(""); ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() || ip.IsMulticast() {
				t.Fatalf("%q accepted with the special-purpose address %s", raw, ip)
			}
		}
		if name := strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")); name == "localhost" || strings.HasSuffix(name, ".localhost") {
			t.Fatalf("%q accepted with a loopback name", raw)
		}
	})
}
