package webhooks

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Slots shares an instance's delivery workers fairly. An attempt holds a
// slot of its organization and one of its receiver's host for as long as
// it runs; when either is full the job is snoozed (not failed: a snooze is
// not an attempt and does not touch the retry schedule) and the worker is
// free for someone else's delivery. So one organization never holds more
// than PerOrganization workers, whatever its backlog, and a slow receiver
// never holds more than PerHost, whoever registered it: the remaining
// workers keep delivering other organizations' events.
//
// The limits are per instance, like the worker pool they divide.
type Slots struct {
	PerOrganization int
	PerHost         int

	mu    sync.Mutex
	orgs  map[string]int
	hosts map[string]int
	// parked paces the jobs of organizations found holding all their
	// slots (see park).
	parked turns
}

// NewSlots divides workers: an organization may use half of them, a
// receiver host a quarter (at least one each).
func NewSlots(workers int) *Slots {
	return &Slots{PerOrganization: max(1, workers/2), PerHost: max(1, workers/4)}
}

// acquire takes a slot of the organization and of the host, or neither.
// A nil Slots has no limits.
func (s *Slots) acquire(org, host string) (release func(), ok bool) {
	if s == nil {
		return func() {}, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.orgs == nil {
		s.orgs, s.hosts = map[string]int{}, map[string]int{}
	}
	if s.orgs[org] >= s.PerOrganization || s.hosts[host] >= s.PerHost {
		return nil, false
	}
	s.orgs[org]++
	s.hosts[host]++
	return sync.OnceFunc(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.orgs[org]--; s.orgs[org] == 0 {
			delete(s.orgs, org)
		}
		if s.hosts[host]--; s.hosts[host] == 0 {
			delete(s.hosts, host)
		}
	}), true
}

// organizationFull reports whether org holds all its slots (a nil Slots
// never is).
func (s *Slots) organizationFull(org string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.orgs[org] >= s.PerOrganization
}

// receiverHost is what per-receiver limits key on: the URL's host name,
// lower-cased, without port (one machine behind several ports is still one
// slow receiver).
func receiverHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.TrimRight(strings.ToLower(u.Hostname()), ".")
}

// How long a job that found no slot first waits: a full organization
// waits longer than a full receiver host. A host's slots are often held by
// quick deliveries of one burst (an application's own events to its one
// endpoint), which free them within milliseconds; an organization's stay
// full while it has slow receivers, and its jobs then go to the backlog.
const (
	snoozeOrganization = 500 * time.Millisecond
	snoozeHost         = 50 * time.Millisecond
	snoozeMax          = 30 * time.Second
)

// snoozeFor is how long a job that found no slot waits: first, doubling
// with each snooze of the job (River counts them in its metadata), up to
// snoozeMax, with ±25% jitter so that a backlog does not come back all at
// once. A large backlog of one organization is thus looked at less and
// less often while its slots stay full, instead of being fetched again
// every second.
func snoozeFor(metadata []byte, first time.Duration) time.Duration {
	var m struct {
		Snoozes int `json:"snoozes"`
	}
	_ = json.Unmarshal(metadata, &m)
	d := snoozeMax
	if n := max(m.Snoozes, 0); n < 16 {
		d = min(first<<n, snoozeMax)
	}
	return jitter(d)
}

// parkPerSecond is how many jobs of an organization holding all its slots
// come back per second, at most, to look for one (per instance), however
// large its backlog. Each look is a fetch and a snooze, writes both: an
// organization whose 50 webhooks hung had its thousands of jobs snoozed
// 18,000 times in 45 seconds, each backing off on its own, and on SQLite
// every other organization's writes queued behind those.
const parkPerSecond = 50

// park is how long a job of org, which holds all its slots, waits before
// looking again: its turn among the organization's parked jobs, which come
// back parkPerSecond at a time in the order they were parked, and at least
// snoozeOrganization (±25%), which spreads a first batch and lets a slot
// free up. A nil Slots parks for snoozeOrganization.
func (s *Slots) park(org string, now time.Time) time.Duration {
	floor := jitter(snoozeOrganization)
	if s == nil {
		return floor
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parked.perSecond == 0 {
		s.parked = turns{perSecond: parkPerSecond, burst: 1}
	}
	return max(floor, s.parked.next(org, 1, now))
}
