package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/server/wire"
)

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func newCreator(t *testing.T, s *testserver.Server, key, email string) string {
	t.Helper()
	r := s.Do(t, "POST", "/v1/creators", key, map[string]any{"name": "Writer", "email": email, "vertical": "publishing"})
	if r.Status != 201 {
		t.Fatalf("create creator: %d %s", r.Status, r.Body)
	}
	return r.JSON["id"].(string)
}

func register(t *testing.T, s *testserver.Server, key string, body map[string]any) testserver.Response {
	t.Helper()
	return s.Do(t, "POST", "/v1/ip/register", key, body)
}

func TestIPRegister(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	cr := newCreator(t, s, s.AdminKey, "w@example.com")
	bare := strings.ToUpper(digestOf("chapter one"))
	r := register(t, s, s.AdminKey, map[string]any{"creator_id": cr, "title": "The Long Night", "type": "book", "content_hash": bare, "description": "Novel manuscript"})
	if r.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	j := r.JSON
	if id, _ := j["id"].(string); !strings.HasPrefix(id, "ip_") || len(id) != 29 {
		t.Errorf("id %v", j["id"])
	}
	if c, _ := j["certificate_id"].(string); !strings.HasPrefix(c, "cert_") {
		t.Errorf("certificate_id %v", j["certificate_id"])
	}
	if j["content_hash"] != "sha256:"+strings.ToLower(bare) || j["status"] != "registered" || j["creator_id"] != cr ||
		j["type"] != "book" || j["description"] != "Novel manuscript" || !strings.HasSuffix(j["timestamp"].(string), "Z") {
		t.Errorf("unexpected record %s", r.Body)
	}
	if j["log_index"] != "0" && j["log_index"] != 0.0 {
		t.Errorf("first record log_index %v", j["log_index"])
	}
	first := j["id"].(string)

	// The same content again, in any spelling, is the first record's.
	r = register(t, s, s.AdminKey, map[string]any{"creator_id": cr, "title": "Copy", "type": "book", "content_hash": "sha256:" + strings.ToLower(bare)})
	if r.Status != http.StatusConflict || r.ErrorReason() != "DUPLICATE_CONTENT" || !strings.Contains(string(r.Body), first) {
		t.Fatalf("duplicate: %d %s", r.Status, r.Body)
	}
	// Another organization may register the same content.
	other := s.NewKey(t, "globex", auth.ScopeAll)
	ocr := newCreator(t, s, other, "o@example.com")
	if r := register(t, s, other, map[string]any{"creator_id": ocr, "title": "Same bytes", "type": "book", "content_hash": bare}); r.Status != 201 {
		t.Fatalf("other organization: %d %s", r.Status, r.Body)
	}
	// ... but not for a creator of ours.
	if r := register(t, s, other, map[string]any{"creator_id": cr, "title": "X", "type": "song", "content_hash": digestOf("x")}); r.Status != 404 {
		t.Fatalf("creator of another organization: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "GET", "/v1/ip/records/"+first, other, nil); r.Status != 404 {
		t.Fatalf("other organization read our record: %d", r.Status)
	}
	if r := s.Do(t, "GET", "/v1/ip/records/"+first, s.AdminKey, nil); r.Status != 200 || r.JSON["id"] != first {
		t.Fatalf("get record: %d %s", r.Status, r.Body)
	}
	if n, _ := s.Store.Ent.Event.Query().Count(context.Background()); n < 2 {
		t.Fatalf("ip.registered events missing: %d", n)
	}
}

func TestIPRegisterValidation(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	cr := newCreator(t, s, s.AdminKey, "w@example.com")
	good := map[string]any{"creator_id": cr, "title": "T", "type": "song", "content_hash": digestOf("ok")}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range good {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"hash too short", with("content_hash", "sha256:abcd"), "content_hash"},
		{"hash not hex", with("content_hash", strings.Repeat("zz", 32)), "content_hash"},
		{"other algorithm", with("content_hash", "md5:"+digestOf("ok")), "content_hash"},
		{"sha512 length", with("content_hash", "sha256:"+digestOf("a")+digestOf("b")), "content_hash"},
		{"unknown type", with("type", "podcast"), "type"},
		{"missing title", with("title", nil), "title"},
		{"missing creator", with("creator_id", nil), "creator_id"},
		{"missing hash", with("content_hash", nil), "content_hash"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := register(t, s, s.AdminKey, c.body)
			if r.Status != 400 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			found := false
			for _, f := range r.ViolatedFields() {
				found = found || f == c.field
			}
			if !found {
				t.Fatalf("no violation naming %s: %s", c.field, r.Body)
			}
		})
	}
	if n, _ := s.Store.Ent.IPRecord.Query().Count(context.Background()); n != 0 {
		t.Fatalf("%d records stored from invalid requests", n)
	}
	readOnly := s.NewKey(t, "acme", auth.ScopeIPRead)
	if r := register(t, s, readOnly, good); r.Status != 403 {
		t.Fatalf("ip:read key registered: %d", r.Status)
	}
}

