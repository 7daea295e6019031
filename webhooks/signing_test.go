package webhooks

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// verify checks headers+body with the reference Standard Webhooks library,
// not with our own code, so a shared misunderstanding cannot pass.
func verify(t *testing.T, wh *standardwebhooks.Webhook, body []byte, h http.Header) error {
	t.Helper()
	return wh.Verify(body, h)
}

func TestSignaturesVerifyWithStandardWebhooksLibrary(t *testing.T) {
	const rawSecret = "my-own-secret-with-ünïcode"
	whsec := GenerateSecret()

	whsecVerifier, err := standardwebhooks.NewWebhook(whsec)
	if err != nil {
		t.Fatal(err)
	}
	rawVerifier, err := standardwebhooks.NewWebhookRaw([]byte(rawSecret))
	if err != nil {
		t.Fatal(err)
	}
	otherVerifier, err := standardwebhooks.NewWebhook(GenerateSecret())
	if err != nil {
		t.Fatal(err)
	}

	body := []byte(`{"id":"evt_1","type":"webhook.test","timestamp":"2026-01-02T03:04:05.000Z","data":{"a":1}}`)
	tampered := []byte(`{"id":"evt_1","type":"webhook.test","timestamp":"2026-01-02T03:04:05.000Z","data":{"a":2}}`)

	tests := []struct {
		name     string
		secret   string
		verifier *standardwebhooks.Webhook
		body     []byte
		ts       time.Time
		wantOK   bool
	}{
		{"whsec secret", whsec, whsecVerifier, body, time.Now(), true},
		{"raw secret", rawSecret, rawVerifier, body, time.Now(), true},
		{"whsec tampered body", whsec, whsecVerifier, tampered, time.Now(), false},
		{"raw tampered body", rawSecret, rawVerifier, tampered, time.Now(), false},
		{"wrong secret", whsec, otherVerifier, body, time.Now(), false},
		{"raw secret misread as whsec", rawSecret, whsecVerifier, body, time.Now(), false},
		{"stale timestamp", whsec, whsecVerifier, body, time.Now().Add(-time.Hour), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Headers(tt.secret, "evt_1", tt.ts, body)
			if err != nil {
				t.Fatal(err)
			}
			err = verify(t, tt.verifier, tt.body, h)
			if tt.wantOK && err != nil {
				t.Fatalf("verification failed: %v", err)
			}
			if !tt.wantOK && err == nil {
				t.Fatal("verification succeeded, want failure")
			}
		})
	}
}

// The vector the Standard Webhooks and Svix libraries are tested with.
func TestSignKnownVector(t *testing.T) {
	got, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	const want = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	if got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

func TestHeaders(t *testing.T) {
	ts := time.Unix(1700000000, 999_000_000)
	h, err := Headers("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "evt_X", ts, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"webhook-id":        "evt_X",
		"webhook-timestamp": "1700000000",
		"content-type":      "application/json",
		"user-agent":        "creativeops-webhooks/1",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if sig := h.Get("webhook-signature"); !strings.HasPrefix(sig, "v1,") {
		t.Errorf("webhook-signature = %q, want v1,...", sig)
	}
	if _, err := Headers("s", "", ts, nil); err == nil {
		t.Error("empty message id accepted")
	}
	if _, err := Headers("", "evt_X", ts, nil); !errors.Is(err, ErrInvalidSecret) {
		t.Errorf("empty secret: err = %v, want ErrInvalidSecret", err)
	}
}

func TestGenerateSecret(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		s := GenerateSecret()
		enc, ok := strings.CutPrefix(s, "whsec_")
		if !ok {
			t.Fatalf("%q lacks whsec_ prefix", s)
		}
		key, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if len(key) < 24 || len(key) > 32 {
			t.Fatalf("%q: key is %d bytes, want 24..32", s, len(key))
		}
		if seen[s] {
			t.Fatalf("duplicate secret %q", s)
		}
		seen[s] = true
	}
}

func TestKeyBytes(t *testing.T) {
	tests := []struct {
		secret  string
		want    []byte
		wantErr bool
	}{
		{secret: "whsec_AQID", want: []byte{1, 2, 3}},
		{secret: "plain secret", want: []byte("plain secret")},
		{secret: "AQID", want: []byte("AQID")}, // no prefix: raw, never decoded
		{secret: "", wantErr: true},
		{secret: "whsec_", wantErr: true},
		{secret: "whsec_not base64!", wantErr: true},
		{secret: "whsec_AQI", wantErr: true}, // missing padding
	}
	for _, tt := range tests {
		got, err := KeyBytes(tt.secret)
		if tt.wantErr {
			if !errors.Is(err, ErrInvalidSecret) {
				t.Errorf("KeyBytes(%q) err = %v, want ErrInvalidSecret", tt.secret, err)
			}
			continue
		}
		if err != nil || string(got) != string(tt.want) {
			t.Errorf("KeyBytes(%q) = %v, %v; want %v", tt.secret, got, err, tt.want)
		}
	}
}
