package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/internal/buildinfo"
)

// --version and -v are version, as operators type them.
func TestVersionFlags(t *testing.T) {
	want := buildinfo.Read().String() + "\n"
	for _, arg := range []string{"--version", "-version", "-v"} {
		code, out, errOut := cli(t, arg)
		if code != 0 || out != want || errOut != "" {
			t.Errorf("creativeops %s: exit %d, stdout %q, stderr %q; want %q", arg, code, out, errOut, want)
		}
	}
}

// help COMMAND is COMMAND -h, at every depth; an unknown command is
// refused as it would be without help.
func TestHelpCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		out  string // in stdout
		err  string // in stderr
	}{
		{[]string{"help", "keys", "create"}, 0, "-scopes", ""},
		{[]string{"help", "keys"}, 0, "Subcommands: create, list, revoke", ""},
		{[]string{"help", "serve"}, 0, "CREATIVEOPS_LOG_LEVEL", ""},
		{[]string{"help", "version"}, 0, "Usage: creativeops version", ""},
		{[]string{"help", "serv"}, 2, "", `unknown command "serv"`},
		{[]string{"help", "keys", "rotate"}, 2, "", `unknown keys subcommand "rotate"`},
	} {
		code, out, errOut := cli(t, c.args...)
		if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.err) {
			t.Errorf("creativeops %s: exit %d, stdout %q, stderr %q; want exit %d, %q in stdout, %q in stderr",
				strings.Join(c.args, " "), code, out, errOut, c.code, c.out, c.err)
		}
		if strings.Contains(out, "Usage:\n  creativeops serve") {
			t.Errorf("creativeops %s printed the top-level help", strings.Join(c.args, " "))
		}
	}
}

func TestLogLevel(t *testing.T) {
	o, err := serveFlags(nil, &bytes.Buffer{})
	if err != nil || o.logLevel != slog.LevelInfo {
		t.Fatalf("default level %v, %v; want info", o.logLevel, err)
	}
	t.Setenv("CREATIVEOPS_LOG_LEVEL", "DEBUG")
	if o, err = serveFlags(nil, &bytes.Buffer{}); err != nil || o.logLevel != slog.LevelDebug {
		t.Fatalf("CREATIVEOPS_LOG_LEVEL=DEBUG: %v, %v", o.logLevel, err)
	}
	// The command line overrides the environment.
	if o, err = serveFlags([]string{"--log-level", "warn"}, &bytes.Buffer{}); err != nil || o.logLevel != slog.LevelWarn {
		t.Fatalf("--log-level warn: %v, %v", o.logLevel, err)
	}
	for _, bad := range []string{"verbose", "warn+1", "4"} {
		t.Setenv("CREATIVEOPS_LOG_LEVEL", bad)
		_, err := serveFlags(nil, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "CREATIVEOPS_LOG_LEVEL") || !strings.Contains(err.Error(), "debug, info, warn, error") {
			t.Errorf("CREATIVEOPS_LOG_LEVEL=%s: %v; want a refusal naming the variable and the levels", bad, err)
		}
	}

	var buf bytes.Buffer
	log := newLogger("text", slog.LevelWarn, &buf)
	log.Info("chatter")
	log.Warn("attention")
	if got := buf.String(); strings.Contains(got, "chatter") || !strings.Contains(got, "attention") {
		t.Fatalf("at warn the log holds %q; want the warning alone", got)
	}
	buf.Reset()
	newLogger("json", slog.LevelDebug, &buf).Debug("detail")
	if !strings.Contains(buf.String(), `"msg":"detail"`) {
		t.Fatalf("at debug the JSON log holds %q", buf.String())
	}
}

// A misspelt variable is reported with the one it most likely means;
// the variables serve reads, and those of the project's other programs,
// are not.
func TestUnknownEnvWarned(t *testing.T) {
	o, err := serveFlags(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{
		"CREATIVEOPS_LOGLEVEL=debug",
		"CREATIVEOPS_HTTP_ADR=:9090",
		"creativeops_workers=3",
		"CREATIVEOPS_FROBNICATE=1",
		"CREATIVEOPS_LOG_LEVEL=info",
		"CREATIVEOPS_DATABASE_URL=sqlite://x",
		"CREATIVEOPS_TEST_POSTGRES_URL=postgres://db/test",
		"CREATIVEOPS_KEY=secret",
		"HOME=/root",
		"LOGLEVEL=debug",
	}
	got := unknownEnv(environ, o.envNames)
	want := []unknownVariable{
		{"CREATIVEOPS_LOGLEVEL", "CREATIVEOPS_LOG_LEVEL"},
		{"CREATIVEOPS_HTTP_ADR", "CREATIVEOPS_HTTP_ADDR"},
		{"CREATIVEOPS_FROBNICATE", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("unknown variables %q; want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("unknown variable %d: %q; want %q", i, got[i], want[i])
		}
	}

	var buf bytes.Buffer
	warnUnknownEnv(newLogger("json", slog.LevelInfo, &buf), environ, o.envNames)
	if !strings.Contains(buf.String(), `"level":"WARN","msg":"unknown variable ignored: did you mean CREATIVEOPS_LOG_LEVEL?","variable":"CREATIVEOPS_LOGLEVEL"`) {
		t.Fatalf("warnings %s lack the misspelt log level", buf.String())
	}
}

// The image, the Helm chart and the systemd unit set serve's variables by
// name; a name serve does not read would be warned about and ignored in
// production.
func TestDeployFilesNameServeVariables(t *testing.T) {
	o, err := serveFlags(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../deploy/helm/creativeops/templates/*")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../../deploy/helm/creativeops/values.yaml", "../../deploy/systemd/creativeops.service", "../../deploy/image/main.go")
	names := regexp.MustCompile(`CREATIVEOPS_[A-Z0-9_]+`)
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names.FindAllString(string(b), -1) {
			seen++
			if !slices.Contains(o.envNames, name) {
				t.Errorf("%s sets %s, which serve does not read", f, name)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("only %d variables found in %q", seen, files)
	}
}
