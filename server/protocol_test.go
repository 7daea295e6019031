package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testserver"
)

// limitedKey is a new key of the test organization allowed burst calls
// and no refill within a test.
func limitedKey(t *testing.T, s *testserver.Server, burst int) string {
	t.Helper()
	_, secret, err := s.Keys.CreateKey(context.Background(), auth.NewKeyParams{OrganizationID: s.OrgID, Name: "limited",
		Scopes: []string{auth.ScopeAll}, RateLimit: &auth.RateLimit{RequestsPerSecond: 0.001, Burst: burst}})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// rpcPost calls a method over Connect (JSON) or gRPC-Web (binary).
func rpcPost(t *testing.T, s *testserver.Server, grpcWeb bool, method, key string, req proto.Message) *http.Response {
	t.Helper()
	var body []byte
	contentType := "application/json"
	if grpcWeb {
		msg, _ := proto.Marshal(req)
		body = make([]byte, 5+len(msg))
		binary.BigEndian.PutUint32(body[1:5], uint32(len(msg)))
		copy(body[5:], msg)
		contentType = "application/grpc-web+proto"
	} else {
		body, _ = json.Marshal(map[string]any{"id": req.(*creativeopsv1.GetCreatorRequest).GetId()})
	}
	r, err := http.NewRequest(http.MethodPost, s.URL+method, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", contentType)
	r.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// Every response to an authenticated call carries its rate-limit headers
// once, whatever the transport and outcome, and a call refused by the
// limit carries them with its request id and Retry-After. Browsers' fetch
// joins repeated headers into one value no parser reads, and the
// TypeScript client reads the request id of every error.
func TestRateLimitHeadersOnEveryTransport(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Ada", "email": "ada@example.com", "vertical": "music"})
	if r.Status != http.StatusCreated {
		t.Fatalf("seed creator: %d %s", r.Status, r.Body)
	}
	existing := r.JSON["id"].(string)
	const missing = "cr_01J0000000000000000000000Z"
	const getCreator = "/creativeops.v1.CreatorsService/GetCreator"

	// once reports which of the headers h does not hold exactly once.
	once := func(h http.Header, names ...string) []string {
		var bad []string
		for _, n := range names {
			if len(h.Values(n)) != 1 {
				bad = append(bad, fmt.Sprintf("%s %q", n, h.Values(n)))
			}
		}
		return bad
	}
	limitHeaders := []string{"RateLimit", "RateLimit-Policy", "X-Request-Id"}

	t.Run("REST", func(t *testing.T) {
		key := limitedKey(t, s, 2)
		for i, c := range []struct {
			id   string
			want int
		}{{existing, 200}, {missing, 404}, {existing, 429}} {
			r := s.Do(t, "GET", "/v1/creators/"+c.id, key, nil)
			if r.Status != c.want {
				t.Fatalf("call %d: %d %s, want %d", i+1, r.Status, r.Body, c.want)
			}
			names := limitHeaders
			if c.want == 429 {
				names = append(names, "Retry-After")
			}
			if bad := once(r.Header, names...); len(bad) > 0 {
				t.Errorf("%d: headers not sent once: %v", c.want, bad)
			}
		}
	})
	for _, grpcWeb := range []bool{false, true} {
		name := map[bool]string{false: "Connect", true: "gRPC-Web"}[grpcWeb]
		t.Run(name, func(t *testing.T) {
			key := limitedKey(t, s, 2)
			for i, c := range []struct {
				id   string
				want codes.Code
			}{{existing, codes.OK}, {missing, codes.NotFound}, {existing, codes.ResourceExhausted}} {
				resp := rpcPost(t, s, grpcWeb, getCreator, key, &creativeopsv1.GetCreatorRequest{Id: c.id})
				got := rpcCode(resp)
				if got != c.want {
					t.Fatalf("call %d: %v (HTTP %d, headers %v), want %v", i+1, got, resp.StatusCode, resp.Header, c.want)
				}
				names := limitHeaders
				if c.want == codes.ResourceExhausted {
					names = append(names, "Retry-After")
				}
				if bad := once(resp.Header, names...); len(bad) > 0 {
					t.Errorf("%v: headers not sent once: %v", c.want, bad)
				}
			}
		})
	}
	t.Run("gRPC", func(t *testing.T) {
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+limitedKey(t, s, 2))
		client := creativeopsv1.NewCreatorsServiceClient(s.Conn(t))
		for i, c := range []struct {
			id   string
			want codes.Code
		}{{existing, codes.OK}, {missing, codes.NotFound}, {existing, codes.ResourceExhausted}} {
			var header metadata.MD
			_, err := client.GetCreator(ctx, &creativeopsv1.GetCreatorRequest{Id: c.id}, grpc.Header(&header))
			if status.Code(err) != c.want {
				t.Fatalf("call %d: %v, want %v", i+1, err, c.want)
			}
			names := []string{"ratelimit", "ratelimit-policy", "x-request-id"}
			if c.want == codes.ResourceExhausted {
				names = append(names, "retry-after")
			}
			for _, n := range names {
				if len(header.Get(n)) != 1 {
					t.Errorf("%v: %s %q, want one value", c.want, n, header.Get(n))
				}
			}
		}
	})
}

// rpcCode is the status of a Connect or gRPC-Web response.
func rpcCode(resp *http.Response) codes.Code {
	if v := resp.Header.Get("Grpc-Status"); v != "" {
		var n int
		_, _ = fmt.Sscan(v, &n)
		return codes.Code(n)
	}
	if resp.Header.Get("Content-Type") == "application/grpc-web+proto" {
		return codes.OK // the status is in the trailer frame, read by TestConnectAndGRPCWeb
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return codes.OK
	case http.StatusNotFound:
		return codes.NotFound
	case http.StatusTooManyRequests:
		return codes.ResourceExhausted
	}
	return codes.Unknown
}

// A client with a valid key that sends a body over the limit, writing it
// whole before reading the answer as most HTTP clients do, reads the 413
// and its message rather than a broken pipe: the server reads and drops
// the rest of the body (within bounds) before answering and closing.
func TestTooLargeBodyIsAnsweredToAWritingClient(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	body := bytes.Repeat([]byte("x"), 1<<20+100<<10) // 1.1 MiB
	for _, c := range []struct {
		name, path, contentType string
		chunked                 bool
		want                    int // Connect answers RESOURCE_EXHAUSTED as 429
	}{
		{"REST", "/v1/creators", "application/json", false, http.StatusRequestEntityTooLarge},
		{"REST chunked", "/v1/creators", "application/json", true, http.StatusRequestEntityTooLarge},
		{"Connect", "/creativeops.v1.CreatorsService/CreateCreator", "application/json", false, http.StatusTooManyRequests},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", s.Addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
			length := fmt.Sprintf("Content-Length: %d\r\n", len(body))
			if c.chunked {
				length = "Transfer-Encoding: chunked\r\n"
			}
			if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nAuthorization: Bearer %s\r\n%s\r\n",
				c.path, c.contentType, s.AdminKey, length); err != nil {
				t.Fatal(err)
			}
			// Slowly enough for the server to answer, and without the
			// rule close (net/http waits 500 ms after its answer), before
			// the client is done: about a second for the whole body.
			const chunk = 32 << 10
			for off := 0; off < len(body); off += chunk {
				part := body[off:min(off+chunk, len(body))]
				if c.chunked {
					_, err = fmt.Fprintf(conn, "%x\r\n%s\r\n", len(part), part)
				} else {
					_, err = conn.Write(part)
				}
				if err != nil {
					t.Fatalf("writing the body at %d bytes: %v", off, err)
				}
				time.Sleep(30 * time.Millisecond)
			}
			if c.chunked {
				if _, err := io.WriteString(conn, "0\r\n\r\n"); err != nil {
					t.Fatalf("ending the body: %v", err)
				}
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("reading the answer's body: %v", err)
			}
			if resp.StatusCode != c.want || !strings.Contains(string(got), "larger than 1 MiB") {
				t.Fatalf("%d %s", resp.StatusCode, got)
			}
		})
	}
}
