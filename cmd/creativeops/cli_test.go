package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/buildinfo"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/server"
)

// cli runs the program as main does and returns its exit status and
// output.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = exitCode(run(context.Background(), args, &out, &errOut), &errOut)
	return code, out.String(), errOut.String()
}

// newDatabase is a new SQLite database made as an operator makes one:
// administration commands refuse a database that does not exist.
func newDatabase(t *testing.T) string {
	t.Helper()
	url := testdb.SQLiteURL(t)
	if code, _, errOut := cli(t, "migrate", "--database-url", url); code != 0 {
		t.Fatalf("migrate: exit %d, %q", code, errOut)
	}
	return url
}

// Help goes to stdout and exits 0, at every level; what cannot be acted
// on exits 2 with the reason on stderr.
func TestHelpAndExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		out  string // in stdout
		err  string // in stderr
	}{
		{[]string{"-h"}, 0, "Usage:", ""},
		{[]string{"--help"}, 0, "creativeops orgs create NAME", ""},
		{[]string{"help"}, 0, "creativeops version", ""},
		{[]string{"serve", "-h"}, 0, "CREATIVEOPS_JOB_TIMEOUT", ""},
		{[]string{"keys", "-h"}, 0, "Subcommands: create, list, revoke", ""},
		{[]string{"keys", "create", "-h"}, 0, "-scopes", ""},
		{[]string{"orgs", "--help"}, 0, "Subcommands: create, list", ""},
		{[]string{"orgs", "create", "-h"}, 0, "orgs create [flags] NAME", ""},
		{[]string{"ip", "-h"}, 0, "rotate-keys", ""},
		{[]string{"audit", "list", "-h"}, 0, "-installation", ""},
		{[]string{"verify", "-h"}, 0, "-bundle", ""},
		{[]string{"migrate", "-h"}, 0, "-data-dir", ""},
		{[]string{"version", "-h"}, 0, "Usage: creativeops version", ""},
		{nil, 2, "", "no command given"},
		{[]string{"serv"}, 2, "", `unknown command "serv"`},
		{[]string{"keys"}, 2, "", "keys needs a subcommand"},
		{[]string{"keys", "rotate"}, 2, "", `unknown keys subcommand "rotate"`},
		{[]string{"serve", "--no-such-flag"}, 2, "", "no-such-flag"},
		{[]string{"keys", "create", "--org", "acme"}, 2, "", "needs --scopes"},
		{[]string{"keys", "list"}, 2, "", "needs --org"},
		{[]string{"verify"}, 2, "", "needs --bundle"},
		{[]string{"orgs", "create"}, 2, "", "usage: creativeops orgs create"},
	} {
		code, out, errOut := cli(t, c.args...)
		if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.err) {
			t.Errorf("creativeops %s: exit %d, stdout %q, stderr %q; want exit %d, %q in stdout, %q in stderr",
				strings.Join(c.args, " "), code, out, errOut, c.code, c.out, c.err)
		}
		if c.code == 0 && errOut != "" {
			t.Errorf("creativeops %s: help wrote to stderr: %q", strings.Join(c.args, " "), errOut)
		}
	}
}

