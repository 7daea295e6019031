package engine

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bojanz/currency"
)

// Money in prose is formatted by github.com/bojanz/currency (CLDR data,
// English conventions): each currency's own number of decimals, its symbol
// where the symbol names one currency only ("$" is the US dollar, "€", "£",
// "¥"), its ISO code otherwise ("CAD 1,234.50"), so a Canadian plan never
// reads as US dollars.
var uniqueSymbols = map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}

// Currencies lists the ISO 4217 codes CurrencyField accepts: the currency
// of every country with a holiday calendar (Regions), and the few more that
// creative work is commonly paid in.
func Currencies() []string {
	set := map[string]bool{"USD": true, "EUR": true, "GBP": true, "CAD": true, "AUD": true, "NZD": true, "JPY": true, "CNY": true, "HKD": true, "SGD": true, "KRW": true, "INR": true, "MXN": true}
	for _, r := range Regions() {
		if code, ok := currency.ForCountryCode(string(r)); ok {
			set[code] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// CurrencyFieldName is the context key of CurrencyField.
const CurrencyFieldName = "currency"

// CurrencyField is the optional `currency` input of a workflow whose
// amounts can be in any currency: amounts in the context and the result
// are in it. Fields named *_usd keep their names (the API contract) and
// hold amounts in this currency.
func CurrencyField(def string) Field {
	return Field{
		Name: CurrencyFieldName, Kind: String, Enum: Currencies(), Default: def,
		Description: "ISO 4217 currency (case-insensitive) of every amount in the context and the result, including fields whose names end in _usd; " +
			"platform fees set in a platform's own currency stay labelled in it.",
	}
}

// Currency returns the `currency` input, or def when the workflow has none.
func (in *Input) Currency(def string) string {
	if c := in.Str(CurrencyFieldName); c != "" {
		return c
	}
	return def
}

// Money formats an amount of the plan's currency (the `currency` input,
// USD when the workflow has none) for prose.
func (in *Input) Money(v float64) string { return FormatMoney(v, in.Currency("USD")) }

// MoneyWhole is Money rounded to whole units.
func (in *Input) MoneyWhole(v float64) string { return FormatMoneyWhole(v, in.Currency("USD")) }

// MoneyIn formats an amount a platform sets in its own currency (Steam's
// USD 100 app fee, Etsy's USD 0.20 listing fee): with its symbol when the
// plan is in that currency, labelled with its ISO code otherwise, so it is
// never mistaken for an amount in the plan's currency. Whole amounts drop
// their cents.
func (in *Input) MoneyIn(v float64, code string) string {
	f := symbolFormatter
	if _, ok := uniqueSymbols[code]; !ok || in.Currency("USD") != code {
		f = codeFormatter
	}
	return strings.TrimSuffix(formatWith(f, v, code, false), ".00")
}

// FormatMoney renders an amount for prose with thousands grouping and the
// currency's decimals: "$1,234.50", "£80.00", "-€12.00", "CAD 1,234.50",
// "¥1,235". It never uses scientific notation, whatever the size. Result
// fields stay numbers; this is only for strategy, recommendation and
// warning text.
func FormatMoney(v float64, code string) string { return formatMoney(v, code, false) }

// FormatMoneyWhole is FormatMoney rounded to whole units, for estimates
// where cents would be false precision: "$12,500", "£1,200".
func FormatMoneyWhole(v float64, code string) string { return formatMoney(v, code, true) }

var (
	symbolFormatter = newMoneyFormatter(currency.DisplaySymbol, false)
	codeFormatter   = newMoneyFormatter(currency.DisplayCode, false)
	symbolWhole     = newMoneyFormatter(currency.DisplaySymbol, true)
	codeWhole       = newMoneyFormatter(currency.DisplayCode, true)
)

func newMoneyFormatter(display currency.Display, whole bool) *currency.Formatter {
	f := currency.NewFormatter(currency.NewLocale("en"))
	f.CurrencyDisplay = display
	f.SymbolMap = uniqueSymbols
	if whole {
		f.MinDigits, f.MaxDigits = 0, 0
	}
	return f
}

func formatMoney(v float64, code string, whole bool) string {
	f := codeFormatter
	if _, ok := uniqueSymbols[code]; ok {
		f = symbolFormatter
	}
	return formatWith(f, v, code, whole)
}

func formatWith(f *currency.Formatter, v float64, code string, whole bool) string {
	prefix := code + " "
	if sym, ok := uniqueSymbols[code]; ok && f == symbolFormatter {
		prefix = sym
	}
	if whole {
		f = map[*currency.Formatter]*currency.Formatter{codeFormatter: codeWhole, symbolFormatter: symbolWhole}[f]
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		// Never produced by a valid plan; the invariant tests look for it.
		return prefix + strconv.FormatFloat(v, 'f', -1, 64)
	}
	a, err := currency.NewAmount(strconv.FormatFloat(v, 'f', -1, 64), code)
	if err != nil {
		return prefix + strconv.FormatFloat(v, 'f', 2, 64)
	}
	// Halves round away from zero ($0.125 is $0.13), as cents are
	// conventionally rounded, and an amount that rounds to zero has no
	// sign.
	digits, _ := currency.GetDigits(code)
	if whole {
		digits = 0
	}
	if a = a.RoundTo(digits, currency.RoundHalfUp); a.IsZero() {
		a, _ = currency.NewAmount("0", code)
	}
	// Prose is plain text: CLDR's no-break space between a code and the
	// number is written as a space.
	return strings.ReplaceAll(f.Format(a), "\u00a0", " ")
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
