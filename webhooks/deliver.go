package webhooks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/propagation"
)

// Outcome is what the service must do after an attempt. It is a string so
// it can be stored and logged as is.
type Outcome string

const (
	// Succeeded: the endpoint answered 2xx; the message is delivered.
	Succeeded Outcome = "succeeded"
	// Retry: schedule another attempt, if the schedule allows one.
	Retry Outcome = "retry"
	// Disable: the endpoint answered 410 Gone; disable the webhook and
	// stop retrying.
	Disable Outcome = "disable"
)

// MaxResponseBody is how much of a response body an Attempt keeps: enough
// for a customer to see the error their endpoint returned.
const MaxResponseBody = 1 << 10

// MaxRetryAfter caps Attempt.RetryAfter so that a hostile or broken
// Retry-After cannot park a message far beyond the schedule's longest step.
const MaxRetryAfter = 10 * time.Hour

// MaxErrorLength bounds Attempt.Err, which quotes the receiver's status
// line or the transport's error.
const MaxErrorLength = 1 << 10

// maxStatusLength bounds the receiver's status line quoted in Attempt.Err.
const maxStatusLength = 256

// drainLimit is how much more of a body we read, and discard, so the
// connection can be reused; past it closing is cheaper than reading.
const drainLimit = 64 << 10

// Attempt records one delivery attempt.
type Attempt struct {
	StatusCode int           // 0 when no response was received
	Latency    time.Duration // until the response headers or the error
	Err        string        // why the attempt did not succeed; empty on success
	// ResponseBody is the first MaxResponseBody bytes of the response, made
	// valid UTF-8 without NULs so it can go straight into a text column.
	ResponseBody string
	// RetryAfter is the receiver's Retry-After on 429/503, capped at
	// MaxRetryAfter; zero when absent or unparsable.
	RetryAfter time.Duration
	Outcome    Outcome
}

var defaultClient = sync.OnceValue(func() *http.Client { return NewClient(false, DefaultTimeout) })

// Deliver makes one signed POST of ev to endpoint. The webhook-id is ev.ID,
// the same on every retry so receivers can deduplicate; webhook-timestamp
// is now, the attempt time, so receivers' replay windows judge this attempt
// and not when the event happened. A nil client means a shared strict
// client; the service should pass its own from NewClient.
//
// Errors never escape as Go errors: every failure is an Attempt with Outcome
// Retry, because the caller's job is the same whatever went wrong.
//
// Everything in the Attempt that came from the receiver (its status line,
// body, and the transport errors that quote its bytes) is made valid UTF-8
// without NULs and bounded, so it can be stored and listed as is.
//
// A traced caller (the delivery job's span) gets a client span per attempt,
// and the receiver its W3C traceparent header, so a receiver that traces
// can join the attempt's trace.
//
// previous are secrets that also sign the request, during a rotation's
// grace period (see Headers).
func Deliver(ctx context.Context, client *http.Client, endpoint, secret string, ev Event, now time.Time, previous ...string) Attempt {
	ctx, span := startDeliverySpan(ctx, endpoint, ev)
	a := deliver(ctx, client, endpoint, secret, ev, now, previous)
	a.Err = sanitizeBounded(a.Err, MaxErrorLength)
	endDeliverySpan(span, a)
	return a
}

func deliver(ctx context.Context, client *http.Client, endpoint, secret string, ev Event, now time.Time, previous []string) Attempt {
	if client == nil {
		client = defaultClient()
	}
	body, err := ev.MarshalJSON()
	if err != nil {
		return Attempt{Outcome: Retry, Err: "encode event: " + err.Error()}
	}
	h, err := Headers(secret, ev.ID, now, body, previous...)
	if err != nil {
		return Attempt{Outcome: Retry, Err: "sign event: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return Attempt{Outcome: Retry, Err: "build request: " + err.Error()}
	}
	req.Header = h
	traceContext.Inject(ctx, propagation.HeaderCarrier(req.Header))

	start := time.Now()
	resp, err := client.Do(req)
	a := Attempt{Latency: time.Since(start)}
	if err != nil {
		a.Outcome = Retry
		a.Err = err.Error()
		return a
	}
	defer resp.Body.Close()

	a.StatusCode = resp.StatusCode
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody))
	a.ResponseBody = sanitizeBounded(string(b), MaxResponseBody)
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))

	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299:
		a.Outcome = Succeeded
	case code == http.StatusGone:
		a.Outcome = Disable
		a.Err = "endpoint answered 410 Gone: disable the webhook"
	default:
		a.Outcome = Retry
		a.Err = fmt.Sprintf("endpoint answered %s", sanitizeBounded(resp.Status, maxStatusLength))
		if code >= 300 && code <= 399 {
			a.Err += " (redirects are not followed)"
		}
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			a.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
		}
	}
	return a
}

// parseRetryAfter reads delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
// A date is measured from now, the attempt time, so a receiver's skewed
// clock only shifts the wait by the skew.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs >= int64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter
		}
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), MaxRetryAfter)
}

// sanitizeBounded makes text from a receiver storable: valid UTF-8 (invalid
// bytes become U+FFFD), no NULs (PostgreSQL refuses them), at most max
// bytes, cut at a character boundary.
func sanitizeBounded(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
