package engine_test

import (
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestCheapestOpenTier(t *testing.T) {
	tiers := []engine.FeeTier{
		{Name: "early", Deadline: date(t, "2026-11-13"), FeeUSD: 60},
		{Name: "regular", Deadline: date(t, "2026-12-11"), FeeUSD: 80},
		{Name: "late", Deadline: date(t, "2027-01-22"), FeeUSD: 100},
	}
	noEarly := []engine.FeeTier{
		{Name: "early"},
		{Name: "regular", Deadline: date(t, "2026-12-11"), FeeUSD: 80},
		{Name: "late"},
	}
	tests := []struct {
		name   string
		tiers  []engine.FeeTier
		ready  string
		want   string
		wantOK bool
	}{
		{"before every deadline", tiers, "2026-11-01", "early", true},
		{"on the early deadline", tiers, "2026-11-13", "early", true},
		{"the day after it", tiers, "2026-11-14", "regular", true},
		{"on the late deadline", tiers, "2027-01-22", "late", true},
		{"every deadline passed", tiers, "2027-01-23", "", false},
		{"tiers not offered are skipped", noEarly, "2026-11-01", "regular", true},
		{"and never chosen", noEarly, "2026-12-12", "", false},
		{"no tiers", nil, "2026-11-01", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := engine.CheapestOpenTier(tt.tiers, date(t, tt.ready))
			if ok != tt.wantOK || got.Name != tt.want {
				t.Errorf("CheapestOpenTier(ready %s) = %q, %v; want %q, %v", tt.ready, got.Name, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestLastTierFee(t *testing.T) {
	d := time.Date(2027, 1, 22, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		tiers []engine.FeeTier
		want  float64
	}{
		{"the last tier with a deadline", []engine.FeeTier{{Deadline: d, FeeUSD: 60}, {Deadline: d, FeeUSD: 80}, {Deadline: d, FeeUSD: 100}}, 100},
		{"a late tier not offered is ignored", []engine.FeeTier{{Deadline: d, FeeUSD: 60}, {Deadline: d, FeeUSD: 80}, {FeeUSD: 100}}, 80},
		{"no deadlines", []engine.FeeTier{{FeeUSD: 50}}, 0},
		{"no tiers", nil, 0},
	}
	for _, tt := range tests {
		if got := engine.LastTierFee(tt.tiers); got != tt.want {
			t.Errorf("%s: LastTierFee = %v, want %v", tt.name, got, tt.want)
		}
	}
}
