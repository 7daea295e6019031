package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/creativeops/creativeops/webhooks"
)

// receiver is one local webhook endpoint on its own loopback address.
// Addresses differ (127.0.0.2, 127.0.1.1, ...) because the service shares
// delivery workers per receiver host: B's receiver must not be the same
// host as A's, as it would not be in production.
type receiver struct {
	srv *http.Server
	ln  net.Listener
	URL string
}

func startReceiver(ip string, h http.Handler) (*receiver, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Errorf("receiver on %s: %w", ip, err)
	}
	r := &receiver{ln: ln, URL: "http://" + ln.Addr().String() + "/hook",
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Close ends the receiver and every request it is holding.
func (r *receiver) Close() { _ = r.srv.Close() }

// victimReceiver is B's endpoint: it answers at once, checks each
// delivery's signature, and notes when each event first arrived.
type victimReceiver struct {
	secret string

	mu      sync.Mutex
	arrived map[string]arrival // event id → first arrival
	bad     int
}

type arrival struct {
	event, received time.Time
}

func newVictimReceiver() *victimReceiver {
	return &victimReceiver{secret: webhooks.GenerateSecret(), arrived: map[string]arrival{}}
}

func (v *victimReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got := time.Now()
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var ev webhooks.Event
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	if err == nil {
		err = v.verify(r.Header, body)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err != nil {
		v.bad++
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if _, seen := v.arrived[ev.ID]; !seen {
		v.arrived[ev.ID] = arrival{event: ev.Timestamp, received: got}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (v *victimReceiver) verify(h http.Header, body []byte) error {
	id := h.Get("webhook-id")
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || id == "" {
		return errors.New("missing webhook-id or webhook-timestamp")
	}
	want, err := webhooks.Sign(v.secret, id, time.Unix(ts, 0), body)
	if err != nil {
		return err
	}
	if !strings.Contains(" "+h.Get("webhook-signature")+" ", " "+want+" ") {
		return errors.New("bad signature")
	}
	return nil
}

// delays returns the delivery delay (event time → first arrival) of the
// events that happened within [from, to], sorted, and how many deliveries
// failed their signature check so far.
func (v *victimReceiver) delays(from, to time.Time) (d []time.Duration, badSignatures int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	// Event times have millisecond precision: widen the window by one.
	from = from.Truncate(time.Millisecond)
	for _, a := range v.arrived {
		if !a.event.Before(from) && !a.event.After(to) {
			d = append(d, max(0, a.received.Sub(a.event)))
		}
	}
	slices.Sort(d)
	return d, v.bad
}

// slowHandler holds every delivery until the service gives up on it (its
// delivery timeout) or the receiver closes.
func slowHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	})
}

// failingHandler answers every delivery 500, so that each is retried.
func failingHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		http.Error(w, "receiver failing on purpose", http.StatusInternalServerError)
	})
}
