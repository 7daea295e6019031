package ipreg

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// A Witness is an independent service that cosigns the log's checkpoints
// (c2sp.org/tlog-witness): it remembers the last tree it cosigned for the
// log and cosigns a new one only with a consistency proof from it, so it
// never cosigns two checkpoints of one log that contradict each other.
type Witness struct {
	// VerifierKey is the witness's c2sp.org/signed-note verifier key
	// (name+hash+base64 of 0x04 || Ed25519 public key).
	VerifierKey string
	// URL is the witness's submission prefix: checkpoints are posted to
	// URL + "/add-checkpoint".
	URL string

	verifier *torchwood.CosignatureVerifier
}

// Name is the witness's name: the first part of its verifier key.
func (w Witness) Name() string { return w.verifier.Name() }

// ParseWitness parses VKEY@URL, the value of serve --witness.
func ParseWitness(s string) (Witness, error) {
	vkey, rawURL, ok := strings.Cut(strings.TrimSpace(s), "@")
	if !ok || vkey == "" || rawURL == "" {
		return Witness{}, fmt.Errorf("witness %q: want VKEY@URL, e.g. witness.example+1234abcd+BASE64@https://witness.example", s)
	}
	v, err := ParseWitnessKey(vkey)
	if err != nil {
		return Witness{}, err
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return Witness{}, fmt.Errorf("witness URL %q: want an http:// or https:// URL without query or fragment", rawURL)
	}
	return Witness{VerifierKey: vkey, URL: strings.TrimSuffix(u.String(), "/"), verifier: v}, nil
}

// ParseWitnessKey parses a witness's cosignature/v1 verifier key (an
// Ed25519 c2sp.org/signed-note key of type 0x04).
func ParseWitnessKey(vkey string) (*torchwood.CosignatureVerifier, error) {
	v, err := torchwood.NewCosignatureVerifier(strings.TrimSpace(vkey))
	if err != nil {
		return nil, fmt.Errorf("witness key %q: %v (want a c2sp.org/tlog-cosignature verifier key name+hash+base64)", vkey, err)
	}
	if _, ok := v.PublicKey().(ed25519.PublicKey); !ok {
		return nil, fmt.Errorf("witness key %q: only Ed25519 (cosignature/v1) witness keys are supported", vkey)
	}
	return v, nil
}

// Reasons a submission to a witness failed, the reason label of
// creativeops_ip_witness_failures_total.
const (
	// WitnessUnreachable: no answer, or a server error; retried with
	// backoff.
	WitnessUnreachable = "unreachable"
	// WitnessRefused: the witness refused the request (403 it does not
	// accept the log's key, 404 it does not know the log, 400); retried
	// with backoff, since only its operator can fix it.
	WitnessRefused = "refused"
	// WitnessBadCosignature: the witness answered with a cosignature that
	// does not verify under its configured key; retried with backoff.
	WitnessBadCosignature = "bad_cosignature"
	// WitnessFork: the witness holds a tree this log does not extend (the
	// consistency proof failed, or it knows a larger tree than the log
	// has). An alert: the witness is not contacted again until restart.
	WitnessFork = "fork"
)

// Witness statuses in WitnessStatus.Status.
const (
	WitnessStatusPending = "pending"
	WitnessStatusOK      = "ok"
	WitnessStatusFork    = "fork"
)

// WitnessStatus is what this replica knows of one witness.
type WitnessStatus struct {
	Name        string
	VerifierKey string
	URL         string
	// Status is pending (nothing cosigned yet), ok, fork, or the reason of
	// the last failure (unreachable, refused, bad_cosignature).
	Status string
	// Detail explains the last failure.
	Detail string
	// CosignedSize is the largest tree size the witness cosigned (0 if
	// none), and CosignedAt when.
	CosignedSize int64
	CosignedAt   time.Time
}

