package docsamples

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Env is where one document's samples run.
type Env struct {
	// Dir is the working directory, as a reader's terminal would be: the
	// server's data directory is Dir/data (KEY=$(cat data/bootstrap-key)).
	Dir    string
	Values Values
	// Path is prepended to PATH (the directory holding creativeops).
	Path string
	// TypeScriptClient is clients/typescript, built (dist/) and with its
	// node_modules: "@creativeops/client" resolves to it, and its esbuild
	// strips the types of ts samples.
	TypeScriptClient string
	// PythonClient is clients/python, put on PYTHONPATH.
	PythonClient string
	// Timeout bounds each sample (default 60 s).
	Timeout time.Duration
}

// Result is what running one sample gave.
type Result struct {
	Sample Sample
	Output string // stdout and stderr, interleaved
	// Skipped says why the sample did not run (a runtime is missing).
	Skipped string
	Err     error
}

// Failure describes a failed sample for a test's message.
func (r Result) Failure() string {
	if r.Sample.Lang != "sh" { // a program: its error names the document's line
		return fmt.Sprintf("%s: %v\n--- output\n%s", r.Sample.File, r.Err, r.Output)
	}
	return fmt.Sprintf("%s: %v\n--- sample\n%s--- output\n%s", r.Sample, r.Err, r.Sample.Code, r.Output)
}

// RunDocument runs a document's samples in order, as a reader would in one
// sitting: every sh sample in one shell session (so KEY=... and cd carry
// over), and the samples of each other language as one program, run at its
// last sample's place, its lines at their lines in the document, so that
// an error names the document's line. It stops at the first failure, since
// later samples build on earlier ones.
func RunDocument(ctx context.Context, env Env, samples []Sample) []Result {
	if env.Timeout == 0 {
		env.Timeout = 60 * time.Second
	}
	var (
		results []Result
		shell   *session
		last    = map[string]int{} // language → index of its last sample
	)
	for i, s := range samples {
		last[s.Lang] = i
	}
	defer func() {
		if shell != nil {
			shell.close()
		}
	}()
	for i, s := range samples {
		if s.Setup != "" {
			out, err := runSetup(ctx, env, s.Setup)
			if err != nil {
				return append(results, Result{Sample: s, Output: out, Err: fmt.Errorf("setup %q: %w", s.Setup, err)})
			}
			env.Values.Record(out)
		}
		var r Result
		switch {
		case s.Lang == "sh":
			if shell == nil {
				var err error
				if shell, err = startSession(env); err != nil {
					return append(results, Result{Sample: s, Err: err})
				}
			}
			r = shell.run(ctx, env, &env.Values, s)
		case last[s.Lang] != i:
			continue // runs with the language's last sample
		default:
			var group []Sample
			for _, g := range samples[:i+1] {
				if g.Lang == s.Lang {
					group = append(group, g)
				}
			}
			r = runProgram(ctx, env, group)
		}
		if r.Err == nil && r.Skipped == "" {
			r.Err = checkOutput(s.Expect, r.Output)
		}
		results = append(results, r)
		if r.Err != nil {
			return results
		}
		if s.Lang != "sh" { // a shell sample records command by command
			env.Values.Record(r.Output)
		}
	}
	return results
}

