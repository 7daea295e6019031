package edge

import (
	"strings"
	"testing"
)

func deepArrays(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func TestNestedBeyond(t *testing.T) {
	for _, c := range []struct {
		name, body string
		limit      int
		field      string
		deep       bool
	}{
		{"flat", `{"name":"Nova","metadata":{"a":[1,2]}}`, 3, "", false},
		{"exactly the limit", `{"metadata":{"a":[[1]]}}`, 4, "", false},
		{"one past the limit", `{"name":"x","metadata":{"a":[[[1]]]}}`, 4, "metadata", true},
		{"brackets in strings do not count", `{"name":"[[[[[{{{{{","k":"\"[[[[[["}`, 2, "", false},
		{"escaped quote keeps the string open", `{"a":"\"[[[[","b":1}`, 2, "", false},
		{"key with escapes", `{"x\u0079":` + deepArrays(10) + `}`, 5, "xy", true},
		{"deep top level array", deepArrays(100), 40, "", true},
		{"field after a deep one is not blamed", `{"context":` + deepArrays(50) + `,"other":1}`, 40, "context", true},
	} {
		field, deep := nestedBeyond([]byte(c.body), c.limit)
		if field != c.field || deep != c.deep {
			t.Errorf("%s: got (%q, %v), want (%q, %v)", c.name, field, deep, c.field, c.deep)
		}
	}
}
