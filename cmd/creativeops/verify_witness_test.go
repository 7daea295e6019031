package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/internal/testwitness"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/server"
)

// testWitnessKey is a well-formed witness verifier key no witness holds.
const testWitnessKey = "witness.example/w1+7e136b5c+BAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f"

// A server with litewitness, the reference witness, as --witness: the
// certificates it issues carry the witness's cosignature, which
// creativeops verify --witness-key checks offline; GET /v1/ip/keys shows
// the witness and GET /metrics its failure counters.
func TestVerifyWitnessCosignatures(t *testing.T) {
	lw := testwitness.Start(t, "witness.test/verify")
	wt, err := ipreg.ParseWitness(lw.VerifierKey + "@" + lw.URL)
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.Witnesses = []ipreg.Witness{wt}
		c.WitnessPoll = 100 * time.Millisecond
	}})
	keys := s.Do(t, "GET", "/v1/ip/keys", s.AdminKey, nil).JSON
	logKey := keys["log_keys"].([]any)[0].(map[string]any)
	// What witnessctl add-log and add-key do, before the log has a tree.
	lw.AddLog(t, logKey["origin"].(string), logKey["verifier_key"].(string))

	r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "W", "email": "w@example.com", "vertical": "music"})
	creator := r.JSON["id"].(string)
	work := []byte("a witnessed song")
	sum := sha256.Sum256(work)
	r = s.Do(t, "POST", "/v1/ip/register", s.AdminKey, map[string]any{"creator_id": creator, "title": "Witnessed", "type": "song", "content_hash": hex.EncodeToString(sum[:])})
	if r.Status != 201 {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	var witness map[string]any
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		witness = s.Do(t, "GET", "/v1/ip/keys", s.AdminKey, nil).JSON["witnesses"].([]any)[0].(map[string]any)
		if witness["cosigned_size"] == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not cosigned: %v", witness)
		}
	}
	if witness["status"] != "ok" || witness["verifier_key"] != lw.VerifierKey || witness["name"] != lw.Name || witness["url"] != lw.URL {
		t.Fatalf("witness %v", witness)
	}
	cert := s.Do(t, "GET", "/v1/ip/certificates/"+r.JSON["certificate_id"].(string), s.AdminKey, nil)

	dir := t.TempDir()
	bundle := filepath.Join(dir, "bundle.json")
	if err := os.WriteFile(bundle, cert.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		args     []string
		wantOK   bool
		wantFail string
	}{
		{"cosigned", []string{"--witness-key", lw.VerifierKey, "--min-witnesses", "1"}, true, ""},
		{"every key given by default", []string{"--witness-key", lw.VerifierKey}, true, ""},
		{"one of two", []string{"--witness-key", lw.VerifierKey, "--witness-key", testWitnessKey, "--min-witnesses", "1"}, true, ""},
		{"two of two", []string{"--witness-key", lw.VerifierKey, "--witness-key", testWitnessKey}, false, "witness_cosignatures"},
		{"another witness", []string{"--witness-key", testWitnessKey, "--min-witnesses", "1"}, false, "witness_cosignatures"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(t.Context(), append([]string{"verify", "--bundle", bundle}, c.args...), &out, &errOut)
			t.Logf("creativeops verify %s:\n%s", strings.Join(c.args, " "), out.String())
			if c.wantOK {
				if err != nil || !strings.Contains(out.String(), "ok    witness_cosignatures") {
					t.Fatalf("verify: %v\n%s", err, out.String())
				}
				return
			}
			if err == nil || !strings.Contains(out.String(), "FAIL  "+c.wantFail) {
				t.Fatalf("verify passed or failed otherwise: %v\n%s", err, out.String())
			}
		})
	}
	for _, bad := range [][]string{
		{"--min-witnesses", "1"},
		{"--witness-key", lw.VerifierKey, "--min-witnesses", "2"},
		{"--witness-key", "not-a-key"},
		{"--witness-key", lw.VerifierKey, "--min-witnesses", "0"},
	} {
		var out, errOut bytes.Buffer
		if err := run(t.Context(), append([]string{"verify", "--bundle", bundle}, bad...), &out, &errOut); err == nil {
			t.Errorf("verify %v accepted", bad)
		}
	}

	metrics := s.Do(t, "GET", "/metrics", "", nil)
	want := `creativeops_ip_witness_failures_total{reason="fork",witness="witness.test/verify"} 0`
	if !strings.Contains(string(metrics.Body), want) {
		t.Fatalf("metrics lack %s", want)
	}
}
