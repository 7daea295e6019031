package edge

import (
	"encoding/json"
	"fmt"

	"github.com/creativeops/creativeops/apierror"
)

// MaxBodyDepth bounds how deeply a REST request body may nest objects and
// arrays before it is decoded at all: MaxJSONDepth levels of JSON values,
// plus the body's own object and room for the request's nested messages.
// Anything deeper would be refused by CheckText after decoding, but
// protojson decodes nesting recursively, two messages per level, growing
// the goroutine's stack as it goes: 10 KiB of brackets cost about 10 ms of
// CPU, before authentication and the rate limit, so one client sending
// them kept a core busy for everyone. The scan costs one pass over bytes.
const MaxBodyDepth = MaxJSONDepth + 8

// CheckBodyDepth refuses a JSON body nested deeper than MaxBodyDepth,
// naming the top-level field where it does.
func CheckBodyDepth(data []byte) *apierror.Error {
	field, deep := nestedBeyond(data, MaxBodyDepth)
	if !deep {
		return nil
	}
	if field == "" {
		field = "request"
	}
	return apierror.InvalidField(field, fmt.Sprintf("JSON nested deeper than %d levels", MaxJSONDepth))
}

// nestedBeyond reports whether data nests objects and arrays more than
// limit deep, and the key of the body's top-level member in which it does
// ("" when unknown). Brackets inside strings do not count. It does not
// check that data is valid JSON: the decoder does that, on what passes.
func nestedBeyond(data []byte, limit int) (field string, deep bool) {
	depth := 0
	inString, escaped := false, false
	keyStart := -1 // offset of the last string that began at depth 1
	var lastString []byte
	for i, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if keyStart >= 0 {
					lastString, keyStart = data[keyStart:i+1], -1
				}
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			if depth == 1 {
				keyStart = i
			}
		case ':':
			if depth == 1 && lastString != nil {
				field = ""
				_ = json.Unmarshal(lastString, &field)
			}
		case '{', '[':
			depth++
			if depth > limit {
				return field, true
			}
		case '}', ']':
			depth--
		}
	}
	return "", false
}
