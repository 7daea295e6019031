package webhooks

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Priorities of delivery jobs: River fetches a queue's available jobs by
// priority first (1 before 4), then by when they became due.
const (
	priorityPrompt  = 1
	priorityNormal  = 2
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

// DefaultBudgetPrompt is how many of an organization's deliveries at once
// go ahead of every organization's bursts (see Budget.Prompt): half the
// default delivery workers, an organization's share of them.
const DefaultBudgetPrompt = 10

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
// Within the budget, the first Prompt deliveries of a burst (refilled at
// the budget's rate) are queued ahead of every organization's normal ones.
// An application sending its events as they happen stays within it, so
// its next delivery no longer waits behind another organization's burst
// (one event to 50 webhooks took the 20 workers a seventh of a second on a
// 2-core machine); a burst only queues its own remainder behind others'
// prompt deliveries.
//
// Like Slots, the buckets are per instance.
type Budget struct {
	PerSecond float64
	Burst     int
	// Prompt is the burst of the prompt lane (0: none).
	Prompt int

	mu   sync.Mutex
	orgs map[string]*buckets
	// pace hands out the turns of jobs waiting for budget (see park).
	pace turns
}

// buckets is an organization's budget and its prompt lane.
type buckets struct {
	budget, prompt *rate.Limiter
}

// NewBudget returns a budget of perSecond deliveries per organization,
// burst at most at once, without a prompt lane.
func NewBudget(perSecond float64, burst int) *Budget {
	return &Budget{PerSecond: perSecond, Burst: burst}
}

// maxIdleBuckets is how many organizations' buckets are kept before full
// (idle) ones are dropped; dropping a full bucket changes nothing.
const maxIdleBuckets = 10_000

// take spends up to n of org's tokens at now and returns how many it could
// (0 to n). A nil Budget pays for everything.
func (b *Budget) take(org string, n int, now time.Time) int {
	paid, _ := b.spend(org, n, now)
	return paid
}

// spend is take, and says how many of those paid its prompt lane also
// pays for (the first ones).
func (b *Budget) spend(org string, n int, now time.Time) (paid, prompt int) {
	if b == nil || n <= 0 {
		return max(n, 0), 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.limiters(org, now)
	paid = takeUpTo(l.budget, n, now)
	if l.prompt != nil {
		prompt = takeUpTo(l.prompt, paid, now)
	}
	return paid, prompt
}

// takeUpTo spends up to n of lim's tokens and returns how many it could.
func takeUpTo(lim *rate.Limiter, n int, now time.Time) int {
	k := min(n, int(lim.TokensAt(now)))
	if k <= 0 || !lim.AllowN(now, k) {
		return 0
	}
	return k
}

// takeAll spends n of org's tokens if it has them all, and reports
// whether it did. A nil Budget pays for everything.
func (b *Budget) takeAll(org string, n int, now time.Time) bool {
	if b == nil || n <= 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limiters(org, now).budget.AllowN(now, n)
}

// waitFor is how long until org could pay for n deliveries (at most the
// burst), assuming nobody else spends meanwhile.
func (b *Budget) waitFor(org string, n int, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	missing := float64(min(n, b.Burst)) - b.limiters(org, now).budget.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / b.PerSecond * float64(time.Second))
}

// park is how long a job that needs n of org's tokens, and found too few,
// waits before looking again: until the budget will have paid for the
// jobs parked before it and for this one (n at most the burst), assuming
// nobody else spends meanwhile, and at least snoozeOrganization (±25%).
// So an organization's parked jobs come back in order, at the pace the
// budget refills, instead of each backing off on its own and all of them
// being fetched again and again while the budget is spent.
func (b *Budget) park(org string, n int, now time.Time) time.Duration {
	floor := jitter(snoozeOrganization)
	if b == nil {
		return floor
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pace.perSecond == 0 {
		// The budget was just found short: so is the pace.
		b.pace = turns{perSecond: b.PerSecond, burst: b.Burst, fromEmpty: true}
	}
	return max(floor, b.pace.next(org, n, now))
}

// limiters returns org's buckets, creating them (b.mu held).
func (b *Budget) limiters(org string, now time.Time) *buckets {
	if b.orgs == nil {
		b.orgs = map[string]*buckets{}
	}
	l := b.orgs[org]
	if l == nil {
		if len(b.orgs) >= maxIdleBuckets {
			b.forgetFull(now)
		}
		l = &buckets{budget: rate.NewLimiter(rate.Limit(b.PerSecond), b.Burst)}
		if b.Prompt > 0 {
			l.prompt = rate.NewLimiter(rate.Limit(b.PerSecond), b.Prompt)
		}
		b.orgs[org] = l
	}
	return l
}

func (b *Budget) forgetFull(now time.Time) {
	for org, l := range b.orgs {
		if l.budget.TokensAt(now) >= float64(b.Burst) && (l.prompt == nil || l.prompt.TokensAt(now) >= float64(b.Prompt)) {
			delete(b.orgs, org)
		}
	}
}

// priorities gives each of an organization-ordered list of deliveries its
// job priority: prompt for those the organizations' prompt lanes and
// budgets pay for, in order, then normal for those only the budgets pay
// for, and backlog for the rest. A nil Budget pays for everything, at
// normal priority.
func (b *Budget) priorities(orgs []string, now time.Time) []int {
	count := map[string]int{}
	for _, org := range orgs {
		count[org]++
	}
	paid, prompt := map[string]int{}, map[string]int{}
	for org, n := range count {
		paid[org], prompt[org] = b.spend(org, n, now)
	}
	out := make([]int, len(orgs))
	for i, org := range orgs {
		switch {
		case prompt[org] > 0:
			prompt[org]--
			paid[org]--
			out[i] = priorityPrompt
		case paid[org] > 0:
			paid[org]--
			out[i] = priorityNormal
		default:
			out[i] = priorityBacklog
		}
	}
	return out
}
