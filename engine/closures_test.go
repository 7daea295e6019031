package engine_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestSteamSeasonalSales(t *testing.T) {
	tests := []struct {
		date, sale string // sale "" when no sale runs
	}{
		{"2025-12-18", "Steam Winter Sale"}, // Valve's published 2025 dates
		{"2026-01-05", "Steam Winter Sale"}, // ... which run into January
		{"2026-01-06", ""},
		{"2025-09-29", "Steam Autumn Sale"}, // moved to September in 2025
		{"2025-11-26", ""},
		{"2026-03-12", ""},                  // the estimate's Spring Sale start, but Valve published ...
		{"2026-03-26", "Steam Spring Sale"}, // ... 19–26 March 2026
		{"2026-06-25", "Steam Summer Sale"}, // the rest of 2026 still estimated
		{"2026-12-17", "Steam Winter Sale"}, // estimated: third Thursday of December
		{"2027-01-02", "Steam Winter Sale"}, // ... at least to 2 January
		{"2027-01-04", ""},
		{"2027-03-11", "Steam Spring Sale"},
		{"2027-06-24", "Steam Summer Sale"},
		{"2027-07-08", "Steam Summer Sale"},
		{"2027-11-24", "Steam Autumn Sale"}, // the Wednesday before Thanksgiving
	}
	for _, tt := range tests {
		s, ok := engine.SteamSeasonalSales.On(date(t, tt.date))
		if ok != (tt.sale != "") || s.Name != tt.sale {
			t.Errorf("%s: %q, %v; want %q", tt.date, s.Name, ok, tt.sale)
		}
	}
}

func TestClosuresHaveSources(t *testing.T) {
	for _, c := range engine.Closures() {
		if c.Key == "" || c.Name == "" || c.Source.URL == "" || c.Source.Title == "" || c.Source.Checked == "" || c.KnownFrom > c.KnownTo {
			t.Errorf("closure %+v lacks a key, name, source or known years", c)
		}
	}
}

func TestFactoryStartSkipsNewYear(t *testing.T) {
	// 50 factory days back from 1 April 2027 would start on 10 February;
	// the closure of 30 January to 20 February 2027 adds its 22 days.
	if got := engine.FormatDate(engine.FactoryStart(date(t, "2027-04-01"), 50)); got != "2027-01-19" {
		t.Errorf("FactoryStart across the closure = %s, want 2027-01-19", got)
	}
	if got := engine.FormatDate(engine.FactoryStart(date(t, "2027-10-01"), 28)); got != "2027-09-03" {
		t.Errorf("FactoryStart away from it = %s, want 2027-09-03", got)
	}
}

func TestMarketSeasonFor(t *testing.T) {
	tests := []struct{ delivery, season, firstMarket string }{
		{"2027-10-01", "Fall/Winter 2027", "2027-01-05"}, // Holiday deliveries sell at the Fall/Winter market
		{"2027-08-02", "Fall/Winter 2027", "2027-01-05"},
		{"2027-12-01", "Spring/Summer 2028", "2027-06-01"},
		{"2028-05-01", "Spring/Summer 2028", "2027-06-01"},
		{"2028-06-01", "Pre-Fall 2028", "2027-11-02"},
	}
	for _, tt := range tests {
		ms := engine.MarketSeasonFor(date(t, tt.delivery))
		if ms.Name != tt.season || len(ms.Markets) == 0 || engine.FormatDate(ms.Markets[0].Start) != tt.firstMarket {
			t.Errorf("%s: %s %v, want %s from %s", tt.delivery, ms.Name, ms.Markets, tt.season, tt.firstMarket)
		}
	}
}
