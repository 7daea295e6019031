// Package ids makes resource ids: a type prefix and a lowercase ULID, so ids
// say what they name and sort by creation time.
package ids

import (
	"strings"

	"github.com/oklog/ulid/v2"
)

// Prefixes of every resource id.
const (
	Job          = "job"
	Creator      = "cr"
	IPRecord     = "ip"
	Certificate  = "cert"
	Webhook      = "wh"
	Event        = "evt"
	Delivery     = "whd"
	Key          = "key"
	Organization = "org"
	Session      = "ses"
	AuditEvent   = "aud"
	Plan         = "plan"
)

// New returns "<prefix>_<ulid>".
func New(prefix string) string {
	return prefix + "_" + strings.ToLower(ulid.Make().String())
}

// Valid reports whether s is a well-formed id with the given prefix.
func Valid(prefix, s string) bool {
	rest, ok := strings.CutPrefix(s, prefix+"_")
	if !ok || len(rest) != ulid.EncodedSize {
		return false
	}
	_, err := ulid.ParseStrict(strings.ToUpper(rest))
	return err == nil
}
