package oauth

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
)

const webhooksPrefix = "invalid webhook URL"

// A JWKS URL is refused at registration, naming jwks_uri, when it points
// inside the network, as a webhook URL is: the fetch's dial-time guard
// would refuse it anyway, and the client would be registered unusable.
func TestJWKSURIRefusesInternalAddresses(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	create := func(uri string) error {
		_, _, err := f.svc.CreateClient(ctx, NewClientParams{OrganizationID: f.orgID, Name: "pkjwt",
			Scopes: []string{auth.ScopeCreatorsRead}, JWKSURI: uri})
		return err
	}
	for _, uri := range []string{
		"https://127.1/jwks.json",
		"https://127.0.0.1/jwks.json",
		"https://[::1]/jwks.json",
		"https://2130706433/jwks.json",
		"https://0x7f000001/jwks.json",
		"https://localhost/jwks.json",
		"https://LOCALHOST./jwks.json",
		"https://keys.localhost/jwks.json",
		"https://10.0.0.8/jwks.json",
		"https://192.168.1.1/jwks.json",
		"https://[fd00::1]/jwks.json",
		"https://[::ffff:127.0.0.1]/jwks.json",
		"https://169.254.169.254/latest/meta-data",
		"https://metadata.google.internal/jwks.json",
		"http://keys.example.com/jwks.json",
		"https://user:pw@keys.example.com/jwks.json",
		"ftp://keys.example.com/jwks.json",
		"https://keys.example.com/jwks.json#k1",
		"/jwks.json",
	} {
		err := create(uri)
		var ae *apierror.Error
		if !errors.As(err, &ae) || len(ae.Violations) != 1 || ae.Violations[0].Field != "jwks_uri" {
			t.Errorf("%s: %v, want a refusal naming jwks_uri", uri, err)
			continue
		}
		if strings.Contains(ae.Violations[0].Description, webhooksPrefix) {
			t.Errorf("%s: the reason calls it a webhook URL: %q", uri, ae.Violations[0].Description)
		}
	}
	if err := create("https://keys.example.com/.well-known/jwks.json"); err != nil {
		t.Fatalf("a public https JWKS URL: %v", err)
	}

	// In development (--allow-insecure-webhooks) http and private networks
	// are accepted; cloud metadata never is.
	f.svc.cfg.AllowInsecureJWKS = true
	if err := create("http://127.0.0.1:8081/jwks.json"); err != nil {
		t.Fatalf("development mode, loopback: %v", err)
	}
	var ae *apierror.Error
	if err := create("http://169.254.169.254/jwks.json"); !errors.As(err, &ae) || ae.Violations[0].Field != "jwks_uri" {
		t.Fatalf("development mode, metadata address: %v", err)
	}
}
