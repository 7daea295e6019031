package clustertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Headers the proxy adds so that clients can tell which replica served a
// request and whether an error came from the proxy rather than a server.
const (
	HeaderBackend    = "X-Cluster-Backend"
	HeaderProxyError = "X-Cluster-Proxy-Error"
	// ProxyErrorPrefix starts the message of every error the proxy itself
	// answers (REST body message, gRPC status message).
	ProxyErrorPrefix = "cluster proxy:"
)

// Proxy is a round-robin HTTP load balancer for replicas, the way a real
// deployment puts one in front of them: per request, for REST (HTTP/1.1)
// and gRPC (HTTP/2 cleartext) alike, with active health checks on /readyz,
// a drain switch for planned restarts, and a retry on another replica only
// when a connection could not be opened (the request never left, so a
// retry cannot run it twice). A replica dying mid-request fails that
// request: the client gets a 502 (REST) or UNAVAILABLE (gRPC) whose message
// starts with ProxyErrorPrefix and names the replica.
type Proxy struct {
	Addr     string
	backends []*backend
	next     atomic.Uint64
	h1, h2   *http.Transport
	rp       *httputil.ReverseProxy
	srv      *http.Server
	ln       net.Listener
	stop     chan struct{}
	wg       sync.WaitGroup

	mu     sync.Mutex
	errors []ProxyError
	served map[string]int
}

// healthInterval spaces the proxy's /readyz checks of each replica.
const healthInterval = 250 * time.Millisecond

type backend struct {
	name, addr string
	up         atomic.Bool
	draining   atomic.Bool
}

// downAfter failed checks in a row take a replica out of rotation, as load
// balancers' thresholds do (Kubernetes' failureThreshold is 3): a replica
// that is merely slow under load must not be ejected for one late answer.
const downAfter = 3

// ProxyError is a request the proxy could not complete.
type ProxyError struct {
	At      time.Time
	Backend string
	Method  string
	Path    string
	GRPC    bool
	Err     string
}

type routeKey struct{}

// route is filled in by the transport with the replica that served the
// request, for the response header and the error record.
type route struct {
	body    []byte
	backend string
}

// StartProxy listens on a free loopback port and balances over replicas.
func StartProxy(replicas []*Replica) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: ln.Addr().String(), ln: ln, stop: make(chan struct{}), served: map[string]int{}}
	for _, r := range replicas {
		b := &backend{name: r.Name, addr: r.Addr}
		b.up.Store(true)
		p.backends = append(p.backends, b)
	}
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	p.h1 = &http.Transport{DialContext: dialer.DialContext, MaxIdleConns: 1024, MaxIdleConnsPerHost: 512, IdleConnTimeout: 30 * time.Second}
	p.h2 = &http.Transport{DialContext: dialer.DialContext, IdleConnTimeout: 30 * time.Second, Protocols: new(http.Protocols)}
	p.h2.Protocols.SetUnencryptedHTTP2(true)
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.Out.URL.Host = "replica" // chosen per attempt by RoundTrip
		},
		Transport:     p,
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			if rt, ok := resp.Request.Context().Value(routeKey{}).(*route); ok {
				resp.Header.Set(HeaderBackend, rt.backend)
				if isGRPC(resp.Request) {
					resp.Body = &grpcBody{ReadCloser: resp.Body, p: p, resp: resp, backend: rt.backend}
				}
			}
			return nil
		},
		ErrorHandler: p.fail,
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, Protocols: new(http.Protocols)}
	p.srv.Protocols.SetHTTP1(true)
	p.srv.Protocols.SetUnencryptedHTTP2(true)
	p.wg.Add(2)
	go func() { defer p.wg.Done(); _ = p.srv.Serve(ln) }()
	go func() { defer p.wg.Done(); p.healthCheck() }()
	return p, nil
}

// URL is the proxy's base URL.
func (p *Proxy) URL() string { return "http://" + p.Addr }

// Close stops the proxy.
func (p *Proxy) Close() error {
	close(p.stop)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := p.srv.Shutdown(ctx)
	p.wg.Wait()
	p.h1.CloseIdleConnections()
	p.h2.CloseIdleConnections()
	return err
}

