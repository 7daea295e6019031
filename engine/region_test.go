package engine_test

import (
	"errors"
	"slices"
	"strings"
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
		{engine.RegionUS, "2026-01-19", "Martin Luther King Jr. Day"},
		{engine.RegionUS, "2026-02-16", "Presidents' Day"},
		{engine.RegionUS, "2026-05-25", "Memorial Day"},
		{engine.RegionUS, "2026-06-19", "Juneteenth"},
		{engine.RegionUS, "2026-07-03", "Independence Day (observed)"}, // 4 July 2026 is a Saturday
		{engine.RegionUS, "2026-07-04", ""},
		{engine.RegionUS, "2026-09-07", "Labor Day"},
		{engine.RegionUS, "2026-10-12", "Columbus Day"},
		{engine.RegionUS, "2026-11-11", "Veterans Day"},
		{engine.RegionUS, "2026-12-25", "Christmas Day"},
		{engine.RegionUS, "2027-06-18", "Juneteenth (observed)"},     // 19 June 2027 is a Saturday
		{engine.RegionUS, "2027-12-24", "Christmas Day (observed)"},  // 25 Dec 2027 is a Saturday
		{engine.RegionUS, "2027-12-31", "New Year's Day (observed)"}, // 1 Jan 2028 is a Saturday
		{engine.RegionUS, "2028-01-01", ""},
		{engine.RegionUS, "2023-01-02", "New Year's Day (observed)"}, // 1 Jan 2023 was a Sunday
		{engine.RegionUS, "2020-06-19", ""},                          // Juneteenth became a federal holiday in 2021
		{engine.RegionUS, "2026-11-27", ""},
		{engine.RegionUS, "2027-03-29", ""},
		// England and Wales bank holidays (gov.uk/bank-holidays).
		{engine.RegionGB, "2027-03-29", "Easter Monday"},
		{engine.RegionGB, "2027-03-26", "Good Friday"},
		{engine.RegionGB, "2026-04-03", "Good Friday"},
		{engine.RegionGB, "2026-04-06", "Easter Monday"},
		{engine.RegionGB, "2026-05-04", "Early May"},
		{engine.RegionGB, "2026-05-25", "Spring Bank Holiday"},
		{engine.RegionGB, "2026-08-31", "Summer Bank Holiday"},
		{engine.RegionGB, "2026-12-25", "Christmas Day"},
		{engine.RegionGB, "2026-12-28", "Boxing Day (substitute day)"}, // 26 Dec 2026 is a Saturday
		{engine.RegionGB, "2027-12-27", "Christmas Day (substitute day)"},
		{engine.RegionGB, "2027-12-28", "Boxing Day (substitute day)"},
		{engine.RegionGB, "2022-12-27", "Boxing Day (substitute day)"},
		{engine.RegionGB, "2022-12-26", "Christmas Day (substitute day)"},
		{engine.RegionGB, "2022-01-03", "New Year's Day (substitute day)"},
		{engine.RegionGB, "2022-06-02", "Spring Bank Holiday"},
		{engine.RegionGB, "2022-06-03", "Platinum Jubilee Bank Holiday"},
		{engine.RegionGB, "2022-09-19", "State Funeral of Queen Elizabeth II"},
		{engine.RegionGB, "2023-05-08", "Coronation of King Charles III"},
		{engine.RegionGB, "2020-05-08", "VE Day"},
		{engine.RegionGB, "2020-05-04", ""},
		{engine.RegionGB, "2026-11-26", ""}, // no Thanksgiving in the UK
		{engine.RegionGB, "2026-07-03", ""},
		{engine.RegionGB, "2028-01-03", "New Year's Day (substitute day)"}, // 1 Jan 2028 is a Saturday
	}
	for _, tt := range tests {
		name, ok := engine.Holiday(date(t, tt.date), tt.region)
		if name != tt.name || ok != (tt.name != "") {
			t.Errorf("Holiday(%s, %s) = %q, %v; want %q", tt.date, tt.region, name, ok, tt.name)
		}
	}
}

// TestWorldHolidays checks national holidays of 2027 against the
// governments' published calendars, and days that look like holidays but
// are not (no substitute day in Germany or France, no national King's
// Birthday in Australia).
func TestWorldHolidays(t *testing.T) {
	tests := []struct {
		region engine.Region
		date   string
		name   string // "" when the day is not a national holiday
	}{
		{"DE", "2027-05-06", "Christi Himmelfahrt"}, // Easter 28 March + 39
		{"DE", "2027-05-17", "Pfingstmontag"},
		{"DE", "2027-10-04", ""}, // 3 October 2027 is a Sunday: Germany has no substitute
		{"DE", "2027-01-06", ""}, // Epiphany is regional (BW, BY, ST)
		{"FR", "2027-07-14", "Fête Nationale"},
		{"FR", "2027-11-11", "Armistice de 1918"},
		{"FR", "2027-11-01", "Toussaint"},
		{"FR", "2027-03-26", ""},                              // Good Friday only in Alsace-Moselle
		{"JP", "2027-03-22", "Vernal Equinox Day (observed)"}, // 21 March 2027 is a Sunday
		{"JP", "2027-02-23", "The Emperor's Birthday"},
		{"JP", "2027-05-04", "Greenery Day"},
		{"JP", "2027-09-20", "Respect for the Aged Day"},
		{"CA", "2027-05-24", "Victoria Day"},
		{"CA", "2027-07-01", "Canada Day"},
		{"CA", "2027-10-11", "Thanksgiving Day"},
		{"CA", "2027-12-28", "Boxing Day (observed)"},
		{"AU", "2027-01-26", "Australia Day"},
		{"AU", "2027-03-29", "Easter Monday"},
		{"AU", "2027-06-14", ""}, // King's Birthday differs by state
		{"BR", "2027-04-21", "Tiradentes"},
		{"BR", "2027-09-07", "Independência do Brasil"},
		{"BR", "2027-11-15", "Proclamação da República"},
		{"BR", "2027-05-27", "Corpus Christi"},
		{"US", "2027-11-25", "Thanksgiving Day"},
		{"GB", "2027-05-31", "Spring Bank Holiday"},
		{"GB", "2027-11-25", ""},
	}
	for _, tt := range tests {
		name, ok := engine.Holiday(date(t, tt.date), tt.region)
		if name != tt.name || ok != (tt.name != "") {
			t.Errorf("Holiday(%s, %s) = %q, %v; want %q", tt.date, tt.region, name, ok, tt.name)
		}
	}
}

