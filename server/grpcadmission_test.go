package server_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testserver"
)

// The shape of the attack: one connection, floodStreams anonymous
// streams, each announcing a message of floodMessage bytes and sending all
// of it but the last byte, so that a server that buffers messages before
// authenticating holds floodStreams × floodMessage.
const (
	floodStreams = 200
	floodMessage = 1 << 20
	// floodHeld bounds what the server may hold after the flood: well
	// under the 200 MiB the flood held when messages were buffered first.
	floodHeld = 24 << 20
)

// Native gRPC calls without a credential are refused from their headers,
// before their messages are read, on the API port and on --grpc-addr: a
// flood of anonymous streams with large, unfinished messages leaves the
// server holding next to nothing, and a client with a key is still served
// on the same ports.
func TestGRPCAnonymousMessagesAreNotBuffered(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	grpcLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.ServeGRPC(grpcLn) }()
	for _, tc := range []struct{ name, addr string }{{"API port", s.Addr}, {"gRPC port", grpcLn.Addr().String()}} {
		t.Run(tc.name, func(t *testing.T) {
			before := heapInUse()
			f := startFlood(t, tc.addr, "/creativeops.v1.CreatorsService/CreateCreator", "")
			sent := f.run(15 * time.Second)
			held := int64(heapInUse()) - int64(before)
			t.Logf("sent %d MiB on %d streams; heap in use grew by %d MiB", sent>>20, floodStreams, held>>20)
			if held > floodHeld {
				t.Fatalf("the server held %d MiB after %d anonymous streams of %d MiB, want at most %d MiB",
					held>>20, floodStreams, floodMessage>>20, floodHeld>>20)
			}
			if refused := f.refusedWith(codes.Unauthenticated); refused == 0 {
				t.Fatal("no stream was refused as unauthenticated")
			}
			f.close()

			// A client with a key is served; a call without one is told why.
			conn := dial(t, tc.addr)
			client := creativeopsv1.NewCreatorsServiceClient(conn)
			ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+s.AdminKey)
			if _, err := client.CreateCreator(ctx, &creativeopsv1.CreateCreatorRequest{Name: "Ada", Email: "ada-" + strings.ReplaceAll(tc.name, " ", "") + "@example.com", Vertical: "music"}); err != nil {
				t.Fatalf("a call with a key: %v", err)
			}
			_, err := client.ListCreators(context.Background(), &creativeopsv1.ListCreatorsRequest{})
			if status.Code(err) != codes.Unauthenticated || !strings.Contains(status.Convert(err).Message(), "Authorization: Bearer") {
				t.Fatalf("a call without a key: %v, want Unauthenticated", err)
			}
			// A health check needs no credential.
			if _, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
				t.Fatalf("an anonymous health check: %v", err)
			}
		})
	}
}

// On the API port the messages of calls with a key are held within the
// body budget: the same flood with a key holds at most the organization's
// share, and the streams past it are refused before their messages are read.
func TestGRPCMessagesShareTheBodyBudget(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	before := heapInUse()
	f := startFlood(t, s.Addr, "/creativeops.v1.CreatorsService/CreateCreator", "Bearer "+s.AdminKey)
	defer f.close()
	sent := f.run(15 * time.Second)
	held := int64(heapInUse()) - int64(before)
	t.Logf("sent %d MiB on %d streams; heap in use grew by %d MiB", sent>>20, floodStreams, held>>20)
	if held > floodHeld {
		t.Fatalf("the server held %d MiB of messages with a key, want at most %d MiB", held>>20, floodHeld>>20)
	}
	if refused := f.refusedWith(codes.ResourceExhausted); refused == 0 {
		t.Fatal("no stream past the organization's share was refused")
	}
}

