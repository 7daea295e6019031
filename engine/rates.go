package engine

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Reference rates convert a figure set in one currency (a US CPM, a UK
// card fee) into the currency of a plan. They are data, not code: the
// binary ships the European Central Bank's euro foreign exchange reference
// rates of one day, and an operator points CREATIVEOPS_RATES_FILE (or
// --rates-file) at a newer download of the ECB's eurofxref.csv to refresh
// them without a release. Every plan that converts says which table,
// which date and which rate it used.

// ECBRatesURL is where the ECB publishes the file the table reads.
const ECBRatesURL = "https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html"

//go:embed data/eurofxref.csv
var shippedRates []byte

// RateTable holds units of each currency per euro on one day.
type RateTable struct {
	// Name says where the table came from: "ECB euro foreign exchange
	// reference rates (shipped)" or the file an operator loaded.
	Name   string
	Source string
	Date   time.Time
	perEUR map[string]float64
}

// ParseRateTable reads the ECB's eurofxref.csv: a header row "Date, USD,
// JPY, ..." and one row of rates per euro, the date first ("28 February
// 2025" or "2025-02-28"). Extra rows (eurofxref-hist.csv) are read newest
// first, and only the first one is kept.
func ParseRateTable(r io.Reader, name string) (*RateTable, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("rate table %s: %w", name, err)
	}
	if len(rows) < 2 || len(rows[0]) < 2 || !strings.EqualFold(strings.TrimSpace(rows[0][0]), "Date") {
		return nil, fmt.Errorf("rate table %s: want the ECB eurofxref.csv layout (a \"Date, USD, JPY, ...\" header and a row of rates)", name)
	}
	head, row := rows[0], rows[1]
	day, err := parseRateDate(row[0])
	if err != nil {
		return nil, fmt.Errorf("rate table %s: %w", name, err)
	}
	t := &RateTable{Name: name, Source: ECBRatesURL, Date: day, perEUR: map[string]float64{"EUR": 1}}
	for i := 1; i < len(head) && i < len(row); i++ {
		code := strings.ToUpper(strings.TrimSpace(head[i]))
		cell := strings.TrimSpace(row[i])
		if code == "" || cell == "" || cell == "N/A" {
			continue
		}
		v, err := strconv.ParseFloat(cell, 64)
		if err != nil || v <= 0 || len(code) != 3 {
			return nil, fmt.Errorf("rate table %s: %s rate %q is not a positive number", name, code, cell)
		}
		t.perEUR[code] = v
	}
	if _, ok := t.perEUR["USD"]; !ok {
		return nil, fmt.Errorf("rate table %s: no USD rate", name)
	}
	return t, nil
}

func parseRateDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2 January 2006", time.DateOnly} {
		if d, err := time.Parse(layout, s); err == nil {
			return d, nil
		}
	}
	return time.Time{}, fmt.Errorf("date %q is neither \"28 February 2025\" nor \"2025-02-28\"", s)
}

// LoadRateTable reads a rate table from a file (see ParseRateTable).
func LoadRateTable(path string) (*RateTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rate table: %w", err)
	}
	defer f.Close()
	return ParseRateTable(f, "ECB euro foreign exchange reference rates ("+path+")")
}

var activeRates atomic.Pointer[RateTable]

func init() {
	t, err := ParseRateTable(strings.NewReader(string(shippedRates)), "ECB euro foreign exchange reference rates (shipped)")
	if err != nil {
		panic("engine: shipped rate table: " + err.Error())
	}
	activeRates.Store(t)
}

// Rates returns the table plans convert with.
func Rates() *RateTable { return activeRates.Load() }

// ShippedRates returns the table built into the binary.
func ShippedRates() *RateTable {
	t, _ := ParseRateTable(strings.NewReader(string(shippedRates)), "ECB euro foreign exchange reference rates (shipped)")
	return t
}

// UseRates makes t the table every later plan converts with. The binary
// calls it at start-up with the operator's file; tests restore the
// previous table with the returned function.
func UseRates(t *RateTable) (restore func()) {
	old := activeRates.Swap(t)
	return func() { activeRates.Store(old) }
}

// Has reports whether the table has a rate for code.
func (t *RateTable) Has(code string) bool { _, ok := t.perEUR[code]; return ok }

// Currencies lists the codes the table converts.
func (t *RateTable) Currencies() []string {
	out := make([]string, 0, len(t.perEUR))
	for c := range t.perEUR {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// Rate is the number of units of to per unit of from; ok is false when the
// table lacks either currency.
func (t *RateTable) Rate(from, to string) (rate float64, ok bool) {
	if from == to {
		return 1, true
	}
	f, okF := t.perEUR[from]
	g, okT := t.perEUR[to]
	if !okF || !okT {
		return 0, false
	}
	return g / f, true
}

// Convert returns m in currency to; ok is false when the table lacks a
// rate for either currency.
func (t *RateTable) Convert(m Amount, to string) (Amount, bool) {
	r, ok := t.Rate(m.Currency, to)
	if !ok {
		return Amount{}, false
	}
	return Amount{Value: m.Value * r, Currency: to}, true
}
