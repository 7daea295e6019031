package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// --memory-limit takes GOMEMLIMIT's syntax; anything else is refused,
// naming the flag or variable and what is accepted.
func TestServeMemoryLimitFlag(t *testing.T) {
	for _, c := range []struct {
		value string
		want  int64
	}{
		{"120MiB", 120 << 20},
		{"1GiB", 1 << 30},
		{"512KiB", 512 << 10},
		{"4096", 4096},
		{"4096B", 4096},
		{" 2TiB ", 2 << 40},
		{"0", 0},
	} {
		o, err := serveFlags([]string{"--memory-limit", c.value}, &bytes.Buffer{})
		if err != nil || o.memoryLimit != c.want {
			t.Errorf("--memory-limit %q: %d, %v; want %d", c.value, o.memoryLimit, err, c.want)
		}
	}
	o, err := serveFlags(nil, &bytes.Buffer{})
	if err != nil || o.memoryLimit != -1 {
		t.Errorf("no flag: %d, %v; want -1 (unset)", o.memoryLimit, err)
	}
	t.Setenv("CREATIVEOPS_MEMORY_LIMIT", "200MiB")
	if o, err := serveFlags(nil, &bytes.Buffer{}); err != nil || o.memoryLimit != 200<<20 {
		t.Errorf("CREATIVEOPS_MEMORY_LIMIT=200MiB: %d, %v", o.memoryLimit, err)
	}
	for _, bad := range []string{"120MB", "-1", "1.5GiB", "lots", "MiB", "9999999TiB"} {
		_, err := serveFlags([]string{"--memory-limit=" + bad}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "memory-limit") || !strings.Contains(err.Error(), "such as 120MiB") {
			t.Errorf("--memory-limit %q: %v", bad, err)
		}
	}
}

// The flag wins over GOMEMLIMIT; GOMEMLIMIT and GOGC, which the runtime
// applied before main, are kept; otherwise the default limit paces the
// collector with gcPercentWithLimit, and no limit means Go's default GOGC.
func TestGCSettings(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name       string
		flag       int64
		env        func(string) string
		limit      int64
		gcPercent  int
		setLimit   bool
		setPercent bool
	}{
		{"defaults", -1, env(), defaultMemoryLimit, gcPercentWithLimit, true, true},
		{"flag", 300 << 20, env(), 300 << 20, gcPercentWithLimit, true, true},
		{"flag over GOMEMLIMIT", 300 << 20, env("GOMEMLIMIT", "1GiB"), 300 << 20, gcPercentWithLimit, true, true},
		{"GOMEMLIMIT kept", -1, env("GOMEMLIMIT", "1GiB"), 0, gcPercentWithLimit, false, true},
		{"GOMEMLIMIT=off kept", -1, env("GOMEMLIMIT", "off"), 0, 100, false, true},
		{"GOMEMLIMIT and GOGC kept", -1, env("GOMEMLIMIT", "1GiB", "GOGC", "50"), 0, 0, false, false},
		{"GOGC kept", -1, env("GOGC", "200"), defaultMemoryLimit, 0, true, false},
		{"no limit", 0, env(), math.MaxInt64, 100, true, true},
		{"no limit, GOGC kept", 0, env("GOGC", "400"), math.MaxInt64, 0, true, false},
	} {
		limit, pct, setLimit, setPct := gcSettings(c.flag, c.env)
		if setLimit != c.setLimit || setPct != c.setPercent || (setLimit && limit != c.limit) || (setPct && pct != c.gcPercent) {
			t.Errorf("%s: limit %d (set %v), GOGC %d (set %v); want %d (%v), %d (%v)", c.name, limit, setLimit, pct, setPct, c.limit, c.setLimit, c.gcPercent, c.setPercent)
		}
	}
}
