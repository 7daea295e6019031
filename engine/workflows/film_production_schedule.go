package workflows

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Independent production schedule and cast budget, scheduled backwards from
// the delivery date. Rules used:
//   - Shoot days = script pages ÷ pages a day; independent features commonly
//     shoot 3–5 pages a day (studio features 2–3), on 5- or 6-day weeks.
//   - Planning norms scaled to page count (per 100 pages, i.e. a feature):
//     8 weeks of prep, 12 weeks of editing to picture lock, 5 weeks of sound,
//     colour and deliverables after lock; minimums of 3, 3 and 2 weeks for
//     short films.
//   - SAG-AFTRA low-budget agreements (theatrical, US): Ultra Low Budget
//     up to $300,000 at 20% of the Basic Agreement day rate ($249/day from
//     1 July 2025), Moderate Low Budget up to $700,000 at 35% (≈$436/day),
//     Low Budget up to $2,000,000 at 65% (≈$810/day); pension and health
//     of about 21% on top (check the current agreement). A budget over an
//     agreement's cap must shoot under the next tier that covers it, and is
//     costed at that tier's rate, up to the Basic (Theatrical) Agreement day
//     performer rate (≈$1,245/day, of which the rates above are 20/35/65%).
//     Non-union day rates are taken at a commonly quoted
//     $200 with no fringe. SAG-AFTRA asks for the signatory application
//     4–6 weeks before the first day of work: 6 weeks here.
//   - A 10% contingency is standard in independent budgets.
//
// A delivery date that cannot be met (prep would start before the plan
// date, or the date has passed) is re-planned: the schedule is built forward
// from the next Monday and delivers on the earliest feasible date, the
// requested one shown beside it.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "film-production-schedule",
		Name:     "Production schedule and cast budget",
		Vertical: "film",
		PastDate: engine.PastDate{Field: "delivery_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "SAG-AFTRA low budget theatrical agreements (Ultra Low, Moderate Low, Low) and rates", URL: "https://www.sagaftra.org/production-center/contract/802/getting-started", Checked: "2026-11"},
		},
		Description: "Schedules prep, principal photography, editing and finishing backwards from a delivery date, sizes shoot days from page count, and budgets cast under the chosen SAG-AFTRA low-budget agreement with contingency and tier caps. A delivery date prep can no longer reach, or one already past, is re-planned on the earliest feasible delivery.",
		Fields: []engine.Field{
			{Name: "delivery_date", Kind: engine.Date, Required: true, Description: "Date the finished film must be delivered (festival deadline, distributor delivery)."},
			{Name: "script_pages", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Length of the shooting script in pages."},
			{Name: "pages_per_day", Kind: engine.Number, Default: 4, Min: engine.Bound(0.5), Max: engine.Bound(12), Description: "Pages shot per day."},
			{Name: "shoot_days_per_week", Kind: engine.Integer, Default: 5, Min: engine.Bound(5), Max: engine.Bound(6), Description: "Shooting days per week."},
			{Name: "principal_cast", Kind: engine.Integer, Default: 6, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Principal performers, counted as working every shoot day (a conservative upper bound)."},
			{Name: "sag_agreement", Kind: engine.String, Enum: []string{"ultra_low", "moderate_low", "low", "non_union"}, Default: "ultra_low", Description: "Performer agreement."},
			{Name: "budget_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "Total production budget (0–100,000,000)."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"delivery_date":       "2027-09-01",
			"script_pages":        96,
			"pages_per_day":       4,
			"shoot_days_per_week": 6,
			"principal_cast":      5,
			"sag_agreement":       "ultra_low",
			"budget_usd":          250000,
			"as_of":               "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "size", Run: filmProdSize},
			{Name: "schedule", Run: filmProdSchedule},
			{Name: "budget", Run: filmProdBudget},
			{Name: "recommend", Run: filmProdRecommend},
		},
	})
}

