package edge

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// errorLog is the handler of the server's logger. It writes ERROR records
// at up to ErrorLinesPerSecond a second per organization (the request's,
// "" for work no organization's request caused) after a burst of
// ErrorLineBurst, as the request log writes failed requests: one request
// that fails the server each time it is sent (a client retrying it, or an
// attacker finding it) would otherwise write an ERROR line for each. The
// records left out are counted, and one WARN line per organization, at
// most once a second while they continue, says how many and the last
// one's message ("error lines suppressed").
type errorLog struct {
	slog.Handler
	b *errorBudget
}

// OrgOf is the organization whose request a context serves, "" for none.
type OrgOf func(ctx context.Context) string

// errorBudget is state shared by an errorLog and the handlers WithAttrs
// and WithGroup derive from it.
type errorBudget struct {
	summary slog.Handler // the handler summaries are written to
	orgOf   OrgOf
	after   time.Duration
	mu      sync.Mutex
	orgs    map[string]*suppressed
}

type suppressed struct {
	limit *rate.Limiter
	n     int
	last  string // message of the last record left out
	armed bool   // a summary is scheduled
}

// NewErrorLog is h with its ERROR records budgeted per organization, as
// orgOf tells it from the record's context (see errorLog): the handler of
// the server's logger.
func NewErrorLog(h slog.Handler, orgOf OrgOf) slog.Handler { return newErrorLog(h, orgOf) }

func newErrorLog(h slog.Handler, orgOf OrgOf) *errorLog {
	return &errorLog{Handler: h, b: &errorBudget{summary: h, orgOf: orgOf, after: time.Second, orgs: map[string]*suppressed{}}}
}

func (h *errorLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelError {
		return h.Handler.Handle(ctx, r)
	}
	if !h.b.allow(h.b.orgOf(ctx), r.Time, r.Message) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h *errorLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &errorLog{Handler: h.Handler.WithAttrs(attrs), b: h.b}
}

func (h *errorLog) WithGroup(name string) slog.Handler {
	return &errorLog{Handler: h.Handler.WithGroup(name), b: h.b}
}

// allow spends one of org's ERROR lines at now, or counts the record
// (message msg) as left out and makes sure a summary will say so.
func (b *errorBudget) allow(org string, now time.Time, msg string) bool {
	if now.IsZero() {
		now = time.Now()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.orgs[org]
	if s == nil {
		s = &suppressed{limit: rate.NewLimiter(ErrorLinesPerSecond, ErrorLineBurst)}
		b.orgs[org] = s
	}
	if s.limit.AllowN(now, 1) {
		return true
	}
	s.n++
	s.last = msg
	if !s.armed {
		s.armed = true
		time.AfterFunc(b.after, func() { b.summarize(org) })
	}
	return false
}

// summarize writes how many of org's ERROR records were left out since
// its last summary.
func (b *errorBudget) summarize(org string) {
	b.mu.Lock()
	s := b.orgs[org]
	n, last := s.n, s.last
	s.n, s.last, s.armed = 0, "", false
	b.mu.Unlock()
	if n == 0 {
		return
	}
	r := slog.NewRecord(time.Now(), slog.LevelWarn, "error lines suppressed", 0)
	r.AddAttrs(slog.String("organization_id", org), slog.Int("suppressed_errors", n), slog.String("last_message", last))
	_ = b.summary.Handle(context.Background(), r)
}
