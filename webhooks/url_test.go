package webhooks

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

func TestValidateURL(t *testing.T) {
	tests := []struct {
		url           string
		allowInsecure bool
		wantErr       bool
	}{
		{"https://example.com/hooks", false, false},
		{"https://example.com:8443/hooks?x=1", false, false},
		{"https://93.184.216.34/hook", false, false},
		{"https://[2606:2800:220:1:248:1893:25c8:1946]/hook", false, false},
		{"https://api.1password.com/hook", false, false},

		{"http://example.com", false, true},
		{"https://127.0.0.1", false, true},
		{"https://127.0.0.1:8443/x", false, true},
		{"https://10.0.0.1", false, true},
		{"https://172.16.5.4", false, true},
		{"https://192.168.1.1", false, true},
		{"https://169.254.169.254/latest/meta-data", false, true},
		{"https://0.0.0.0", false, true},
		{"https://224.0.0.1", false, true},
		{"https://[::1]", false, true},
		{"https://[::]", false, true},
		{"https://[fe80::1%25eth0]", false, true},
		{"https://[fc00::1]", false, true},
		{"https://[ff02::1]", false, true},
		{"https://[::ffff:127.0.0.1]", false, true},
		{"https://localhost", false, true},
		{"https://LocalHost./", false, true},
		{"https://api.localhost", false, true},
		{"https://2130706433", false, true},
		{"https://127.1", false, true},
		{"https://0x7f.1", false, true},
		{"ftp://example.com", false, true},
		{"example.com/hook", false, true},
		{"//example.com/hook", false, true},
		{"https://", false, true},
		{"https:///path", false, true},
		{"https:example.com", false, true},
		{"https://user:pass@example.com", false, true},
		{"https://user@example.com", false, true},
		{"https://example.com:0", false, true},
		{"https://example.com:70000", false, true},
		{"https://exa mple.com", false, true},
		{"", false, true},
		{"https://example.com/" + strings.Repeat("a", MaxURLLength), false, true},

		// Local development: loopback, private and http are fine, but the
		// URL must still be well formed.
		{"http://127.0.0.1:8080/hook", true, false},
		{"http://localhost:8080/hook", true, false},
		{"https://10.0.0.1", true, false},
		{"http://[::1]:9000", true, false},
		{"http://user:pass@localhost", true, true},
		{"ftp://localhost", true, true},
		{"http://", true, true},

		// Hosts are judged as resolvers read them: Unicode dots, case and
		// trailing dots do not hide an address.
		{"https://127。0。0。1/hook", false, true},
		{"https://127．0．0．1/hook", false, true},
		{"https://169｡254｡169｡254/", false, true},
		{"https://localhost../", false, true},
		{"https://LOCALHOST。/", false, true},
		{"https://api.localhost./", false, true},
		{"https://10.0.0.1./", false, true},
		{"https://example..com/", false, true},
		{"https://.../", false, true},
		{"https://example.com./hook", false, false},
		{"https://bücher.example/hook", false, false},
		{"https://example。com/hook", false, false},

		// Link-local and metadata services stay refused in development.
		{"http://169.254.169.254/latest/meta-data", true, true},
		{"http://169.254.1.1:8080/", true, true},
		{"http://[fe80::1]/", true, true},
		{"http://[fe80::1%25eth0]/", true, true},
		{"http://169。254。169。254/", true, true},
		{"http://metadata.google.internal/computeMetadata/v1/", true, true},
		{"http://Metadata.Google.Internal./", true, true},
		{"http://metadata/", true, true},
		{"http://2852039166/", true, true},
		{"http://[fd00:ec2::254]/", true, true},
		{"http://100.100.100.200/", true, true},
		{"https://168.63.129.16/", false, true},
		{"http://localhost./hook", true, false},
	}
	for _, tt := range tests {
		err := ValidateURL(tt.url, tt.allowInsecure)
		if tt.wantErr != (err != nil) {
			t.Errorf("ValidateURL(%q, %v) = %v, wantErr %v", tt.url, tt.allowInsecure, err, tt.wantErr)
		}
		if err != nil && !errors.Is(err, ErrInvalidURL) {
			t.Errorf("ValidateURL(%q) = %v, not ErrInvalidURL", tt.url, err)
		}
	}
}

// The dialer refuses cloud metadata addresses that the development mode's
// allowed ranges would otherwise let through.
func TestDialGuardRefusesMetadataAddresses(t *testing.T) {
	for _, g := range []struct {
		name string
		c    func(network, address string, c syscall.RawConn) error
	}{{"strict", guard(strictGuardian)}, {"insecure", guard(insecureGuardian)}} {
		for _, addr := range []string{"[fd00:ec2::254]:80", "100.100.100.200:80", "168.63.129.16:443", "169.254.169.254:80", "[::ffff:100.100.100.200]:80"} {
			if err := g.c("tcp", addr, nil); err == nil {
				t.Errorf("%s guard dials %s", g.name, addr)
			}
		}
	}
	if err := guard(insecureGuardian)("tcp4", "127.0.0.1:8080", nil); err != nil {
		t.Errorf("insecure guard refuses loopback: %v", err)
	}
}

// A refusal that the development flag would lift says so.
func TestValidateURLNamesTheInsecureFlag(t *testing.T) {
	for _, u := range []string{"http://example.com/hook", "https://127.0.0.1/hook", "https://localhost/hook"} {
		err := ValidateURL(u, false)
		if err == nil || !strings.Contains(err.Error(), "--allow-insecure-webhooks") {
			t.Errorf("%s: %v; want a mention of --allow-insecure-webhooks", u, err)
		}
	}
}
