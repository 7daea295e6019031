package ipreg

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CheckExternalTimestamp names the check of the i-th (from 1) external
// timestamp of a bundle.
func CheckExternalTimestamp(i int) string { return fmt.Sprintf("external_timestamp[%d]", i) }

// VerifyExternal checks a bundle's timestamps from independent authorities
// offline and returns one check per authority, in the bundle's order.
//
// caPEM holds the authorities' CA certificates (PEM, any number): a token
// must chain to one of them. With no caPEM, a token is checked against the
// certificate it carries only: that proves it intact but not that the
// authority made it, so the check is reported skipped and says so, never
// ok. A pending or failed timestamp is reported skipped: the certificate
// has no token from that authority, and the registry's own proof stands
// alone.
func VerifyExternal(b Bundle, caPEM []byte) ([]Check, error) {
	var roots *x509.CertPool
	if len(bytes.TrimSpace(caPEM)) > 0 {
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(caPEM) {
			return nil, errors.New("no certificate in the timestamp authorities' CA PEM")
		}
	}
	rec, recErr := ParseRecord(b.Record)
	digest := sha256.Sum256(b.Record)
	var checks []Check
	for i, et := range b.ExternalTimestamps {
		c := Check{Name: CheckExternalTimestamp(i + 1)}
		fail := func(format string, args ...any) {
			c.OK, c.Detail = false, et.AuthorityURL+": "+fmt.Sprintf(format, args...)
		}
		switch et.Status {
		case ExternalPending:
			c.OK, c.Skipped = true, true
			c.Detail = et.AuthorityURL + ": pending: the authority's token has not been fetched yet"
			if et.Error != "" {
				c.Detail += " (last attempt: " + et.Error + ")"
			}
		case ExternalFailed:
			c.OK, c.Skipped = true, true
			c.Detail = et.AuthorityURL + ": failed: the authority gave no token (" + et.Error + ")"
		case ExternalOK:
			info, _, err := verifyExternalToken(et.Token, roots)
			switch {
			case err != nil:
				fail("%v", err)
			case !bytes.Equal(info.Digest, digest[:]):
				fail("token stamps %x, record hashes to %x", info.Digest, digest)
			case recErr != nil:
				fail("record unreadable: %v", recErr)
			case et.GenTime != nil && !et.GenTime.Equal(info.GenTime):
				fail("token time %s, bundle shows %s", info.GenTime.Format(time.RFC3339), et.GenTime.Format(time.RFC3339))
			case info.GenTime.Before(rec.Timestamp.Add(-ExternalTimeTolerance)):
				fail("token time %s is before the record's time %s by more than %s", info.GenTime.Format(time.RFC3339), rec.Timestamp.Format(time.RFC3339), ExternalTimeTolerance)
			default:
				c.OK = true
				after := info.GenTime.Sub(rec.Timestamp)
				var when string
				if after > ExternalTimeTolerance {
					when = fmt.Sprintf("proves the record existed by %s only, %s after its registration", info.GenTime.Format(time.RFC3339), after.Round(time.Second))
				} else {
					when = fmt.Sprintf("stamps sha256(record) at %s, within %s of the record's time", info.GenTime.Format(time.RFC3339), ExternalTimeTolerance)
				}
				c.Detail = fmt.Sprintf("%s: signed by %q, serial %s, %s", et.AuthorityURL, info.Signer.Subject.String(), info.Serial, when)
				if roots == nil {
					c.Skipped = true
					c.Detail = "UNCHECKED signer (no --tsa-ca): " + c.Detail + "; the token is intact, but only a pinned CA shows the authority made it"
				}
			}
		default:
			fail("unknown status %q", et.Status)
		}
		checks = append(checks, c)
	}
	return checks, nil
}

// WithChecks appends checks to a report and recomputes its outcome.
func (r Report) WithChecks(checks ...Check) (Report, error) {
	r.Checks = append(append([]Check(nil), r.Checks...), checks...)
	failed := r.Failed()
	r.OK = len(failed) == 0
	if !r.OK {
		return r, fmt.Errorf("ipreg: certificate verification failed: %s", strings.Join(failed, ", "))
	}
	return r, nil
}