type filmProdTier struct {
	dayRateUSD, capUSD, fringe float64
	next                       string
}

var filmProdTiers = map[string]filmProdTier{
	"ultra_low":    {249, 300000, 0.21, "moderate_low"},
	"moderate_low": {436, 700000, 0.21, "low"},
	"low":          {810, 2000000, 0.21, "basic"},
	"basic":        {1245, math.Inf(1), 0.21, ""},
	"non_union":    {200, math.Inf(1), 0, ""},
}

type filmProdPlan struct {
	shootDays                        int
	prepWeeks, editWeeks, finishWeek int
}

func filmProdSizes(in *engine.Input) filmProdPlan {
	pages := float64(in.Int("script_pages"))
	scaled := func(per100 float64, floor int) int { return max(floor, int(math.Ceil(pages*per100/100))) }
	return filmProdPlan{
		shootDays:  int(math.Ceil(pages / in.Float("pages_per_day"))),
		prepWeeks:  scaled(8, 3),
		editWeeks:  scaled(12, 3),
		finishWeek: scaled(5, 2),
	}
}

// filmProdShoot lays shoot days forward from a Monday on the allowed
// weekdays and returns the last shoot day.
func filmProdShoot(start time.Time, days, perWeek int) time.Time {
	d := start
	for n := 1; n < days; {
		d = engine.AddDays(d, 1)
		if d.Weekday() == time.Sunday || (perWeek == 5 && d.Weekday() == time.Saturday) {
			continue
		}
		n++
	}
	return d
}

func filmProdSize(in *engine.Input, p *engine.Plan) error {
	s := filmProdSizes(in)
	p.Set("shoot_days", s.shootDays)
	p.Set("phases_weeks", map[string]int{"prep": s.prepWeeks, "edit_to_lock": s.editWeeks, "finishing": s.finishWeek})
	if ppd := in.Float("pages_per_day"); ppd > 5 {
		p.Warn("PAGES_PER_DAY_HIGH", "%.1f pages a day is above the 3–5 pages independent features usually manage; at 4 pages the shoot needs %s, not %d.",
			ppd, engine.Plural(int(math.Ceil(float64(in.Int("script_pages"))/4)), "day", "days"), s.shootDays)
	}
	return nil
}

