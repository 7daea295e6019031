package engine_test

import (
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestHolidayKnownDates(t *testing.T) {
	tests := []struct {
		region engine.Region
		date   string
		name   string // "" when the day is not a holiday
	}{
		// US federal holidays (OPM, federal holidays 2026 and 2027).
		{engine.RegionUS, "2026-11-26", "Thanksgiving Day"},
		{engine.RegionUS, "2026-01-19", "Birthday of Martin Luther King, Jr."},
		{engine.RegionUS, "2026-02-16", "Washington's Birthday"},
		{engine.RegionUS, "2026-05-25", "Memorial Day"},
		{engine.RegionUS, "2026-06-19", "Juneteenth National Independence Day"},
		{engine.RegionUS, "2026-07-03", "Independence Day"}, // 4 July 2026 is a Saturday
		{engine.RegionUS, "2026-07-04", ""},
		{engine.RegionUS, "2026-09-07", "Labor Day"},
		{engine.RegionUS, "2026-10-12", "Columbus Day"},
		{engine.RegionUS, "2026-11-11", "Veterans Day"},
		{engine.RegionUS, "2026-12-25", "Christmas Day"},
		{engine.RegionUS, "2027-06-18", "Juneteenth National Independence Day"}, // 19 June 2027 is a Saturday
		{engine.RegionUS, "2027-12-24", "Christmas Day"},                        // 25 Dec 2027 is a Saturday
		{engine.RegionUS, "2027-12-31", "New Year's Day"},                       // 1 Jan 2028 is a Saturday
		{engine.RegionUS, "2028-01-01", ""},
		{engine.RegionUS, "2023-01-02", "New Year's Day"}, // 1 Jan 2023 was a Sunday
		{engine.RegionUS, "2020-06-19", ""},               // Juneteenth became a federal holiday in 2021
		{engine.RegionUS, "2026-11-27", ""},
		{engine.RegionUS, "2027-03-29", ""},
		// England and Wales bank holidays (gov.uk/bank-holidays).
		{engine.RegionUK, "2027-03-29", "Easter Monday"},
		{engine.RegionUK, "2027-03-26", "Good Friday"},
		{engine.RegionUK, "2026-04-03", "Good Friday"},
		{engine.RegionUK, "2026-04-06", "Easter Monday"},
		{engine.RegionUK, "2026-05-04", "Early May bank holiday"},
		{engine.RegionUK, "2026-05-25", "Spring bank holiday"},
		{engine.RegionUK, "2026-08-31", "Summer bank holiday"},
		{engine.RegionUK, "2026-12-25", "Christmas Day"},
		{engine.RegionUK, "2026-12-28", "Boxing Day (substitute day)"}, // 26 Dec 2026 is a Saturday
		{engine.RegionUK, "2027-12-27", "Christmas Day (substitute day)"},
		{engine.RegionUK, "2027-12-28", "Boxing Day (substitute day)"},
		{engine.RegionUK, "2022-12-27", "Christmas Day (substitute day)"},
		{engine.RegionUK, "2022-12-26", "Boxing Day"},
		{engine.RegionUK, "2022-01-03", "New Year's Day"},
		{engine.RegionUK, "2022-06-02", "Spring bank holiday"},
		{engine.RegionUK, "2022-06-03", "Platinum Jubilee bank holiday"},
		{engine.RegionUK, "2022-09-19", "State Funeral of Queen Elizabeth II"},
		{engine.RegionUK, "2023-05-08", "Coronation of King Charles III"},
		{engine.RegionUK, "2020-05-08", "Early May bank holiday"},
		{engine.RegionUK, "2020-05-04", ""},
		{engine.RegionUK, "2026-11-26", ""}, // no Thanksgiving in the UK
		{engine.RegionUK, "2026-07-03", ""},
		{engine.RegionUK, "2028-01-03", "New Year's Day"}, // 1 Jan 2028 is a Saturday
	}
	for _, tt := range tests {
		name, ok := engine.Holiday(date(t, tt.date), tt.region)
		if name != tt.name || ok != (tt.name != "") {
			t.Errorf("Holiday(%s, %s) = %q, %v; want %q", tt.date, tt.region, name, ok, tt.name)
		}
	}
}

func TestHolidayCounts(t *testing.T) {
	// Every year has 11 US federal holidays (10 before 2021) and 8 England
	// and Wales bank holidays, plus one-offs.
	for year := 2015; year <= 2040; year++ {
		us, uk := 0, 0
		for d := date(t, "2015-01-01").AddDate(year-2015, 0, 0); d.Year() == year; d = engine.AddDays(d, 1) {
			if _, ok := engine.Holiday(d, engine.RegionUS); ok {
				us++
			}
			if _, ok := engine.Holiday(d, engine.RegionUK); ok {
				uk++
			}
		}
		wantUS, wantUK := 11, 8
		if year < 2021 {
			wantUS = 10
		}
		// New Year's Day observed on the 31 December before moves one
		// holiday into the previous year.
		if time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).Weekday() == time.Saturday {
			wantUS--
		}
		if time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC).Weekday() == time.Saturday {
			wantUS++
		}
		switch year {
		case 2022:
			wantUK += 2
		case 2023:
			wantUK++
		}
		if us != wantUS || uk != wantUK {
			t.Errorf("%d: %d US and %d UK holidays, want %d and %d", year, us, uk, wantUS, wantUK)
		}
	}
}

func TestEaster(t *testing.T) {
	for _, s := range []string{"2024-03-31", "2025-04-20", "2026-04-05", "2027-03-28", "2028-04-16", "2030-04-21", "2038-04-25"} {
		d := date(t, s)
		if got := engine.Easter(d.Year()); !got.Equal(d) {
			t.Errorf("Easter(%d) = %s, want %s", d.Year(), engine.FormatDate(got), s)
		}
	}
}

