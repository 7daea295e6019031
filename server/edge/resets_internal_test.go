package edge

import (
	"bytes"
	"log/slog"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/time/rate"
)

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
		c := &resetCountingConn{Conn: server, log: slog.New(slog.DiscardHandler), preface: len(http2.ClientPreface)}
		// Three resets, no refill: the fourth closes the connection.
		c.ends = earlyEnds{conn: server, budget: rate.NewLimiter(0, 3)}
		b := stream.Bytes()
		for len(b) > 0 {
			k := min(chunk, len(b))
			c.scan(b[:k])
			b = b[k:]
		}
		if c.ends.closed {
			t.Fatalf("reads of %d bytes: closed after 3 resets and a DATA frame, want open", chunk)
		}
		var one bytes.Buffer
		_ = http2.NewFramer(&one, nil).WriteRSTStream(5, http2.ErrCodeCancel)
		c.scan(one.Bytes())
		if !c.ends.closed {
			t.Fatalf("reads of %d bytes: a fourth reset left the connection open", chunk)
		}
		_ = client.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := client.Write([]byte{0}); err == nil {
			t.Fatalf("reads of %d bytes: the connection is still open", chunk)
		}
	}
}