// No command takes an argument it would silently ignore.
func TestExtraArgumentsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"serve", "--data-dir", dir, "8080"},
		{"migrate", "--data-dir", dir, "now"},
		{"version", "--verbose"},
		{"version", "extra"},
		{"orgs", "list", "--data-dir", dir, "acme"},
		{"orgs", "create", "--data-dir", dir, "acme", "beta"},
		{"keys", "list", "--org", "acme", "--data-dir", dir, "extra"},
		{"keys", "create", "--org", "acme", "--scopes", "*", "--data-dir", dir, "--name", "a", "b"},
		{"keys", "revoke", "--org", "acme", "--data-dir", dir, "--id", "key_1", "key_2"},
		{"ip", "rotate-keys", "--data-dir", dir, "now"},
		{"verify", "--bundle", "b.json", "w.pdf"},
	} {
		code, _, errOut := cli(t, args...)
		if code != 2 || !(strings.Contains(errOut, "unexpected argument") || strings.Contains(errOut, "flag provided but not defined")) {
			t.Errorf("creativeops %s: exit %d, %q; want exit 2 refusing the extra argument", strings.Join(args, " "), code, errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := cli(t, "version")
	bi := buildinfo.Read()
	if code != 0 || out != bi.String()+"\n" {
		t.Fatalf("version: exit %d, %q; want %q", code, out, bi.String())
	}
	for _, want := range []string{bi.Version, "commit " + bi.Commit, bi.GoVersion} {
		if want == "" || !strings.Contains(out, want) {
			t.Errorf("version output %q lacks %q", out, want)
		}
	}
}

// Every value of serve is checked before anything starts: the message
// names the flag or variable, the value and what is accepted.
func TestServeConfigStrict(t *testing.T) {
	for _, c := range []struct {
		env, value string
		want       string // what is accepted
	}{
		{"CREATIVEOPS_WORKERS", "abc", "whole number"},
		{"CREATIVEOPS_WORKERS", "0", "at least 1"},
		{"CREATIVEOPS_WEBHOOK_WORKERS", "-3", "at least 1"},
		{"CREATIVEOPS_JOB_TIMEOUT", "5", "with its unit"},
		{"CREATIVEOPS_JOB_TIMEOUT", "0s", "positive duration"},
		{"CREATIVEOPS_ANALYTICS_FLUSH_INTERVAL", "-1s", "positive duration"},
		{"CREATIVEOPS_ANALYTICS_RETENTION", "90d", "or 0"},
		{"CREATIVEOPS_ANALYTICS_RETENTION", "-1h", "or 0"},
		{"CREATIVEOPS_ALLOW_INSECURE_WEBHOOKS", "yes", "true or false"},
		{"CREATIVEOPS_ANALYTICS", "on", "true or false"},
		{"CREATIVEOPS_RATE_LIMIT", "0", "positive number"},
		{"CREATIVEOPS_RATE_LIMIT", "Inf", "positive number"},
		{"CREATIVEOPS_RATE_LIMIT", "NaN", "positive number"},
		{"CREATIVEOPS_RATE_LIMIT", "fast", "positive number"},
		{"CREATIVEOPS_RATE_LIMIT_BURST", "0", "at least 1"},
		{"CREATIVEOPS_LOG_FORMAT", "yaml", "json, text"},
		{"CREATIVEOPS_RATES_FILE", "/nonexistent/eurofxref.csv", "rate table"},
		{"CREATIVEOPS_HTTP_ADDR", "8080", "host:port"},
		{"CREATIVEOPS_HTTP_ADDR", "", "host:port"},
		{"CREATIVEOPS_GRPC_ADDR", "localhost", "host:port"},
		{"CREATIVEOPS_DEBUG_ADDR", "127.0.0.1:99999", "host:port"},
		{"CREATIVEOPS_DATABASE_URL", "mysql://db", "sqlite://<path> or postgres://"},
		{"CREATIVEOPS_DATABASE_URL", "sqlite://", "sqlite://<path>"},
		{"CREATIVEOPS_DATA_DIR", " ", "directory"},
		{"CREATIVEOPS_REDIS_URL", "localhost:6379", "redis://"},
		{"CREATIVEOPS_WEBHOOK_RETRY_SCHEDULE", "0s,5", "comma-separated durations"},
		{"CREATIVEOPS_WEBHOOK_RETRY_SCHEDULE", "0s,-5s", "comma-separated durations"},
		{"CREATIVEOPS_SESSION_IDLE", "12", "with its unit"},
		{"CREATIVEOPS_SESSION_MAX", "0s", "positive duration"},
		{"CREATIVEOPS_SIGN_IN_LIMIT", "0", "at least 1"},
		{"CREATIVEOPS_CORS_ALLOWED_ORIGINS", "app.example.com", "scheme://host[:port]"},
		{"CREATIVEOPS_CORS_ALLOWED_ORIGINS", "https://app.example.com/", "scheme://host[:port]"},
		{"CREATIVEOPS_CORS_ALLOWED_ORIGINS", "*,https://app.example.com", `"*" allows every origin and goes alone`},
		{"CREATIVEOPS_CORS_ALLOWED_ORIGINS", "https://app.*.com", "only start the host"},
		{"CREATIVEOPS_WITNESS", "https://witness.example", "VKEY@URL"},
		{"CREATIVEOPS_WITNESS", "witness.example/w1+7e136b5c+BAAB@https://witness.example", "tlog-cosignature verifier key"},
		{"CREATIVEOPS_WITNESS", testWitnessKey + "@ftp://witness.example", "http:// or https://"},
		{"CREATIVEOPS_WITNESS", testWitnessKey + "@https://a.example " + testWitnessKey + "@https://b.example", "given twice"},
	} {
		t.Run(c.env+"="+c.value, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			_, _, err := serveConfig(nil, &bytes.Buffer{})
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			for _, want := range []string{c.env, `"` + c.value + `"`, c.want} {
				if !strings.Contains(msg, want) {
					t.Errorf("%q does not say %q", msg, want)
				}
			}
			// The same value on the command line is refused alike.
			flagName := "--" + strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(c.env, "CREATIVEOPS_")), "_", "-")
			os.Unsetenv(c.env)
			_, _, err = serveConfig([]string{flagName + "=" + c.value}, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(flagName, "-")) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s=%s: %v", flagName, c.value, err)
			}
		})
	}
}

