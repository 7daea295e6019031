package webhooks

import (
	"errors"
	"strings"
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

// A refusal that the development flag would lift says so.
func TestValidateURLNamesTheInsecureFlag(t *testing.T) {
	for _, u := range []string{"http://example.com/hook", "https://127.0.0.1/hook", "https://localhost/hook"} {
		err := ValidateURL(u, false)
		if err == nil || !strings.Contains(err.Error(), "--allow-insecure-webhooks") {
			t.Errorf("%s: %v; want a mention of --allow-insecure-webhooks", u, err)
		}
	}
}
