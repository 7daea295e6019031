package edge

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"regexp"
	"strings"
)

// DebugHandler serves the Go runtime profiles, for --debug-addr. Its
// command line (/debug/pprof/cmdline) is args with the secrets an
// operator may pass as flags redacted: a profiler is opened to more
// people than the database.
func DebugHandler(args []string) http.Handler {
	cmdline := strings.Join(redactArgs(args), "\x00")
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = fmt.Fprint(w, cmdline)
	})
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// WarnPublicDebugAddr warns when the profiler listens beyond the machine:
// profiles show the program's memory and its stacks, to anyone who asks.
func WarnPublicDebugAddr(log *slog.Logger, addr net.Addr) {
	if a, ok := addr.(*net.TCPAddr); ok && a.IP.IsLoopback() {
		return
	}
	log.Warn("the profiler is reachable from other machines: bind --debug-addr to a loopback address (127.0.0.1:6060) unless a firewall keeps it private",
		"addr", addr.String())
}

const redacted = "REDACTED"

// redactArgs is a command line with its secrets replaced: the value of
// every flag whose name says it holds a secret, and the password of any
// URL or connection string (--database-url, --redis-url), whose host and
// database stay readable.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		isFlag := strings.HasPrefix(arg, "-") && i > 0
		switch {
		case isFlag && secretFlag(name) && hasValue:
			out[i] = arg[:len(arg)-len(value)] + redacted
		case isFlag && secretFlag(name) && i+1 < len(args):
			out[i], out[i+1] = arg, redacted
			i++
		case isFlag && hasValue:
			out[i] = arg[:len(arg)-len(value)] + redactPassword(value)
		default:
			out[i] = redactPassword(arg)
		}
	}
	return out
}

// secretFlag reports whether a flag's name says its value is a secret
// (not a file holding one: --master-key-file and --tls-key-file are
// paths).
func secretFlag(name string) bool {
	name = strings.ToLower(name)
	for _, word := range []string{"password", "passwd", "secret", "passphrase", "credential"} {
		if strings.Contains(name, word) {
			return true
		}
	}
	return name == "master-key" || name == "api-key" || name == "token" || strings.HasSuffix(name, "-token")
}

// dsnPassword matches a password in a key=value connection string
// (PostgreSQL's "host=db password=s3cret") or a URL's query.
var dsnPassword = regexp.MustCompile(`(?i)\b((?:ssl)?password|pass|secret)=('[^']*'|[^\s&]*)`)

// redactPassword hides the password of a URL's user information and any
// password parameter of a connection string.
func redactPassword(s string) string {
	if strings.Contains(s, "://") {
		if u, err := url.Parse(s); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), redacted)
				s = u.String()
			}
		} else if err != nil {
			// An unparsable URL may still carry "user:password@".
			if scheme, rest, ok := strings.Cut(s, "://"); ok {
				if at := strings.LastIndex(rest, "@"); at >= 0 && strings.Contains(rest[:at], ":") {
					user, _, _ := strings.Cut(rest[:at], ":")
					s = scheme + "://" + user + ":" + redacted + "@" + rest[at+1:]
				}
			}
		}
	}
	return dsnPassword.ReplaceAllString(s, "${1}="+redacted)
}
