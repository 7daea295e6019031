// Package testtsa runs a real RFC 3161 timestamp authority for tests:
// `openssl ts -reply` behind an HTTP handler, with a CA of its own,
// generated fresh for each authority, that nothing else has seen.
package testtsa

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TSA is a running authority.
type TSA struct {
	// URL is where it answers RFC 3161 requests (POST).
	URL string
	// CAPEM is its root certificate; CAFile holds it.
	CAPEM  []byte
	CAFile string
	// Requests counts the requests it answered or refused.
	Requests atomic.Int64

	dir  string
	down atomic.Bool
	mu   sync.Mutex
}

// Options tune an authority.
type Options struct {
	// ESSv2 has tokens name the signing certificate by SHA-256 (ESS
	// signing-certificate-v2) rather than OpenSSL's default SHA-1 (v1).
	ESSv2 bool
	// Name is the common name of its certificates.
	Name string
	// RSA has the authority's certificates and signatures use RSA-2048
	// (PKCS#1 v1.5, SHA-256), as most real authorities do, rather than
	// ECDSA P-256.
	RSA bool
	// Intermediate has the TSA certificate issued by an intermediate CA
	// (which the root issued) rather than by the root directly, and the
	// intermediate embedded in every token beside the TSA certificate.
	Intermediate bool
	// IntermediateNotCA marks the intermediate basicConstraints CA:FALSE:
	// a certificate that must not issue others, for tests that a verifier
	// refuses the chain.
	IntermediateNotCA bool
}

// Start generates a CA and a TSA certificate (critical timeStamping EKU)
// with openssl and serves `openssl ts -reply` until the test ends. It
// skips the test when openssl is missing.
func Start(t testing.TB, opts Options) *TSA {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	if opts.Name == "" {
		opts.Name = "Test TSA"
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("openssl", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	key := []string{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"}
	if opts.RSA {
		key = []string{"-newkey", "rsa:2048"}
	}
	req := func(args ...string) { run(append(append([]string{"req"}, key...), args...)...) }
	req("-x509", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "3", "-subj", "/CN="+opts.Name+" Root",
		"-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
	issuer, chain := "ca", ""
	if opts.Intermediate {
		req("-nodes", "-keyout", "int.key", "-out", "int.csr", "-subj", "/CN="+opts.Name+" Intermediate")
		if opts.IntermediateNotCA {
			write("int.ext", "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,keyCertSign,cRLSign\n")
		} else {
			write("int.ext", "basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n")
		}
		run("x509", "-req", "-sha256", "-in", "int.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "int.crt", "-days", "3", "-extfile", "int.ext")
		issuer, chain = "int", "certs = $dir/int.crt\n"
	}
	req("-nodes", "-keyout", "tsa.key", "-out", "tsa.csr", "-subj", "/CN="+opts.Name)
	write("tsa.ext", "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping\n")
	run("x509", "-req", "-sha256", "-in", "tsa.csr", "-CA", issuer+".crt", "-CAkey", issuer+".key", "-CAcreateserial", "-out", "tsa.crt", "-days", "2", "-extfile", "tsa.ext")
	write("serial", "01\n")
	ess := "sha1"
	if opts.ESSv2 {
		ess = "sha256"
	}
	write("openssl.cnf", fmt.Sprintf(`[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = %s
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.crt
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = %s
%s`, dir, ess, chain))
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	tsa := &TSA{CAPEM: ca, CAFile: filepath.Join(dir, "ca.crt"), dir: dir}
	srv := httptest.NewServer(tsa)
	t.Cleanup(srv.Close)
	tsa.URL = srv.URL + "/tsr"
	return tsa
}

// Stamp asks the authority, over HTTP, for a token over the SHA-256 digest
// (the TimeStampResp, with the signer's certificates embedded).
func (a *TSA) Stamp(t testing.TB, digest []byte) []byte {
	t.Helper()
	q := filepath.Join(t.TempDir(), "stamp.tsq")
	cmd := exec.Command("openssl", "ts", "-query", "-digest", hex.EncodeToString(digest), "-sha256", "-cert", "-out", q)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("openssl ts -query: %v\n%s", err, out)
	}
	query, err := os.ReadFile(q)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(a.URL, "application/timestamp-query", bytes.NewReader(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("timestamp request: %d %v: %s", resp.StatusCode, err, body)
	}
	return body
}

// SetDown makes the authority refuse every request (HTTP 503), or answer
// again.
func (a *TSA) SetDown(down bool) { a.down.Store(down) }

// ServeHTTP answers one RFC 3161 request with openssl.
func (a *TSA) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.Requests.Add(1)
	if a.down.Load() {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/timestamp-query" {
		http.Error(w, "POST an application/timestamp-query", http.StatusBadRequest)
		return
	}
	query, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// openssl keeps the serial number in a file: one reply at a time.
	a.mu.Lock()
	defer a.mu.Unlock()
	q := filepath.Join(a.dir, "query.tsq")
	if err := os.WriteFile(q, query, 0o600); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	cmd := exec.Command("openssl", "ts", "-reply", "-config", filepath.Join(a.dir, "openssl.cnf"), "-queryfile", q)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		http.Error(w, fmt.Sprintf("openssl ts -reply: %v: %s", err, stderr.String()), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/timestamp-reply")
	_, _ = w.Write(out.Bytes())
}