func TestIPCatalog(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	a := newCreator(t, s, s.AdminKey, "a@example.com")
	b := newCreator(t, s, s.AdminKey, "b@example.com")
	titles := []struct{ creator, title, typ string }{
		{a, "Midnight Song", "song"}, {a, "Dawn Song", "song"}, {b, "The Script", "script"}, {b, "Night Paintings", "artwork"}, {a, "Notes", "concept"},
	}
	var ids []string
	for i, x := range titles {
		r := register(t, s, s.AdminKey, map[string]any{"creator_id": x.creator, "title": x.title, "type": x.typ, "content_hash": digestOf(fmt.Sprint(i))})
		if r.Status != 201 {
			t.Fatal(r.Status, string(r.Body))
		}
		ids = append(ids, r.JSON["id"].(string))
	}
	list := func(q string) (int, []string) {
		r := s.Do(t, "GET", "/v1/ip/catalog"+q, s.AdminKey, nil)
		if r.Status != 200 {
			t.Fatalf("catalog %s: %d %s", q, r.Status, r.Body)
		}
		var got []string
		for _, rec := range r.JSON["records"].([]any) {
			got = append(got, rec.(map[string]any)["id"].(string))
		}
		return int(r.JSON["total"].(float64)), got
	}
	if total, got := list(""); total != 5 || len(got) != 5 || got[0] != ids[4] || got[4] != ids[0] {
		t.Fatalf("whole catalog not newest first: %d %v", total, got)
	}
	if r := s.Do(t, "GET", "/v1/ip/catalog", s.AdminKey, nil); r.JSON["total_is_lower_bound"] != false {
		t.Fatalf("a catalog of 5 records: total_is_lower_bound %v, want false", r.JSON["total_is_lower_bound"])
	}
	if total, got := list("?creator_id=" + b); total != 2 || got[0] != ids[3] || got[1] != ids[2] {
		t.Fatalf("creator filter: %v", got)
	}
	if total, _ := list("?type=song"); total != 2 {
		t.Fatalf("type filter: %d", total)
	}
	if total, got := list("?q=NIGHT"); total != 2 || got[0] != ids[3] || got[1] != ids[0] {
		t.Fatalf("title search: %v", got)
	}
	if total, got := list("?content_hash=" + strings.ToUpper(digestOf("2"))); total != 1 || got[0] != ids[2] {
		t.Fatalf("hash filter: %v", got)
	}
	if total, got := list("?registered_after=2000-01-01T00:00:00Z&registered_before=2100-01-01T00:00:00Z"); total != 5 || len(got) != 5 {
		t.Fatalf("time window: %d", total)
	}
	if total, _ := list("?registered_after=2100-01-01T00:00:00Z"); total != 0 {
		t.Fatalf("future window: %d", total)
	}
	total, page := list("?page_size=2")
	r := s.Do(t, "GET", "/v1/ip/catalog?page_size=2", s.AdminKey, nil)
	tok := r.JSON["next_page_token"].(string)
	_, page2 := list("?page_size=2&page_token=" + tok)
	if total != 5 || len(page) != 2 || len(page2) != 2 || page2[0] != ids[2] {
		t.Fatalf("pagination: %v then %v", page, page2)
	}
	other := s.NewKey(t, "globex", auth.ScopeIPRead)
	if r := s.Do(t, "GET", "/v1/ip/catalog", other, nil); len(r.JSON["records"].([]any)) != 0 {
		t.Fatalf("another organization sees our catalog: %s", r.Body)
	}
}

