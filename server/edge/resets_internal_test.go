package edge

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/time/rate"
)

// The server's own resets count too, but for those with NO_ERROR (an
// answered call telling its client to stop sending), wherever the writes
// split them.
func TestResetCountingConnCountsServerResets(t *testing.T) {
	var stream bytes.Buffer
	fr := http2.NewFramer(&stream, nil)
	_ = fr.WriteSettings()
	for id := uint32(1); id <= 9; id += 2 {
		_ = fr.WriteRSTStream(id, http2.ErrCodeNo)
	}
	for id := uint32(11); id <= 15; id += 2 {
		_ = fr.WriteRSTStream(id, http2.ErrCodeProtocol)
	}
	var one bytes.Buffer
	_ = http2.NewFramer(&one, nil).WriteRSTStream(17, http2.ErrCodeFlowControl)
	for _, chunk := range []int{1, 3, stream.Len()} {
		server, client := net.Pipe()
		go func() { _, _ = io.Copy(io.Discard, client) }()
		c := &resetCountingConn{Conn: server, log: slog.New(slog.DiscardHandler)}
		c.ends = earlyEnds{conn: server, budget: rate.NewLimiter(0, 3)}
		b := stream.Bytes()
		for len(b) > 0 {
			k := min(chunk, len(b))
			_, _ = c.Write(b[:k])
			b = b[k:]
		}
		if c.ends.closed {
			t.Fatalf("writes of %d bytes: closed after 3 stream errors and 5 NO_ERROR resets, want open", chunk)
		}
		_, _ = c.Write(one.Bytes())
		if !c.ends.closed {
			t.Fatalf("writes of %d bytes: a fourth stream error left the connection open", chunk)
		}
		client.Close()
	}
}

// The gRPC port's counter sees RST_STREAM frames wherever the reads split
// the stream, and only frames: a DATA payload of RST_STREAM-shaped bytes
// is not one.
func TestResetCountingConnCountsFrames(t *testing.T) {
	var stream bytes.Buffer
	stream.WriteString(http2.ClientPreface)
	fr := http2.NewFramer(&stream, nil)
	_ = fr.WriteSettings()
	var lookalike bytes.Buffer
	_ = http2.NewFramer(&lookalike, nil).WriteRSTStream(1, http2.ErrCodeCancel)
	_ = fr.WriteData(1, false, bytes.Repeat(lookalike.Bytes(), 10))
	for id := uint32(1); id <= 3; id++ {
		_ = fr.WriteRSTStream(id, http2.ErrCodeCancel)
	}
	for _, chunk := range []int{1, 7, stream.Len()} {
		server, client := net.Pipe()
		c := &resetCountingConn{Conn: server, log: slog.New(slog.DiscardHandler), in: frameScanner{preface: len(http2.ClientPreface)}}
		// Three resets, no refill: the fourth closes the connection.
		c.ends = earlyEnds{conn: server, budget: rate.NewLimiter(0, 3)}
		b := stream.Bytes()
		for len(b) > 0 {
			k := min(chunk, len(b))
			c.in.scan(b[:k], func(http2.ErrCode) { c.spend() })
			b = b[k:]
		}
		if c.ends.closed {
			t.Fatalf("reads of %d bytes: closed after 3 resets and a DATA frame, want open", chunk)
		}
		var one bytes.Buffer
		_ = http2.NewFramer(&one, nil).WriteRSTStream(5, http2.ErrCodeCancel)
		c.in.scan(one.Bytes(), func(http2.ErrCode) { c.spend() })
		if !c.ends.closed {
			t.Fatalf("reads of %d bytes: a fourth reset left the connection open", chunk)
		}
		_ = client.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := client.Write([]byte{0}); err == nil {
			t.Fatalf("reads of %d bytes: the connection is still open", chunk)
		}
	}
}
