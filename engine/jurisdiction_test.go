package engine_test

import (
	"math"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func countryWorkflow(id string) *engine.Workflow {
	w := &engine.Workflow{
		ID: id, Name: "Country", Vertical: "music", Description: "Country rules.",
		Jurisdiction: []engine.Area{engine.AreaTax},
		Fields:       []engine.Field{engine.RegionField()},
		Steps:        []engine.Step{{Name: "s", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	}
	engine.Register(w)
	return w
}

// A UK door is split on takings net of the 20 % VAT the ticket price
// includes; US sales tax is added on top, so US takings are split as taken.
func TestNetOfTaxByCountry(t *testing.T) {
	w := countryWorkflow("test-net-of-tax")
	for country, want := range map[string]float64{"GB": 1000, "US": 1200, "AU": 1200 / 1.1, "DE": 1200 / 1.19, "CA": 1200} {
		in, err := w.Prepare(map[string]any{"country": country})
		if err != nil {
			t.Fatal(err)
		}
		p := engine.NewPlanForTest(in)
		if got := in.NetOfTax(p, 1200); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: net of 1,200 = %v, want %v", country, got, want)
		}
		sec := p.Get(engine.JurisdictionKey).(map[string]any)
		if tax, ok := sec["tax"].(map[string]any); !ok || !strings.HasPrefix(tax["source"].(string), "https://") {
			t.Errorf("%s: tax rule not recorded with its source: %v", country, sec)
		}
	}
}

// A country the table does not cover is said to be uncovered, never given
// the United States' rule.
func TestUncoveredCountryWarns(t *testing.T) {
	w := countryWorkflow("test-uncovered")
	in, _ := w.Prepare(map[string]any{"country": "AR"})
	p := engine.NewPlanForTest(in)
	if got := in.NetOfTax(p, 100); got != 100 {
		t.Errorf("uncovered country changed takings: %v", got)
	}
	ws := p.Warnings()
	if len(ws) != 1 || ws[0].Code != "JURISDICTION_UNKNOWN" || !strings.Contains(ws[0].Message, "Argentina") {
		t.Fatalf("warnings %v", ws)
	}
	if _, ok := engine.RuleOf("AR", engine.AreaAdvertising); ok {
		t.Fatal("AR has no advertising rule in the table")
	}
	for _, c := range []engine.Region{"US", "GB", "JP", "AU"} {
		if r, ok := engine.RuleOf(c, engine.AreaAdvertising); !ok || r.Source == "" {
			t.Errorf("%s: no advertising rule", c)
		}
	}
	if r, _ := engine.RuleOf("JP", engine.AreaAdvertising); !strings.Contains(r.Rule, "October 2023") {
		t.Errorf("JP advertising rule: %q", r.Rule)
	}
	if _, ok := engine.RuleOf("GB", engine.AreaSafety); !ok {
		t.Error("GB safety regime missing")
	}
	if r, _ := engine.RuleOf("GB", engine.AreaSafety); strings.Contains(r.Rule, "NFPA") {
		t.Error("NFPA 101 given as a UK rule")
	}
	if r, ok := engine.RuleOf("FR", engine.AreaArtCopies); !ok || r.Copies != 30 {
		t.Errorf("FR art copies: %v %v", r, ok)
	}
}

func TestSeasonsByHemisphere(t *testing.T) {
	for _, c := range []struct {
		region engine.Region
		month  int
		want   string
	}{{"AU", 12, "summer"}, {"US", 12, "winter"}, {"NZ", 6, "winter"}, {"GB", 6, "summer"}, {"AU", 4, "autumn"}, {"JP", 4, "spring"}} {
		d, _ := engine.ParseDate("2026-" + map[int]string{12: "12", 6: "06", 4: "04"}[c.month] + "-15")
		if got := engine.Season(d, c.region); got != c.want {
			t.Errorf("%s month %d: %s, want %s", c.region, c.month, got, c.want)
		}
	}
}

// Self-employed social contributions follow the country's schedule, in
// the country's currency: US self-employment tax with its wage base, UK
// Class 4 bands, German health and care insurance with its floor and
// ceiling, French contributions on turnover, Japan's fixed pension plus
// income-based health insurance, Australia's Medicare levy; none for a
// country the table does not cover, which is warned about.
func TestSocialContributionsByCountry(t *testing.T) {
	w := &engine.Workflow{
		ID: "test-social-contributions", Name: "Country", Vertical: "design", Description: "Social contributions.",
		Jurisdiction: []engine.Area{engine.AreaSocial},
		Fields:       []engine.Field{engine.RegionField(), engine.CurrencyField("USD")},
		Steps:        []engine.Step{{Name: "s", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	}
	engine.Register(w)
	for _, c := range []struct {
		country, currency string
		earnings, want    float64
	}{
		{"US", "USD", 50000, 50000 * 0.9235 * 0.153},
		{"US", "USD", 300000, 184500*0.153 + (300000*0.9235-184500)*0.029},
		{"GB", "GBP", 10000, 0},
		{"GB", "GBP", 40000, (40000 - 12570) * 0.06},
		{"GB", "GBP", 80000, (50270-12570)*0.06 + (80000-50270)*0.02},
		{"DE", "EUR", 5000, 15820 * 0.211},
		{"DE", "EUR", 40000, 40000 * 0.211},
		{"DE", "EUR", 120000, 69750 * 0.211},
		{"FR", "EUR", 60000, 60000 * 0.256},
		{"JP", "JPY", 5000000, 274220 + (5000000-430000)*0.104},
		{"AU", "AUD", 90000, 1800},
	} {
		in, err := w.Prepare(map[string]any{"country": c.country, "currency": c.currency})
		if err != nil {
			t.Fatal(err)
		}
		p := engine.NewPlanForTest(in)
		sc, ok := in.Contributions(p)
		if !ok {
			t.Fatalf("%s: no social contributions", c.country)
		}
		if got := sc.On(c.earnings); math.Abs(got-c.want) > 0.01 {
			t.Errorf("%s: contributions on %v = %v, want %v", c.country, c.earnings, got, c.want)
		}
		if net := 50000.0; math.Abs(sc.GrossFor(net)-sc.On(sc.GrossFor(net))-net) > 0.01 {
			t.Errorf("%s: GrossFor(%v) = %v does not leave it net", c.country, net, sc.GrossFor(net))
		}
		if sec := p.Get(engine.JurisdictionKey).(map[string]any)["social_contributions"].(map[string]any); sec["year"] == "" || sec["source"] == "" {
			t.Errorf("%s: rule not recorded with its year and source: %v", c.country, sec)
		}
	}
	// Thresholds are converted, not relabelled: the UK bands in a plan in
	// euros are the pound thresholds at the reference rate.
	in, _ := w.Prepare(map[string]any{"country": "GB", "currency": "EUR"})
	p := engine.NewPlanForTest(in)
	sc, _ := in.Contributions(p)
	rate, _ := engine.Rates().Rate("GBP", "EUR")
	if got, want := sc.On(40000*rate), (40000-12570)*0.06*rate; math.Abs(got-want) > 0.01 {
		t.Errorf("GB in euros: %v, want %v", got, want)
	}
	in, _ = w.Prepare(map[string]any{"country": "BR"})
	p = engine.NewPlanForTest(in)
	if _, ok := in.Contributions(p); ok || !strings.Contains(warningList(p), "JURISDICTION_UNKNOWN") {
		t.Errorf("BR: contributions known or not warned: %v", p.Warnings())
	}
}

func warningList(p *engine.Plan) string {
	var codes []string
	for _, w := range p.Warnings() {
		codes = append(codes, w.Code)
	}
	return strings.Join(codes, " ")
}
