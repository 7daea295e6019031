package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/webhooks"
)

// usageError is a command line the program cannot act on: an unknown
// command or flag, a value out of range, an argument too many. It exits
// with status 2; failures of a well-formed command exit with 1.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// flagSet is one command's flags. A flag declared with env also reads
// CREATIVEOPS_<FLAG>; the command line overrides the environment. Every
// value is parsed strictly: a value that does not parse, or is out of
// range, stops the command with a message naming the flag or variable,
// the value and what is accepted.
type flagSet struct {
	*flag.FlagSet
	// synopsis is the usage line after "creativeops ".
	synopsis string
	// args is how many positional arguments the command takes.
	args     int
	envFlags []string // flags that read the environment, in declaration order
	// positional holds the arguments that are not flags, once parsed.
	positional []string
}

func newFlagSet(synopsis string, args int) *flagSet {
	name, _, _ := strings.Cut(synopsis, " [")
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse reports errors and prints help itself
	return &flagSet{FlagSet: fs, synopsis: synopsis, args: args}
}

func envName(flagName string) string {
	return "CREATIVEOPS_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// env declares a flag that the environment can set too.
func (f *flagSet) env(v flag.Value, name, help string) {
	f.Var(v, name, help+" (env "+envName(name)+")")
	f.envFlags = append(f.envFlags, name)
}

// envNames are the variables the flags read.
func (f *flagSet) envNames() []string {
	names := make([]string, len(f.envFlags))
	for i, name := range f.envFlags {
		names[i] = envName(name)
	}
	return names
}

// parse reads the environment, then args. Help (-h) is printed on stdout
// and reported as flag.ErrHelp, which the program exits 0 on.
func (f *flagSet) parse(args []string, stdout io.Writer) error {
	for _, name := range f.envFlags {
		if v, ok := os.LookupEnv(envName(name)); ok {
			if err := f.Set(name, v); err != nil {
				return usagef("%s=%q: %v", envName(name), v, err)
			}
		}
	}
	// Flags may come before or after the arguments (orgs create acme
	// --data-dir /srv/co); after "--" everything is an argument.
	f.positional = nil
	for rest := args; ; {
		err := f.Parse(rest)
		if errors.Is(err, flag.ErrHelp) {
			f.help(stdout)
			return flag.ErrHelp
		}
		if err != nil {
			return usagef("%s: %v (see creativeops %s -h)", f.Name(), err, f.Name())
		}
		rest = f.Args()
		if len(rest) == 0 {
			break
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			f.positional = append(f.positional, rest...)
			break
		}
		f.positional = append(f.positional, rest[0])
		rest = rest[1:]
	}
	if len(f.positional) > f.args {
		return usagef("%s: unexpected argument %q (see creativeops %s -h)", f.Name(), f.positional[f.args], f.Name())
	}
	if len(f.positional) < f.args {
		return usagef("usage: creativeops %s", f.synopsis)
	}
	return nil
}

// arg is the i-th positional argument.
func (f *flagSet) arg(i int) string { return f.positional[i] }

func (f *flagSet) help(w io.Writer) {
	fmt.Fprintf(w, "Usage: creativeops %s\n", f.synopsis)
	n := 0
	f.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nFlags:")
		f.SetOutput(w)
		f.PrintDefaults()
		f.SetOutput(io.Discard)
	}
}

// isSet reports whether the flag was given, on the command line or in the
// environment.
func (f *flagSet) isSet(name string) bool {
	set := false
	f.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// database declares --data-dir and --database-url and returns what they
// resolve to once parsed: the URL given, or the SQLite file in the data
// directory.
func (f *flagSet) database(dataDir *string) func() string {
	def := server.DefaultConfig()
	*dataDir = def.DataDir
	f.env(textValue{dataDir, nonEmpty("a directory path")}, "data-dir", "directory of every file the service keeps locally: the default SQLite database, the bootstrap key file")
	var dbURL string
	f.env(textValue{&dbURL, databaseURL}, "database-url", "database: sqlite://<path> or postgres://user@host/db (default sqlite://<data-dir>/creativeops.db)")
	return func() string {
		if f.isSet("database-url") {
			return dbURL
		}
		return sqliteURL(*dataDir)
	}
}

// sqliteURL is the default database of a data directory, written as the
// directory was given (./data stays ./data, as in DefaultConfig).
func sqliteURL(dataDir string) string {
	return "sqlite://" + strings.TrimSuffix(filepath.ToSlash(dataDir), "/") + "/creativeops.db"
}

// The flag.Value types below check a value as it is set, from the command
// line or the environment. Their errors say what is accepted; the flag
// package and parse add the flag's name and the value. Each must print its
// zero value (flag.PrintDefaults makes one), hence the nil checks.

type intValue struct {
	p   *int
	min int
}

func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v intValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want a whole number of at least %d", v.min)
	}
	if n < v.min {
		return fmt.Errorf("must be at least %d", v.min)
	}
	*v.p = n
	return nil
}

type floatValue struct{ p *float64 }

func (v floatValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v floatValue) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		return errors.New("want a positive number, such as 100 or 0.5")
	}
	*v.p = x
	return nil
}

type durationValue struct {
	p *time.Duration
	// zero is what 0 means, when it is accepted ("" when it is not).
	zero string
}

