package main

import (
	"log/slog"
	"slices"
	"strings"

	"github.com/agext/levenshtein"
)

// otherEnv are CREATIVEOPS_* variables that programs beside serve read
// from the same environment: the clients' examples, the dashboard's
// development server and the test harnesses. They are not typos.
var otherEnv = []string{
	"CREATIVEOPS_URL", "CREATIVEOPS_KEY", "CREATIVEOPS_CLIENT_ID", "CREATIVEOPS_CLIENT_SECRET",
	"CREATIVEOPS_CHROMIUM", "CREATIVEOPS_BROWSER_LOG", "CREATIVEOPS_CLUSTER_BIN", "CREATIVEOPS_CLUSTERTEST_SERVE",
	"CREATIVEOPS_WRITE_FUZZ_SEEDS",
}

// otherEnvPrefixes are families of variables the test harnesses read.
var otherEnvPrefixes = []string{"CREATIVEOPS_TEST_", "CREATIVEOPS_E2E_"}

// unknownVariable is a CREATIVEOPS_* variable nothing reads, with the
// known one it is most likely a misspelling of ("" when none is close).
type unknownVariable struct{ name, suggestion string }

// unknownEnv finds the CREATIVEOPS_* variables of environ that are neither
// in known nor read by the project's other programs. A misspelt variable
// (CREATIVEOPS_LOGLEVEL) is otherwise silently ignored, and the operator
// believes a setting is in force that is not.
func unknownEnv(environ, known []string) []unknownVariable {
	var out []unknownVariable
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "CREATIVEOPS_") || slices.Contains(known, name) || slices.Contains(otherEnv, name) ||
			slices.ContainsFunc(otherEnvPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		out = append(out, unknownVariable{name: name, suggestion: closestName(name, known)})
	}
	return out
}

// closestName is the name of known fewest edits away from name; "" when
// none is near.
func closestName(name string, known []string) string {
	best, bestDist := "", 0
	suffix := strings.TrimPrefix(name, "CREATIVEOPS_")
	// Up to a third of the name after the prefix may differ: enough for a
	// typo or a dropped word, not so much that any name matches.
	limit := max(1, len(suffix)/3)
	for _, k := range known {
		d := levenshtein.Distance(suffix, strings.TrimPrefix(k, "CREATIVEOPS_"), nil)
		if d <= limit && (best == "" || d < bestDist) {
			best, bestDist = k, d
		}
	}
	return best
}

// warnUnknownEnv logs each unknown variable of environ.
func warnUnknownEnv(log *slog.Logger, environ, known []string) {
	for _, u := range unknownEnv(environ, known) {
		if u.suggestion == "" {
			log.Warn("unknown variable ignored", "variable", u.name)
			continue
		}
		log.Warn("unknown variable ignored: did you mean "+u.suggestion+"?", "variable", u.name, "did_you_mean", u.suggestion)
	}
}
