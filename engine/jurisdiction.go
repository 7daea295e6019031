package engine

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Rules that differ by country (advertising disclosure, VAT/GST/sales tax,
// venue safety codes, the art-print VAT limit, seasons by hemisphere) are
// data in data/jurisdictions.json, each with its source and the month it
// was last checked. A workflow asks for the rule of an area; a country the
// table does not cover for that area gets a JURISDICTION_UNKNOWN warning
// naming it, never the United States' rule in silence.

//go:embed data/jurisdictions.json
var jurisdictionData []byte

// Area is one kind of rule the jurisdiction table keeps.
type Area string

const (
	// AreaAdvertising: how paid content must be disclosed.
	AreaAdvertising Area = "advertising"
	// AreaTax: the consumption tax on sales (VAT, GST, sales tax), and
	// whether consumer prices include it.
	AreaTax Area = "tax"
	// AreaSafety: the venue life-safety code an event follows.
	AreaSafety Area = "safety"
	// AreaArtCopies: the copy limit of the reduced VAT rate on art prints.
	AreaArtCopies Area = "art_copies"
	// AreaArtVAT: the VAT rate on a photographer's own sale of a signed,
	// numbered print of a limited edition (a work of art where the country
	// treats it as one, else the standard rate).
	AreaArtVAT Area = "art_vat"
	// AreaSocial: the social contributions a self-employed person pays on
	// their earnings (US self-employment tax, UK Class 4 National
	// Insurance, German health and care insurance, French micro-social
	// contributions, Japan's National Pension and Health Insurance).
	AreaSocial Area = "social_contributions"
	// AreaScriptRegistration: the writers' guild and the way a writer
	// evidences or registers a script's authorship.
	AreaScriptRegistration Area = "script_registration"
	// AreaTicketVAT: the VAT on admission to live performances where it
	// is not the standard rate (France 5.5 %, Germany 7 %). A country
	// without an entry charges its standard rate (AreaTax) on tickets.
	AreaTicketVAT Area = "ticket_vat"
)

// Areas lists every area, in the order docs show them.
var Areas = []Area{AreaAdvertising, AreaTax, AreaSafety, AreaArtCopies, AreaArtVAT, AreaSocial, AreaScriptRegistration, AreaTicketVAT}

// Rule is one country's rule in one area.
type Rule struct {
	Rule    string `json:"rule"`
	Source  string `json:"source"`
	Checked string `json:"checked"`
	// Tax rules: the tax's name, its standard rate, and whether prices to
	// consumers include it (so takings must be split net of it).
	Name             string  `json:"name,omitempty"`
	RatePct          float64 `json:"rate_pct,omitempty"`
	IncludedInPrices bool    `json:"included_in_prices,omitempty"`
	// Art-copy rules: copies the reduced rate allows.
	Copies int `json:"copies,omitempty"`
	// Year says which year, tax year or fiscal year the figures are for
	// ("2026", "2025/26", "FY2025").
	Year string `json:"year,omitempty"`
	// Note adds what the figures leave out or what varies.
	Note string `json:"note,omitempty"`
	// Social contributions, in Currency: charged on Base ("profit" or
	// "turnover"), of which BaseSharePct counts (100 when 0), less
	// Deduction, at least MinimumBase; each band's rate applies to the
	// part of that amount inside it; FixedPerYear is added whatever the
	// earnings.
	Currency     string  `json:"currency,omitempty"`
	Base         string  `json:"base,omitempty"`
	BaseSharePct float64 `json:"base_share_pct,omitempty"`
	Deduction    float64 `json:"deduction,omitempty"`
	MinimumBase  float64 `json:"minimum_base,omitempty"`
	Bands        []Band  `json:"bands,omitempty"`
	FixedPerYear float64 `json:"fixed_per_year,omitempty"`
	// TurnoverCeiling is the yearly turnover past which the scheme no
	// longer applies (France's micro-entrepreneur regime), 0 for none.
	TurnoverCeiling float64 `json:"turnover_ceiling,omitempty"`
	// Script registration: the guild writers join, and whether the country
	// has a registry (a public register or the guild's own).
	Guild    string `json:"guild,omitempty"`
	Registry string `json:"registry,omitempty"`
}

// Band is one band of a contribution schedule: RatePct on the part of the
// assessed amount from From up to To (no upper end when To is 0).
type Band struct {
	From    float64 `json:"from"`
	To      float64 `json:"to,omitempty"`
	RatePct float64 `json:"rate_pct"`
}

type jurisdictionTable struct {
	Checked   string                   `json:"checked"`
	South     []Region                 `json:"southern_hemisphere"`
	Countries map[Region]map[Area]Rule `json:"countries"`
}

var jurisdictions = func() jurisdictionTable {
	var t jurisdictionTable
	if err := json.Unmarshal(jurisdictionData, &t); err != nil {
		panic("engine: data/jurisdictions.json: " + err.Error())
	}
	for c, areas := range t.Countries {
		for a, r := range areas {
			if !slices.Contains(Areas, a) || r.Rule == "" || !strings.HasPrefix(r.Source, "https://") {
				panic(fmt.Sprintf("engine: data/jurisdictions.json: %s %s needs a known area, a rule and an https source", c, a))
			}
			if _, err := time.Parse("2006-01", r.Checked); err != nil {
				panic(fmt.Sprintf("engine: data/jurisdictions.json: %s %s: checked %q is not YYYY-MM", c, a, r.Checked))
			}
			if a == AreaSocial && (r.Year == "" || len(r.Currency) != 3 || (r.Base != "profit" && r.Base != "turnover") || len(r.Bands) == 0) {
				panic(fmt.Sprintf("engine: data/jurisdictions.json: %s social contributions need a year, a currency, a base (profit or turnover) and bands", c))
			}
			if a == AreaSocial {
				for i, b := range r.Bands {
					if b.RatePct < 0 || b.RatePct >= 100 || b.To != 0 && b.To <= b.From || i > 0 && b.From != r.Bands[i-1].To {
						panic(fmt.Sprintf("engine: data/jurisdictions.json: %s social contribution band %d is not contiguous and below 100 %%", c, i))
					}
				}
			}
			if a == AreaTicketVAT && (r.RatePct <= 0 || r.Year == "") {
				panic(fmt.Sprintf("engine: data/jurisdictions.json: %s ticket VAT needs a rate and the year it is for", c))
			}
			if (a == AreaArtVAT || a == AreaScriptRegistration) && r.Year == "" {
				panic(fmt.Sprintf("engine: data/jurisdictions.json: %s %s needs the year its figures are for", c, a))
			}
		}
	}
	return t
}()

// RuleOf returns a country's rule in an area; ok is false when the table
// does not cover it.
func RuleOf(r Region, a Area) (Rule, bool) {
	rule, ok := jurisdictions.Countries[r][a]
	return rule, ok
}

// CoveredCountries lists the countries with a rule in the area.
func CoveredCountries(a Area) []Region {
	var out []Region
	for c, areas := range jurisdictions.Countries {
		if _, ok := areas[a]; ok {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// JurisdictionKey is the result key listing the country rules a plan
// applied, each with its source, and the areas the table does not cover
// for the plan's country.
const JurisdictionKey = "jurisdiction"

// Rule returns the plan country's rule in an area and records it in the
// result's jurisdiction section. When the table has none, it warns
// JURISDICTION_UNKNOWN (naming the country and the area) and ok is false:
// the workflow then says what to check instead of applying another
// country's rule.
func (in *Input) Rule(p *Plan, a Area) (Rule, bool) {
	r := in.Region()
	sec, _ := p.Get(JurisdictionKey).(map[string]any)
	if sec == nil {
		sec = map[string]any{"country": string(r)}
	}
	rule, ok := RuleOf(r, a)
	if ok {
		entry := map[string]any{"rule": rule.Rule, "source": rule.Source, "checked": rule.Checked}
		if a == AreaTax {
			entry["name"], entry["rate_pct"], entry["included_in_prices"] = rule.Name, rule.RatePct, rule.IncludedInPrices
		}
		if a == AreaArtCopies {
			entry["copies"] = rule.Copies
		}
		if a == AreaArtVAT || a == AreaTicketVAT {
			entry["name"], entry["rate_pct"] = rule.Name, rule.RatePct
		}
		if a == AreaScriptRegistration {
			entry["guild"], entry["registry"] = rule.Guild, rule.Registry
		}
		if rule.Year != "" {
			entry["year"] = rule.Year
		}
		if rule.Note != "" {
			entry["note"] = rule.Note
		}
		if a == AreaSocial {
			bands := make([]map[string]any, len(rule.Bands))
			for i, b := range rule.Bands {
				bands[i] = map[string]any{"from": b.From, "rate_pct": b.RatePct}
				if b.To != 0 {
					bands[i]["to"] = b.To
				}
			}
			entry["name"], entry["currency"], entry["base"], entry["bands"] = rule.Name, rule.Currency, rule.Base, bands
			if rule.BaseSharePct != 0 {
				entry["base_share_pct"] = rule.BaseSharePct
			}
			if rule.Deduction != 0 {
				entry["deduction"] = rule.Deduction
			}
			if rule.MinimumBase != 0 {
				entry["minimum_base"] = rule.MinimumBase
			}
			if rule.FixedPerYear != 0 {
				entry["fixed_per_year"] = rule.FixedPerYear
			}
			if rule.TurnoverCeiling != 0 {
				entry["turnover_ceiling"] = rule.TurnoverCeiling
			}
		}
		sec[string(a)] = entry
	} else {
		unknown, _ := sec["not_covered"].([]string)
		if !slices.Contains(unknown, string(a)) {
			sec["not_covered"] = append(unknown, string(a))
			p.Warn("JURISDICTION_UNKNOWN", "The %s rule for %s (%s) is not in the rule table; check the local rule before relying on this plan's %s advice.", a, r.Name(), r, a)
		}
	}
	p.Set(JurisdictionKey, sec)
	return rule, ok
}

// NetOfTax returns gross takings net of the country's consumption tax when
// prices include it (a UK door is split on takings / 1.2), recording the
// rule; gross is returned as it is where tax is added on top or unknown.
func (in *Input) NetOfTax(p *Plan, gross float64) float64 {
	rule, ok := in.Rule(p, AreaTax)
	if !ok || !rule.IncludedInPrices || rule.RatePct <= 0 {
		return gross
	}
	return gross / (1 + rule.RatePct/100)
}

// NetOfTicketTax returns ticket takings net of the tax their prices
// include: the country's rate on admission to live performances where the
// table has one (a French variety show's tickets carry 5.5 %, not 20 %),
// recorded in the plan, else NetOfTax's standard rate.
func (in *Input) NetOfTicketTax(p *Plan, gross float64) float64 {
	if _, ok := RuleOf(in.Region(), AreaTicketVAT); !ok {
		return in.NetOfTax(p, gross)
	}
	rule, _ := in.Rule(p, AreaTicketVAT)
	return gross / (1 + rule.RatePct/100)
}

// SouthernHemisphere reports whether the country's seasons are the
// reverse of the northern ones (December is summer in Australia).
func SouthernHemisphere(r Region) bool { return slices.Contains(jurisdictions.South, r) }

// Season names the meteorological season of d in the country:
// "winter" for December–February in the north, "summer" in the south.
func Season(d time.Time, r Region) string {
	seasons := []string{"winter", "spring", "summer", "autumn"}
	i := (int(d.Month()) % 12) / 3
	if SouthernHemisphere(r) {
		i = (i + 2) % 4
	}
	return seasons[i]
}

// CountryRules lists, for docs, every rule the table holds for the given
// areas, by country.
func CountryRules(areas ...Area) map[Region]map[Area]Rule {
	out := map[Region]map[Area]Rule{}
	for c, rules := range jurisdictions.Countries {
		for _, a := range areas {
			if r, ok := rules[a]; ok {
				if out[c] == nil {
					out[c] = map[Area]Rule{}
				}
				out[c][a] = r
			}
		}
	}
	return out
}

// Contributions is a social-contribution schedule in a plan's currency:
// the rule's thresholds and fixed amounts converted at the reference rates
// (recorded in money_basis like any benchmark).
type Contributions struct {
	Rule                             Rule
	share, deduction, minimum, fixed float64
	bands                            []Band
	// Ceiling is the rule's TurnoverCeiling in the plan's currency.
	Ceiling float64
}

// Contributions returns the country's social-contribution schedule in the
// plan's currency, recording the rule; ok is false (and a
// JURISDICTION_UNKNOWN warning says so) where the table has none.
func (in *Input) Contributions(p *Plan) (Contributions, bool) {
	rule, ok := in.Rule(p, AreaSocial)
	if !ok {
		return Contributions{}, false
	}
	conv := func(v float64, what string) float64 {
		if v == 0 {
			return 0
		}
		return in.Benchmark(p, Benchmark{Amount: In(v, rule.Currency), What: fmt.Sprintf("%s %s (%s)", rule.Name, what, rule.Year), Source: rule.Source})
	}
	c := Contributions{Rule: rule, share: 1, deduction: conv(rule.Deduction, "deduction"), minimum: conv(rule.MinimumBase, "minimum assessed earnings"), fixed: conv(rule.FixedPerYear, "fixed yearly amount"), Ceiling: conv(rule.TurnoverCeiling, "turnover ceiling")}
	if rule.BaseSharePct != 0 {
		c.share = rule.BaseSharePct / 100
	}
	for _, b := range rule.Bands {
		cb := Band{From: conv(b.From, "band threshold"), To: conv(b.To, "band threshold"), RatePct: b.RatePct}
		c.bands = append(c.bands, cb)
	}
	return c, true
}

// OnTurnover reports whether contributions are charged on turnover (the
// French micro-social scheme) rather than on profit.
func (c Contributions) OnTurnover() bool { return c.Rule.Base == "turnover" }

// On returns a year's contributions on earnings (profit, or turnover when
// OnTurnover), in the plan's currency.
func (c Contributions) On(earnings float64) float64 {
	x := math.Max(earnings, 0)*c.share - c.deduction
	x = math.Max(math.Max(x, 0), c.minimum)
	total := c.fixed
	for _, b := range c.bands {
		hi := x
		if b.To != 0 {
			hi = math.Min(x, b.To)
		}
		if hi > b.From {
			total += (hi - b.From) * b.RatePct / 100
		}
	}
	return total
}

// GrossFor returns the earnings that leave net after contributions:
// earnings - On(earnings) == net. Every band's rate is below 100 %, so
// earnings net of contributions rise with earnings and the answer is
// found by bisection (to a thousandth of a unit).
func (c Contributions) GrossFor(net float64) float64 {
	lo, hi := net, math.Max(net, 1)*2+c.On(0)
	for hi-c.On(hi) < net {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid-c.On(mid) < net {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-3 {
			break
		}
	}
	return hi
}
