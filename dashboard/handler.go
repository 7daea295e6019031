package dashboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

// Prefix is the path the dashboard is served under.
const Prefix = "/dashboard/"

// ContentSecurityPolicy allows the page nothing but its own origin: no
// inline scripts or styles, no framing, no foreign connections.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// SetSecurityHeaders sets the headers every dashboard response carries,
// the session API's included.
func SetSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
}

// Cache policies: hashed build files never change under their name; the
// rest (index.html above all) is revalidated on every load, so a new
// release is picked up at once.
const (
	cacheImmutable   = "public, max-age=31536000, immutable"
	cacheRevalidated = "no-cache"
)

// file is one built file, read once.
type file struct {
	name  string
	data  []byte
	etag  string
	ctype string
}

// Handler serves the files of fsys (the embedded build when nil) under
// Prefix: /dashboard/assets/... with an immutable cache, any other file
// that exists as it is, and index.html for every other path, so the app's
// client-side routes load on a refresh.
type Handler struct {
	files map[string]*file // by path below dist/, e.g. "assets/index-abc.js"
	index *file
}

// New reads the embedded build.
func New() (*Handler, error) {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		return nil, err
	}
	return NewFS(sub)
}

// NewFS reads a build from fsys, which must hold index.html.
func NewFS(fsys fs.FS) (*Handler, error) {
	h := &Handler{files: map[string]*file{}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		ctype := mime.TypeByExtension(path.Ext(name))
		if ctype == "" {
			ctype = http.DetectContentType(data)
		}
		h.files[name] = &file{name: name, data: data, ctype: ctype,
			etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dashboard build: %w", err)
	}
	if h.index = h.files["index.html"]; h.index == nil {
		return nil, fmt.Errorf("dashboard build: no index.html")
	}
	return h, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	SetSecurityHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	f := h.files[name]
	switch {
	case strings.HasPrefix(name, "assets/"):
		// A missing hashed file is a stale page asking for a previous
		// build: a 404 says so, where index.html would be run as a script.
		if f == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", cacheImmutable)
	case f == nil || name == "":
		f = h.index
		w.Header().Set("Cache-Control", cacheRevalidated)
	default:
		w.Header().Set("Cache-Control", cacheRevalidated)
	}
	w.Header().Set("Content-Type", f.ctype)
	w.Header().Set("ETag", f.etag)
	http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(f.data))
}