func (env Env) environ() []string {
	e := append(os.Environ(),
		"CREATIVEOPS_URL="+env.Values.URL,
		"CREATIVEOPS_KEY="+env.Values.Key,
		"KEY="+env.Values.Key, // what the README's first sample names it; other pages use $KEY
	)
	if env.Path != "" {
		e = append(e, "PATH="+env.Path+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if env.PythonClient != "" {
		e = append(e, "PYTHONPATH="+env.PythonClient)
	}
	return e
}

// runSetup runs a marker's command, placeholders put in place, with curl
// failing on HTTP errors as in samples.
func runSetup(ctx context.Context, env Env, script string) (string, error) {
	script, err := env.Values.Substitute("sh", script)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", prelude+script)
	cmd.Dir, cmd.Env = env.Dir, env.environ()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The shell session's prelude. curl fails on an HTTP error status (printing
// the body), since a sample the server refuses is a sample that drifted;
// set -e stops at the first failing command, and the trap names its line
// (the || keeps set -e from ending the shell inside the function, where
// the trap would name the prelude's line).
const prelude = `set -eo pipefail
curl() { command curl --fail-with-body -sS "$@" || return; }
trap 'echo "@@docsamples-failed status=$? line=$LINENO"' ERR
`

const doneMarker = "@@docsamples-done "

// session is one bash process fed sample after sample, reading its script
// from a pipe on fd 3 so that its stdin (/dev/null) is not the script.
type session struct {
	cmd    *exec.Cmd
	script io.WriteCloser
	lines  chan string // its output, line by line; closed when it exits
	fed    int         // lines of script written so far
	exited chan struct{}
}

func startSession(env Env) (*session, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	out, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "/dev/fd/3")
	cmd.Dir, cmd.Env = env.Dir, env.environ()
	cmd.ExtraFiles = []*os.File{r}
	cmd.Stdout, cmd.Stderr = outW, outW
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start bash: %w", err)
	}
	r.Close()
	outW.Close()
	s := &session{cmd: cmd, script: w, lines: make(chan string, 1024), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
		out.Close()
	}()
	go func() { _ = cmd.Wait(); close(s.exited) }()
	if _, err := io.WriteString(w, prelude); err != nil {
		return nil, err
	}
	s.fed = strings.Count(prelude, "\n")
	return s, nil
}

// run feeds a sample to the session command by command, each with the
// placeholders of its text put in place just before it runs, so that a
// cr_01k... takes the id printed by the command before it.
func (s *session) run(ctx context.Context, env Env, values *Values, sample Sample) Result {
	res := Result{Sample: sample}
	var out strings.Builder
	line := sample.Line // the document line of the command's first line
	for n, command := range splitCommands(sample.Code) {
		code, err := values.Substitute(sample.Lang, command)
		if err != nil {
			res.Output, res.Err = out.String(), fmt.Errorf("%s:%d: %w", sample.File, line, err)
			return res
		}
		first := s.fed + 1 // the script line of the command's first line
		token := doneMarker + strconv.Itoa(sample.Line) + "." + strconv.Itoa(n)
		text := code + "echo '" + token + "'\n"
		if _, err := io.WriteString(s.script, text); err != nil {
			res.Output, res.Err = out.String(), fmt.Errorf("the shell session ended before this sample: %w", err)
			return res
		}
		s.fed += strings.Count(text, "\n")
		got, err := s.await(ctx, env.Timeout, token)
		out.WriteString(got)
		values.Record(got)
		if err != nil {
			res.Output = out.String()
			res.Err = err
			if errors.Is(err, errExited) {
				res.Err = s.failure(got, sample.File, line-first)
			}
			return res
		}
		line += strings.Count(command, "\n")
	}
	res.Output = out.String()
	return res
}

var errExited = errors.New("the shell exited")

// await collects the session's output until token.
func (s *session) await(ctx context.Context, timeout time.Duration, token string) (string, error) {
	var out strings.Builder
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				<-s.exited
				return out.String(), errExited
			}
			// Output without a final newline (an API's JSON) shares its
			// last line with the marker.
			if before, ok := strings.CutSuffix(line, token); ok {
				if before != "" {
					out.WriteString(before + "\n")
				}
				return out.String(), nil
			}
			out.WriteString(line)
			out.WriteByte('\n')
		case <-timer.C:
			s.close()
			return out.String(), fmt.Errorf("no end after %s (a command waiting for input, or an unclosed quote?)", timeout)
		case <-ctx.Done():
			s.close()
			return out.String(), ctx.Err()
		}
	}
}

// failure names the document line of the command that failed, from the
// trap's report of the script line.
// offset is the document line of the script's line 0.
func (s *session) failure(output, file string, offset int) error {
	status := "the shell exited"
	if st := s.cmd.ProcessState; st != nil {
		status = "exit status " + strconv.Itoa(st.ExitCode())
	}
	if i := strings.LastIndex(output, "@@docsamples-failed "); i >= 0 {
		var code, line int
		if _, err := fmt.Sscanf(output[i:], "@@docsamples-failed status=%d line=%d", &code, &line); err == nil {
			return fmt.Errorf("%s:%d: command failed with exit status %d", file, offset+line, code)
		}
	}
	return errors.New(status)
}