// Past 10,000 matches the catalog's total stops at 10,000 and says it is
// a lower bound, by type and by title search alike; the pages go on.
func TestIPCatalogTotalIsLowerBound(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			ctx := context.Background()
			const n = 10001
			for start := 0; start < n; start += 1000 {
				var bulk []*ent.IPRecordCreate
				for i := start; i < min(start+1000, n); i++ {
					bulk = append(bulk, s.Store.Ent.IPRecord.Create().SetID(ids.New(ids.IPRecord)).SetOrganizationID(s.OrgID).
						SetCreatorID("cr_x").SetTitle(fmt.Sprintf("Stored Song %d", i)).SetType("song").
						SetContentHash("sha256:"+digestOf(fmt.Sprint(i))).SetTimestamp(time.Now().UTC().Truncate(time.Second)).
						SetCertificateID(ids.New(ids.Certificate)).SetLogOrigin("test").SetLogIndex(int64(i)).
						SetRecordBytes([]byte("{}")).SetToken([]byte("token")))
				}
				if err := s.Store.Ent.IPRecord.CreateBulk(bulk...).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range []string{"?type=song", "?q=stored+song", "?q=ng", "?type=song&q=SONG"} {
				r := s.Do(t, "GET", "/v1/ip/catalog"+q+"&page_size=2", s.AdminKey, nil)
				if r.Status != 200 {
					t.Fatalf("catalog %s: %d %s", q, r.Status, r.Body)
				}
				if r.JSON["total"] != float64(10000) || r.JSON["total_is_lower_bound"] != true {
					t.Errorf("catalog %s: total %v, total_is_lower_bound %v; want 10000, true", q, r.JSON["total"], r.JSON["total_is_lower_bound"])
				}
				if len(r.JSON["records"].([]any)) != 2 || r.JSON["next_page_token"] == "" {
					t.Errorf("catalog %s: no next page: %s", q, r.Body)
				}
			}
			// Below the cap the total is exact.
			r := s.Do(t, "GET", "/v1/ip/catalog?q=stored+song+100", s.AdminKey, nil)
			if r.JSON["total"] != float64(12) || r.JSON["total_is_lower_bound"] != false {
				t.Errorf("catalog ?q=stored+song+100: total %v, total_is_lower_bound %v; want 12, false", r.JSON["total"], r.JSON["total_is_lower_bound"])
			}
		})
	}
}

// fetchBundle returns the certificate JSON and the parsed bundle.
func fetchBundle(t *testing.T, s *testserver.Server, key, certID string) ([]byte, ipreg.Bundle) {
	t.Helper()
	r := s.Do(t, "GET", "/v1/ip/certificates/"+certID, key, nil)
	if r.Status != 200 {
		t.Fatalf("certificate: %d %s", r.Status, r.Body)
	}
	var c creativeopsv1.Certificate
	if err := protojson.Unmarshal(r.Body, &c); err != nil {
		t.Fatal(err)
	}
	return r.Body, wire.Bundle(&c)
}