// WitnessOptions configures the witness client.
type WitnessOptions struct {
	Witnesses []Witness
	// OnFailure is called for every failed submission with the witness's
	// name and the reason (WitnessUnreachable...); nil to ignore.
	OnFailure func(witness, reason string)
	// HTTPClient posts the checkpoints; nil for one with a 30 s timeout.
	HTTPClient *http.Client
	// Poll is how often the log head is read to find checkpoints other
	// replicas signed (this replica's own are sent as soon as they
	// commit); 0 for 5 s.
	Poll time.Duration
}

// witnessLog is what the witness client needs of a log.
type witnessLog interface {
	// head returns the latest committed checkpoint.
	head(ctx context.Context) (size int64, checkpoint []byte, err error)
	// prove returns the consistency proof from old to size.
	prove(ctx context.Context, old, size int64) (tlog.TreeProof, error)
	// cosigned returns the stored cosigned sizes by witness key.
	cosigned(ctx context.Context) (map[string]int64, error)
	// store keeps a cosignature unless one of at least that size is
	// stored (by another replica).
	store(ctx context.Context, witnessKey string, size int64, checkpoint, cosignature []byte) error
}

// witnessing submits the log's checkpoints to every witness: one round
// at a time, each sending the latest checkpoint to every witness that
// has not cosigned it yet, so the witnesses cosign the same trees and a
// certificate can carry all their cosignatures. Rounds coalesce: while
// one runs, new checkpoints only mark that another is due.
type witnessing struct {
	log     *slog.Logger
	src     witnessLog
	opts    WitnessOptions
	client  *http.Client
	wake    chan struct{}
	stop    context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex
	states  []*witnessState
	backoff func(failures int) time.Duration
}

type witnessState struct {
	Witness
	// known is the tree size the witness last reported having (-1:
	// unknown, take the stored cosignature's size or 0).
	known    int64
	status   string
	detail   string
	cosigned int64
	at       time.Time
	failures int
	retryAt  time.Time
	forked   bool
}

func newWitnessing(log *slog.Logger, src witnessLog, opts WitnessOptions) *witnessing {
	w := &witnessing{log: log, src: src, opts: opts, client: opts.HTTPClient, wake: make(chan struct{}, 1), done: make(chan struct{}), backoff: witnessBackoff}
	if w.client == nil {
		w.client = &http.Client{Timeout: 30 * time.Second}
	}
	if w.opts.Poll <= 0 {
		w.opts.Poll = 5 * time.Second
	}
	for _, wt := range opts.Witnesses {
		w.states = append(w.states, &witnessState{Witness: wt, known: -1, status: WitnessStatusPending})
	}
	return w
}

// witnessBackoff is the delay before retrying a witness after failures
// failed submissions in a row: 1 s doubling to 5 min.
func witnessBackoff(failures int) time.Duration {
	d := time.Second
	for i := 1; i < failures && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

func (w *witnessing) start(ctx context.Context) {
	ctx, w.stop = context.WithCancel(context.WithoutCancel(ctx))
	go w.run(ctx)
}

func (w *witnessing) close() {
	w.stop()
	<-w.done
}

// notify says a new checkpoint was committed.
func (w *witnessing) notify() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *witnessing) run(ctx context.Context) {
	defer close(w.done)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-t.C:
		}
		next := w.round(ctx)
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(next)
	}
}

