package workflows_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/engine/enginetest"
)

// Ordinary yen amounts are accepted: bounds follow the currency.
func TestYenAmountsAccepted(t *testing.T) {
	for _, c := range []struct {
		id, path string
		yen      float64
	}{
		{"music-tour-budget", "hotel_room_usd", 9000},
		{"design-project-quote", "hourly_rate", 6000},
		{"illustration-picture-book", "list_price_usd", 1650},
		{"music-merch-plan", "per_head_usd", 1500},
		{"screenwriting-contest-plan", "contests[0].regular_fee_usd", 3000},
	} {
		w, _ := engine.LookupWorkflow(c.id)
		ctx := enginetest.ConvertContext(w, w.ExampleContext, "JPY")
		setPath(ctx, c.path, c.yen)
		if _, err := w.Prepare(ctx); err != nil {
			t.Errorf("%s: ¥%v as %s refused: %v", c.id, c.yen, c.path, err)
		}
	}
}

func setPath(ctx map[string]any, path string, v float64) {
	switch path {
	case "contests[0].regular_fee_usd":
		ctx["contests"].([]any)[0].(map[string]any)["regular_fee_usd"] = v
	default:
		ctx[path] = v
	}
}

// A comedy deal missing a term it is made of is a 400 naming the field,
// not a show that pays nothing, or an assumed 70 %, in silence: a flat
// deal needs its guarantee, a door deal its split, a versus deal both.
func TestComedyDealNeedsItsTerms(t *testing.T) {
	w, _ := engine.LookupWorkflow("comedy-club-tour")
	for _, c := range []struct {
		deal  string
		terms map[string]any
		want  []string
	}{
		{"flat", nil, []string{"context.shows[0].guarantee_usd"}},
		{"FLAT", nil, []string{"context.shows[0].guarantee_usd"}},
		{"door", nil, []string{"context.shows[0].door_pct"}},
		{"versus", map[string]any{"guarantee_usd": 2500}, []string{"context.shows[0].door_pct"}},
		{"versus", map[string]any{"door_pct": 70}, []string{"context.shows[0].guarantee_usd"}},
		{"versus", nil, []string{"context.shows[0].guarantee_usd", "context.shows[0].door_pct"}},
		{"flat", map[string]any{"guarantee_usd": 900}, nil},
		{"door", map[string]any{"door_pct": 70}, nil},
		{"versus", map[string]any{"guarantee_usd": 2500, "door_pct": 70}, nil},
	} {
		ctx := clone(w.ExampleContext)
		show := map[string]any{"city": "Leeds", "date": "2027-02-19", "capacity": 200, "ticket_price_usd": 15, "deal": c.deal}
		for k, v := range c.terms {
			show[k] = v
		}
		ctx["shows"] = []any{show}
		_, err := w.Prepare(ctx)
		var got []string
		var ce *engine.ContextError
		if errors.As(err, &ce) {
			for _, v := range ce.Violations {
				got = append(got, v.Field)
			}
		} else if err != nil {
			t.Errorf("%s deal %v: %v", c.deal, c.terms, err)
			continue
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s deal %v: violations %v, want %v", c.deal, c.terms, got, want)
		}
	}
}

// A concert settlement is a guarantee versus a percentage: without the
// artist's split it is a 400 naming the field, not an assumed 85 %.
func TestSettlementNeedsTheSplit(t *testing.T) {
	w, _ := engine.LookupWorkflow("live-events-show-settlement")
	ctx := clone(w.ExampleContext)
	delete(ctx, "artist_split_pct")
	_, err := w.Prepare(ctx)
	var ce *engine.ContextError
	if !errors.As(err, &ce) || len(ce.Violations) != 1 || ce.Violations[0].Field != "context.artist_split_pct" {
		t.Fatalf("settlement without the artist's split: %v", err)
	}
}

