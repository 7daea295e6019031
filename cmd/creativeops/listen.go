package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/creativeops/creativeops/webhooks"
)

// listenState is what listen keeps in its --state file, so that a restart
// goes on after the last event the handler acknowledged, signed with the
// same secret.
type listenState struct {
	After  string `json:"after"`
	Secret string `json:"secret"`
}

// listenPageSize is how many events one poll reads at most.
const listenPageSize = 100

// listen follows the organization's events through GET /v1/events and
// POSTs each to a local URL as a webhook delivery: the same body, signed
// per Standard Webhooks with a local secret. It needs no public URL: the
// service is polled, never called back.
//
// An event is done once the handler answered 2xx; until then it is sent
// again (with backoff), and no later event is sent before it, so the
// handler sees the events in the order the organization's were committed.
// The last done event's id is saved in --state after each, so a listener
// stopped (or killed) and started again goes on after it: nothing is
// lost, and nothing acknowledged is sent again, but for the one event
// whose acknowledgement came in the instant before a kill (handlers
// deduplicate on webhook-id, as for real deliveries).
func listen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("listen --forward-to URL [--api-key KEY] [--url URL] [--state FILE] [--after EVENT_ID] [flags]", 0)
	var apiKey, apiURL, forwardTo, statePath, after, secret, types string
	fs.env(textValue{&apiKey, nil}, "api-key", "API key with the events:read scope")
	apiURL = "http://localhost:8080"
	fs.env(textValue{&apiURL, nil}, "url", "the creativeops service's base URL")
	fs.StringVar(&forwardTo, "forward-to", "", "the local URL to POST each event to, e.g. http://localhost:3000/hooks")
	fs.StringVar(&statePath, "state", "", "file that keeps the last forwarded event and the secret across restarts (created if missing)")
	fs.StringVar(&after, "after", "", "start after this event id (default: the saved state, else events from now on)")
	fs.StringVar(&secret, "secret", "", "signing secret (whsec_...); default: the saved one, else a new one, printed")
	fs.StringVar(&types, "events", "", "only these event types, comma-separated (default: all)")
	interval := 2 * time.Second
	fs.Var(durationValue{p: &interval}, "interval", "how often to poll when there is nothing new")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	switch {
	case apiKey == "":
		return usagef("listen needs --api-key (or %s)", envName("api-key"))
	case forwardTo == "":
		return usagef("listen needs --forward-to URL")
	}
	if u, err := url.Parse(forwardTo); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("--forward-to: %q is not an http(s) URL", forwardTo)
	}
	if u, err := url.Parse(apiURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("--url: %q is not an http(s) URL", apiURL)
	}
	if secret != "" {
		if err := webhooks.ValidateSecret(secret); err != nil {
			return usagef("--secret: %v", err)
		}
	}
	var typeList []string
	for t := range strings.SplitSeq(types, ",") {
		if t = strings.TrimSpace(t); t != "" {
			typeList = append(typeList, t)
		}
	}

	st := listenState{}
	if statePath != "" {
		b, err := os.ReadFile(statePath)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return err
		default:
			if err := json.Unmarshal(b, &st); err != nil {
				return fmt.Errorf("--state %s: %w", statePath, err)
			}
		}
	}
	if after != "" {
		st.After = after
	}
	if secret != "" {
		st.Secret = secret
	}
	if st.Secret == "" {
		st.Secret = webhooks.GenerateSecret()
	}
	l := &listener{
		api: strings.TrimRight(apiURL, "/"), key: apiKey, forwardTo: forwardTo, types: typeList,
		statePath: statePath, state: st, interval: interval, out: stdout, log: stderr,
		client: &http.Client{Timeout: 30 * time.Second},
	}
	fmt.Fprintf(stdout, "Forwarding %s events to %s\nSigning secret: %s\n", cmpOr(types, "all"), forwardTo, st.Secret)
	if err := l.save(); err != nil {
		return err
	}
	err := l.run(ctx)
	if ctx.Err() != nil {
		return nil // stopped (Ctrl-C): the state is saved after every event
	}
	return err
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

type listener struct {
	api, key, forwardTo string
	types               []string
	statePath           string
	state               listenState
	interval            time.Duration
	out, log            io.Writer
	client              *http.Client
}

// apiEvent is an event as GET /v1/events returns it.
type apiEvent struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

func (l *listener) run(ctx context.Context) error {
	if l.state.After == "" {
		if err := l.start(ctx); err != nil {
			return err
		}
	}
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		evs, err := l.poll(ctx, l.state.After)
		if err != nil {
			var fatal *apiError
			if errors.As(err, &fatal) && fatal.fatal() {
				return err
			}
			backoff = nextBackoff(backoff)
			fmt.Fprintf(l.log, "creativeops listen: %v; trying again in %v\n", err, backoff)
			sleep(ctx, backoff)
			continue
		}
		backoff = 0
		for _, ev := range evs {
			if err := l.deliver(ctx, ev); err != nil {
				return err
			}
		}
		if len(evs) < listenPageSize {
			sleep(ctx, l.interval)
		}
	}
	return ctx.Err()
}