// round sends the latest checkpoint to every witness due, and returns
// when the next round is due at the latest.
func (w *witnessing) round(ctx context.Context) time.Duration {
	next := w.opts.Poll
	size, checkpoint, err := w.src.head(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("witnesses: reading the log head failed", "error", err)
		}
		return next
	}
	if size == 0 {
		return next
	}
	stored, err := w.src.cosigned(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("witnesses: reading stored cosignatures failed", "error", err)
		}
		return next
	}
	now := time.Now()
	var wg sync.WaitGroup
	w.mu.Lock()
	for _, s := range w.states {
		if n, ok := stored[s.VerifierKey]; ok && n > s.cosigned {
			// Another replica had it cosigned.
			s.cosigned = n
			if s.status == WitnessStatusPending {
				s.status = WitnessStatusOK
			}
		}
		if s.known < 0 {
			s.known = stored[s.VerifierKey]
		}
		switch {
		case s.forked || s.cosigned >= size:
			continue
		case now.Before(s.retryAt):
			next = min(next, s.retryAt.Sub(now))
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.submit(ctx, s, size, checkpoint)
		}()
	}
	w.mu.Unlock()
	wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	now = time.Now()
	for _, s := range w.states {
		if !s.forked && s.cosigned < size && s.retryAt.After(now) {
			next = min(next, s.retryAt.Sub(now))
		}
	}
	return next
}

// submit sends one checkpoint to one witness. A 409 answer (the witness
// has another tree size than the one the proof starts from: another
// replica submitted meanwhile, or this replica's first contact) is
// followed by one more attempt from the size it reported.
func (w *witnessing) submit(ctx context.Context, s *witnessState, size int64, checkpoint []byte) {
	w.mu.Lock()
	old := s.known
	w.mu.Unlock()
	for attempt := 0; ; attempt++ {
		res := w.post(ctx, s.Witness, old, size, checkpoint)
		if ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		switch {
		case res.err == nil:
			s.known, s.failures, s.retryAt = size, 0, time.Time{}
			if size > s.cosigned {
				s.cosigned, s.at = size, time.Now()
			}
			s.status, s.detail = WitnessStatusOK, ""
			w.mu.Unlock()
			w.log.Debug("witness cosigned the IP log checkpoint", "witness", s.Name(), "size", size)
			return
		case res.conflict >= 0 && res.conflict <= size && res.conflict != old:
			s.known = res.conflict
			if attempt == 0 {
				old = res.conflict
				w.mu.Unlock()
				continue
			}
			// Another replica moved the witness on meanwhile: the next
			// round starts from where it is now.
			w.mu.Unlock()
			return
		case res.conflict > size:
			w.mu.Unlock()
			// The witness has a larger tree than this checkpoint's: a
			// larger checkpoint may have been committed meanwhile (by
			// another replica); if the log holds none, the witness has
			// seen a tree this log does not have.
			latest, _, err := w.src.head(ctx)
			w.mu.Lock()
			s.known = res.conflict
			if err == nil && latest >= res.conflict {
				w.mu.Unlock()
				w.notify()
				return
			}
			if err == nil {
				res.reason = WitnessFork
				res.err = fmt.Errorf("the witness has cosigned a tree of %d records; this log has %d", res.conflict, latest)
			}
		}
		w.fail(s, res)
		w.mu.Unlock()
		return
	}
}

// fail records a failed submission; w.mu is held.
func (w *witnessing) fail(s *witnessState, res postResult) {
	reason := res.reason
	if reason == "" {
		reason = WitnessUnreachable
	}
	s.failures++
	s.status, s.detail = reason, res.err.Error()
	if w.opts.OnFailure != nil {
		w.opts.OnFailure(s.Name(), reason)
	}
	switch reason {
	case WitnessFork:
		s.forked = true
		w.log.Error("IP log fork: a witness refused the log's checkpoint as inconsistent with a tree it cosigned; not submitting to it again until restart",
			"witness", s.Name(), "url", s.URL, "error", res.err)
	case WitnessUnreachable:
		s.retryAt = time.Now().Add(w.backoff(s.failures))
		w.log.Warn("witness unreachable; retrying", "witness", s.Name(), "url", s.URL, "retry_in", w.backoff(s.failures), "error", res.err)
	default:
		s.retryAt = time.Now().Add(w.backoff(s.failures))
		w.log.Error("witness refused the log's checkpoint", "witness", s.Name(), "url", s.URL, "reason", reason, "retry_in", w.backoff(s.failures), "error", res.err)
	}
}