// A UK door is split on takings net of the 20 % VAT in the ticket price.
func TestComedyDoorNetOfVAT(t *testing.T) {
	door := func(country string) float64 {
		w, _ := engine.LookupWorkflow("comedy-club-tour")
		ctx := clone(w.ExampleContext)
		ctx["country"] = country
		ctx["shows"] = []any{map[string]any{"city": "Leeds", "date": "2027-02-19", "capacity": 200, "ticket_price_usd": 15, "deal": "door", "door_pct": 70}}
		res := jsonValue(t, run(t, w.ID, ctx)).(map[string]any)
		return res["shows"].([]any)[0].(map[string]any)["door_share_usd"].(float64)
	}
	us, gb, au := door("US"), door("GB"), door("AU")
	if math.Abs(gb-us/1.2) > 0.01 || math.Abs(au-us/1.1) > 0.01 {
		t.Fatalf("door share US %v, GB %v (want US/1.2), AU %v (want US/1.1)", us, gb, au)
	}
	// Tickets to live shows take a reduced rate in France and Germany.
	if fr, de := door("FR"), door("DE"); math.Abs(fr-us/1.055) > 0.01 || math.Abs(de-us/1.07) > 0.01 {
		t.Fatalf("door share FR %v (want US/1.055), DE %v (want US/1.07)", fr, de)
	}
}

// 30 + 3 AP photographs sold in the EU exceed the reduced-VAT copy limit
// where photographs can take the reduced rate (France); Germany taxes
// photographs at the standard rate whatever the edition, and the US has
// no such limit.
func TestPrintEditionEUCopyLimit(t *testing.T) {
	w, _ := engine.LookupWorkflow("photography-print-editions")
	for country, want := range map[string]bool{"FR": true, "IT": true, "DE": false, "US": false, "GB": false} {
		ctx := clone(w.ExampleContext)
		ctx["country"], ctx["edition_size"], ctx["artist_proofs"] = country, 30, 3
		if got := hasWarning(run(t, w.ID, ctx), "ART_VAT_COPY_LIMIT"); got != want {
			t.Errorf("%s: ART_VAT_COPY_LIMIT %v, want %v", country, got, want)
		}
	}
}

// Disclosure advice follows the country: the FTC in the US, the CAP Code
// in the UK, Japan's stealth-marketing rule, a warning where unknown.
func TestSponsorshipDisclosureByCountry(t *testing.T) {
	for _, id := range []string{"video-sponsored-integration", "social-media-brand-deal", "podcasting-sponsorship-rates", "social-media-content-calendar"} {
		w, _ := engine.LookupWorkflow(id)
		for country, want := range map[string]string{"US": "FTC", "GB": "CAP Code", "JP": "October 2023", "AR": "No disclosure rule"} {
			ctx := clone(w.ExampleContext)
			ctx["country"] = country
			res := run(t, id, ctx)
			found := false
			walkStrings(jsonValue(t, res), "result", func(_, s string) { found = found || strings.Contains(s, want) })
			if !found {
				t.Errorf("%s in %s: no %q in the result", id, country, want)
			}
			if country != "US" {
				walkStrings(jsonValue(t, res), "result", func(path, s string) {
					if strings.Contains(s, "FTC") {
						t.Errorf("%s in %s: %s names the FTC: %q", id, country, path, s)
					}
				})
			}
		}
	}
}

// An Australian December festival is midsummer; a UK event follows the
// Fire Safety Order, not NFPA 101.
func TestFestivalSeasonAndSafetyByCountry(t *testing.T) {
	w, _ := engine.LookupWorkflow("live-events-production-timeline")
	for _, c := range []struct {
		country, date string
		outside       bool
	}{{"AU", "2027-12-11", false}, {"US", "2027-12-11", true}, {"AU", "2027-06-12", true}, {"GB", "2027-06-12", false}} {
		ctx := clone(w.ExampleContext)
		ctx["country"], ctx["event_type"], ctx["event_date"] = c.country, "outdoor-festival", c.date
		res := run(t, w.ID, ctx)
		if got := hasWarning(res, "OUTSIDE_FESTIVAL_SEASON"); got != c.outside {
			t.Errorf("%s %s: OUTSIDE_FESTIVAL_SEASON %v, want %v", c.country, c.date, got, c.outside)
		}
		if c.country == "GB" {
			walkStrings(jsonValue(t, res), "result", func(path, s string) {
				if strings.Contains(s, "NFPA") && !strings.Contains(s, "US benchmark") {
					t.Errorf("GB: %s presents NFPA 101 as the rule: %q", path, s)
				}
			})
			if sec, _ := res["jurisdiction"].(map[string]any); sec == nil || sec["safety"] == nil {
				t.Errorf("GB: no safety rule recorded: %v", res["jurisdiction"])
			}
		}
	}
}