// A call that needs no credential may send messages of at most 64 KiB on
// the API port, as a request outside the API may send a body of at most
// that: a larger one is refused before it is read.
func TestGRPCAnonymousMessagesAreSmall(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	health := healthpb.NewHealthClient(dial(t, s.Addr))
	_, err := health.Check(context.Background(), &healthpb.HealthCheckRequest{Service: strings.Repeat("x", 65<<10)})
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(status.Convert(err).Message(), "64 KiB") {
		t.Fatalf("an anonymous health check of 65 KiB: %v, want ResourceExhausted", err)
	}
	if _, err := health.Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatalf("an anonymous health check: %v", err)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func dial(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// flood is a raw HTTP/2 client that opens streams to one gRPC method and
// sends each an unfinished message as fast as the server's flow control
// lets it, stopping on a stream the server ended.
type flood struct {
	t  *testing.T
	c  net.Conn
	fr *http2.Framer
	// wmu serializes writes: the reader acknowledges while run sends.
	wmu sync.Mutex

	mu      sync.Mutex
	cond    *sync.Cond
	conn    int64            // the connection's send window
	initial int64            // streams' initial send window
	window  map[uint32]int64 // each stream's send window
	ended   map[uint32]bool  // streams the server answered or reset
	codes   map[codes.Code]int
	gone    bool // the connection ended
	headers func() []byte
}

func startFlood(t *testing.T, addr, method, authorization string) *flood {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	f := &flood{t: t, c: c, fr: http2.NewFramer(c, c), conn: 65535, initial: 65535,
		window: map[uint32]int64{}, ended: map[uint32]bool{}, codes: map[codes.Code]int{}}
	f.cond = sync.NewCond(&f.mu)
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	f.headers = func() []byte {
		hb.Reset()
		fields := []hpack.HeaderField{
			{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"},
			{Name: ":path", Value: method}, {Name: ":authority", Value: addr},
			{Name: "content-type", Value: "application/grpc"}, {Name: "te", Value: "trailers"},
		}
		if authorization != "" {
			fields = append(fields, hpack.HeaderField{Name: "authorization", Value: authorization})
		}
		for _, hf := range fields {
			_ = enc.WriteField(hf)
		}
		return hb.Bytes()
	}
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	if err := f.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	go f.read() // from here on every write goes through f.write
	return f
}

// read follows the server: its settings and window updates, and the
// streams it ends.
func (f *flood) read() {
	dec := hpack.NewDecoder(4096, nil)
	for {
		fr, err := f.fr.ReadFrame()
		f.mu.Lock()
		if err != nil {
			f.gone = true
			f.cond.Broadcast()
			f.mu.Unlock()
			return
		}
		switch fr := fr.(type) {
		case *http2.SettingsFrame:
			if !fr.IsAck() {
				if v, ok := fr.Value(http2.SettingInitialWindowSize); ok {
					for id := range f.window {
						f.window[id] += int64(v) - f.initial
					}
					f.initial = int64(v)
				}
				f.mu.Unlock()
				f.write(func() error { return f.fr.WriteSettingsAck() })
				f.mu.Lock()
			}
		case *http2.PingFrame:
			if !fr.IsAck() {
				f.mu.Unlock()
				f.write(func() error { return f.fr.WritePing(true, fr.Data) })
				f.mu.Lock()
			}
		case *http2.WindowUpdateFrame:
			if fr.StreamID == 0 {
				f.conn += int64(fr.Increment)
			} else {
				f.window[fr.StreamID] += int64(fr.Increment)
			}
		case *http2.HeadersFrame:
			fields, _ := dec.DecodeFull(fr.HeaderBlockFragment())
			for _, hf := range fields {
				if hf.Name == "grpc-status" {
					var code int
					for _, d := range hf.Value {
						code = code*10 + int(d-'0')
					}
					f.codes[codes.Code(code)]++
				}
			}
			if fr.StreamEnded() {
				f.ended[fr.StreamID] = true
			}
		case *http2.RSTStreamFrame:
			f.ended[fr.StreamID] = true
		case *http2.GoAwayFrame:
			f.gone = true
		}
		f.cond.Broadcast()
		f.mu.Unlock()
	}
}

// run opens the streams and sends what the server lets it within d, and
// returns how many bytes of messages it sent.
func (f *flood) run(d time.Duration) int64 {
	deadline := time.Now().Add(d)
	left := map[uint32]int64{}
	for i := range floodStreams {
		id := uint32(2*i + 1)
		f.mu.Lock()
		f.window[id] += f.initial
		f.mu.Unlock()
		if err := f.write(func() error {
			return f.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: f.headers(), EndHeaders: true})
		}); err != nil {
			return 0
		}
		left[id] = 5 + floodMessage - 1
	}
	var prefix [5]byte
	binary.BigEndian.PutUint32(prefix[1:], floodMessage)
	chunk := make([]byte, 16<<10)
	var sent int64
	var stalled time.Time
	for len(left) > 0 && time.Now().Before(deadline) {
		progress := false
		for id, n := range left {
			f.mu.Lock()
			if f.gone || f.ended[id] {
				f.mu.Unlock()
				delete(left, id)
				continue
			}
			k := min(n, int64(len(chunk)), f.conn, f.window[id])
			if k <= 0 {
				f.mu.Unlock()
				continue
			}
			f.conn -= k
			f.window[id] -= k
			f.mu.Unlock()
			p := chunk[:k]
			clear(p)
			if off := 5 + floodMessage - 1 - n; off < 5 {
				copy(p, prefix[off:])
			}
			if err := f.write(func() error { return f.fr.WriteData(id, false, p) }); err != nil {
				return sent
			}
			sent += k
			if left[id] -= k; left[id] == 0 {
				delete(left, id)
			}
			progress = true
		}
		if progress {
			stalled = time.Time{}
			continue
		}
		// Wait for a window update or an answer; a flood the server no
		// longer reads is over.
		if stalled.IsZero() {
			stalled = time.Now()
		} else if time.Since(stalled) > 2*time.Second {
			return sent
		}
		f.mu.Lock()
		if !f.gone {
			wake := time.AfterFunc(200*time.Millisecond, func() { f.mu.Lock(); f.cond.Broadcast(); f.mu.Unlock() })
			f.cond.Wait()
			wake.Stop()
		}
		gone := f.gone
		f.mu.Unlock()
		if gone {
			return sent
		}
	}
	return sent
}

func (f *flood) write(frame func() error) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	return frame()
}

func (f *flood) refusedWith(c codes.Code) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.codes[c]
}

func (f *flood) close() { _ = f.c.Close() }
