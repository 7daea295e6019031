package edge

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	connectcors "connectrpc.com/cors"
	"github.com/rs/cors"
)

// corsMaxAge is how long a browser may cache a preflight answer (2 hours,
// Chromium's upper bound).
const corsMaxAge = 7200

// CheckCORSOrigins validates the origins given to --cors-allowed-origins:
// "*" alone (any origin), or origins such as https://app.example.com or
// http://localhost:5173 — a scheme, a host, an optional port, nothing else
// — where the host may start with one "*." for every subdomain.
func CheckCORSOrigins(origins []string) error {
	if slices.Contains(origins, "*") {
		if len(origins) > 1 {
			return errors.New(`"*" allows every origin and goes alone`)
		}
		return nil
	}
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("origin %q: want scheme://host[:port], such as https://app.example.com", o)
		}
		if host := strings.TrimPrefix(u.Host, "*."); strings.Contains(host, "*") {
			return fmt.Errorf("origin %q: a wildcard may only start the host (https://*.example.com)", o)
		}
	}
	return nil
}

// WithCORS lets pages of the allowed origins call REST, Connect and
// gRPC-Web from a browser. Preflights are answered here, before
// authentication; actual requests go through the chain as any other.
// Credentials (cookies) are never allowed: a page authenticates with its
// Authorization header, which is why "*" is safe to offer. With no
// origins, h is returned as is and browsers keep the same-origin rule.
func WithCORS(origins []string, h http.Handler) http.Handler {
	if len(origins) == 0 {
		return h // rs/cors would take an empty list as "*"
	}
	c := cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodDelete},
		AllowedHeaders: append(connectcors.AllowedHeaders(),
			"Authorization", "Idempotency-Key", "X-Request-Id"),
		ExposedHeaders: append(connectcors.ExposedHeaders(),
			// What the clients read: the request id quoted in errors,
			// the wait before a retry, the job to poll after a 202,
			// the key's limits, an idempotent replay.
			"X-Request-Id", "Retry-After", "Location", "RateLimit", "RateLimit-Policy",
			"Idempotent-Replayed", "Idempotent-Redacted"),
		MaxAge:           corsMaxAge,
		AllowCredentials: false,
	})
	return c.Handler(h)
}
