package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Amount is money: a value in a currency. A figure a workflow carries (a CPM, a
// card fee, a union minimum) is never a bare float: it is a Benchmark in
// the currency it was published in, and reaches a plan in another currency
// only through the rate table (Input.Benchmark), which the result then
// names.
type Amount struct {
	Value    float64
	Currency string
}

// InUSD is an amount in US dollars.
func InUSD(v float64) Amount { return Amount{Value: v, Currency: "USD"} }

// In is an amount in the ISO 4217 currency code.
func In(v float64, code string) Amount { return Amount{Value: v, Currency: code} }

func (m Amount) String() string { return FormatMoney(m.Value, m.Currency) }

// Benchmark is a published figure in the currency its source sets it in.
type Benchmark struct {
	Amount
	// What the figure is ("YouTube sponsorship CPM").
	What string
	// Source says where it comes from ("creator agency rate cards, US").
	Source string
}

// MoneyBasisKey is the result key under which a plan records how its
// figures reached its currency: the currency, the rate table (name,
// source, date) and every benchmark converted, with its rate.
const MoneyBasisKey = "money_basis"

// PlanCurrency is the currency of the plan's amounts: the `currency`
// input, USD when the workflow has none.
func (in *Input) PlanCurrency() string { return in.Currency("USD") }

// Benchmark returns b in the plan's currency. A figure already in it is
// returned as it is; any other is converted at the active rate table, and
// the conversion (figure, source, rate, table and its date) is recorded in
// the result's money_basis, so a reader can check and redo it. Prepare
// refuses a currency the table cannot convert, so a conversion never
// fails here.
func (in *Input) Benchmark(p *Plan, b Benchmark) float64 {
	to := in.PlanCurrency()
	t := Rates()
	rate, ok := t.Rate(b.Currency, to)
	if !ok {
		// Unreachable for a prepared input; keep the figure visibly in its
		// own currency rather than relabel it.
		p.Warn("NO_REFERENCE_RATE", "No reference rate from %s to %s in %s; %s is %s and was not converted.", b.Currency, to, t.Name, b.What, b.Amount)
		return b.Value
	}
	basis := p.moneyBasis(in)
	if b.Currency != to {
		p.usedRates()
		entry := map[string]any{
			"figure": b.What, "source": b.Source,
			"amount": b.Value, "currency": b.Currency,
			"rate": Round(rate, 6), "converted": Round(b.Value*rate, 4), "to": to,
		}
		convs, _ := basis["conversions"].([]map[string]any)
		if !slices.ContainsFunc(convs, func(e map[string]any) bool { return e["figure"] == b.What && e["amount"] == b.Value }) {
			basis["conversions"] = append(convs, entry)
		}
	} else {
		local, _ := basis["local_figures"].([]map[string]any)
		if !slices.ContainsFunc(local, func(e map[string]any) bool { return e["figure"] == b.What }) {
			basis["local_figures"] = append(local, map[string]any{"figure": b.What, "source": b.Source, "amount": b.Value, "currency": b.Currency})
		}
	}
	p.Set(MoneyBasisKey, basis)
	return b.Value * rate
}

// Local returns the first benchmark set in the plan's currency, else the
// first whose currency the table converts: a UK plan takes the UK card
// fee, a plan in yen the US one converted. The choice is recorded like
// any benchmark.
func (in *Input) Local(p *Plan, choices ...Benchmark) float64 {
	cur := in.PlanCurrency()
	for _, b := range choices {
		if b.Currency == cur {
			return in.Benchmark(p, b)
		}
	}
	return in.Benchmark(p, choices[0])
}

// BenchmarkText formats b in the plan's currency, with its source figure
// beside it when converted: "¥3,766 (USD 25 at 150.66)".
func (in *Input) BenchmarkText(p *Plan, b Benchmark) string {
	v := in.Benchmark(p, b)
	if b.Currency == in.PlanCurrency() {
		return in.Money(v)
	}
	rate, _ := Rates().Rate(b.Currency, in.PlanCurrency())
	return fmt.Sprintf("%s (%s at %s)", in.Money(v), in.MoneyIn(b.Value, b.Currency), formatRate(rate))
}

func formatRate(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.2f", r)
	case r >= 1:
		return fmt.Sprintf("%.4f", r)
	}
	return fmt.Sprintf("%.6f", r)
}

func (p *Plan) moneyBasis(in *Input) map[string]any {
	if b, ok := p.Get(MoneyBasisKey).(map[string]any); ok {
		return b
	}
	t := Rates()
	return map[string]any{
		"currency":    in.PlanCurrency(),
		"rate_table":  t.Name,
		"rate_source": t.Source,
		"rate_date":   FormatDate(t.Date),
	}
}

// Money fields. A Field with Money set holds an amount in the plan's
// currency; its Min and Max are declared in US dollars and converted
// through the active rate table, so ¥9,000 a night passes a bound sized
// for dollars and a bound keeps its meaning in every currency.

// moneyViolations checks the Money fields of ctx against their bounds in
// the context's currency, and refuses a currency the table cannot convert
// when the workflow has money to convert.
func moneyViolations(ctx map[string]any, fields []Field) []Violation {
	if !hasMoney(fields) && !hasField(fields, CurrencyFieldName) {
		return nil
	}
	cur, _ := ctx[CurrencyFieldName].(string)
	if cur == "" {
		cur = "USD"
	}
	t := Rates()
	rate, ok := t.Rate("USD", cur)
	if !ok {
		return []Violation{{Field: "context." + CurrencyFieldName, Description: fmt.Sprintf(
			"no reference rate for %s in the rate table (%s, %s): its benchmarks cannot be converted; give amounts in one of %v",
			cur, t.Name, FormatDate(t.Date), t.Currencies())}}
	}
	return moneyBounds(ctx, fields, "context", cur, rate)
}

