package engine_test

import (
	"math"
	"slices"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestFormatMoney(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{engine.FormatMoney(1234.5, "USD"), "$1,234.50"},
		{engine.FormatMoney(-12, "USD"), "-$12.00"},
		{engine.FormatMoney(80, "GBP"), "£80.00"},
		{engine.FormatMoney(1234567.891, "EUR"), "€1,234,567.89"},
		{engine.FormatMoney(1234, "CAD"), "CAD 1,234.00"},
		{engine.FormatMoney(0, "USD"), "$0.00"},
		{engine.FormatMoney(-0.001, "USD"), "$0.00"},
		{engine.FormatMoney(999.999, "USD"), "$1,000.00"},
		{engine.FormatMoney(0.125, "USD"), "$0.13"},
		{engine.FormatMoney(-2.5, "GBP"), "-£2.50"},
		{engine.FormatMoneyWhole(2.5, "USD"), "$3"},
		{engine.FormatMoney(1e21, "USD"), "$1,000,000,000,000,000,000,000.00"},
		{engine.FormatMoneyWhole(12499.6, "GBP"), "£12,500"},
		{engine.FormatMoneyWhole(100, "AUD"), "AUD 100"},
		{engine.FormatMoneyWhole(-1500, "USD"), "-$1,500"},
		{engine.USD(1234.5), "$1,234.50"},
		{engine.FormatMoney(math.Inf(1), "USD"), "$+Inf"},
		{engine.FormatMoney(1234.5, "JPY"), "¥1,235"}, // the yen has no minor unit
		{engine.FormatMoney(-1234.5, "CHF"), "-CHF 1,234.50"},
		{engine.FormatMoney(99.5, "BRL"), "BRL 99.50"}, // R$ would read as dollars
		{engine.FormatMoneyWhole(1234.5, "AUD"), "AUD 1,235"},
		{engine.FormatMoney(0.5, "EUR"), "€0.50"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestPlural(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{engine.Plural(1, "ticket", "tickets"), "1 ticket"},
		{engine.Plural(0, "ticket", "tickets"), "0 tickets"},
		{engine.Plural(3, "ticket", "tickets"), "3 tickets"},
		{engine.Plural(1200, "copy", "copies"), "1,200 copies"},
		{engine.Plural(-1, "day", "days"), "-1 day"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestCurrencyField(t *testing.T) {
	f := engine.CurrencyField("GBP")
	if f.Name != "currency" || f.Default != "GBP" || len(f.Enum) == 0 {
		t.Errorf("CurrencyField = %+v", f)
	}
	// Every country with a calendar can be paid in its own currency.
	for _, code := range []string{"USD", "EUR", "GBP", "JPY", "CAD", "AUD", "BRL", "CHF", "SEK", "ZAR"} {
		if !slices.Contains(f.Enum, code) {
			t.Errorf("currency %s not accepted (%v)", code, f.Enum)
		}
	}
}