func isGRPC(r *http.Request) bool {
	return r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc")
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Request bodies of this API are small (at most 1 MiB); holding them
	// lets a refused connection be retried on another replica.
	body, err := io.ReadAll(io.LimitReader(r.Body, 2<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	rt := &route{body: body}
	r = r.WithContext(context.WithValue(r.Context(), routeKey{}, rt))
	r.Body = io.NopCloser(bytes.NewReader(body))
	p.rp.ServeHTTP(w, r)
}

// RoundTrip sends the request to the next healthy replica.
func (p *Proxy) RoundTrip(req *http.Request) (*http.Response, error) {
	rt, _ := req.Context().Value(routeKey{}).(*route)
	t := p.h1
	if isGRPC(req) {
		t = p.h2
	}
	var lastErr error
	for attempt := 0; attempt < len(p.backends); attempt++ {
		b := p.pick()
		if b == nil {
			break
		}
		out := req.Clone(req.Context())
		out.URL.Host = b.addr
		out.Host = b.addr
		if rt != nil {
			out.Body, out.ContentLength = http.NoBody, 0
			if len(rt.body) > 0 {
				out.Body = io.NopCloser(bytes.NewReader(rt.body))
				out.ContentLength = int64(len(rt.body))
			}
			rt.backend = b.name
		}
		resp, err := t.RoundTrip(out)
		if err == nil {
			p.mu.Lock()
			p.served[b.name]++
			p.mu.Unlock()
			return resp, nil
		}
		lastErr = err
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			// Nothing was sent: mark the replica down until its health
			// check passes again, and try another.
			b.up.Store(false)
			continue
		}
		return nil, err
	}
	if lastErr == nil {
		lastErr = errors.New("no healthy replica")
	}
	return nil, lastErr
}

func (p *Proxy) pick() *backend {
	n := uint64(len(p.backends))
	start := p.next.Add(1)
	for i := uint64(0); i < n; i++ {
		b := p.backends[(start+i)%n]
		if b.up.Load() && !b.draining.Load() {
			return b
		}
	}
	return nil
}

// fail answers a request the proxy could not complete: a gRPC status for
// gRPC callers (as Envoy does), a JSON error otherwise.
func (p *Proxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	rt, _ := r.Context().Value(routeKey{}).(*route)
	name := ""
	if rt != nil {
		name = rt.backend
	}
	grpc := isGRPC(r)
	msg := p.record(r, name, grpc, err)
	w.Header().Set(HeaderBackend, name)
	w.Header().Set(HeaderProxyError, "1")
	if grpc {
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Grpc-Status", "14") // UNAVAILABLE
		w.Header().Set("Grpc-Message", grpcEncodeMessage(msg))
		w.WriteHeader(http.StatusOK)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintf(w, `{"error":{"code":502,"status":"UNAVAILABLE","message":%q}}`, msg)
}

// grpcBody is a gRPC response body from a replica. When the replica dies
// after its response headers, the read fails; ReverseProxy would then
// reset the stream, and the client would see INTERNAL with nothing naming
// the replica. grpcBody ends the stream instead with the proxy's own
// UNAVAILABLE trailers naming the replica, and records the error, as the
// proxy does for a replica that fails before answering (fail).
type grpcBody struct {
	io.ReadCloser
	p       *Proxy
	resp    *http.Response
	backend string
}

func (b *grpcBody) Read(buf []byte) (int, error) {
	n, err := b.ReadCloser.Read(buf)
	if err == nil || errors.Is(err, io.EOF) {
		return n, err
	}
	msg := b.p.record(b.resp.Request, b.backend, true, err)
	if b.resp.Trailer == nil {
		b.resp.Trailer = http.Header{}
	}
	b.resp.Trailer.Set("Grpc-Status", "14") // UNAVAILABLE
	b.resp.Trailer.Set("Grpc-Message", grpcEncodeMessage(msg))
	return n, io.EOF
}

// record keeps a request the proxy could not complete and returns the
// message that tells its client so, naming the replica.
func (p *Proxy) record(r *http.Request, backend string, grpc bool, err error) string {
	p.mu.Lock()
	p.errors = append(p.errors, ProxyError{At: time.Now(), Backend: backend, Method: r.Method, Path: r.URL.Path, GRPC: grpc, Err: err.Error()})
	p.mu.Unlock()
	return fmt.Sprintf("%s replica %q: %v", ProxyErrorPrefix, backend, err)
}

// grpcEncodeMessage percent-encodes a grpc-message header value.
func grpcEncodeMessage(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '%' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// healthCheck checks every replica's /readyz on its own schedule, so that
// one slow replica does not delay the others' checks.
func (p *Proxy) healthCheck() {
	var wg sync.WaitGroup
	for _, b := range p.backends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			t := time.NewTicker(healthInterval)
			defer t.Stop()
			failures := 0
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
				}
				resp, err := client.Get("http://" + b.addr + "/readyz")
				ok := err == nil && resp.StatusCode == http.StatusOK
				if err == nil {
					resp.Body.Close()
				}
				if ok {
					failures = 0
					b.up.Store(true)
				} else if failures++; failures >= downAfter {
					b.up.Store(false)
				}
			}
		}()
	}
	wg.Wait()
}

// AllUp reports whether every replica passes its health checks.
func (p *Proxy) AllUp() bool {
	for _, b := range p.backends {
		if !b.up.Load() {
			return false
		}
	}
	return true
}

// Drain stops sending new requests to the replica (before a planned
// restart); Undrain resumes once it passes its health check.
func (p *Proxy) Drain(name string) {
	for _, b := range p.backends {
		if b.name == name {
			b.draining.Store(true)
		}
	}
}

// Undrain puts a drained replica back into rotation.
func (p *Proxy) Undrain(name string) {
	for _, b := range p.backends {
		if b.name == name {
			b.draining.Store(false)
		}
	}
}

// Errors returns the requests the proxy failed.
func (p *Proxy) Errors() []ProxyError {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProxyError(nil), p.errors...)
}

// Served counts the requests each replica answered.
func (p *Proxy) Served() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.served))
	for k, v := range p.served {
		out[k] = v
	}
	return out
}