func (s *session) close() {
	s.script.Close()
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// runProgram runs a language's samples as one program whose lines are the
// document's: line n of the program is line n of the document.
func runProgram(ctx context.Context, env Env, group []Sample) Result {
	last := group[len(group)-1]
	res := Result{Sample: last}
	var (
		prog strings.Builder
		line = 1
	)
	for _, s := range group {
		code, err := env.Values.Substitute(s.Lang, s.Code)
		if err != nil {
			res.Sample, res.Err = s, err
			return res
		}
		for ; line < s.Line; line++ {
			prog.WriteByte('\n')
		}
		prog.WriteString(code)
		line += strings.Count(code, "\n")
	}
	name := filepath.Base(last.File)
	ctx, cancel := context.WithTimeout(ctx, env.Timeout)
	defer cancel()
	var cmd *exec.Cmd
	switch last.Lang {
	case "python":
		if _, err := exec.LookPath("python3"); err != nil {
			res.Skipped = "python3 is not installed"
			return res
		}
		path := filepath.Join(env.Dir, name+".py")
		if err := os.WriteFile(path, []byte(prog.String()), 0o600); err != nil {
			res.Err = err
			return res
		}
		// Compiled under the document's name: tracebacks say docs/x.md, line n.
		cmd = exec.CommandContext(ctx, "python3", "-c",
			`import sys; exec(compile(open(sys.argv[1]).read(), sys.argv[2], "exec"), {"__name__": "__main__"})`,
			path, last.File)
	case "js", "ts":
		if reason := env.nodeMissing(last.Lang); reason != "" {
			res.Skipped = reason
			return res
		}
		if err := linkClient(env); err != nil {
			res.Err = err
			return res
		}
		src := filepath.Join(env.Dir, name+"."+last.Lang)
		if last.Lang == "js" {
			src = filepath.Join(env.Dir, name+".mjs")
		}
		if err := os.WriteFile(src, []byte(prog.String()), 0o600); err != nil {
			res.Err = err
			return res
		}
		mjs := src
		if last.Lang == "ts" {
			mjs = filepath.Join(env.Dir, name+".ts.mjs")
			// Types stripped, nothing bundled: the program imports the client
			// as an application would. The source map keeps the lines.
			out, err := exec.CommandContext(ctx, filepath.Join(env.TypeScriptClient, "node_modules", ".bin", "esbuild"),
				src, "--format=esm", "--platform=node", "--sourcemap=inline", "--log-level=warning", "--outfile="+mjs).CombinedOutput()
			if err != nil {
				res.Output, res.Err = string(out), fmt.Errorf("esbuild: %w", err)
				return res
			}
		}
		cmd = exec.CommandContext(ctx, "node", "--enable-source-maps", mjs)
	default:
		res.Err = fmt.Errorf("no runner for %q samples", last.Lang)
		return res
	}
	cmd.Dir, cmd.Env = env.Dir, env.environ()
	out, err := cmd.CombinedOutput()
	res.Output = string(out)
	if err != nil {
		var lines []string
		for _, s := range group {
			lines = append(lines, strconv.Itoa(s.Line))
		}
		res.Err = fmt.Errorf("the %s samples of %s (lines %s), run as one program: %w", last.Lang, last.File, strings.Join(lines, ", "), err)
		if ctx.Err() != nil {
			res.Err = fmt.Errorf("%w (timed out after %s)", res.Err, env.Timeout)
		}
	}
	return res
}

func (env Env) nodeMissing(lang string) string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not installed"
	}
	if env.TypeScriptClient == "" {
		return "no TypeScript client given"
	}
	if _, err := os.Stat(filepath.Join(env.TypeScriptClient, "dist", "esm", "index.js")); err != nil {
		return "the TypeScript client is not built (cd clients/typescript && npm ci && npm run build)"
	}
	if _, err := os.Stat(filepath.Join(env.TypeScriptClient, "node_modules", ".bin", "esbuild")); lang == "ts" && err != nil {
		return "clients/typescript has no node_modules (npm ci) for esbuild"
	}
	return ""
}

// linkClient makes "@creativeops/client" resolve from env.Dir to the
// repository's client, as an installed package would.
func linkClient(env Env) error {
	dir := filepath.Join(env.Dir, "node_modules", "@creativeops")
	link := filepath.Join(dir, "client")
	if _, err := os.Lstat(link); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	abs, err := filepath.Abs(env.TypeScriptClient)
	if err != nil {
		return err
	}
	return os.Symlink(abs, link)
}

// checkOutput matches the expected lines, in order, against the output's
// lines, "..." standing for any text.
func checkOutput(expect []string, output string) error {
	lines := strings.Split(output, "\n")
	at := 0
	for _, e := range expect {
		parts := strings.Split(e, "...")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re := regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
		for at < len(lines) && !re.MatchString(strings.TrimSpace(lines[at])) {
			at++
		}
		if at == len(lines) {
			return fmt.Errorf("the output has no line %q (after the lines matched before it)", e)
		}
		at++
	}
	return nil
}