func (v durationValue) String() string {
	if v.p == nil {
		return "0s"
	}
	return v.p.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	accepted := "a positive duration with its unit, such as 30s, 5m or 1h30m"
	if v.zero != "" {
		accepted = "a duration with its unit, such as 30s, 5m or 1h30m, or 0 (" + v.zero + ")"
	}
	switch {
	case err != nil:
		return errors.New("want " + accepted)
	case d < 0, d == 0 && v.zero == "":
		return errors.New("must be " + strings.TrimPrefix(accepted, "a "))
	}
	*v.p = d
	return nil
}

type boolValue struct{ p *bool }

func (v boolValue) String() string {
	if v.p == nil {
		return "false"
	}
	return strconv.FormatBool(*v.p)
}

func (v boolValue) Set(s string) error {
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return errors.New("want true or false (or 1, 0, t, f)")
	}
	*v.p = b
	return nil
}

func (v boolValue) IsBoolFlag() bool { return true }

type textValue struct {
	p     *string
	check func(string) error
}

func (v textValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v textValue) Set(s string) error {
	if v.check != nil {
		if err := v.check(s); err != nil {
			return err
		}
	}
	*v.p = s
	return nil
}

// levelValue is a log level by name. slog's own parser also takes
// offsets (warn+2) that an operator would not expect to work.
type levelValue struct{ p *slog.Level }

func (v levelValue) String() string {
	if v.p == nil {
		return "info"
	}
	return strings.ToLower(v.p.String())
}

func (v levelValue) Set(s string) error {
	name := strings.ToLower(strings.TrimSpace(s))
	if err := oneOf("debug", "info", "warn", "error")(name); err != nil {
		return err
	}
	return v.p.UnmarshalText([]byte(name))
}

type scheduleValue struct{ p *webhooks.Schedule }

func (v scheduleValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v scheduleValue) Set(s string) error {
	sched, err := webhooks.ParseSchedule(s)
	if err != nil {
		return fmt.Errorf("%v (want comma-separated durations such as 0s,5s,5m)", err)
	}
	*v.p = sched
	return nil
}

func nonEmpty(what string) func(string) error {
	return func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("must not be empty: want " + what)
		}
		return nil
	}
}

func oneOf(values ...string) func(string) error {
	return func(s string) error {
		if !slices.Contains(values, s) {
			return fmt.Errorf("want one of %s", strings.Join(values, ", "))
		}
		return nil
	}
}

// listenAddr accepts host:port (the host may be empty: every interface),
// and the empty string when the listener is optional.
func listenAddr(optional bool) func(string) error {
	return func(s string) error {
		if s == "" && optional {
			return nil
		}
		host, port, err := net.SplitHostPort(s)
		if err == nil {
			var n int
			n, err = strconv.Atoi(port)
			if err == nil && (n < 0 || n > 65535) {
				err = errors.New("port out of range")
			}
			_ = host
		}
		if err != nil {
			want := "want host:port, such as :8080 or 127.0.0.1:8080"
			if optional {
				want += ", or empty (off)"
			}
			return errors.New(want)
		}
		return nil
	}
}

func databaseURL(s string) error {
	switch {
	case strings.HasPrefix(s, "sqlite://") && len(s) > len("sqlite://"):
		return nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		if _, err := url.Parse(s); err != nil {
			return fmt.Errorf("not a URL: %v", err)
		}
		return nil
	}
	return errors.New("want sqlite://<path> or postgres://user@host/db")
}

func redisURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
		return errors.New("want redis://host:port/db or rediss://..., or empty (each replica limits alone)")
	}
	return nil
}

// byteSizeValue is a number of bytes written as GOMEMLIMIT is: a whole
// number with an optional unit B, KiB, MiB, GiB or TiB. 0 means zero (none,
// for a limit).
type byteSizeValue struct {
	p    *int64
	zero string
}

// byteUnits are the units of byteSizeValue, largest first.
var byteUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

func (v byteSizeValue) String() string {
	if v.p == nil || *v.p < 0 {
		return ""
	}
	return formatBytes(*v.p)
}

func (v byteSizeValue) Set(s string) error {
	s = strings.TrimSpace(s)
	num, shift := s, uint(0)
	for _, u := range byteUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, shift = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return fmt.Errorf("want a size such as 120MiB or 1GiB (units B, KiB, MiB, GiB, TiB), or 0 (%s)", v.zero)
	}
	*v.p = n << shift
	return nil
}

// formatBytes writes n in the largest unit that divides it.
func formatBytes(n int64) string {
	for _, u := range byteUnits {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// formatLimit is a memory limit for the log: "none" for math.MaxInt64.
func formatLimit(n int64) string {
	if n == math.MaxInt64 {
		return "none"
	}
	return formatBytes(n)
}

// publicURL checks --public-url: the OAuth issuer, an http(s) origin with
// an optional path and nothing else.
func publicURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("want the URL clients reach the service at, such as https://api.example.com, without query or fragment")
	}
	return nil
}

// tokenLifetime checks --oauth-token-lifetime against the bounds of
// the oauth package.
type tokenLifetime struct{ durationValue }

func (v tokenLifetime) Set(s string) error {
	var d time.Duration
	if err := (durationValue{p: &d}).Set(s); err != nil {
		return err
	}
	if d < time.Minute || d > oauth.MaxTokenLifetime {
		return fmt.Errorf("must be between 1m and %s", oauth.MaxTokenLifetime)
	}
	*v.p = d
	return nil
}
