// Package edge is the HTTP edge of the server: what a request meets
// before it reaches an RPC service. It checks what the transports cannot
// (JSON nesting before decoding, text storage cannot hold) and names the
// offending field in the error, so every entry point refuses alike.
package edge
