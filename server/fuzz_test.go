package server

import (
	"bytes"
	"encoding/binary"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// frame is an HTTP/2 frame's bytes: a 9-byte header and the payload.
func frame(typ http2.FrameType, flags http2.Flags, stream uint32, payload []byte) []byte {
	b := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), byte(typ), byte(flags), 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[5:], stream)
	return append(b, payload...)
}

func classifierSeeds(f *testing.F) {
	preface := []byte(http2.ClientPreface)
	settings := frame(http2.FrameSettings, 0, 0, nil)
	ack := frame(http2.FrameSettings, http2.FlagSettingsAck, 0, nil)
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, hf := range []hpack.HeaderField{{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"},
		{Name: ":path", Value: "/grpc.health.v1.Health/Check"}, {Name: ":authority", Value: "x"},
		{Name: "content-type", Value: "application/grpc"}} {
		_ = enc.WriteField(hf)
	}
	grpcHeaders := frame(http2.FrameHeaders, http2.FlagHeadersEndHeaders, 1, block.Bytes())
	unknown := frame(0xf0, 0, 0, bytes.Repeat([]byte{'u'}, 1000))
	huge := []byte{0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0, 0}
	for _, seed := range [][]byte{
		nil,
		[]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
		preface[:10],
		preface,
		bytes.Join([][]byte{preface, settings, ack, grpcHeaders}, nil),
		bytes.Join([][]byte{preface, settings, grpcHeaders, ack}, nil),
		bytes.Join([][]byte{preface, settings, unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown}, nil),
		bytes.Join([][]byte{preface, huge}, nil),
		bytes.Join([][]byte{preface, ack[:5]}, nil),
	} {
		f.Add(seed)
	}
}

// The classifier reads at most sniffLimit bytes, only a prefix of what the
// client sent (so replaying it loses nothing), and calls a connection
// HTTP/2 only if it starts with the client preface.
func FuzzClassifyConnection(f *testing.F) {
	classifierSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var seen bytes.Buffer
		r := io.TeeReader(&sniffReader{r: bytes.NewReader(data), left: sniffLimit}, &seen)
		isH2, err := readPreface(r)
		if isH2 && !bytes.HasPrefix(data, []byte(http2.ClientPreface)) {
			t.Fatalf("HTTP/2 without the preface: %q", data)
		}
		if err == nil && isH2 {
			_, _ = firstRequestIsGRPC(io.Discard, r)
		}
		if seen.Len() > sniffLimit {
			t.Fatalf("read %d bytes, limit %d", seen.Len(), sniffLimit)
		}
		if !bytes.HasPrefix(data, seen.Bytes()) {
			t.Fatal("what was read is not a prefix of what was sent")
		}
	})
}

// The HTTP side sees the client's stream unchanged except for the first
// empty SETTINGS acknowledgement after the preface, however it is read.
func FuzzSettingsAckFilter(f *testing.F) {
	classifierSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		want := withoutFirstAck(data)
		for _, wrap := range []func(io.Reader) io.Reader{
			func(r io.Reader) io.Reader { return r },
			iotest.OneByteReader,
			iotest.HalfReader,
		} {
			got, _ := io.ReadAll(&settingsAckFilter{r: wrap(bytes.NewReader(data)), preface: len(http2.ClientPreface)})
			if !bytes.Equal(got, want) {
				t.Fatalf("filtered\n%x\nwant\n%x", got, want)
			}
		}
	})
}

// withoutFirstAck is the filter's specification, written plainly. A frame
// header cut short by the end of the stream is not passed on.
func withoutFirstAck(data []byte) []byte {
	n := len(http2.ClientPreface)
	if len(data) <= n {
		return data
	}
	out := append([]byte(nil), data[:n]...)
	for pos := n; pos < len(data); {
		if len(data)-pos < 9 {
			break
		}
		h := data[pos : pos+9]
		length := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
		if http2.FrameType(h[3]) == http2.FrameSettings && http2.Flags(h[4]).Has(http2.FlagSettingsAck) && length == 0 {
			return append(out, data[pos+9:]...)
		}
		end := min(pos+9+length, len(data))
		out = append(out, data[pos:end]...)
		pos = end
	}
	return out
}

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