// The defaults are server.DefaultConfig's; the database follows
// --data-dir unless --database-url is given; the command line overrides
// the environment.
func TestServeConfigDefaults(t *testing.T) {
	cfg, format, err := serveConfig(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	def := server.DefaultConfig()
	if cfg.HTTPAddr != def.HTTPAddr || cfg.Workers != def.Workers || cfg.JobTimeout != def.JobTimeout ||
		cfg.RateLimit != def.RateLimit || cfg.AnalyticsRetention != def.AnalyticsRetention ||
		cfg.DatabaseURL != def.DatabaseURL || cfg.DataDir != def.DataDir || format != "json" ||
		cfg.RescueAfter != 2*def.JobTimeout || cfg.DisableAnalytics ||
		cfg.Sessions != def.Sessions || cfg.SignInLimit != def.SignInLimit {
		t.Fatalf("defaults %+v differ from server.DefaultConfig %+v", cfg, def)
	}
	t.Setenv("CREATIVEOPS_DATA_DIR", "/srv/co")
	t.Setenv("CREATIVEOPS_WORKERS", "3")
	cfg, _, err = serveConfig([]string{"--workers", "5", "--analytics=false", "--rate-limit", "0.5"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DatabaseURL != "sqlite:///srv/co/creativeops.db" || cfg.Workers != 5 || !cfg.DisableAnalytics || cfg.RateLimit.RequestsPerSecond != 0.5 {
		t.Fatalf("got database %q, workers %d, analytics off %v, rate %v", cfg.DatabaseURL, cfg.Workers, cfg.DisableAnalytics, cfg.RateLimit.RequestsPerSecond)
	}
	cfg, _, err = serveConfig([]string{"--database-url", "postgres://db/co"}, &bytes.Buffer{})
	if err != nil || cfg.DatabaseURL != "postgres://db/co" {
		t.Fatalf("explicit database: %q, %v", cfg.DatabaseURL, err)
	}
	cfg, _, err = serveConfig([]string{"--session-idle", "30m", "--session-max", "8h", "--sign-in-limit", "120"}, &bytes.Buffer{})
	if err != nil || cfg.Sessions.Idle != 30*time.Minute || cfg.Sessions.Max != 8*time.Hour ||
		cfg.SignInLimit.Burst != 120 || cfg.SignInLimit.RequestsPerSecond != 2 {
		t.Fatalf("session flags: %+v %+v, %v", cfg.Sessions, cfg.SignInLimit, err)
	}
	if _, _, err = serveConfig([]string{"--session-idle", "9h", "--session-max", "8h"}, &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), "--session-idle") {
		t.Fatalf("an idle lifetime beyond the maximum: %v", err)
	}
	if len(cfg.CORSAllowedOrigins) != 0 {
		t.Fatalf("CORS origins %q by default, want none", cfg.CORSAllowedOrigins)
	}
	cfg, _, err = serveConfig([]string{"--cors-allowed-origins", "https://app.example.com, http://localhost:5173,https://*.example.org"}, &bytes.Buffer{})
	if want := []string{"https://app.example.com", "http://localhost:5173", "https://*.example.org"}; err != nil || !slices.Equal(cfg.CORSAllowedOrigins, want) {
		t.Fatalf("CORS origins %q, %v; want %q", cfg.CORSAllowedOrigins, err, want)
	}
	if len(cfg.TrustedProxies) != 0 {
		t.Fatalf("trusted proxies %q by default, want none", cfg.TrustedProxies)
	}
	cfg, _, err = serveConfig([]string{"--trusted-proxies", "10.0.0.0/8, 192.0.2.10,fd00::/8"}, &bytes.Buffer{})
	if want := []string{"10.0.0.0/8", "192.0.2.10", "fd00::/8"}; err != nil || !slices.Equal(cfg.TrustedProxies, want) {
		t.Fatalf("trusted proxies %q, %v; want %q", cfg.TrustedProxies, err, want)
	}
	t.Setenv("CREATIVEOPS_TRUSTED_PROXIES", "172.16.0.0/12")
	cfg, _, err = serveConfig(nil, &bytes.Buffer{})
	if err != nil || !slices.Equal(cfg.TrustedProxies, []string{"172.16.0.0/12"}) {
		t.Fatalf("trusted proxies from the environment: %q, %v", cfg.TrustedProxies, err)
	}
	if _, _, err = serveConfig([]string{"--trusted-proxies", "10.0.0.0/33"}, &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), "trusted-proxies") || !strings.Contains(err.Error(), "10.0.0.0/33") {
		t.Fatalf("a malformed prefix: %v", err)
	}
}

// Organizations are made by orgs create alone: keys commands refuse a
// name that matches none, saying how to create it, and create nothing.
func TestKeysRefuseUnknownOrganization(t *testing.T) {
	url := newDatabase(t)
	if code, out, errOut := cli(t, "orgs", "create", "--database-url", url, "acme"); code != 0 || !strings.HasPrefix(out, "org_") {
		t.Fatalf("orgs create: exit %d, %q, %q", code, out, errOut)
	}
	if code, _, errOut := cli(t, "orgs", "create", "--database-url", url, "acme"); code != 1 || !strings.Contains(errOut, `organization "acme" already exists`) {
		t.Fatalf("second orgs create: exit %d, %q", code, errOut)
	}
	for _, args := range [][]string{
		{"keys", "create", "--org", "acme-typo", "--scopes", "*"},
		{"keys", "list", "--org", "acme-typo"},
		{"keys", "revoke", "--org", "acme-typo", "--id", "key_1"},
	} {
		code, out, errOut := cli(t, append(args, "--database-url", url)...)
		if code != 1 || out != "" || !strings.Contains(errOut, `no organization named "acme-typo"`) || !strings.Contains(errOut, "creativeops orgs create acme-typo") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errOut)
		}
	}
	code, out, _ := cli(t, "orgs", "list", "--database-url", url)
	if code != 0 || !strings.Contains(out, "acme") || strings.Contains(out, "acme-typo") {
		t.Fatalf("orgs list: exit %d\n%s", code, out)
	}
}

