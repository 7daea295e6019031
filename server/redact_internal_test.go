package server

import (
	"testing"

	"google.golang.org/protobuf/proto"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
)

// Every field marked debug_redact is cleared, however deep, and the
// original message is left as it was.
func TestRedactSecrets(t *testing.T) {
	secret := "co_live_x"
	in := &creativeopsv1.ListKeysResponse{Keys: []*creativeopsv1.APIKey{{Id: "key_1", Secret: &secret}, {Id: "key_2"}}}
	out, cleared := redactSecrets(in)
	if got := out.(*creativeopsv1.ListKeysResponse); got.Keys[0].Secret != nil || got.Keys[0].Id != "key_1" {
		t.Fatalf("not redacted: %v", got)
	}
	if in.Keys[0].Secret == nil {
		t.Fatal("the original was changed")
	}
	if redactedHeader(cleared) != "keys.secret" {
		t.Fatalf("cleared %v", cleared)
	}
	plain := &creativeopsv1.Creator{Id: "cr_1"}
	if out, cleared := redactSecrets(plain); out != proto.Message(plain) || cleared != nil {
		t.Fatal("a message without secrets was copied")
	}
}
