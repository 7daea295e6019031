package server

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
)

// Page tokens: whatever a client sends is either an id to continue after
// or an InvalidArgument naming page_token; what the server encodes decodes
// back to the same id for the same list, and is refused by any other.
func FuzzPageToken(f *testing.F) {
	list := func(token string) *creativeopsv1.ListCreatorsRequest {
		return &creativeopsv1.ListCreatorsRequest{Vertical: "music", PageToken: token}
	}
	for _, seed := range []struct{ token, id string }{
		{"", "cr_01k9z8x7w6v5t4s3r2q1p0n9m8"},
		{encodePageToken(list(""), "cr_01k9z8x7w6v5t4s3r2q1p0n9m8"), "key_01"},
		{"djE6", "x"},
		{"not base64!", ""},
		{encodePageToken(list(""), strings.Repeat("z", 97)), strings.Repeat("z", 98)},
		{"djI6Y3JfMDE6", "\x00\xff"},
	} {
		f.Add(seed.token, seed.id)
	}
	f.Fuzz(func(t *testing.T, token, id string) {
		got, err := decodePageToken(list(token))
		switch {
		case err != nil:
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "page_token") {
				t.Fatalf("token %q: error %v is not an InvalidArgument naming page_token", token, err)
			}
		case token == "" && got != "":
			t.Fatalf("empty token decoded to %q", got)
		case token != "":
			if got == "" {
				t.Fatalf("token %q accepted with no id", token)
			}
			if again, err := decodePageToken(list(encodePageToken(list(""), got))); err != nil || again != got {
				t.Fatalf("id %q does not survive a round trip: %q, %v", got, again, err)
			}
		}
		if id == "" {
			return
		}
		encoded := encodePageToken(list(""), id)
		if len(encoded) > maxPageTokenLen {
			return
		}
		if back, err := decodePageToken(list(encoded)); err != nil || back != id {
			t.Fatalf("id %q: decoded %q, %v", id, back, err)
		}
		other := &creativeopsv1.ListJobsRequest{PageToken: encoded}
		if _, err := decodePageToken(other); err == nil {
			t.Fatalf("a token of the creators list continues the jobs list")
		}
	})
}