func filmProdSchedule(in *engine.Input, p *engine.Plan) error {
	s := filmProdSizes(in)
	perWeek := in.Int("shoot_days_per_week")
	delivery := in.Date("delivery_date")
	p.SetTarget(delivery)
	lock := p.Calendar().PrevWorkday(engine.AddWeeks(delivery, -s.finishWeek))
	wrapBy := engine.AddWeeks(lock, -s.editWeeks)
	// The latest Monday start whose last shoot day is on or before wrapBy.
	start := engine.OnOrBefore(wrapBy, time.Monday)
	for filmProdShoot(start, s.shootDays, perWeek).After(wrapBy) {
		start = engine.AddWeeks(start, -1)
	}
	wrap := filmProdShoot(start, s.shootDays, perWeek)
	prep := engine.AddWeeks(start, -s.prepWeeks)
	sag := p.Calendar().PrevWorkday(engine.AddWeeks(start, -6))

	if prep.Before(p.AsOf()) {
		// Re-plan forward from the next Monday: the earliest delivery the
		// norms allow.
		fPrep := engine.OnOrAfter(p.AsOf(), time.Monday)
		fStart := engine.AddWeeks(fPrep, s.prepWeeks)
		fWrap := filmProdShoot(fStart, s.shootDays, perWeek)
		fLock := p.Calendar().NextWorkday(engine.AddWeeks(fWrap, s.editWeeks))
		fDelivery := p.Calendar().NextWorkday(engine.AddWeeks(fLock, s.finishWeek))
		p.Warn("SCHEDULE_INFEASIBLE", "Delivering on %s needs prep to start %s, before the plan date; with %s of prep, %s, %s of editing and %s of finishing the earliest delivery is %s, and the schedule is built on it.",
			engine.FormatDate(delivery), engine.FormatDate(prep), engine.Plural(s.prepWeeks, "week", "weeks"), engine.Plural(s.shootDays, "shoot day", "shoot days"),
			engine.Plural(s.editWeeks, "week", "weeks"), engine.Plural(s.finishWeek, "week", "weeks"), engine.FormatDate(fDelivery))
		p.Set("earliest_feasible_delivery", engine.FormatDate(fDelivery))
		replanOn(p, delivery, fDelivery, "prep would have to start before the plan date")
		prep, start, wrap, lock, delivery = fPrep, fStart, fWrap, fLock, fDelivery
		sag = p.Calendar().PrevWorkday(engine.AddWeeks(start, -6))
		p.SetTarget(delivery)
	}
	if in.Str("sag_agreement") != "non_union" && sag.Before(p.AsOf()) && !start.Before(p.AsOf()) {
		p.Warn("SAG_PAPERWORK_LATE", "SAG-AFTRA asks for the signatory application 4–6 weeks before the first day of work (%s); apply today.", engine.FormatDate(start))
	}
	sag = engine.Later(p.AsOf(), sag)
	p.Work("prep-start", "Pre-production starts", prep)
	if in.Str("sag_agreement") != "non_union" {
		p.Handover(engine.KindDeliverable, "sag-signatory", "SAG-AFTRA signatory application submitted", sag)
	}
	p.Work("principal-photography", "First day of principal photography", start)
	p.Work("wrap", "Picture wrap", wrap)
	lock = deliver(p, "picture-lock", "Picture lock", lock, in.Region(), wrap)
	delivery = deliver(p, "delivery", "Delivery", delivery, in.Region(), lock)
	p.Set("schedule", map[string]string{
		"prep_start": p.Ref("prep-start"), "principal_photography": p.Ref("principal-photography"), "wrap": p.Ref("wrap"),
		"picture_lock": p.Ref("picture-lock"), "delivery": p.Ref("delivery"),
	})
	p.DependsOn("principal-photography", "prep-start")
	p.DependsOn("principal-photography", "sag-signatory")
	p.DependsOn("wrap", "principal-photography")
	p.DependsOn("picture-lock", "wrap")
	p.DependsOn("delivery", "picture-lock")
	return nil
}

// filmProdRequiredTier is the agreement a budget must shoot under: the one
// chosen, or the first higher tier whose cap covers the budget.
func filmProdRequiredTier(in *engine.Input, p *engine.Plan, agreement string, budget float64) string {
	for filmProdTiers[agreement].next != "" && budget > filmProdCap(in, p, agreement)*(1+1e-9) {
		agreement = filmProdTiers[agreement].next
	}
	return agreement
}

// SAG-AFTRA sets its day rates and budget caps in US dollars: a plan in
// another currency gets them converted at the reference rate (recorded in
// money_basis), never the bare numbers relabelled.

// filmProdDayRate is the agreement's performer day rate in the plan's
// currency.
func filmProdDayRate(in *engine.Input, p *engine.Plan, agreement string) float64 {
	b := engine.Benchmark{Amount: engine.InUSD(filmProdTiers[agreement].dayRateUSD), What: "SAG-AFTRA performer day rate (" + strings.ReplaceAll(agreement, "_", " ") + ")", Source: "SAG-AFTRA Theatrical Low Budget agreements and Basic Agreement rate sheets"}
	if agreement == "non_union" {
		b.What, b.Source = "non-union performer day rate", "US independent-film norm"
	}
	return in.Benchmark(p, b)
}

// filmProdCap is the agreement's budget cap in the plan's currency (no cap
// is infinite).
func filmProdCap(in *engine.Input, p *engine.Plan, agreement string) float64 {
	c := filmProdTiers[agreement].capUSD
	if math.IsInf(c, 1) {
		return c
	}
	return in.Benchmark(p, engine.Benchmark{Amount: engine.InUSD(c), What: "SAG-AFTRA budget cap (" + strings.ReplaceAll(agreement, "_", " ") + ")", Source: "SAG-AFTRA Theatrical Low Budget agreements"})
}

