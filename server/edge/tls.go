package edge

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// TLSConfig is the server side of TLS for a certificate and key file pair,
// or nil when neither is set.
func TLSConfig(certFile, keyFile string, log *slog.Logger) (*tls.Config, error) {
	switch {
	case certFile == "" && keyFile == "":
		return nil, nil
	case certFile == "" || keyFile == "":
		return nil, errors.New("--tls-cert-file and --tls-key-file go together: set both, or neither")
	}
	r := &certReloader{certFile: certFile, keyFile: keyFile, log: log}
	if err := r.load(); err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"h2", "http/1.1"},
		GetCertificate: r.certificate,
	}, nil
}

// certReloader serves the certificate of a pair of PEM files, reading them
// again when either changes (its modification time, size or inode: an
// edit in place, or a new file renamed over it as cert-manager and
// Kubernetes secret volumes do). Checking costs two stat calls per
// handshake, far below the handshake itself. A pair that does not load (a
// certificate written before its key) leaves the last good certificate in
// service and is tried again at the next handshake.
type certReloader struct {
	certFile, keyFile string
	log               *slog.Logger

	mu        sync.Mutex
	cert      *tls.Certificate
	certStamp os.FileInfo
	keyStamp  os.FileInfo
	lastErr   string // the last failure to reload, logged once
}

func (r *certReloader) certificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	certSt, err1 := os.Stat(r.certFile)
	keySt, err2 := os.Stat(r.keyFile)
	if err := errors.Join(err1, err2); err != nil {
		r.warnOnce(err)
		return r.cert, nil
	}
	if sameStamp(certSt, r.certStamp) && sameStamp(keySt, r.keyStamp) {
		return r.cert, nil
	}
	if err := r.loadLocked(certSt, keySt); err != nil {
		r.warnOnce(err)
	}
	return r.cert, nil
}

func (r *certReloader) load() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	certSt, err := os.Stat(r.certFile)
	if err != nil {
		return fmt.Errorf("--tls-cert-file: %w", err)
	}
	keySt, err := os.Stat(r.keyFile)
	if err != nil {
		return fmt.Errorf("--tls-key-file: %w", err)
	}
	return r.loadLocked(certSt, keySt)
}

func (r *certReloader) loadLocked(certSt, keySt os.FileInfo) error {
	cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return fmt.Errorf("TLS certificate %s and key %s: %w", r.certFile, r.keyFile, err)
	}
	if r.cert != nil {
		r.log.Info("TLS certificate reloaded", "cert_file", r.certFile, "not_after", cert.Leaf.NotAfter.Format(time.RFC3339))
	}
	r.cert, r.certStamp, r.keyStamp = &cert, certSt, keySt
	r.lastErr = ""
	return nil
}

func (r *certReloader) warnOnce(err error) {
	if err.Error() == r.lastErr {
		return
	}
	r.lastErr = err.Error()
	r.log.Warn("TLS certificate files do not load; still serving the previous certificate", "err", err)
}

func sameStamp(a, b os.FileInfo) bool {
	return a != nil && b != nil && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size() && os.SameFile(a, b)
}