func TestParseRegion(t *testing.T) {
	for in, want := range map[string]engine.Region{"US": "US", "us": "US", "GB": "GB", "gb": "GB", "UK": "GB", "uk": "GB", " de ": "DE", "Jp": "JP", "br": "BR"} {
		if got, ok := engine.ParseRegion(in); !ok || got != want {
			t.Errorf("ParseRegion(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "XX", "EU", "USA", "CN"} {
		if got, ok := engine.ParseRegion(in); ok {
			t.Errorf("ParseRegion(%q) = %q, accepted", in, got)
		}
	}
	regions := engine.Regions()
	if len(regions) < 30 {
		t.Errorf("%d regions, want every country the calendar library covers", len(regions))
	}
	for _, r := range regions {
		if _, ok := engine.ParseRegion(string(r)); !ok || r.Name() == string(r) {
			t.Errorf("region %s: not parsed back, or no English name (%q)", r, r.Name())
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
			if _, ok := engine.Holiday(d, engine.RegionGB); ok {
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
		if got := engine.Closed(d, engine.RegionGB); got != tt.closedUK {
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
		{"next open after Christmas Eve is after New Year", engine.Calendar{Region: engine.RegionUS}.NextWorkday(date(t, "2026-12-24")), "2027-01-04"},
		{"previous open before the dead week", engine.Calendar{Region: engine.RegionUS}.PrevWorkday(date(t, "2026-12-27")), "2026-12-23"},
		{"Thanksgiving back to Wednesday", engine.Calendar{Region: engine.RegionUS}.PrevWorkday(date(t, "2026-11-26")), "2026-11-25"},
		{"Easter Monday UK forward to Tuesday", engine.Calendar{Region: engine.RegionGB}.NextWorkday(date(t, "2027-03-26")), "2027-03-30"},
		{"Easter Monday is open in the US", engine.Calendar{Region: engine.RegionUS}.NextWorkday(date(t, "2027-03-29")), "2027-03-29"},
		{"open day is itself", engine.Calendar{Region: engine.RegionUS}.PrevWorkday(date(t, "2026-11-25")), "2026-11-25"},
		{"two open days across Thanksgiving", engine.Calendar{Region: engine.RegionUS}.AddWorkdays(date(t, "2026-11-25"), 2), "2026-11-30"},
		{"five open days across the dead week", engine.Calendar{Region: engine.RegionUS}.AddWorkdays(date(t, "2026-12-18"), 5), "2027-01-05"},
		{"back across Easter (UK)", engine.Calendar{Region: engine.RegionGB}.AddWorkdays(date(t, "2027-03-30"), -1), "2027-03-25"},
		{"zero is unchanged", engine.Calendar{Region: engine.RegionUS}.AddWorkdays(date(t, "2026-11-26"), 0), "2026-11-26"},
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
	for ctx, want := range map[string]engine.Region{"": engine.RegionUS, "UK": engine.RegionGB, "uk": engine.RegionGB, "GB": engine.RegionGB, "US": engine.RegionUS, "de": "DE", "FR": "FR"} {
		raw := map[string]any{}
		if ctx != "" {
			raw["country"] = ctx
		}
		in, err := w.Prepare(raw)
		if err != nil {
			t.Fatalf("country %q: %v", ctx, err)
		}
		if got := in.Region(); got != want {
			t.Errorf("country %q: Region() = %s, want %s", ctx, got, want)
		}
		// The stored context carries the canonical code.
		if got := in.Str("country"); ctx != "" && got != string(want) {
			t.Errorf("country %q stored as %q, want %q", ctx, got, want)
		}
	}
	_, err := w.Prepare(map[string]any{"country": "XX"})
	var ce *engine.ContextError
	if !errors.As(err, &ce) || len(ce.Violations) != 1 || ce.Violations[0].Field != "context.country" ||
		!strings.Contains(ce.Violations[0].Description, "'DE'") || !strings.Contains(ce.Violations[0].Description, "'JP'") {
		t.Errorf("country XX: %v; want a violation of context.country listing the supported codes", err)
	}
	enum := w.InputSchema()["properties"].(map[string]any)["country"].(map[string]any)["enum"].([]string)
	if !slices.Contains(enum, "DE") || !slices.Contains(enum, "UK") || !slices.Contains(enum, "GB") {
		t.Errorf("input_schema country enum = %v, want every accepted code", enum)
	}
}
