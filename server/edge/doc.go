// Package edge is the HTTP edge of the server: what guards the port
// before a request reaches an RPC service, one file per concern.
//
//   - bodies.go: the body size limits and the shared budget of buffered
//     bodies (Bodies, MaxBodyBytes);
//   - timeouts.go: the read, write and idle limits on the HTTP server and
//     on gRPC's own transport (Timeouts);
//   - resets.go: the bound on HTTP/2 streams a connection ends early;
//   - clientaddr.go: who the client is, through --trusted-proxies (Proxies);
//   - cors.go, tls.go, debug.go: browsers' origins, certificates and their
//     reloading, the profiler's port;
//   - jsondepth.go, textcheck.go: what a request may carry, refused with
//     the offending field named;
//   - requestlog.go, errorlog.go: how many log lines a client can cause.
//
// It depends on nothing of package server, which builds these parts from
// its Config and puts them in front of the transports (layers_test.go
// keeps it so).
package edge
