package engine

import (
	"math"
	"strconv"
	"strings"
)

// Currencies are the ISO 4217 codes CurrencyField accepts, with the symbol
// FormatMoney writes before the amount (other codes are written as a prefix,
// "CAD 1,234").
var currencySymbols = map[string]string{"USD": "$", "GBP": "£", "EUR": "€"}

// Currencies lists the codes CurrencyField offers.
func Currencies() []string { return []string{"USD", "GBP", "EUR", "CAD", "AUD", "NZD"} }

// CurrencyFieldName is the context key of CurrencyField.
const CurrencyFieldName = "currency"

// CurrencyField is the optional `currency` input of a workflow whose field is
// international: amounts in the context and the result are in it.
func CurrencyField(def string) Field {
	return Field{
		Name: CurrencyFieldName, Kind: String, Enum: Currencies(), Default: def,
		Description: "ISO 4217 currency of every amount in the context and the result.",
	}
}

// Currency returns the `currency` input, or def when the workflow has none.
func (in *Input) Currency(def string) string {
	if c := in.Str(CurrencyFieldName); c != "" {
		return c
	}
	return def
}

// FormatMoney renders an amount for prose with thousands grouping and two
// decimals: "$1,234.50", "£80.00", "-€12.00", "CAD 1,234.50". It never uses
// scientific notation, whatever the size. Result fields stay numbers; this
// is only for strategy, recommendation and warning text.
func FormatMoney(v float64, currency string) string { return formatMoney(v, currency, 2) }

// FormatMoneyWhole is FormatMoney rounded to whole units, for estimates
// where cents would be false precision: "$12,500", "£1,200".
func FormatMoneyWhole(v float64, currency string) string { return formatMoney(v, currency, 0) }

func formatMoney(v float64, currency string, decimals int) string {
	prefix, ok := currencySymbols[currency]
	if !ok {
		prefix = currency + " "
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		// Never produced by a valid plan; the invariant tests look for it.
		return prefix + strconv.FormatFloat(v, 'f', -1, 64)
	}
	// Halves round away from zero ($0.125 is $0.13), as cents are
	// conventionally rounded; FormatFloat alone would round to even.
	// Beyond 2^53 cents a float has no cents to round.
	a, p := math.Abs(v), math.Pow(10, float64(decimals))
	if a*p < 1<<53 {
		a = math.Round(a*p) / p
	}
	s := strconv.FormatFloat(a, 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	sign := ""
	if v < 0 && strings.Trim(s, "0.") != "" {
		sign = "-"
	}
	out := sign + prefix + group(whole)
	if frac != "" {
		out += "." + frac
	}
	return out
}

// group inserts thousands separators into a string of digits.
func group(digits string) string {
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// FormatInt renders an integer with thousands grouping: 12500 -> "12,500".
func FormatInt(n int) string {
	if n < 0 {
		return "-" + group(strconv.Itoa(-n))
	}
	return group(strconv.Itoa(n))
}

// Plural renders a count with the right noun form: "1 ticket", "0 tickets",
// "1,200 tickets".
func Plural(n int, singular, plural string) string {
	if n == 1 || n == -1 {
		return FormatInt(n) + " " + singular
	}
	return FormatInt(n) + " " + plural
}
