package ipreg

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
)

// CheckWitnessCosignatures names the check of the checkpoint's witness
// cosignatures (verify --witness-key).
const CheckWitnessCosignatures = "witness_cosignatures"

// CheckCosignatures checks that at least min of the given witnesses
// (c2sp.org/tlog-cosignature verifier keys, each counted once) cosigned
// the signed checkpoint. A cosignature line under one of the keys that
// does not verify fails the check whatever the count: the checkpoint or
// the line was altered.
func CheckCosignatures(checkpoint string, witnessKeys []string, min int) Check {
	c := Check{Name: CheckWitnessCosignatures}
	fail := func(err error) Check { c.Detail = err.Error(); return c }
	if min < 1 {
		return fail(fmt.Errorf("--min-witnesses must be at least 1, got %d", min))
	}
	verifiers := map[string]*torchwood.CosignatureVerifier{}
	for _, k := range witnessKeys {
		v, err := ParseWitnessKey(k)
		if err != nil {
			return fail(err)
		}
		verifiers[v.String()] = v
	}
	if len(verifiers) < min {
		return fail(fmt.Errorf("%d witness key(s) given, %d cosignatures required", len(verifiers), min))
	}
	var ok, missing []string
	for _, id := range slices.Sorted(maps.Keys(verifiers)) {
		v := verifiers[id]
		n, err := note.Open([]byte(checkpoint), note.VerifierList(v))
		var unverified *note.UnverifiedNoteError
		switch {
		case errors.As(err, &unverified):
			missing = append(missing, v.Name())
		case err != nil:
			return fail(fmt.Errorf("cosignature of %s does not verify: %v", v.Name(), err))
		default:
			at := ""
			if ts, err := torchwood.CosignatureTimestamp(n.Sigs[0]); err == nil {
				at = " at " + time.Unix(ts, 0).UTC().Format(time.RFC3339)
			}
			ok = append(ok, v.Name()+at)
		}
	}
	if len(ok) < min {
		return fail(fmt.Errorf("%d of the %d required witnesses cosigned the checkpoint (no cosignature by %s)", len(ok), min, strings.Join(missing, ", ")))
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%d witness(es) cosigned (at least %d required): %s", len(ok), min, strings.Join(ok, "; "))
	return c
}

// Add appends a check to the report, which then passes only if it passed
// too.
func (r *Report) Add(c Check) {
	r.Checks = append(r.Checks, c)
	r.OK = len(r.Failed()) == 0
}
