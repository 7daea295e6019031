package webhooks

import (
	"math/rand/v2"
	"time"

	"golang.org/x/time/rate"
)

// turns hands out turns per organization at a pace: the jobs of an
// organization that cannot run yet (its slots full, its budget spent)
// each take the next turn, so they come back in the order they were put
// off, perSecond units at a time, instead of each backing off on its own
// and all of them being fetched again and again meanwhile. The caller
// serialises calls (it holds its own lock).
type turns struct {
	perSecond float64
	burst     int
	// fromEmpty makes an organization's first turns wait like the later
	// ones (its budget was just found short); otherwise the first is free.
	fromEmpty bool

	orgs map[string]*rate.Limiter
}

// maxParked bounds the organizations whose turns are remembered before
// those with none handed out ahead are forgotten.
const maxParked = 10_000

// next reserves org's next turn for n units (at most the burst) and
// returns how long from now it comes.
func (t *turns) next(org string, n int, now time.Time) time.Duration {
	if t.orgs == nil {
		t.orgs = map[string]*rate.Limiter{}
	}
	lim := t.orgs[org]
	if lim == nil {
		if len(t.orgs) >= maxParked {
			for o, l := range t.orgs {
				if l.TokensAt(now) >= float64(t.burst) {
					delete(t.orgs, o)
				}
			}
		}
		lim = rate.NewLimiter(rate.Limit(t.perSecond), t.burst)
		if t.fromEmpty {
			lim.ReserveN(now, t.burst)
		}
		t.orgs[org] = lim
	}
	return lim.ReserveN(now, min(max(n, 1), t.burst)).DelayFrom(now)
}

// jitter spreads d by ±25%, so that jobs put off together do not all come
// back at once.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.75 + rand.Float64()/2))
}
