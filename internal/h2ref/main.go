// Command h2ref is the reference the API port is held to in scripts/h2spec:
// a bare net/http server with HTTP/1.1, HTTP/2 over TLS and HTTP/2 with
// prior knowledge (h2c) on, and nothing of the service in front of it.
//
//	h2ref -addr 127.0.0.1:0 [-tls-cert-file cert.pem -tls-key-file key.pem]
//
// It prints the address it listens on, then serves until killed.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	certFile := flag.String("tls-cert-file", "", "serve TLS with this certificate (PEM)")
	keyFile := flag.String("tls-key-file", "", "and this key (PEM)")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			_, _ = io.WriteString(w, "ok\n")
		}),
		Protocols: new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	fmt.Fprintln(os.Stdout, ln.Addr().String())
	if *certFile != "" {
		err = srv.ServeTLS(ln, *certFile, *keyFile)
	} else {
		err = srv.Serve(ln)
	}
	log.Fatal(err)
}