func TestIPCertificatesVerify(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	cr := newCreator(t, s, s.AdminKey, "w@example.com")
	work := "All the words of the manuscript."
	r := register(t, s, s.AdminKey, map[string]any{"creator_id": cr, "title": "Manuscript", "type": "book", "content_hash": digestOf(work)})
	certID := r.JSON["certificate_id"].(string)
	cp1 := s.Do(t, "GET", "/v1/ip/log/checkpoint", s.AdminKey, nil).JSON
	for i := 0; i < 6; i++ {
		register(t, s, s.AdminKey, map[string]any{"creator_id": cr, "title": fmt.Sprint("Draft ", i), "type": "book", "content_hash": digestOf(fmt.Sprint(i))})
	}

	_, bundle := fetchBundle(t, s, s.AdminKey, certID)
	if bundle.TreeSize != 7 {
		t.Fatalf("bundle proves against size %d, want the latest (7)", bundle.TreeSize)
	}
	report, err := ipreg.Verify(bundle, []byte(work))
	if err != nil || !report.OK {
		t.Fatalf("bundle does not verify: %v %+v", err, report)
	}
	keys := s.Do(t, "GET", "/v1/ip/keys", s.AdminKey, nil).JSON
	logKeys := keys["log_keys"].([]any)
	if len(logKeys) != 1 || logKeys[0].(map[string]any)["verifier_key"] != bundle.LogVerifierKey || keys["tsa_root_pem"] != bundle.TSARootPEM {
		t.Fatalf("published keys differ from the bundle's: %v", keys)
	}
	if _, err := ipreg.VerifyPinned(bundle, nil, ipreg.TrustAnchors{TSARootPEM: keys["tsa_root_pem"].(string), LogVerifierKey: bundle.LogVerifierKey}); err != nil {
		t.Fatalf("pinned verification: %v", err)
	}
	tampered := bundle
	tampered.Record = []byte(strings.Replace(string(bundle.Record), "Manuscript", "Manuscrupt", 1))
	if rep, _ := ipreg.Verify(tampered, nil); rep.OK {
		t.Fatal("tampered record verified")
	}

	// Consistency between the first checkpoint and the latest.
	cp2 := s.Do(t, "GET", "/v1/ip/log/checkpoint", s.AdminKey, nil).JSON
	from, to := cp1["tree_size"], cp2["tree_size"]
	cr2 := s.Do(t, "GET", fmt.Sprintf("/v1/ip/log/consistency?from=%v&to=%v", from, to), s.AdminKey, nil)
	if cr2.Status != 200 {
		t.Fatalf("consistency: %d %s", cr2.Status, cr2.Body)
	}
	var proof tlog.TreeProof
	for _, p := range cr2.JSON["proof"].([]any) {
		b, _ := base64.StdEncoding.DecodeString(p.(string))
		var h tlog.Hash
		copy(h[:], b)
		proof = append(proof, h)
	}
	root := func(cp map[string]any) tlog.Hash {
		b, _ := base64.StdEncoding.DecodeString(cp["root_hash"].(string))
		var h tlog.Hash
		copy(h[:], b)
		return h
	}
	var n1, n2 int64
	fmt.Sscan(fmt.Sprint(from), &n1)
	fmt.Sscan(fmt.Sprint(to), &n2)
	if err := tlog.CheckTree(proof, n2, root(cp2), n1, root(cp1)); err != nil {
		t.Fatalf("consistency proof does not verify: %v", err)
	}
	if _, _, _, err := ipreg.OpenCheckpoint([]byte(cp2["checkpoint"].(string)), bundle.LogVerifierKey); err != nil {
		t.Fatalf("checkpoint signature: %v", err)
	}
	if r := s.Do(t, "GET", "/v1/ip/log/consistency?from=5&to=99", s.AdminKey, nil); r.Status != 400 {
		t.Fatalf("consistency beyond the log: %d", r.Status)
	}

	// openssl accepts the DER token against the published root.
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	dir := t.TempDir()
	tok := s.Do(t, "GET", "/v1/ip/certificates/"+certID+"/token", s.AdminKey, nil)
	if tok.Status != 200 || tok.Header.Get("Content-Type") != "application/timestamp-reply" {
		t.Fatalf("token: %d %s", tok.Status, tok.Header.Get("Content-Type"))
	}
	os.WriteFile(filepath.Join(dir, "token.tsr"), tok.Body, 0o600)
	os.WriteFile(filepath.Join(dir, "root.pem"), []byte(keys["tsa_root_pem"].(string)), 0o600)
	recordDigest := sha256.Sum256(bundle.Record)
	verify := func(digest string) error {
		out, err := exec.Command("openssl", "ts", "-verify", "-digest", digest, "-in", filepath.Join(dir, "token.tsr"), "-CAfile", filepath.Join(dir, "root.pem")).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	if err := verify(hex.EncodeToString(recordDigest[:])); err != nil {
		t.Fatalf("openssl rejects the token: %v", err)
	}
	if err := verify(digestOf("something else")); err == nil {
		t.Fatal("openssl accepted a wrong digest")
	}
	bad := append([]byte(nil), tok.Body...)
	bad[len(bad)-10] ^= 0xff
	os.WriteFile(filepath.Join(dir, "token.tsr"), bad, 0o600)
	if err := verify(hex.EncodeToString(recordDigest[:])); err == nil {
		t.Fatal("openssl accepted a tampered token")
	}
}

// Two server instances on one PostgreSQL register 200 works concurrently:
// the log never forks.
func TestIPConcurrentRegistrationsTwoInstances(t *testing.T) {
	if os.Getenv(testdb.PostgresEnv) == "" {
		t.Skipf("PostgreSQL tests skipped: %s is not set", testdb.PostgresEnv)
	}
	url := testdb.PostgresURL(t)
	a := testserver.Start(t, testserver.Options{DatabaseURL: url})
	b := testserver.Start(t, testserver.Options{DatabaseURL: url})
	cr := newCreator(t, a, a.AdminKey, "w@example.com")
	const total = 200
	var wg sync.WaitGroup
	errs := make(chan string, total)
	certs := make(chan string, total)
	for i := 0; i < total; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			r := register(t, s, a.AdminKey, map[string]any{"creator_id": cr, "title": fmt.Sprint("Work ", i), "type": "song", "content_hash": digestOf(fmt.Sprint("work", i))})
			if r.Status != 201 {
				errs <- fmt.Sprintf("%d %s", r.Status, r.Body)
				return
			}
			certs <- r.JSON["certificate_id"].(string)
		}(i)
	}
	wg.Wait()
	close(errs)
	close(certs)
	for e := range errs {
		t.Fatalf("registration failed: %s", e)
	}
	cp := a.Do(t, "GET", "/v1/ip/log/checkpoint", a.AdminKey, nil).JSON
	if fmt.Sprint(cp["tree_size"]) != fmt.Sprint(total) {
		t.Fatalf("log size %v, want %d", cp["tree_size"], total)
	}
	seen := map[int64]bool{}
	for c := range certs {
		_, bundle := fetchBundle(t, b, a.AdminKey, c)
		if seen[bundle.LogIndex] {
			t.Fatalf("log index %d used twice", bundle.LogIndex)
		}
		seen[bundle.LogIndex] = true
		if rep, err := ipreg.Verify(bundle, nil); err != nil || !rep.OK {
			t.Fatalf("certificate %s does not verify: %v %+v", c, err, rep.Failed())
		}
	}
	if len(seen) != total {
		t.Fatalf("%d distinct indexes, want %d", len(seen), total)
	}

	// The same work sent to both instances at once is registered once:
	// the other gets the duplicate conflict, whichever sequencer is first.
	for i := 0; i < 20; i++ {
		body := map[string]any{"creator_id": cr, "title": "Twin", "type": "song", "content_hash": digestOf(fmt.Sprint("twin", i))}
		codes := make(chan int, 2)
		for _, s := range []*testserver.Server{a, b} {
			go func() { codes <- register(t, s, a.AdminKey, body).Status }()
		}
		got := []int{<-codes, <-codes}
		slices.Sort(got)
		if got[0] != 201 || got[1] != 409 {
			t.Fatalf("twin registration %d: statuses %v, want one 201 and one 409", i, got)
		}
	}
	cp = a.Do(t, "GET", "/v1/ip/log/checkpoint", a.AdminKey, nil).JSON
	if fmt.Sprint(cp["tree_size"]) != fmt.Sprint(total+20) {
		t.Fatalf("log size %v after twins, want %d", cp["tree_size"], total+20)
	}
}
