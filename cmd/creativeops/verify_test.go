package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

func TestVerifyCommand(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "W", "email": "w@example.com", "vertical": "music"})
	creator := r.JSON["id"].(string)
	work := []byte("la la la, a song")
	sum := sha256.Sum256(work)
	r = s.Do(t, "POST", "/v1/ip/register", s.AdminKey, map[string]any{"creator_id": creator, "title": "Song", "type": "song", "content_hash": hex.EncodeToString(sum[:])})
	if r.Status != 201 {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	cert := s.Do(t, "GET", "/v1/ip/certificates/"+r.JSON["certificate_id"].(string), s.AdminKey, nil)
	keys := s.Do(t, "GET", "/v1/ip/keys", s.AdminKey, nil).JSON
	logKey := keys["log_keys"].([]any)[0].(map[string]any)["verifier_key"].(string)

	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bundle := write("bundle.json", cert.Body)
	workFile := write("song.txt", work)
	otherWork := write("other.txt", []byte("not the song"))
	root := write("root.pem", []byte(keys["tsa_root_pem"].(string)))
	tampered := write("tampered.json", []byte(strings.Replace(string(cert.Body), `"title":"Song"`, `"title":"Hit Song"`, 1)))

	cases := []struct {
		name     string
		args     []string
		wantOK   bool
		wantFail string
	}{
		{"bundle alone", []string{"--bundle", bundle}, true, ""},
		{"with the work", []string{"--bundle", bundle, "--file", workFile}, true, ""},
		{"pinned keys", []string{"--bundle", bundle, "--root", root, "--log-key", logKey}, true, ""},
		{"wrong work", []string{"--bundle", bundle, "--file", otherWork}, false, "work_hash"},
		{"tampered bundle", []string{"--bundle", tampered}, false, "record"},
		{"wrong pinned log key", []string{"--bundle", bundle, "--root", root, "--log-key", strings.Replace(logKey, "+", "-", 1) + "x"}, false, "trust_anchors"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(t.Context(), append([]string{"verify"}, c.args...), &out, &errOut)
			if c.wantOK && err != nil {
				t.Fatalf("verify failed: %v\n%s", err, out.String())
			}
			t.Logf("creativeops verify %s:\n%s", strings.Join(c.args, " "), out.String())
			if !c.wantOK {
				if err == nil {
					t.Fatalf("verify passed:\n%s", out.String())
				}
				if !strings.Contains(out.String(), "FAIL  "+c.wantFail) {
					t.Fatalf("failure not named %s:\n%s", c.wantFail, out.String())
				}
			}
		})
	}
}

// Rotating the IP registry keys starts a new log; certificates issued
// before keep verifying and the old keys stay published.
func TestIPRotateKeys(t *testing.T) {
	url := testdb.SQLiteURL(t)
	s := testserver.Start(t, testserver.Options{DatabaseURL: url})
	r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "W", "email": "w@example.com", "vertical": "music"})
	creator := r.JSON["id"].(string)
	reg := func(s *testserver.Server, content string) string {
		sum := sha256.Sum256([]byte(content))
		r := s.Do(t, "POST", "/v1/ip/register", s.AdminKey, map[string]any{"creator_id": creator, "title": content, "type": "song", "content_hash": hex.EncodeToString(sum[:])})
		if r.Status != 201 {
			t.Fatalf("register: %d %s", r.Status, r.Body)
		}
		return r.JSON["certificate_id"].(string)
	}
	before := reg(s, "old song")
	oldOrigin := s.Do(t, "GET", "/v1/ip/log/checkpoint", s.AdminKey, nil).JSON["origin"]
	if err := s.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	if err := run(t.Context(), []string{"ip", "rotate-keys", "--database-url", url, "--master-key-file", testserver.MasterKeyFile(t)}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "new log origin") || strings.Contains(out.String(), oldOrigin.(string)) {
		t.Fatalf("rotate-keys printed %q", out.String())
	}

	s2 := testserver.Start(t, testserver.Options{DatabaseURL: url})
	s2.AdminKey = s.AdminKey
	after := reg(s2, "new song")
	cp := s2.Do(t, "GET", "/v1/ip/log/checkpoint", s2.AdminKey, nil).JSON
	if cp["origin"] == oldOrigin || fmt.Sprint(cp["tree_size"]) != "1" {
		t.Fatalf("new log: %v", cp)
	}
	keys := s2.Do(t, "GET", "/v1/ip/keys", s2.AdminKey, nil).JSON["log_keys"].([]any)
	if len(keys) != 2 || keys[0].(map[string]any)["current"] != true || keys[1].(map[string]any)["current"] == true {
		t.Fatalf("published keys after rotation: %v", keys)
	}
	for _, cert := range []string{before, after} {
		body := s2.Do(t, "GET", "/v1/ip/certificates/"+cert, s2.AdminKey, nil).Body
		path := filepath.Join(t.TempDir(), "b.json")
		os.WriteFile(path, body, 0o600)
		if err := run(t.Context(), []string{"verify", "--bundle", path}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatalf("certificate %s after rotation: %v", cert, err)
		}
	}
}
