package engine_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestShippedRatesAreTheECBTable(t *testing.T) {
	r := engine.Rates()
	if got := engine.FormatDate(r.Date); got != "2025-02-28" {
		t.Fatalf("shipped table dated %s", got)
	}
	if rate, ok := r.Rate("EUR", "USD"); !ok || rate != 1.0411 {
		t.Fatalf("EUR→USD = %v, %v; want the ECB's 1.0411", rate, ok)
	}
	usdJPY, _ := r.Rate("USD", "JPY")
	if math.Abs(usdJPY-156.96/1.0411) > 1e-9 {
		t.Fatalf("USD→JPY = %v, want the cross rate through the euro", usdJPY)
	}
	if _, ok := r.Rate("USD", "ARS"); ok {
		t.Fatal("ARS is not in the ECB table")
	}
}

func TestParseRateTableRefusesOtherLayouts(t *testing.T) {
	for _, in := range []string{"", "USD,JPY\n1,2\n", "Date, USD\nyesterday, 1.1\n", "Date, USD\n2025-02-28, -1\n", "Date, JPY\n2025-02-28, 150\n"} {
		if _, err := engine.ParseRateTable(strings.NewReader(in), "t"); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	tab, err := engine.ParseRateTable(strings.NewReader("Date, USD, GBP, \n2026-11-27, 1.05, 0.83, \n"), "refreshed")
	if err != nil || engine.FormatDate(tab.Date) != "2026-11-27" {
		t.Fatalf("ISO-dated table: %v %v", tab, err)
	}
}

func moneyWorkflow(id string) *engine.Workflow {
	w := &engine.Workflow{
		ID: id, Name: "Money", Vertical: "music", Description: "Money bounds.",
		CountryIndependent: "a test workflow",
		Fields: []engine.Field{
			{Name: "nightly_usd", Kind: engine.Number, Money: true, Min: engine.Bound(1), Max: engine.Bound(500)},
			{Name: "wage_usd", Kind: engine.Number, Money: true, Default: 15, Min: engine.Bound(0), Max: engine.Bound(500)},
			{Name: "deal", Kind: engine.String, Enum: []string{"flat", "door"}, Default: "door"},
			{Name: "guarantee_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(1000), RequiredWhen: &engine.When{Field: "deal", Values: []string{"flat"}}},
			engine.CurrencyField("USD"),
		},
		Steps: []engine.Step{{Name: "s", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	}
	engine.Register(w)
	return w
}

func violations(t *testing.T, w *engine.Workflow, ctx map[string]any) []engine.Violation {
	t.Helper()
	_, err := w.Prepare(ctx)
	var ce *engine.ContextError
	if err != nil && !errors.As(err, &ce) {
		t.Fatal(err)
	}
	if ce == nil {
		return nil
	}
	return ce.Violations
}

// A bound written in dollars follows the currency: ¥9,000 a night is
// within $500, $900 is not, and ¥100 is under $1.
func TestMoneyBoundsFollowTheCurrency(t *testing.T) {
	w := moneyWorkflow("test-money-bounds")
	if v := violations(t, w, map[string]any{"nightly_usd": 9000, "currency": "JPY"}); v != nil {
		t.Fatalf("¥9,000 refused: %v", v)
	}
	for _, ctx := range []map[string]any{{"nightly_usd": 900}, {"nightly_usd": 100, "currency": "JPY"}, {"nightly_usd": 900, "currency": "GBP"}} {
		v := violations(t, w, ctx)
		if len(v) != 1 || v[0].Field != "context.nightly_usd" {
			t.Errorf("%v: want context.nightly_usd refused, got %v", ctx, v)
		}
	}
	if v := violations(t, w, map[string]any{"nightly_usd": 10, "currency": "ARS"}); len(v) != 1 || v[0].Field != "context.currency" {
		t.Errorf("a currency the rate table lacks: %v", v)
	}
	doc := w.InputSchema()["properties"].(map[string]any)["nightly_usd"].(map[string]any)
	if _, ok := doc["maximum"]; ok {
		t.Errorf("a dollar maximum published as a currency-neutral bound: %v", doc)
	}
}

// A money default is a dollar amount converted into the context's
// currency, not the same number relabelled.
func TestMoneyDefaultsFollowTheCurrency(t *testing.T) {
	w := moneyWorkflow("test-money-defaults")
	in, err := w.Prepare(map[string]any{"nightly_usd": 9000, "currency": "jpy"})
	if err != nil {
		t.Fatal(err)
	}
	rate, _ := engine.Rates().Rate("USD", "JPY")
	if got := in.Float("wage_usd"); math.Abs(got-15*rate) > 1e-9 {
		t.Fatalf("default wage in yen %v, want %v", got, 15*rate)
	}
	in, _ = w.Prepare(map[string]any{"nightly_usd": 90, "wage_usd": 20, "currency": "GBP"})
	if in.Float("wage_usd") != 20 {
		t.Fatalf("a given amount was converted: %v", in.Float("wage_usd"))
	}
}

// A field required for one deal type is a 400 naming it for that type only.
func TestRequiredWhen(t *testing.T) {
	w := moneyWorkflow("test-required-when")
	v := violations(t, w, map[string]any{"deal": "flat"})
	if len(v) != 1 || v[0].Field != "context.guarantee_usd" || v[0].Description != "is required" {
		t.Fatalf("flat deal without a guarantee: %v", v)
	}
	if v := violations(t, w, map[string]any{"deal": "door"}); v != nil {
		t.Fatalf("door deal: %v", v)
	}
	if v := violations(t, w, map[string]any{"deal": "FLAT", "guarantee_usd": 500}); v != nil {
		t.Fatalf("flat deal with its guarantee: %v", v)
	}
}

// A benchmark reaches a plan in another currency only through the table,
// and the result says which table, date and rate.
func TestBenchmarkConvertsAndRecords(t *testing.T) {
	w := moneyWorkflow("test-benchmark")
	in, err := w.Prepare(map[string]any{"currency": "JPY"})
	if err != nil {
		t.Fatal(err)
	}
	p := engine.NewPlanForTest(in)
	cpm := engine.Benchmark{Amount: engine.InUSD(25), What: "CPM", Source: "rate cards (US)"}
	got := in.Benchmark(p, cpm)
	rate, _ := engine.Rates().Rate("USD", "JPY")
	if math.Abs(got-25*rate) > 1e-9 {
		t.Fatalf("converted %v, want %v", got, 25*rate)
	}
	basis := p.Get(engine.MoneyBasisKey).(map[string]any)
	if basis["rate_date"] != "2025-02-28" || basis["rate_table"] == "" {
		t.Fatalf("basis %v", basis)
	}
	conv := basis["conversions"].([]map[string]any)
	if len(conv) != 1 || conv[0]["rate"] != engine.Round(rate, 6) || conv[0]["source"] != "rate cards (US)" {
		t.Fatalf("conversions %v", conv)
	}
	if s := in.BenchmarkText(p, cpm); !strings.HasPrefix(s, "¥3,") || !strings.Contains(s, "USD 25 at") {
		t.Fatalf("benchmark text %q", s)
	}
	// The operator's table wins from the next plan on.
	tab, _ := engine.ParseRateTable(strings.NewReader("Date, USD, JPY\n2026-11-27, 1.0, 200\n"), "refreshed")
	defer engine.UseRates(tab)()
	p2 := engine.NewPlanForTest(in)
	if got := in.Benchmark(p2, cpm); got != 25*200 {
		t.Fatalf("after UseRates: %v", got)
	}
	if d := p2.Get(engine.MoneyBasisKey).(map[string]any)["rate_date"]; d != "2026-11-27" {
		t.Fatalf("result names table of %v", d)
	}
}

func TestPriceStep(t *testing.T) {
	w := moneyWorkflow("test-price-step")
	for cur, want := range map[string]float64{"USD": 10, "GBP": 10, "JPY": 2000, "EUR": 10} {
		in, err := w.Prepare(map[string]any{"nightly_usd": 300, "currency": cur})
		if err != nil {
			t.Fatal(err)
		}
		if got := in.PriceStep(10); got != want {
			t.Errorf("%s: step %v, want %v", cur, got, want)
		}
	}
}

func TestMinorUnits(t *testing.T) {
	for code, want := range map[string]float64{"USD": 0.01, "EUR": 0.01, "GBP": 0.01, "JPY": 1, "KRW": 1} {
		if got := engine.MinorUnit(code); got != want {
			t.Errorf("%s minor unit %v, want %v", code, got, want)
		}
	}
	if got := engine.RoundMinor(1234.5678, "JPY"); got != 1235 {
		t.Errorf("¥1,234.5678 rounds to %v, want 1235", got)
	}
	if got := engine.RoundMinor(0.515, "USD"); got != 0.52 {
		t.Errorf("$0.515 rounds to %v, want 0.52", got)
	}
}

// A price point steps by about as much in every currency, snapped to a
// round step of that currency, and is listed with its unrounded figure.
func TestPricePoint(t *testing.T) {
	w := moneyWorkflow("test-price-point")
	for _, c := range []struct {
		cur         string
		exact, want float64
		mode        engine.PriceRounding
	}{
		{"USD", 101.3, 110, engine.RoundUp},
		{"USD", 101.3, 100, engine.RoundNearest},
		{"JPY", 15272, 16000, engine.RoundUp}, // $10 is ¥1,508: ¥2,000 steps
		{"GBP", 80.4, 90, engine.RoundUp},     // $10 is £7.93: £10 steps
	} {
		in, err := w.Prepare(map[string]any{"currency": c.cur})
		if err != nil {
			t.Fatal(err)
		}
		p := engine.NewPlanForTest(in)
		if got := in.PricePoint(p, "retail price", c.exact, 10, c.mode); got != c.want {
			t.Errorf("%s %v: price point %v, want %v", c.cur, c.exact, got, c.want)
		}
		pp := p.Get(engine.PricePointsKey).([]map[string]any)
		if len(pp) != 1 || pp[0]["unrounded"] != c.exact || pp[0]["what"] != "retail price" || pp[0]["currency"] != c.cur {
			t.Errorf("%s: listed %v", c.cur, pp)
		}
	}
}

// A plan that converts with a rate table older than 45 days before its
// date says so, with the table's date; a fresh table, or a plan that
// converts nothing, does not.
func TestRatesStaleWarning(t *testing.T) {
	w := moneyWorkflow("test-rates-stale")
	cpm := engine.Benchmark{Amount: engine.InUSD(25), What: "CPM", Source: "rate cards (US)"}
	warned := func(cur, asOf string) (bool, string) {
		in, err := w.Prepare(map[string]any{"currency": cur, "as_of": asOf})
		if err != nil {
			t.Fatal(err)
		}
		p := engine.NewPlanForTest(in)
		in.Benchmark(p, cpm)
		for _, x := range p.Warnings() {
			if x.Code == "RATES_STALE" {
				return true, x.Message
			}
		}
		return false, ""
	}
	if ok, msg := warned("JPY", "2025-04-15"); !ok || !strings.Contains(msg, "2025-02-28") || !strings.Contains(msg, "46 days before") {
		t.Errorf("46 days after the table: warned %v %q", ok, msg)
	}
	if ok, _ := warned("JPY", "2025-04-14"); ok {
		t.Error("45 days after the table: warned")
	}
	if ok, _ := warned("USD", "2026-11-20"); ok {
		t.Error("a plan in the benchmark's own currency converts nothing but warned")
	}
}
