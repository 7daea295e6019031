package docsamples

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

const doc = "# Title\n" + // 1
	"\n" + // 2
	"<!-- run -->\n" + // 3
	"```sh\n" + // 4
	"echo one\n" + // 5
	"```\n" + // 6
	"\n" + // 7
	"```sh\n" + // 8 unmarked
	"echo never\n" + // 9
	"<!-- run -->\n" + // 10 inside a block: not a marker
	"```\n" + // 11
	"\n" + // 12
	"<!-- run: printf test > work.txt -->\n" + // 13
	"```python\n" + // 14
	"print(open('work.txt').read())\n" + // 15
	"```\n" // 16

func TestParse(t *testing.T) {
	got, err := Parse("d.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Sample{
		{File: "d.md", Line: 5, Lang: "sh", Code: "echo one\n"},
		{File: "d.md", Line: 15, Lang: "python", Setup: "printf test > work.txt", Code: "print(open('work.txt').read())\n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestParseRefusesLostMarkers(t *testing.T) {
	for name, src := range map[string]string{
		"text after marker":  "<!-- run -->\nsome prose\n```sh\necho\n```\n",
		"marker at end":      "text\n<!-- run -->\n",
		"unknown language":   "<!-- run -->\n```go\nfmt.Println()\n```\n",
		"no language":        "<!-- run -->\n```\necho\n```\n",
		"unclosed block":     "<!-- run -->\n```sh\necho\n",
		"two markers in row": "<!-- run -->\n<!-- run -->\n```sh\necho\n```\n",
		"output, no sample":  "text\n\n<!-- output -->\n```text\nx\n```\n",
		"output, no block":   "<!-- run -->\n```sh\necho\n```\n<!-- output -->\ntext\n",
	} {
		if _, err := Parse("d.md", []byte(src)); err == nil || !strings.Contains(err.Error(), "d.md:") {
			t.Errorf("%s: got %v, want an error naming the line", name, err)
		}
	}
}

func TestSubstitute(t *testing.T) {
	v := Values{URL: "http://127.0.0.1:4321", Key: "co_live_abc"}
	v.Record(`{"id":"cr_01kabcdefghjkmnpqrstvwxyz0","n":"x"} {"id":"cr_01kzzzzzzzzzzzzzzzzzzzzzzz"}`)
	got, err := v.Substitute("sh", "KEY=co_live_...\ncurl localhost:8080/v1/creators/cr_01k... # 200 {\"id\":\"job_01k...\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "KEY=co_live_abc\ncurl 127.0.0.1:4321/v1/creators/cr_01kabcdefghjkmnpqrstvwxyz0 # 200 {\"id\":\"job_01k...\"}\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	// In code, an id no sample printed is an error; in a comment it is
	// example output, and stays.
	if _, err := v.Substitute("sh", "curl -d '{\"id\":\"job_01k...\"}'\n"); err == nil || !strings.Contains(err.Error(), "job_01k...") {
		t.Fatalf("unknown id in code: got %v", err)
	}
	if got, err := v.Substitute("ts", "const s = 'a // b cr_01k...'; // job_01k...\n"); err != nil || !strings.Contains(got, "cr_01kabc") {
		t.Fatalf("ts: %q %v", got, err)
	}
	if _, err := v.Substitute("python", "x = 1  # 'job_01k...\ny = 'job_01k...'\n"); err == nil {
		t.Fatal("python: the id on the second line is code, not comment")
	}
}

func TestSplitCommands(t *testing.T) {
	code := "KEY=x   # it's a comment\n" +
		"curl -X POST a -d '{\n" +
		"  \"b\": 1}'\n" +
		"# 201 {...}\n" +
		"\n" +
		"{ printf a; cat f; } |\n" +
		"  openssl dgst \\\n" +
		"  -sha256\n"
	got := splitCommands(code)
	want := []string{
		"KEY=x   # it's a comment\n",
		"curl -X POST a -d '{\n  \"b\": 1}'\n",
		"# 201 {...}\n\n{ printf a; cat f; } |\n  openssl dgst \\\n  -sha256\n",
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// A fake API: creation answers an id, reads of that id answer 200, other
// ids 404.
func fakeAPI(t *testing.T) *httptest.Server {
	const id = "cr_01kabcdefghjkmnpqrstvwxyz0"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Authorization") != "Bearer co_live_k":
			http.Error(w, `{"error":"unauthenticated"}`, http.StatusUnauthorized)
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"id":%q}`, id) // no final newline, as the API writes JSON
		case r.URL.Path == "/v1/creators/"+id:
			fmt.Fprintf(w, `{"id":%q,"name":"Nova"}`+"\n", id)
		default:
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func needShell(t *testing.T) {
	for _, c := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s is not installed", c)
		}
	}
}

func run(t *testing.T, url, md string) []Result {
	t.Helper()
	samples, err := Parse("d.md", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Dir: t.TempDir(), Values: Values{URL: url, Key: "co_live_k"}, Timeout: 20 * time.Second}
	return RunDocument(context.Background(), env, samples)
}

// Shell samples share one session, and a command takes the id the command
// before it printed, in the same sample or an earlier one.
func TestShellSession(t *testing.T) {
	needShell(t)
	api := fakeAPI(t)
	md := "<!-- run -->\n```sh\n" +
		"K=co_live_...\n" +
		"curl -s -X POST localhost:8080/v1/creators -H \"Authorization: Bearer $K\" -d '{}'\n" +
		"curl -s localhost:8080/v1/creators/cr_01k... -H \"Authorization: Bearer $K\"\n" +
		"```\n\n<!-- run -->\n```sh\n" +
		"curl -s localhost:8080/v1/creators/cr_01k... -H \"Authorization: Bearer $KEY\" | grep -q Nova && echo found\n" +
		"```\n"
	results := run(t, api.URL, md)
	if len(results) != 2 {
		t.Fatalf("%d results", len(results))
	}
	for _, r := range results {
		if r.Err != nil {
			t.Fatal(r.Failure())
		}
	}
	if !strings.HasPrefix(results[0].Output, `{"id":"cr_01kabcdefghjkmnpqrstvwxyz0"}`+"\n") || !strings.Contains(results[0].Output, `"name":"Nova"`) || results[1].Output != "found\n" {
		t.Fatalf("outputs: %q, %q", results[0].Output, results[1].Output)
	}
}

// A request the server refuses fails the sample, naming the document line
// of the command, and the samples after it do not run.
func TestShellFailureNamesTheLine(t *testing.T) {
	needShell(t)
	api := fakeAPI(t)
	md := "<!-- run -->\n```sh\n" + // lines 1-2
		"echo before\n" + // 3
		"curl -s localhost:8080/v1/creators/cr_01kzzzzzzzzzzzzzzzzzzzzzzz \\\n" + // 4
		"  -H \"Authorization: Bearer $KEY\"\n" + // 5
		"echo after\n" + // 6
		"```\n\n<!-- run -->\n```sh\necho next\n```\n"
	results := run(t, api.URL, md)
	if len(results) != 1 {
		t.Fatalf("%d results, want 1: the later sample must not run", len(results))
	}
	r := results[0]
	if r.Err == nil || !strings.Contains(r.Err.Error(), "d.md:4:") || !strings.Contains(r.Output, "not found") || strings.Contains(r.Output, "after") {
		t.Fatalf("got %v, output %q", r.Err, r.Output)
	}
}

// A program's lines are the document's: an exception names its line.
func TestPythonProgram(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	md := "<!-- run: printf test > work.txt -->\n```python\nx = open('work.txt').read()\n```\n\ntext\n\n" +
		"<!-- run -->\n```python\nprint(x, 'co_live_...')\nassert x == 'test'\n```\n" +
		"<!-- run -->\n```python\nundefined_name\n```\n"
	results := run(t, "http://127.0.0.1:1", md)
	if len(results) != 1 || results[0].Err == nil {
		t.Fatalf("results %+v", results)
	}
	if out := results[0].Output; !strings.Contains(out, `File "d.md", line 15`) || !strings.Contains(out, "test co_live_k") {
		t.Fatalf("output %q", out)
	}
}

// An output block is output the sample must print: its lines in order,
// "..." matching any text.
func TestExpectedOutput(t *testing.T) {
	needShell(t)
	sample := "<!-- run -->\n```sh\nprintf 'a\\nsignature: 6Kho+0rp=\\nz\\n'\n```\n\n<!-- output -->\n```text\n"
	for expect, ok := range map[string]bool{
		"signature: 6Kho+0rp=\n":  true,
		"a\nsignature: ...=\nz\n": true,
		"signature: 6Kho+0rq=\n":  false, // another signature
		"z\na\n":                  false, // out of order
		"signature: 6Kho\n":       false, // a whole line, not a part
	} {
		samples, err := Parse("d.md", []byte(sample+expect+"```\n"))
		if err != nil {
			t.Fatal(err)
		}
		if len(samples[0].Expect) == 0 {
			t.Fatalf("%q: no expected output parsed", expect)
		}
		results := RunDocument(context.Background(), Env{Dir: t.TempDir(), Values: Values{URL: "http://127.0.0.1:1"}}, samples)
		if got := results[0].Err == nil; got != ok {
			t.Errorf("expect %q: err %v, want ok=%v (output %q)", expect, results[0].Err, ok, results[0].Output)
		}
	}
}
