package server_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testdb"
)

// Browsers and plain HTTP tools reach the RPC surface over Connect and
// gRPC-Web, through the same chain as REST and native gRPC.
func TestConnectAndGRPCWeb(t *testing.T) {
	e := newEnv(t, testdb.Backends(t)[0])
	post := func(path, contentType, key string, body []byte, extra ...string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, e.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		for i := 0; i+1 < len(extra); i += 2 {
			req.Header.Set(extra[i], extra[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	rest := e.Do(t, "GET", "/v1/creators/"+e.creatorID, e.AdminKey, nil).JSON

	t.Run("connect JSON with curl's headers", func(t *testing.T) {
		resp := post("/creativeops.v1.CreatorsService/GetCreator", "application/json", e.AdminKey, []byte(`{"id":"`+e.creatorID+`"}`))
		var got map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %v %v", resp.StatusCode, got, err)
		}
		for _, k := range []string{"id", "name", "email", "vertical", "status", "created_at"} {
			if got[k] != rest[k] {
				t.Errorf("%s: connect %v, REST %v", k, got[k], rest[k])
			}
		}
		if !strings.HasPrefix(resp.Header.Get("X-Request-Id"), "req_") || resp.Header.Get("Ratelimit") == "" {
			t.Errorf("connect response lacks the chain's headers: %v", resp.Header)
		}
	})
	t.Run("connect without a key", func(t *testing.T) {
		resp := post("/creativeops.v1.CreatorsService/GetCreator", "application/json", "", []byte(`{"id":"`+e.creatorID+`"}`), "Connect-Protocol-Version", "1")
		var got struct{ Code string }
		_ = json.NewDecoder(resp.Body).Decode(&got)
		if resp.StatusCode != http.StatusUnauthorized || got.Code != "unauthenticated" {
			t.Fatalf("%d %+v, want 401 unauthenticated", resp.StatusCode, got)
		}
	})
	t.Run("connect with a key lacking the scope", func(t *testing.T) {
		resp := post("/creativeops.v1.CreatorsService/CreateCreator", "application/json", e.readOnly, []byte(`{"name":"X","email":"x@example.com","vertical":"music"}`))
		var got struct{ Code string }
		_ = json.NewDecoder(resp.Body).Decode(&got)
		if resp.StatusCode != http.StatusForbidden || got.Code != "permission_denied" {
			t.Fatalf("%d %+v, want 403 permission_denied", resp.StatusCode, got)
		}
	})
	t.Run("gRPC-Web", func(t *testing.T) {
		msg, _ := proto.Marshal(&creativeopsv1.GetCreatorRequest{Id: e.creatorID})
		frame := make([]byte, 5+len(msg))
		binary.BigEndian.PutUint32(frame[1:5], uint32(len(msg)))
		copy(frame[5:], msg)
		resp := post("/creativeops.v1.CreatorsService/GetCreator", "application/grpc-web+proto", e.AdminKey, frame, "X-Grpc-Web", "1")
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || len(body) < 5 || body[0] != 0 {
			t.Fatalf("%d %q", resp.StatusCode, body)
		}
		n := binary.BigEndian.Uint32(body[1:5])
		var c creativeopsv1.Creator
		if err := proto.Unmarshal(body[5:5+n], &c); err != nil {
			t.Fatal(err)
		}
		if c.GetId() != e.creatorID || c.GetEmail() != rest["email"] {
			t.Errorf("gRPC-Web creator %v, REST %v", &c, rest)
		}
		trailer := body[5+n:]
		if len(trailer) < 5 || trailer[0]&0x80 == 0 || !strings.Contains(strings.ToLower(string(trailer[5:])), "grpc-status: 0\r\n") {
			t.Errorf("no OK trailer: %q", trailer)
		}
	})
}
