package engine

import "time"

// FeeTier is one deadline of a submission call (a festival, a contest) whose
// entry fee rises as the deadlines pass: early, regular, late. A tier the
// call does not offer has a zero Deadline.
type FeeTier struct {
	Name     string
	Deadline time.Time
	FeeUSD   float64
}

// CheapestOpenTier returns the first tier (tiers are in deadline order) whose
// deadline is on or after ready, because work is entered as soon as it can
// be sent and every later deadline costs more. ok is false when every
// deadline has passed by ready.
func CheapestOpenTier(tiers []FeeTier, ready time.Time) (tier FeeTier, ok bool) {
	for _, t := range tiers {
		if !t.Deadline.IsZero() && !t.Deadline.Before(ready) {
			return t, true
		}
	}
	return FeeTier{}, false
}

// LastTierFee is the fee at the last deadline offered: the price of waiting,
// against which entering early is reported as a saving. It is 0 when no tier
// has a deadline.
func LastTierFee(tiers []FeeTier) float64 {
	var fee float64
	for _, t := range tiers {
		if !t.Deadline.IsZero() {
			fee = t.FeeUSD
		}
	}
	return fee
}
