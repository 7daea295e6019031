package server

import (
	"encoding/base64"
	"strings"

	"github.com/creativeops/creativeops/apierror"
)

const (
	defaultPageSize = 50
	maxPageSize     = 200
	pageTokenPrefix = "v1:"
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

// Lists are ordered by id (ULIDs sort by time), newest first; the opaque
// page token carries the last id of the previous page.
func encodePageToken(lastID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(pageTokenPrefix + lastID))
}

// decodePageToken returns the id to continue after, or "" for the first page.
func decodePageToken(token string) (string, error) {
	if token == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || !strings.HasPrefix(string(b), pageTokenPrefix) || len(b) == len(pageTokenPrefix) || len(b) > 100 {
		return "", apierror.InvalidField("page_token", "is not a page token returned by this list")
	}
	return strings.TrimPrefix(string(b), pageTokenPrefix), nil
}

// nextPageToken returns the token for the page after items, given that one
// extra item was fetched to learn whether there is one.
func nextPageToken[T any](items []T, size int, id func(T) string) ([]T, string) {
	if len(items) <= size {
		return items, ""
	}
	items = items[:size]
	return items, encodePageToken(id(items[size-1]))
}

// pagedRequest is a list request: every one has a page size and token.
type pagedRequest interface {
	GetPageSize() int32
	GetPageToken() string
}

// page is where a list request continues and how much it returns.
type page struct {
	after string
	size  int
}

// readPage decodes a list request's page token and size.
func readPage(req pagedRequest) (page, error) {
	after, err := decodePageToken(req.GetPageToken())
	if err != nil {
		return page{}, err
	}
	return page{after: after, size: pageSize(req.GetPageSize())}, nil
}

// fetch is how many rows to read: one more than the page, to learn
// whether another page follows.
func (p page) fetch() int { return p.size + 1 }