func filmProdBudget(in *engine.Input, p *engine.Plan) error {
	agreement := in.Str("sag_agreement")
	budget := in.Float("budget_usd")
	required := filmProdRequiredTier(in, p, agreement, budget)
	tier := filmProdTiers[required]
	days := p.Get("shoot_days").(int)
	castDays := in.Int("principal_cast") * days
	dayRate := filmProdDayRate(in, p, required)
	cast := engine.Money(float64(castDays) * dayRate * (1 + tier.fringe))
	contingency := engine.Money(budget * 0.10)
	rest := engine.Money(budget - cast - contingency)
	p.Set("budget", map[string]any{
		"total_usd": budget, "cast_days": castDays, "cast_day_rate_usd": engine.Money(dayRate), "agreement": required,
		"cast_with_fringe_usd": cast, "contingency_usd": contingency,
		"remaining_usd": rest, "remaining_per_shoot_day_usd": engine.Money(rest / float64(max(days, 1))),
	})
	if required != agreement {
		p.Warn("SAG_TIER_EXCEEDED", "A %s budget is over the %s cap of the %s agreement; it must shoot under the %s agreement, and cast is costed at its %s day rate.",
			in.Money(budget), in.Money(filmProdCap(in, p, agreement)), agreement, required, in.Money(dayRate))
		p.Set("required_sag_agreement", required)
	}
	if rest < 0 {
		p.Warn("BUDGET_SHORT", "Cast (%s with %.0f%% fringe) and the 10%% contingency (%s) exceed the %s budget by %s.",
			in.Money(cast), tier.fringe*100, in.Money(contingency), in.Money(budget), in.Money(-rest))
	}
	return nil
}

func filmProdRecommend(in *engine.Input, p *engine.Plan) error {
	sch := p.Get("schedule").(map[string]string)
	b := p.Get("budget").(map[string]any)
	if in.Str("sag_agreement") != "non_union" {
		p.RecommendOn(engine.High, "sag-signatory", "Apply to SAG-AFTRA",
			"Submit the preliminary information form and signatory documents (budget, script, cast list, day-out-of-days) 6 weeks before the first day of work.")
	}
	p.RecommendOn(engine.High, "prep-start", "Lock the shooting schedule in prep",
		fmt.Sprintf("Break down the %d-page script into %s and build the day-out-of-days; cast days drive the biggest line of the budget.", in.Int("script_pages"), engine.Plural(p.Get("shoot_days").(int), "shoot day", "shoot days")))
	p.Recommend(engine.Medium, "Protect the post schedule",
		fmt.Sprintf("Book the editor from wrap (%s) to lock (%s) and sound and colour from lock to delivery; post is where late shoots are paid for.", sch["wrap"], sch["picture_lock"]))
	p.Recommend(engine.Low, "Keep the contingency untouched until wrap",
		fmt.Sprintf("Hold the %s contingency for weather days, reshoots and deliverables.", in.Money(b["contingency_usd"].(float64))))
	p.Strategy("Shoot %s in %s from %s to %s, lock picture %s and deliver %s. Cast under the %s agreement costs %s with fringe, leaving %s (%s a shoot day) after a 10%% contingency.",
		engine.Plural(in.Int("script_pages"), "page", "pages"), engine.Plural(p.Get("shoot_days").(int), "day", "days"), sch["principal_photography"], sch["wrap"], sch["picture_lock"], sch["delivery"],
		b["agreement"], in.Money(b["cast_with_fringe_usd"].(float64)), in.Money(b["remaining_usd"].(float64)), in.Money(b["remaining_per_shoot_day_usd"].(float64)))
	return nil
}
