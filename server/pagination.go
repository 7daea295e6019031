package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/creativeops/creativeops/apierror"
)

const (
	defaultPageSize = 50
	maxPageSize     = 200
	pageTokenPrefix = "v2:"
	// pageTokenDigestLen is how much of the SHA-256 a token carries.
	pageTokenDigestLen = 12
	maxPageTokenLen    = 200
)

// pageSize applies the default and the cap.
func pageSize(requested int32) int {
	switch {
	case requested <= 0:
		return defaultPageSize
	case requested > maxPageSize:
		return maxPageSize
	}
	return int(requested)
}

// listRequest is a List RPC's request: its page_token continues the list
// that its other fields (filters, parent id) describe.
type listRequest interface {
	proto.Message
	GetPageToken() string
}

// Lists are ordered by id (ULIDs sort by time), newest first; the opaque
// page token carries the last id of the previous page and a digest of
// that id with the list it came from: the RPC and every request field but
// page_token and page_size (the filters and, for deliveries, the webhook).
// A token used with another list, other filters, or edited is refused
// rather than silently continuing something else. Every list is scoped to
// the caller's organization, so a token is a cursor, not a credential.
func encodePageToken(req listRequest, lastID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(pageTokenPrefix + lastID + ":" + listDigest(req, lastID)))
}

var errBadPageToken = apierror.Invalid("INVALID_PAGE_TOKEN", "page_token",
	"page_token: is not a page token returned by this list with these filters; start again without it")

// decodePageToken returns the id to continue after, or "" for the first page.
func decodePageToken(req listRequest) (string, error) {
	token := req.GetPageToken()
	if token == "" {
		return "", nil
	}
	if len(token) > maxPageTokenLen {
		return "", errBadPageToken
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", errBadPageToken
	}
	rest, ok := strings.CutPrefix(string(b), pageTokenPrefix)
	i := strings.LastIndexByte(rest, ':')
	if !ok || i <= 0 {
		return "", errBadPageToken
	}
	id, digest := rest[:i], rest[i+1:]
	if subtle.ConstantTimeCompare([]byte(digest), []byte(listDigest(req, id))) != 1 {
		return "", errBadPageToken
	}
	return id, nil
}

func listDigest(req listRequest, lastID string) string {
	list := proto.Clone(req)
	m := list.ProtoReflect()
	for _, name := range []protoreflect.Name{"page_token", "page_size"} {
		if fd := m.Descriptor().Fields().ByName(name); fd != nil {
			m.Clear(fd)
		}
	}
	filters, _ := proto.MarshalOptions{Deterministic: true}.Marshal(list)
	h := sha256.New()
	h.Write([]byte("creativeops page token\x00"))
	h.Write([]byte(m.Descriptor().FullName()))
	h.Write([]byte{0})
	h.Write(filters)
	h.Write([]byte{0})
	h.Write([]byte(lastID))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:pageTokenDigestLen])
}

// nextPageToken returns the token for the page after items, given that one
// extra item was fetched to learn whether there is one.
func nextPageToken[T any](req listRequest, items []T, size int, id func(T) string) ([]T, string) {
	if len(items) <= size {
		return items, ""
	}
	items = items[:size]
	return items, encodePageToken(req, id(items[size-1]))
}

// pagedRequest is a list request: every one has a page size and token.
type pagedRequest interface {
	listRequest
	GetPageSize() int32
}

// page is where a list request continues and how much it returns.
type page struct {
	after string
	size  int
}

// readPage decodes a list request's page token and size.
func readPage(req pagedRequest) (page, error) {
	after, err := decodePageToken(req)
	if err != nil {
		return page{}, err
	}
	return page{after: after, size: pageSize(req.GetPageSize())}, nil
}

// fetch is how many rows to read: one more than the page, to learn
// whether another page follows.
func (p page) fetch() int { return p.size + 1 }

// maxPageBytes bounds a page in bytes as page_size bounds it in items: a
// page stops early, its next_page_token continuing after the last item it
// holds, once its items' protobuf encoding passes this size (a JSON
// rendering is a small multiple of it). Two hundred large plans were
// 15.9 MiB of JSON and over a second of CPU in one response. A page
// always holds at least one item, whatever its size, so a list of large
// items still advances.
const maxPageBytes = 1 << 20

// renderPage renders a page of rows (read with page.fetch(): one more
// than the page, to learn whether another follows) and returns its items
// with the token of the page after: the page ends at size items, or
// earlier at maxPageBytes.
func renderPage[T any, M proto.Message](req listRequest, rows []T, size int, id func(T) string, render func(T) M) ([]M, string) {
	out := make([]M, 0, min(len(rows), size))
	bytes := 0
	for i, r := range rows {
		if i == size || i > 0 && bytes >= maxPageBytes {
			return out, encodePageToken(req, id(rows[i-1]))
		}
		m := render(r)
		bytes += proto.Size(m)
		out = append(out, m)
	}
	return out, ""
}

// Views of a list's items (AIP-157): basic leaves out what only a
// single item's read needs.
const (
	viewBasic = "basic"
	viewFull  = "full"
)