// start settles where a listener without a saved position begins: after
// the newest event there is now. An organization without any event yet
// is waited for; its first events are then all new.
func (l *listener) start(ctx context.Context) error {
	for ctx.Err() == nil {
		evs, err := l.list(ctx, url.Values{"page_size": {"1"}})
		if err == nil {
			if len(evs) > 0 {
				l.state.After = evs[0].ID
				return l.save()
			}
			// Nothing yet: whatever comes is new. Read it all, oldest first.
			all, err := l.all(ctx)
			if err == nil && len(all) > 0 {
				for _, ev := range all {
					if err := l.deliver(ctx, ev); err != nil {
						return err
					}
				}
				return nil
			}
		}
		var fatal *apiError
		if errors.As(err, &fatal) && fatal.fatal() {
			return err
		}
		sleep(ctx, l.interval)
	}
	return ctx.Err()
}

// all lists every event (newest first, page by page) and returns them
// oldest first.
func (l *listener) all(ctx context.Context) ([]apiEvent, error) {
	var out []apiEvent
	token := ""
	for {
		q := url.Values{"page_size": {fmt.Sprint(listenPageSize)}}
		if token != "" {
			q.Set("page_token", token)
		}
		page, next, err := l.page(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if token = next; token == "" {
			slices.Reverse(out)
			return out, nil
		}
	}
}

func (l *listener) poll(ctx context.Context, after string) ([]apiEvent, error) {
	return l.list(ctx, url.Values{"after": {after}, "page_size": {fmt.Sprint(listenPageSize)}})
}

func (l *listener) list(ctx context.Context, q url.Values) ([]apiEvent, error) {
	evs, _, err := l.page(ctx, q)
	return evs, err
}

// apiError is an error answer of the service.
type apiError struct {
	status int
	body   string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("GET /v1/events: %d %s", e.status, strings.TrimSpace(e.body))
}

// fatal: retrying cannot help (a bad key, a missing scope, an event id
// the service does not know).
func (e *apiError) fatal() bool {
	return e.status == http.StatusUnauthorized || e.status == http.StatusForbidden || e.status == http.StatusBadRequest
}

func (l *listener) page(ctx context.Context, q url.Values) ([]apiEvent, string, error) {
	for _, t := range l.types {
		q.Add("type", t)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.api+"/v1/events?"+q.Encode(), nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Authorization", "Bearer "+l.key)
	resp, err := l.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", &apiError{status: resp.StatusCode, body: string(body)}
	}
	var out struct {
		Events        []apiEvent `json:"events"`
		NextPageToken string     `json:"next_page_token"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, "", fmt.Errorf("GET /v1/events: %w", err)
	}
	return out.Events, out.NextPageToken, nil
}

// deliver POSTs one event until the handler acknowledges it, then saves
// it as the last one done.
func (l *listener) deliver(ctx context.Context, ev apiEvent) error {
	body, err := webhooks.Event{ID: ev.ID, Type: ev.Type, Timestamp: ev.Timestamp, Data: ev.Data}.MarshalJSON()
	if err != nil {
		return err
	}
	backoff := time.Duration(0)
	for {
		start := time.Now()
		status, err := l.forward(ctx, ev.ID, body)
		took := time.Since(start).Round(time.Millisecond)
		if err == nil && status/100 == 2 {
			fmt.Fprintf(l.out, "%s  %-24s %s  %d (%v)\n", time.Now().Format("15:04:05"), ev.Type, ev.ID, status, took)
			l.state.After = ev.ID
			return l.save()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		backoff = nextBackoff(backoff)
		what := fmt.Sprint(status)
		if err != nil {
			what = err.Error()
		}
		fmt.Fprintf(l.out, "%s  %-24s %s  %s; again in %v\n", time.Now().Format("15:04:05"), ev.Type, ev.ID, what, backoff)
		sleep(ctx, backoff)
	}
}

func (l *listener) forward(ctx context.Context, id string, body []byte) (int, error) {
	h, err := webhooks.Headers(l.state.Secret, id, time.Now(), body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.forwardTo, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = h
	resp, err := l.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// save writes the state file whole (a new file renamed over the old), so
// a kill never leaves half of one.
func (l *listener) save() error {
	if l.statePath == "" {
		return nil
	}
	b, err := json.Marshal(l.state)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.statePath), ".listen-state-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), l.statePath)
}

// nextBackoff doubles from 500 ms to at most 30 s.
func nextBackoff(d time.Duration) time.Duration {
	return min(max(2*d, 500*time.Millisecond), 30*time.Second)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
