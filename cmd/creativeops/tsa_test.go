package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/internal/testtsa"
	"github.com/creativeops/creativeops/server"
)

// Registrations are timestamped by independent RFC 3161 authorities (real
// ones: openssl ts -reply, each with a CA of its own the registry never
// sees). An authority that is down fails no registration: its timestamp
// stays pending and arrives once it answers again, with an
// ip.certificate.updated event. The certificate then verifies offline with
// `creativeops verify --tsa-ca` and each token with `openssl ts -verify`.
// With CREATIVEOPS_WRITE_FIXTURES=1 it writes the clients' fixtures.
func TestExternalTimestampAuthorities(t *testing.T) {
	a := testtsa.Start(t, testtsa.Options{Name: "Alpha TSA"})             // ESS v1, OpenSSL's default
	b := testtsa.Start(t, testtsa.Options{Name: "Beta TSA", ESSv2: true}) // down at first
	c := testtsa.Start(t, testtsa.Options{Name: "Gamma TSA"})             // down throughout
	never := testtsa.Start(t, testtsa.Options{Name: "Unrelated TSA"})     // only its CA is used
	// As real authorities do: RSA, through an intermediate CA.
	delta := testtsa.Start(t, testtsa.Options{Name: "Delta TSA", RSA: true, Intermediate: true})
	// The same, but its intermediate is not a CA: no verifier may accept it.
	notCA := testtsa.Start(t, testtsa.Options{Name: "Epsilon TSA", RSA: true, Intermediate: true, IntermediateNotCA: true})
	b.SetDown(true)
	c.SetDown(true)
	s := testserver.Start(t, testserver.Options{Configure: func(cfg *server.Config) {
		cfg.TimestampAuthorities = []string{a.URL, b.URL, c.URL}
	}})
	r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "T", "email": "t@example.com", "vertical": "music"})
	creator := r.JSON["id"].(string)
	work := []byte("a song timestamped by three authorities")
	sum := sha256.Sum256(work)
	r = s.Do(t, "POST", "/v1/ip/register", s.AdminKey, map[string]any{"creator_id": creator, "title": "Song", "type": "song", "content_hash": hex.EncodeToString(sum[:])})
	if r.Status != 201 {
		t.Fatalf("register with two authorities down: %d %s", r.Status, r.Body)
	}
	certID, recordID := r.JSON["certificate_id"].(string), r.JSON["id"].(string)

	statuses := func() ([]string, testserver.Response) {
		cert := s.Do(t, "GET", "/v1/ip/certificates/"+certID, s.AdminKey, nil)
		var out []string
		for _, e := range cert.JSON["external_timestamps"].([]any) {
			out = append(out, e.(map[string]any)["status"].(string))
		}
		return out, cert
	}
	waitFor := func(want string) testserver.Response {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			got, cert := statuses()
			if strings.Join(got, ",") == want {
				return cert
			}
			if time.Now().After(deadline) {
				t.Fatalf("external timestamps %v, want %s: %s", got, want, cert.Body)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	cert := waitFor("ok,pending,pending")
	ets := cert.JSON["external_timestamps"].([]any)
	if e := ets[1].(map[string]any); e["authority_url"] != b.URL || !strings.Contains(e["error"].(string), "503") {
		t.Fatalf("pending timestamp of the down authority: %v", e)
	}
	b.SetDown(false)
	cert = waitFor("ok,ok,pending")

	// Each arrival is an ip.certificate.updated event of the record.
	evs := s.Do(t, "GET", "/v1/events?type=ip.certificate.updated&object_id="+recordID, s.AdminKey, nil)
	if n := len(evs.JSON["events"].([]any)); n != 2 {
		t.Fatalf("%d ip.certificate.updated events, want 2: %s", n, evs.Body)
	}

	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bundle := write("bundle.json", cert.Body)
	verify := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(t.Context(), append([]string{"verify", "--bundle", bundle}, args...), &out, &errOut)
		t.Logf("creativeops verify %s:\n%s%s", strings.Join(args, " "), out.String(), errOut.String())
		return out.String(), err
	}
	out, err := verify("--tsa-ca", a.CAFile, "--tsa-ca", b.CAFile)
	if err != nil {
		t.Fatalf("verify --tsa-ca: %v", err)
	}
	for _, want := range []string{"ok    external_timestamp[1]", "ok    external_timestamp[2]", "skip  external_timestamp[3]", "pending"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q", want)
		}
	}
	// Unpinned: reported unchecked, never ok.
	out, err = verify()
	if err != nil || strings.Contains(out, "ok    external_timestamp") || !strings.Contains(out, "UNCHECKED") {
		t.Errorf("verify without --tsa-ca: %v", err)
	}
	// A CA that did not issue the token fails it.
	if out, err = verify("--tsa-ca", a.CAFile); err == nil || !strings.Contains(out, "FAIL  external_timestamp[2]") {
		t.Errorf("verify with only the first authority's CA: %v", err)
	}
	if out, err = verify("--tsa-ca", never.CAFile); err == nil || !strings.Contains(out, "FAIL  external_timestamp[1]") {
		t.Errorf("verify with an unrelated CA: %v", err)
	}
	if _, err = verify("--tsa-ca", bundle); err == nil {
		t.Error("verify with a --tsa-ca file holding no certificate passed")
	}

	// openssl ts -verify accepts each token with its authority's CA, and
	// refuses it with another's.
	var bun struct {
		Record             []byte `json:"record"`
		ExternalTimestamps []struct {
			Token []byte `json:"token"`
		} `json:"external_timestamps"`
	}
	if err := json.Unmarshal(cert.Body, &bun); err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(bun.Record)
	for i, ca := range []string{a.CAFile, b.CAFile} {
		tsr := write("external.tsr", bun.ExternalTimestamps[i].Token)
		cmd := exec.Command("openssl", "ts", "-verify", "-digest", hex.EncodeToString(digest[:]), "-in", tsr, "-CAfile", ca)
		if got, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(got), "Verification: OK") {
			t.Errorf("openssl ts -verify of token %d: %v\n%s", i+1, err, got)
		}
		other := []string{b.CAFile, a.CAFile}[i]
		cmd = exec.Command("openssl", "ts", "-verify", "-digest", hex.EncodeToString(digest[:]), "-in", tsr, "-CAfile", other)
		if got, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("openssl ts -verify of token %d with another authority's CA passed:\n%s", i+1, got)
		}
	}

	// An RSA token through an intermediate CA over the same record, in a
	// bundle of its own: openssl and creativeops verify accept it with the
	// authority's root alone, the intermediate coming from the token.
	rsaToken := delta.Stamp(t, digest[:])
	tsr := write("rsa.tsr", rsaToken)
	cmd := exec.Command("openssl", "ts", "-verify", "-digest", hex.EncodeToString(digest[:]), "-in", tsr, "-CAfile", delta.CAFile)
	if got, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(got), "Verification: OK") {
		t.Errorf("openssl ts -verify of the RSA token: %v\n%s", err, got)
	}
	notCAToken := notCA.Stamp(t, digest[:])
	cmd = exec.Command("openssl", "ts", "-verify", "-digest", hex.EncodeToString(digest[:]), "-in", write("notca.tsr", notCAToken), "-CAfile", notCA.CAFile)
	if got, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("openssl ts -verify of a token through an intermediate that is not a CA passed:\n%s", got)
	}
	var rsaBundle map[string]any
	if err := json.Unmarshal(cert.Body, &rsaBundle); err != nil {
		t.Fatal(err)
	}
	rsaBundle["external_timestamps"] = []map[string]any{{"authority_url": delta.URL, "status": "ok", "token": rsaToken, "attempts": 1}}
	rsaBody, err := json.MarshalIndent(rsaBundle, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	bundle = write("bundle-rsa.json", rsaBody)
	if out, err := verify("--tsa-ca", delta.CAFile); err != nil || !strings.Contains(out, "ok    external_timestamp[1]") {
		t.Errorf("verify of the RSA token through an intermediate: %v", err)
	}

	if os.Getenv("CREATIVEOPS_WRITE_FIXTURES") == "1" {
		for _, d := range []string{"../../clients/typescript/test/fixtures/external", "../../clients/python/tests/fixtures/external"} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, data := range map[string][]byte{"bundle.json": cert.Body, "tsa1-ca.pem": a.CAPEM, "tsa2-ca.pem": b.CAPEM, "tsa3-ca.pem": never.CAPEM,
				"bundle-rsa.json": rsaBody, "tsa4-ca.pem": delta.CAPEM, "rsa-notca.tsr": notCAToken, "tsa5-ca.pem": notCA.CAPEM} {
				if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Log("wrote the clients' fixtures")
	}
}

// serve refuses, at start, an authority it could not or should not ask.
func TestServeTimestampAuthorityFlag(t *testing.T) {
	cfg, _, err := serveConfig([]string{"--timestamp-authority", "https://tsa.example/tsr, http://127.0.0.1:3180"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://tsa.example/tsr", "http://127.0.0.1:3180"}; !slices.Equal(cfg.TimestampAuthorities, want) {
		t.Fatalf("authorities %q, want %q", cfg.TimestampAuthorities, want)
	}
	for bad, why := range map[string]string{
		"ftp://tsa.example/tsr":                           "http:// or https://",
		"tsa.example/tsr":                                 "http:// or https://",
		"https://user:secret@tsa.example/tsr":             "credentials",
		"https:///tsr":                                    "no host",
		"https://tsa.example/tsr,https://tsa.example/tsr": "listed twice",
	} {
		_, _, err := serveConfig([]string{"--timestamp-authority", bad}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "timestamp-authority") || !strings.Contains(err.Error(), why) {
			t.Errorf("--timestamp-authority %s: %v, want an error naming the flag and %q", bad, err, why)
		}
	}
}
