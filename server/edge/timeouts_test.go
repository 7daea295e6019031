package edge_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// trickle sends one byte every 100 ms, at most 100 of them, until ended
// is closed; it reports whether the server ended the request before the
// client was done. The server's read timeout is 1 s, a tenth of that.
func trickle(t *testing.T, write func([]byte) error, ended <-chan struct{}) {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < 100; i++ {
		select {
		case <-ended:
			return
		case <-tick.C:
		}
		if err := write([]byte{' '}); err != nil {
			<-ended // the server hung up: wait for the client to notice
			return
		}
	}
	t.Fatal("the server was still reading a request body after 100 bytes at one every 100 ms")
}

func slowServer(t *testing.T) *testserver.Server {
	return testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.ReadTimeout = time.Second
	}})
}

// A request body sent a byte at a time is cut off at the read timeout, over
// HTTP/1.1 and HTTP/2 alike.
func TestSlowRequestBodyIsCutOff(t *testing.T) {
	s := slowServer(t)
	for _, tc := range []struct {
		name string
		set  func(*http.Protocols)
	}{
		{"HTTP/1.1", func(p *http.Protocols) { p.SetHTTP1(true) }},
		{"HTTP/2", func(p *http.Protocols) { p.SetUnencryptedHTTP2(true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := new(http.Protocols)
			tc.set(p)
			client := &http.Client{Transport: &http.Transport{Protocols: p}}
			pr, pw := io.Pipe()
			req, err := http.NewRequest("POST", s.URL+"/v1/creators", pr)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+s.AdminKey)
			req.Header.Set("Content-Type", "application/json")
			ended := make(chan struct{})
			go func() {
				defer close(ended)
				resp, err := client.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				_ = pr.CloseWithError(io.ErrClosedPipe)
			}()
			trickle(t, func(b []byte) error { _, err := pw.Write(b); return err }, ended)
			_ = pw.Close()
			client.CloseIdleConnections()
		})
	}
}

// A gRPC call whose message trickles in on the API port (net/http's HTTP/2
// stream) is ended at the read timeout too.
func TestSlowGRPCRequestIsCutOff(t *testing.T) {
	s := slowServer(t)
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fr := http2.NewFramer(c, c)
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range []hpack.HeaderField{
		{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"},
		{Name: ":path", Value: "/creativeops.v1.CreatorsService/GetCreator"}, {Name: ":authority", Value: s.Addr},
		{Name: "content-type", Value: "application/grpc"}, {Name: "te", Value: "trailers"},
		{Name: "authorization", Value: "Bearer " + s.AdminKey},
	} {
		_ = enc.WriteField(f)
	}
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	// A message of 200 bytes is announced; its bytes then trickle.
	if err := fr.WriteData(1, false, []byte{0, 0, 0, 0, 200}); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	writes := make(chan []byte)
	writeErr := make(chan error)
	go func() {
		// One goroutine reads the connection (and answers SETTINGS and
		// PINGs, as a client must); it alone also writes, so frames never
		// interleave.
		defer close(ended)
		frames := make(chan http2.Frame)
		go func() {
			defer close(frames)
			for {
				f, err := fr.ReadFrame()
				if err != nil {
					return
				}
				frames <- f
			}
		}()
		for {
			select {
			case b := <-writes:
				writeErr <- fr.WriteData(1, false, b)
			case f, ok := <-frames:
				switch f := f.(type) {
				case nil:
					if !ok {
						return
					}
				case *http2.SettingsFrame:
					if !f.IsAck() {
						_ = fr.WriteSettingsAck()
					}
				case *http2.PingFrame:
					if !f.IsAck() {
						_ = fr.WritePing(true, f.Data)
					}
				case *http2.RSTStreamFrame:
					return
				case *http2.GoAwayFrame:
					return
				case *http2.HeadersFrame:
					if f.StreamEnded() {
						return
					}
				}
			}
		}
	}()
	trickle(t, func(b []byte) error {
		select {
		case writes <- b:
			return <-writeErr
		case <-ended:
			return io.ErrClosedPipe
		}
	}, ended)
}

// A streaming call (health Watch) on the API port outlives the read and
// write timeouts that bound each HTTP/2 stream of a unary call there.
func TestStreamingCallOutlivesTheTimeouts(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.ReadTimeout, c.WriteTimeout = time.Second, time.Second
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := healthpb.NewHealthClient(s.Conn(t)).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("first status: %v %v", resp, err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := watch.Recv()
		ended <- err
	}()
	select {
	case err := <-ended:
		t.Fatalf("the watch ended within 2.5 s: %v", err)
	case <-time.After(2500 * time.Millisecond):
	}
}