func moneyBounds(ctx map[string]any, fields []Field, path, cur string, rate float64) []Violation {
	var out []Violation
	for _, f := range fields {
		v, present := ctx[f.Name]
		if !present {
			continue
		}
		if f.Kind == ObjectList {
			list, _ := v.([]any)
			for i, item := range list {
				if obj, ok := item.(map[string]any); ok {
					out = append(out, moneyBounds(obj, f.Items, fmt.Sprintf("%s.%s[%d]", path, f.Name, i), cur, rate)...)
				}
			}
			continue
		}
		n, isNum := JSONValue(v).(float64)
		if !f.Money || !isNum {
			continue
		}
		lo, hi := math.Inf(-1), math.Inf(1)
		if f.Min != nil {
			lo = *f.Min * rate
		}
		if f.Max != nil {
			hi = *f.Max * rate
		}
		// A hair of slack: the same amount converted there and back is not
		// always the same float.
		if n < lo*(1-1e-12) || n > hi*(1+1e-12) {
			out = append(out, Violation{Field: path + "." + f.Name, Description: fmt.Sprintf("must be between %s and %s (%s)", FormatMoney(lo, cur), FormatMoney(hi, cur), moneyBoundNote(f))})
		}
	}
	return out
}

func moneyBoundNote(f Field) string {
	t := Rates()
	return fmt.Sprintf("%s–%s converted at the %s of %s", FormatMoney(deref(f.Min, 0), "USD"), FormatMoney(deref(f.Max, MaxMagnitude), "USD"), t.Name, FormatDate(t.Date))
}

func deref(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

func hasMoney(fields []Field) bool {
	for _, f := range fields {
		if f.Money || hasMoney(f.Items) {
			return true
		}
	}
	return false
}

func hasField(fields []Field, name string) bool {
	return slices.ContainsFunc(fields, func(f Field) bool { return f.Name == name })
}

// MoneyFields lists the paths of a workflow's money inputs ("fee_usd",
// "shows[].ticket_price_usd"), as declared by Field.Money.
func (w *Workflow) MoneyFields() []string {
	var out []string
	var walk func(fs []Field, prefix string)
	walk = func(fs []Field, prefix string) {
		for _, f := range fs {
			if f.Money {
				out = append(out, prefix+f.Name)
			}
			walk(f.Items, prefix+f.Name+"[].")
		}
	}
	walk(w.Fields, "")
	return out
}

// moneyFieldNote is what a money field's published description says of
// its currency and bounds.
func moneyFieldNote(f Field) string {
	note := "An amount in the plan's `currency`."
	if f.Max != nil || (f.Min != nil && *f.Min > 0) {
		note += fmt.Sprintf(" Bounds: %s–%s, or the equivalent at the reference rate in another currency.", FormatMoney(deref(f.Min, 0), "USD"), FormatMoney(deref(f.Max, MaxMagnitude), "USD"))
	}
	if d, ok := JSONValue(f.Default).(float64); ok && d != 0 {
		note += fmt.Sprintf(" The default is %s, converted into `currency` at the reference rate.", FormatMoney(d, "USD"))
	}
	return note
}

// PriceStep is a round step worth about usd US dollars in the plan's
// currency: 1, 2 or 5 times a power of ten ($5 stays $5, ¥754 becomes
// ¥1,000, £3.97 becomes £5), so prices round to steps that read as round
// in every currency.
func (in *Input) PriceStep(usd float64) float64 {
	v := usd
	if r, ok := Rates().Rate("USD", in.PlanCurrency()); ok {
		v = usd * r
	}
	best := 0.0
	for exp := math.Floor(math.Log10(v)) - 1; exp <= math.Floor(math.Log10(v))+1; exp++ {
		for _, m := range []float64{1, 2, 5} {
			c := m * math.Pow(10, exp)
			if best == 0 || math.Abs(math.Log(c/v)) < math.Abs(math.Log(best/v)) {
				best = c
			}
		}
	}
	return best
}

// applyMoneyDefaults fills in the absent money fields that have a default
// with the default converted from US dollars into the context's currency,
// so a default hourly wage of $15 is about ¥2,260 in a plan in yen, not
// ¥15. It runs before the other defaults; an unknown currency leaves the
// defaults for the currency check to refuse.
func applyMoneyDefaults(ctx map[string]any, fields []Field) {
	if !hasMoney(fields) {
		return
	}
	cur, _ := ctx[CurrencyFieldName].(string)
	cur = strings.ToUpper(strings.TrimSpace(cur))
	if cur == "" {
		for _, f := range fields {
			if f.Name == CurrencyFieldName {
				cur, _ = f.Default.(string)
			}
		}
	}
	if cur == "" {
		cur = "USD"
	}
	rate, ok := Rates().Rate("USD", cur)
	if !ok {
		return
	}
	var fill func(ctx map[string]any, fields []Field)
	fill = func(ctx map[string]any, fields []Field) {
		for _, f := range fields {
			v, present := ctx[f.Name]
			if !present && f.Money && f.Default != nil {
				if d, isNum := JSONValue(f.Default).(float64); isNum {
					ctx[f.Name] = d * rate
				}
			}
			if list, isList := v.([]any); isList && f.Kind == ObjectList {
				for _, item := range list {
					if obj, isObj := item.(map[string]any); isObj {
						fill(obj, f.Items)
					}
				}
			}
		}
	}
	fill(ctx, fields)
}
