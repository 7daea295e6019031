package engine

import (
	_ "embed"
	"encoding/json"
	"fmt"
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
)

// Areas lists every area, in the order docs show them.
var Areas = []Area{AreaAdvertising, AreaTax, AreaSafety, AreaArtCopies}

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