type postResult struct {
	// conflict is the witness's tree size from a 409 answer, else -1.
	conflict int64
	reason   string
	err      error
}

// post submits checkpoint (of a tree of size records) to a witness with a
// consistency proof from old, and stores the cosignature it returns.
func (w *witnessing) post(ctx context.Context, wt Witness, old, size int64, checkpoint []byte) postResult {
	res := postResult{conflict: -1}
	var proof tlog.TreeProof
	if old > size {
		res.conflict = old
		res.err = fmt.Errorf("the witness has a tree of %d records", old)
		return res
	}
	if old > 0 && old < size {
		var err error
		if proof, err = w.src.prove(ctx, old, size); err != nil {
			res.err = fmt.Errorf("consistency proof from %d to %d: %w", old, size, err)
			return res
		}
	}
	body := AddCheckpointRequest(old, proof, checkpoint)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wt.URL+"/add-checkpoint", bytes.NewReader(body))
	if err != nil {
		res.err = err
		return res
	}
	resp, err := w.client.Do(req)
	if err != nil {
		res.err = err
		return res
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		res.err = err
		return res
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusConflict:
		n, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64)
		if err != nil || n < 0 {
			res.reason, res.err = WitnessRefused, fmt.Errorf("409 Conflict with a malformed tree size %q", text)
			return res
		}
		res.conflict = n
		res.reason, res.err = WitnessRefused, fmt.Errorf("409 Conflict: the witness has a tree of %d records, and the proof started from %d", n, old)
		return res
	case http.StatusUnprocessableEntity:
		res.reason = WitnessFork
		res.err = fmt.Errorf("422: the witness's tree of %d records is not a prefix of this log's tree of %d (consistency proof refused): %s", old, size, bytes.TrimSpace(text))
		return res
	case http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound:
		res.reason, res.err = WitnessRefused, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(text))
		return res
	default:
		res.err = fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(text))
		return res
	}
	lines, err := VerifyCosignature(checkpoint, text, wt.verifier)
	if err != nil {
		res.reason, res.err = WitnessBadCosignature, err
		return res
	}
	if err := w.src.store(ctx, wt.VerifierKey, size, checkpoint, lines); err != nil {
		res.err = fmt.Errorf("storing the cosignature: %w", err)
	}
	return res
}

// AddCheckpointRequest is the body of a c2sp.org/tlog-witness
// add-checkpoint request: "old <size>", the consistency proof's hashes
// one a line, an empty line, and the signed checkpoint.
func AddCheckpointRequest(old int64, proof tlog.TreeProof, checkpoint []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "old %d\n", old)
	for _, h := range proof {
		b.WriteString(base64.StdEncoding.EncodeToString(h[:]))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.Write(checkpoint)
	return b.Bytes()
}

// VerifyCosignature checks the signature lines a witness returned for a
// signed checkpoint and returns those by the witness's key, verified.
func VerifyCosignature(checkpoint, lines []byte, v *torchwood.CosignatureVerifier) ([]byte, error) {
	if len(lines) == 0 || lines[len(lines)-1] != '\n' {
		return nil, errors.New("the witness's answer is not signature lines")
	}
	n, err := note.Open(append(bytes.Clone(checkpoint), lines...), note.VerifierList(v))
	if err != nil {
		return nil, fmt.Errorf("the witness's cosignature does not verify under %s: %v", v.Name(), err)
	}
	var out []byte
	for _, sig := range n.Sigs {
		out = fmt.Appendf(out, "— %s %s\n", sig.Name, sig.Base64)
	}
	return out, nil
}

// WitnessStatuses reports this replica's view of each witness.
func (w *witnessing) statuses() []WitnessStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]WitnessStatus, len(w.states))
	for i, s := range w.states {
		out[i] = WitnessStatus{Name: s.Name(), VerifierKey: s.VerifierKey, URL: s.URL, Status: s.status, Detail: s.detail, CosignedSize: s.cosigned, CosignedAt: s.at}
	}
	return out
}