func TestDeadWeekAndClosed(t *testing.T) {
	for _, tt := range []struct {
		date     string
		dead     bool
		closedUS bool
		closedUK bool
	}{
		{"2026-12-23", false, false, false}, // a Wednesday
		{"2026-12-24", true, true, true},
		{"2026-12-29", true, true, true},
		{"2027-01-01", true, true, true},
		{"2027-01-04", false, false, false},
		{"2026-11-26", false, true, false}, // Thanksgiving
		{"2027-03-29", false, false, true}, // Easter Monday
		{"2026-11-21", false, true, true},  // a Saturday
	} {
		d := date(t, tt.date)
		if got := engine.InDeadWeek(d); got != tt.dead {
			t.Errorf("InDeadWeek(%s) = %v", tt.date, got)
		}
		if got := engine.Closed(d, engine.RegionUS); got != tt.closedUS {
			t.Errorf("Closed(%s, US) = %v", tt.date, got)
		}
		if got := engine.Closed(d, engine.RegionUK); got != tt.closedUK {
			t.Errorf("Closed(%s, UK) = %v", tt.date, got)
		}
	}
}

func TestOpenDays(t *testing.T) {
	tests := []struct {
		name string
		got  time.Time
		want string
	}{
		{"next open after Christmas Eve is after New Year", engine.NextOpen(date(t, "2026-12-24"), engine.RegionUS), "2027-01-04"},
		{"previous open before the dead week", engine.PrevOpen(date(t, "2026-12-27"), engine.RegionUS), "2026-12-23"},
		{"Thanksgiving back to Wednesday", engine.PrevOpen(date(t, "2026-11-26"), engine.RegionUS), "2026-11-25"},
		{"Easter Monday UK forward to Tuesday", engine.NextOpen(date(t, "2027-03-26"), engine.RegionUK), "2027-03-30"},
		{"Easter Monday is open in the US", engine.NextOpen(date(t, "2027-03-29"), engine.RegionUS), "2027-03-29"},
		{"open day is itself", engine.PrevOpen(date(t, "2026-11-25"), engine.RegionUS), "2026-11-25"},
		{"two open days across Thanksgiving", engine.AddOpenDays(date(t, "2026-11-25"), 2, engine.RegionUS), "2026-11-30"},
		{"five open days across the dead week", engine.AddOpenDays(date(t, "2026-12-18"), 5, engine.RegionUS), "2027-01-05"},
		{"back across Easter (UK)", engine.AddOpenDays(date(t, "2027-03-30"), -1, engine.RegionUK), "2027-03-25"},
		{"zero is unchanged", engine.AddOpenDays(date(t, "2026-11-26"), 0, engine.RegionUS), "2026-11-26"},
	}
	for _, tt := range tests {
		if engine.FormatDate(tt.got) != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, engine.FormatDate(tt.got), tt.want)
		}
	}
}

func TestChineseNewYear(t *testing.T) {
	for _, s := range []string{"2020-01-25", "2024-02-10", "2025-01-29", "2026-02-17", "2027-02-06", "2028-01-26", "2035-02-08"} {
		d := date(t, s)
		if got := engine.ChineseNewYear(d.Year()); !got.Equal(d) {
			t.Errorf("ChineseNewYear(%d) = %s, want %s", d.Year(), engine.FormatDate(got), s)
		}
	}
	for y := engine.ChineseNewYearFirst; y <= engine.ChineseNewYearLast; y++ {
		cny := engine.ChineseNewYear(y)
		if cny.Before(date(t, "2000-01-21").AddDate(y-2000, 0, 0)) || cny.After(date(t, "2000-02-20").AddDate(y-2000, 0, 0)) {
			t.Errorf("ChineseNewYear(%d) = %s, outside 21 January–20 February", y, engine.FormatDate(cny))
		}
	}
	// 2027: closed from 30 January to 20 February inclusive.
	for _, tt := range []struct {
		date   string
		closed bool
	}{{"2027-01-29", false}, {"2027-01-30", true}, {"2027-02-06", true}, {"2027-02-20", true}, {"2027-02-21", false}, {"2027-07-01", false}} {
		if got := engine.FactoryClosed(date(t, tt.date)); got != tt.closed {
			t.Errorf("FactoryClosed(%s) = %v, want %v", tt.date, got, tt.closed)
		}
	}
	if got := engine.FactoryReopens(date(t, "2027-02-01")); engine.FormatDate(got) != "2027-02-21" {
		t.Errorf("FactoryReopens = %s, want 2027-02-21", engine.FormatDate(got))
	}
}

func TestInputRegion(t *testing.T) {
	engine.Register(&engine.Workflow{
		ID: "test-region", Name: "Region test", Vertical: "music", Description: "d",
		Fields: []engine.Field{engine.RegionField()},
		Steps:  []engine.Step{{Name: "noop", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	})
	w, _ := engine.LookupWorkflow("test-region")
	for ctx, want := range map[string]engine.Region{"": engine.RegionUS, "UK": engine.RegionUK, "US": engine.RegionUS} {
		raw := map[string]any{}
		if ctx != "" {
			raw["country"] = ctx
		}
		in, err := w.Prepare(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.Region(); got != want {
			t.Errorf("country %q: Region() = %s, want %s", ctx, got, want)
		}
	}
	if _, err := w.Prepare(map[string]any{"country": "FR"}); err == nil {
		t.Error("country FR accepted")
	}
}
