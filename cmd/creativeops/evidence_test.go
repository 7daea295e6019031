package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/internal/testtsa"
	"github.com/creativeops/creativeops/internal/testwitness"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/server"
)

// Every piece of evidence at once, as an operator would run it: a server
// with an independent RFC 3161 authority (--timestamp-authority) and
// litewitness (--witness) registers works; each certificate then checks
// offline with everything pinned (the registry's root and log key, the
// authority's CA, the witness's key), its external token with openssl,
// and the public log with verify --monitor. (Forks refused by the witness
// and by the monitor: ipreg's TestWitnessLitewitness and
// TestVerifyMonitorFork.)
func TestCertificateEvidenceAgainstTheOperator(t *testing.T) {
	tsa := testtsa.Start(t, testtsa.Options{Name: "Independent TSA"})
	lw := testwitness.Start(t, "witness.test/evidence")
	wt, err := ipreg.ParseWitness(lw.VerifierKey + "@" + lw.URL)
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.TimestampAuthorities = []string{tsa.URL}
		c.Witnesses = []ipreg.Witness{wt}
		c.WitnessPoll = 100 * time.Millisecond
	}})
	keys := s.Do(t, "GET", "/v1/ip/keys", s.AdminKey, nil).JSON
	logKeys := keys["log_keys"].([]any)[0].(map[string]any)
	logKey, origin := logKeys["verifier_key"].(string), logKeys["origin"].(string)
	lw.AddLog(t, origin, logKey)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	root := write("root.pem", []byte(keys["tsa_root_pem"].(string)))

	creator := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "E", "email": "e@example.com", "vertical": "music"}).JSON["id"].(string)
	var certs []string
	for i := range 3 {
		sum := sha256.Sum256(fmt.Appendf(nil, "evidence work %d", i))
		r := s.Do(t, "POST", "/v1/ip/register", s.AdminKey, map[string]any{"creator_id": creator, "title": fmt.Sprint("Work ", i), "type": "song", "content_hash": hex.EncodeToString(sum[:])})
		if r.Status != 201 {
			t.Fatalf("register: %d %s", r.Status, r.Body)
		}
		certs = append(certs, r.JSON["certificate_id"].(string))
	}
	// The last certificate complete: its external token fetched and its
	// checkpoint cosigned by the witness.
	var cert testserver.Response
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		cert = s.Do(t, "GET", "/v1/ip/certificates/"+certs[2], s.AdminKey, nil)
		ets, _ := cert.JSON["external_timestamps"].([]any)
		if len(ets) == 1 && ets[0].(map[string]any)["status"] == "ok" && strings.Count(cert.JSON["checkpoint"].(string), "\n— ") == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("certificate not complete: %s", cert.Body)
		}
	}
	bundle := write("bundle.json", cert.Body)
	var out, errOut bytes.Buffer
	args := []string{"verify", "--bundle", bundle, "--root", root, "--log-key", logKey,
		"--tsa-ca", tsa.CAFile, "--witness-key", lw.VerifierKey, "--min-witnesses", "1"}
	if err := run(t.Context(), args, &out, &errOut); err != nil {
		t.Fatalf("verify: %v\n%s%s", err, out.String(), errOut.String())
	}
	for _, want := range []string{"ok    timestamp_token", "ok    log_inclusion", "ok    external_timestamp[1]", "ok    witness_cosignatures"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("verify output lacks %q:\n%s", want, out.String())
		}
	}

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
	tsr := write("external.tsr", bun.ExternalTimestamps[0].Token)
	if got, err := exec.Command("openssl", "ts", "-verify", "-digest", hex.EncodeToString(digest[:]), "-in", tsr, "-CAfile", tsa.CAFile).CombinedOutput(); err != nil || !strings.Contains(string(got), "Verification: OK") {
		t.Errorf("openssl ts -verify of the independent token: %v\n%s", err, got)
	}

	// The public log, without a key, from the empty start to the tree the
	// certificate's checkpoint signs.
	out.Reset()
	args = []string{"verify", "--monitor", s.URL + "/v1/ip/logs/" + ipreg.LogID(origin) + "/", "--log-key", logKey,
		"--checkpoint", filepath.Join(dir, "log.checkpoint"), "--once"}
	if err := run(t.Context(), args, &out, &errOut); err != nil || !strings.Contains(out.String(), "size 3, root") {
		t.Fatalf("verify --monitor: %v\n%s%s", err, out.String(), errOut.String())
	}
}
