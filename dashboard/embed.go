// Package dashboard serves the developer dashboard: the single-page app
// built into dist/ (make dashboard), embedded in the binary, under
// /dashboard/ with its security headers (handler.go), and its session
// API (sessions.go), which trades an API key or an OAuth client's
// credentials for a session cookie and CSRF token the API then accepts.
package dashboard

import "embed"

// dist is the built UI: index.html and the content-hashed assets/ Vite
// writes. It is committed, so the binary builds without Node.js.
//
//go:embed all:dist
var dist embed.FS
