package edge_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/creativeops/creativeops/internal/testserver"
)

// rapidResets are what a rapid-reset client sends at most: a budget of
// 1,000 at once and 100 a second closes the connection well before.
const rapidResets = 5000

// A client that opens gRPC streams and resets them at once has its
// connection closed after a bounded number, on the API port (net/http's
// HTTP/2 server) and on --grpc-addr (gRPC's own transport).
func TestRapidResetClosesTheConnection(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	grpcLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.ServeGRPC(grpcLn) }()
	for _, tc := range []struct{ name, addr string }{{"API port", s.Addr}, {"gRPC port", grpcLn.Addr().String()}} {
		t.Run(tc.name, func(t *testing.T) {
			// With a key: an anonymous stream is refused at admission,
			// before any work, and may end before its reset arrives; a
			// stream its caller may make is the work the budget guards.
			sent, err := rapidReset(t, tc.addr, s.AdminKey, clientReset)
			if err != nil {
				t.Fatal(err)
			}
			// The burst, with room for the time the test took.
			if sent > 2000 {
				t.Fatalf("closed after %d resets, want about 1,000", sent)
			}
		})
	}
}

// Streams the server resets because the client provoked it (here with a
// WINDOW_UPDATE of zero, a stream error) count as the client's own resets
// do: on --grpc-addr, grpc-go resets each and, uncounted, a client could
// end 100,000 streams in 8 s on a connection never closed.
func TestProvokedResetsCloseTheConnection(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	grpcLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.ServeGRPC(grpcLn) }()
	sent, err := rapidReset(t, grpcLn.Addr().String(), "", zeroWindowUpdate)
	if err != nil {
		t.Fatal(err)
	}
	if sent > 2000 {
		t.Fatalf("closed after %d provoked resets, want about 1,000", sent)
	}
}

// clientReset resets the stream it opened.
func clientReset(fr *http2.Framer, id uint32) error {
	return fr.WriteRSTStream(id, http2.ErrCodeCancel)
}

// zeroWindowUpdate makes the server reset the stream: a WINDOW_UPDATE of
// zero is a stream error (RFC 9113 section 6.9).
func zeroWindowUpdate(fr *http2.Framer, id uint32) error {
	return fr.WriteRawFrame(http2.FrameWindowUpdate, 0, id, []byte{0, 0, 0, 0})
}

// rapidReset opens streams and ends each at once with end (the client's
// reset, or a frame that makes the server reset it) until the server
// closes the connection or rapidResets were sent, and reports how many
// were. Every 50 it waits for the acknowledgement of a SETTINGS frame
// (gRPC refuses frequent PINGs): the server has then read them, and no
// more than that many handlers can be waiting to start, so what closes
// the connection is a count of resets, not a queue of work.
func rapidReset(t *testing.T, addr, key string, end func(fr *http2.Framer, id uint32) error) (int, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	fr := http2.NewFramer(c, c)
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	headers := func() []byte {
		hb.Reset()
		fields := []hpack.HeaderField{
			{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"},
			{Name: ":path", Value: "/creativeops.v1.CreatorsService/GetCreator"}, {Name: ":authority", Value: addr},
			{Name: "content-type", Value: "application/grpc"}, {Name: "te", Value: "trailers"},
		}
		if key != "" {
			fields = append(fields, hpack.HeaderField{Name: "authorization", Value: "Bearer " + key})
		}
		for _, f := range fields {
			_ = enc.WriteField(f)
		}
		return hb.Bytes()
	}
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}

	// One goroutine reads: it passes on the server's SETTINGS (for this
	// goroutine to acknowledge) and its acknowledgements of the client's;
	// closed is closed when the connection ends, by GOAWAY or otherwise.
	synced, acks, closed := make(chan struct{}, 2), make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(closed)
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			switch f := f.(type) {
			case *http2.SettingsFrame:
				if f.IsAck() {
					synced <- struct{}{}
				} else {
					acks <- struct{}{}
				}
			case *http2.GoAwayFrame:
				return
			}
		}
	}()
	select {
	case <-acks:
		if err := fr.WriteSettingsAck(); err != nil {
			t.Fatal(err)
		}
	case <-closed:
		t.Fatal("the server closed the connection before its SETTINGS")
	}
	<-synced // the first SETTINGS
	for i := 0; i < rapidResets; i++ {
		id := uint32(2*i + 1)
		if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: headers(), EndHeaders: true}) != nil ||
			end(fr, id) != nil {
			return i, nil // the server hung up
		}
		if i%50 == 49 {
			if fr.WriteSettings() != nil {
				return i + 1, nil
			}
			select {
			case <-synced:
			case <-closed:
				return i + 1, nil
			case <-time.After(30 * time.Second):
				return i + 1, errors.New("no acknowledgement of SETTINGS in 30 s")
			}
		}
	}
	return rapidResets, errors.New("the connection was still open after all the resets")
}
