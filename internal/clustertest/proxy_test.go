package clustertest

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A replica that dies after its gRPC response headers: the client gets the
// proxy's UNAVAILABLE naming the replica, not a reset stream, and the
// proxy records the error, as for a replica that fails before answering.
func TestProxyGRPCReplicaDiesAfterHeaders(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Protocols: new(http.Protocols), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/grpc")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // resets the stream, as a killed process would
	})}
	srv.Protocols.SetUnencryptedHTTP2(true)
	srv.Protocols.SetHTTP1(true)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })

	p, err := StartProxy([]*Replica{{Name: "r9", Addr: ln.Addr().String()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	req, err := http.NewRequest("POST", p.URL()+"/creativeops.v1.IPService/RegisterWork", strings.NewReader("\x00\x00\x00\x00\x00"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/grpc")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatalf("the stream was reset: %v", err)
	}
	msg, _ := url.PathUnescape(resp.Trailer.Get("Grpc-Message"))
	if got := resp.Trailer.Get("Grpc-Status"); got != "14" || !strings.HasPrefix(msg, ProxyErrorPrefix+` replica "r9"`) {
		t.Fatalf("trailers grpc-status %q, grpc-message %q; want 14 and the proxy's message naming r9", got, msg)
	}
	if errs := p.Errors(); len(errs) != 1 || errs[0].Backend != "r9" || !errs[0].GRPC {
		t.Fatalf("proxy errors %+v, want one gRPC error on r9", errs)
	}
}