// Command-line key changes are audited with the operator as actor and
// transport cli, and audit list shows them, newest first, never a secret.
func TestAuditListShowsCLIChanges(t *testing.T) {
	url := newDatabase(t)
	if code, _, errOut := cli(t, "orgs", "create", "--database-url", url, "acme"); code != 0 {
		t.Fatalf("orgs create: exit %d, %q", code, errOut)
	}
	code, secret, errOut := cli(t, "keys", "create", "--database-url", url, "--org", "acme", "--scopes", "ip:read", "--name", "deploy")
	if code != 0 {
		t.Fatalf("keys create: exit %d, %q", code, errOut)
	}
	secret = strings.TrimSpace(secret)
	_, list, _ := cli(t, "keys", "list", "--database-url", url, "--org", "acme")
	keyID := strings.Fields(strings.Split(list, "\n")[1])[0]
	if code, _, errOut := cli(t, "keys", "revoke", "--database-url", url, "--org", "acme", "--id", keyID); code != 0 {
		t.Fatalf("keys revoke: exit %d, %q", code, errOut)
	}
	code, out, errOut := cli(t, "audit", "list", "--database-url", url, "--org", "acme")
	if code != 0 {
		t.Fatalf("audit list: exit %d, %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a header and 3 events:\n%s", out)
	}
	for i, want := range []string{"key.revoked", "key.created", "organization.created"} {
		f := strings.Fields(lines[i+1])
		if f[1] != want || !strings.HasPrefix(f[2], "cli:") || f[5] != "cli" {
			t.Errorf("line %d: want %s by cli:<user> over cli: %q", i+1, want, lines[i+1])
		}
	}
	if !strings.Contains(lines[1], "api_key "+keyID) || !strings.Contains(lines[2], "name=deploy scopes=ip:read") {
		t.Errorf("events do not name the key and its scopes:\n%s", out)
	}
	if strings.Contains(out, secret) || strings.Contains(out, "co_live_") {
		t.Errorf("audit list shows a secret:\n%s", out)
	}
	if code, out, _ := cli(t, "audit", "list", "--database-url", url, "--org", "acme", "--action", "key.created", "--limit", "1"); code != 0 ||
		strings.Count(out, "\n") != 2 || !strings.Contains(out, "key.created") {
		t.Errorf("audit list --action key.created --limit 1: exit %d\n%s", code, out)
	}
	if code, out, _ := cli(t, "audit", "list", "--database-url", url, "--installation"); code != 0 || strings.Count(out, "\n") != 1 {
		t.Errorf("audit list --installation: exit %d, want the header alone\n%s", code, out)
	}
	for _, args := range [][]string{
		{"audit", "list"},
		{"audit", "list", "--org", "acme", "--installation"},
		{"audit", "list", "--org", "acme", "--action", "key.stolen"},
		{"audit", "list", "--org", "acme", "--limit", "0"},
		{"audit", "list", "--org", "acme", "--limit", "10001"},
	} {
		if code, _, _ := cli(t, append(args, "--database-url", url)...); code != 2 {
			t.Errorf("%s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}

// Only serve and migrate create a database, and never its directories
// outside --data-dir: an administration command run in the wrong
// directory, or given a mistyped path, fails naming the path and leaves
// nothing behind.
func TestOnlyServeAndMigrateCreateDatabases(t *testing.T) {
	tmp := t.TempDir()
	dataDir := filepath.Join(tmp, "data")
	for _, args := range [][]string{
		{"orgs", "list", "--data-dir", dataDir},
		{"orgs", "create", "--data-dir", dataDir, "acme"},
		{"keys", "list", "--org", "acme", "--database-url", "sqlite://" + filepath.Join(tmp, "typo.db")},
		{"audit", "list", "--installation", "--data-dir", dataDir},
	} {
		code, _, errOut := cli(t, args...)
		if code != 1 || !strings.Contains(errOut, "does not exist") || !strings.Contains(errOut, tmp) {
			t.Errorf("%v: exit %d, %q: want a failure naming the database", args, code, errOut)
		}
	}
	mistyped := filepath.Join(tmp, "no", "such", "dir", "x.db")
	code, _, errOut := cli(t, "migrate", "--data-dir", dataDir, "--database-url", "sqlite://"+mistyped)
	if code != 1 || !strings.Contains(errOut, filepath.Dir(mistyped)) {
		t.Errorf("migrate to a mistyped path: exit %d, %q", code, errOut)
	}
	// Bounded: a serve that does start serves until canceled.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var serveErr bytes.Buffer
	code = exitCode(run(ctx, []string{"serve", "--http-addr", "127.0.0.1:0", "--data-dir", dataDir, "--database-url", "sqlite://" + mistyped}, io.Discard, &serveErr), &serveErr)
	if code != 1 || !strings.Contains(serveErr.String(), filepath.Dir(mistyped)) {
		t.Errorf("serve on a mistyped path: exit %d, %q", code, serveErr.String())
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 || entries[0].Name() != "data" {
		t.Errorf("the failed commands left %v in %s", entries, tmp)
	}
	if entries, _ := os.ReadDir(dataDir); len(entries) != 0 {
		t.Errorf("the failed commands left %v in the data directory", entries)
	}
	// migrate makes the data directory's database, and says so.
	code, _, errOut = cli(t, "migrate", "--data-dir", filepath.Join(dataDir, "fresh"))
	db := filepath.Join(dataDir, "fresh", "creativeops.db")
	if code != 0 || !strings.Contains(errOut, "level=WARN") || !strings.Contains(errOut, db) {
		t.Fatalf("migrate a new data directory: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := cli(t, "orgs", "list", "--data-dir", filepath.Join(dataDir, "fresh")); code != 0 {
		t.Fatalf("orgs list once it exists: exit %d, %q", code, errOut)
	}
	if code, _, errOut := cli(t, "migrate", "--data-dir", filepath.Join(dataDir, "fresh")); code != 0 || strings.Contains(errOut, "WARN") {
		t.Fatalf("migrate an existing database: exit %d, %q", code, errOut)
	}
}
