package webhooks

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Priorities of delivery jobs: River fetches a queue's available jobs by
// priority first (1 before 4), then by when they became due.
const (
	priorityNormal  = 1
	priorityBacklog = 4
)

// Default delivery budget of an organization, per instance: a webhook per
// event type an application cares about, at a busy application's event
// rate, stays within it, and the burst pays for one event sent to as many
// webhooks as an organization may have (their quota, 50).
//
// It is well below what the queue fetches (a few hundred jobs a second on
// a small machine), so that the deliveries kept at normal priority never
// fill the queue; an organization beyond it loses nothing while the queue
// is idle, since backlog jobs run whenever no normal job is waiting. The
// burst is also the most of one organization's jobs another's next
// delivery can find queued ahead of it: at 200, an organization whose
// events started fanning out to 50 failing receivers held another's
// deliveries back by a third of a second on a 2-core machine.
const (
	DefaultBudgetPerSecond = 20
	DefaultBudgetBurst     = 50
)

// Default fan-out budget of an organization, per instance: deliveries
// created in the transaction of the event that causes them (see
// FanOutArgs). Beyond it, deliveries are created at this pace. The burst
// is a second's worth: four events to 50 webhooks each.
const (
	DefaultFanOutPerSecond = 200
	DefaultFanOutBurst     = 200
)

// Budget orders delivery jobs fairly between organizations. Each
// organization's deliveries (first attempts and retries alike) spend from
// its token bucket; those it can pay for are queued at normal priority,
// the rest behind every other organization's normal ones. Without it, the
// queue ran in the order jobs became due: an organization that fans each
// event out to fifty webhooks, and whose receivers fail so that every
// delivery comes back as a retry, put thousands of jobs ahead of another
// organization's next delivery, and that delivery waited for all of them
// to be fetched (and snoozed by Slots) first. Nothing is dropped or
// refused: an organization beyond its budget is only served after the
// others.
//
// Like Slots, the buckets are per instance.
type Budget struct {
	PerSecond float64
	Burst     int

	mu   sync.Mutex
	orgs map[string]*rate.Limiter
}

// NewBudget returns a budget of perSecond deliveries per organization,
// burst at most at once.
func NewBudget(perSecond float64, burst int) *Budget {
	return &Budget{PerSecond: perSecond, Burst: burst}
}

// maxIdleBuckets is how many organizations' buckets are kept before full
// (idle) ones are dropped; dropping a full bucket changes nothing.
const maxIdleBuckets = 10_000

// take spends up to n of org's tokens at now and returns how many it could
// (0 to n). A nil Budget pays for everything.
func (b *Budget) take(org string, n int, now time.Time) int {
	if b == nil || n <= 0 {
		return max(n, 0)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	lim := b.limiter(org, now)
	k := min(n, int(lim.TokensAt(now)))
	if k > 0 && !lim.AllowN(now, k) {
		return 0
	}
	return max(k, 0)
}

// takeAll spends n of org's tokens if it has them all, and reports
// whether it did. A nil Budget pays for everything.
func (b *Budget) takeAll(org string, n int, now time.Time) bool {
	if b == nil || n <= 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limiter(org, now).AllowN(now, n)
}

// waitFor is how long until org could pay for n deliveries (at most the
// burst), assuming nobody else spends meanwhile.
func (b *Budget) waitFor(org string, n int, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	missing := float64(min(n, b.Burst)) - b.limiter(org, now).TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / b.PerSecond * float64(time.Second))
}

// limiter returns org's bucket, creating it (b.mu held).
func (b *Budget) limiter(org string, now time.Time) *rate.Limiter {
	if b.orgs == nil {
		b.orgs = map[string]*rate.Limiter{}
	}
	lim := b.orgs[org]
	if lim == nil {
		if len(b.orgs) >= maxIdleBuckets {
			b.forgetFull(now)
		}
		lim = rate.NewLimiter(rate.Limit(b.PerSecond), b.Burst)
		b.orgs[org] = lim
	}
	return lim
}

func (b *Budget) forgetFull(now time.Time) {
	for org, lim := range b.orgs {
		if lim.TokensAt(now) >= float64(b.Burst) {
			delete(b.orgs, org)
		}
	}
}

// priorities gives each of an organization-ordered list of deliveries its
// job priority: normal for those the organizations' budgets pay for, in
// order, backlog for the rest.
func (b *Budget) priorities(orgs []string, now time.Time) []int {
	count := map[string]int{}
	for _, org := range orgs {
		count[org]++
	}
	paid := map[string]int{}
	for org, n := range count {
		paid[org] = b.take(org, n, now)
	}
	out := make([]int, len(orgs))
	for i, org := range orgs {
		if paid[org] > 0 {
			paid[org]--
			out[i] = priorityNormal
		} else {
			out[i] = priorityBacklog
		}
	}
	return out
}
