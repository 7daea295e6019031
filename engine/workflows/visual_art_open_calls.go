package workflows

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Open-call and juried-exhibition submission plan for a season.
// Rules used:
//   - Portal deadlines (CaFÉ, Submittable) close at a fixed hour, often
//     11:59 pm Mountain Time on CaFÉ, and portals slow down on deadline day:
//     submit two working days early.
//   - An application needs images, titles/dimensions and a statement; when
//     the work is not yet photographed, add a week to book photography.
//   - Entry fees commonly run $25–$50 per call; a fee above $50 is flagged.
//     Non-profit juried shows commonly take 25–40% commission on sales;
//     more than 40% is flagged (galleries, at 50%, represent you all year).
//   - Results usually arrive 4–6 weeks after the deadline; we plan 6.
//   - The fee budget is spent for the most value, not first come first
//     served: as many calls as it allows (each acceptance is a show), then,
//     among those, the calls that keep most of a sale (lowest commission),
//     then the lowest total fee. Free calls are always entered.
func init() {
	engine.Register(&engine.Workflow{
		ID:                 "visual-art-open-calls",
		Name:               "Open-call submission plan",
		Vertical:           "visual-art",
		CountryIndependent: "Each open call sets its own deadline, fee and commission; the artist's country changes none of them.",
		PastDate:           engine.PastDate{Field: "calls", Policy: engine.PastSkip},
		Description:        "Turns a list of open calls into a dated submission calendar within an entry-fee budget, with preparation start dates, early submit-by dates and warnings for passed deadlines, short preparation time, high fees and high commissions. Calls whose deadlines have passed are reported and skipped.",
		Fields: []engine.Field{
			{Name: "calls", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(25), Description: "Open calls being considered.", Items: []engine.Field{
				{Name: "name", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Call or exhibition name."},
				{Name: "deadline", Kind: engine.Date, Required: true, Description: "Submission deadline."},
				{Name: "entry_fee_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(1000), Description: "Entry fee in `currency`."},
				{Name: "commission_pct", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Commission taken on sales from the show, in percent."},
			}},
			{Name: "fee_budget_usd", Kind: engine.Number, Money: true, Default: 150, Min: engine.Bound(0), Max: engine.Bound(100000), Description: "Entry-fee budget for the season, in `currency`."},
			{Name: "prep_days", Kind: engine.Integer, Default: 10, Min: engine.Bound(1), Max: engine.Bound(60), Description: "Days you need to tailor an application (selection, statement, forms)."},
			{Name: "images_ready", Kind: engine.Boolean, Default: false, Description: "Whether the works are already professionally photographed."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"calls": []any{
				map[string]any{"name": "Regional Biennial", "deadline": "2027-01-15", "entry_fee_usd": 35, "commission_pct": 30},
				map[string]any{"name": "City Arts Council Open", "deadline": "2026-12-11", "entry_fee_usd": 0},
				map[string]any{"name": "National Juried Painting", "deadline": "2027-02-26", "entry_fee_usd": 60, "commission_pct": 35},
				map[string]any{"name": "Works on Paper Annual", "deadline": "2027-03-19", "entry_fee_usd": 40, "commission_pct": 45},
			},
			"fee_budget_usd": 100,
			"prep_days":      10,
			"images_ready":   false,
			"as_of":          "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "CaFÉ (CallForEntry.org): open calls, entry fees and commissions", URL: "https://www.callforentry.org/", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "check-deadlines", Run: vaCallsCheck},
			{Name: "budget", Run: vaCallsBudget},
			{Name: "schedule", Run: vaCallsSchedule},
			{Name: "recommend", Run: vaCallsRecommend},
		},
	})
}

type vaCall struct {
	name            string
	fee, commission float64
	deadline        string
	status          string
}

// vaCallsOpen lists the calls still open, in deadline order (then fee,
// then name, so runs are deterministic).
func vaCallsOpen(in *engine.Input, p *engine.Plan) []*vaCall {
	var open []*vaCall
	for _, c := range in.List("calls") {
		if c.Date("deadline").Before(p.AsOf()) {
			continue
		}
		open = append(open, &vaCall{name: c.Str("name"), fee: c.Float("entry_fee_usd"), commission: c.Float("commission_pct"), deadline: c.Str("deadline")})
	}
	sort.SliceStable(open, func(i, j int) bool {
		a, b := open[i], open[j]
		if a.deadline != b.deadline {
			return a.deadline < b.deadline
		}
		if a.fee != b.fee {
			return a.fee < b.fee
		}
		return a.name < b.name
	})
	return open
}

// The usual range of open-call entry fees (US market, US dollars).
var (
	vaUsualEntryFee = engine.Benchmark{Amount: engine.InUSD(25), What: "usual open-call entry fee, low end", Source: "CaFÉ (CallForEntry.org) listings, US market"}
	vaHighEntryFee  = engine.Benchmark{Amount: engine.InUSD(50), What: "usual open-call entry fee, high end", Source: "CaFÉ (CallForEntry.org) listings, US market"}
)

func vaCallsCheck(in *engine.Input, p *engine.Plan) error {
	for _, c := range in.List("calls") {
		if c.Date("deadline").Before(p.AsOf()) {
			p.Warn("DEADLINE_PASSED", "%q closed on %s, before the plan date %s; watch for next year's call.", c.Str("name"), c.Str("deadline"), engine.FormatDate(p.AsOf()))
		}
	}
	// The usual range is a US-market figure in US dollars: a fee in the
	// plan's currency is compared with it converted, never with the bare
	// number 50.
	high := in.Benchmark(p, vaHighEntryFee)
	for _, c := range vaCallsOpen(in, p) {
		if c.fee > high+1e-9 {
			p.Warn("HIGH_ENTRY_FEE", "%q charges %s to enter, above the %s–%s most calls charge; enter only if the juror, venue or prize justifies it.", c.name, studioMoney(in, c.fee), in.BenchmarkText(p, vaUsualEntryFee), in.BenchmarkText(p, vaHighEntryFee))
		}
		if c.commission > 40 {
			p.Warn("HIGH_COMMISSION", "%q takes %g%% of sales, above the 25–40%% non-profit juried shows commonly take; price accepted work so your net still covers costs.", c.name, c.commission)
		}
	}
	return nil
}

// vaCallsSelect spends the fee budget on the open calls for the most value.
// The most calls a budget can enter are its cheapest ones; from there a
// call is swapped for a skipped one while that keeps within the budget and
// lowers the commission (or, at equal commission, the fee), until no swap
// helps. Deadline order only breaks the remaining ties.
func vaCallsSelect(in *engine.Input, p *engine.Plan) (open []*vaCall, total, spent float64, skipped []string) {
	open = vaCallsOpen(in, p)
	budget := in.Float("fee_budget_usd")
	byFee := append([]*vaCall(nil), open...)
	sort.SliceStable(byFee, func(i, j int) bool { return byFee[i].fee < byFee[j].fee })
	entered := map[*vaCall]bool{}
	for _, c := range byFee {
		total += c.fee
		if spent+c.fee <= budget+1e-9 {
			entered[c] = true
			spent += c.fee
		}
	}
	better := func(in, out *vaCall) bool {
		if in.commission != out.commission {
			return in.commission < out.commission
		}
		return in.fee < out.fee-1e-9
	}
	for improved := true; improved; {
		improved = false
		for _, out := range open {
			if !entered[out] {
				continue
			}
			for _, cand := range open {
				if entered[cand] || spent-out.fee+cand.fee > budget+1e-9 || !better(cand, out) {
					continue
				}
				delete(entered, out)
				entered[cand] = true
				spent += cand.fee - out.fee
				improved = true
				break
			}
		}
	}
	for _, c := range open {
		if entered[c] {
			c.status = "enter"
		} else {
			c.status = "over_budget"
			skipped = append(skipped, c.name)
		}
	}
	return open, total, spent, skipped
}

func vaCallsBudget(in *engine.Input, p *engine.Plan) error {
	budget := in.Float("fee_budget_usd")
	open, total, spent, skipped := vaCallsSelect(in, p)
	p.Set("fees", map[string]any{
		"budget_usd":        engine.Money(budget),
		"all_open_fees_usd": engine.Money(total),
		"planned_fees_usd":  engine.Money(spent),
		"left_usd":          engine.Money(budget - spent),
	})
	if len(skipped) > 0 {
		p.Warn("FEES_OVER_BUDGET", "Entering all %s costs %s; the %s budget covers %d of them (%s), chosen for the most entries at the lowest commission. Skipped: %s. A budget of %s would cover all.",
			engine.Plural(len(open), "open call", "open calls"), studioMoney(in, total), studioMoney(in, budget), len(open)-len(skipped), studioMoney(in, spent), strings.Join(skipped, ", "), studioMoney(in, total))
		p.Set("budget_needed_usd", engine.Money(total))
	}
	return nil
}

func vaCallsSchedule(in *engine.Input, p *engine.Plan) error {
	prep := in.Int("prep_days")
	photo := ""
	if !in.Bool("images_ready") {
		prep += 7
		photo = " (including a week for photography)"
		p.Work("photography", "Work photographed for this season's calls", engine.AddDays(p.AsOf(), 7))
	}
	open, _, _, _ := vaCallsSelect(in, p)
	var calls []map[string]any
	var last time.Time
	n := 0
	for _, c := range open {
		deadline, _ := engine.ParseDate(c.deadline)
		submit := engine.Later(p.AsOf(), p.Calendar().PrevWorkday(engine.AddDays(deadline, -2)))
		row := map[string]any{"name": c.name, "deadline": c.deadline, "entry_fee_usd": c.fee, "status": c.status}
		calls = append(calls, row)
		if c.status != "enter" {
			row["submit_by"] = p.Label(c.name+": submit-by date, not entered", submit)
			continue
		}
		n++
		row["submit_by"] = p.Ref(fmt.Sprintf("call-%d-submit", n))
		start := p.Calendar().PrevWorkday(engine.AddDays(submit, -prep))
		if start.Before(p.AsOf()) {
			p.Warn("PREP_TIME_SHORT", "%q: submitting by %s leaves %s, short of the %s an application needs%s; start today and reuse your last statement.",
				c.name, engine.FormatDate(submit), engine.Plural(engine.DaysBetween(p.AsOf(), submit), "day", "days"), engine.Plural(prep, "day", "days"), photo)
			start = p.AsOf()
		}
		row["prep_start"] = p.Ref(fmt.Sprintf("call-%d-prep", n))
		row["results_expected"] = p.Label(c.name+": results expected", engine.AddWeeks(deadline, 6))
		p.Work(fmt.Sprintf("call-%d-prep", n), fmt.Sprintf("Start the %s application", c.name), start)
		p.Milestone(fmt.Sprintf("call-%d-submit", n), fmt.Sprintf("Submit %s (deadline %s)", c.name, c.deadline), submit)
		chain(p, "photography", fmt.Sprintf("call-%d-prep", n), fmt.Sprintf("call-%d-submit", n))
		if n == 1 {
			p.Set("first_submit_by", p.Ref("call-1-submit"))
			p.Set("first_call", c.name)
		}
		last = deadline
	}
	p.Set("calls", calls)
	p.Set("calls_entered", n)
	if n == 0 {
		p.Work("portfolio-refresh", "Refresh images, statement and CV for next season's calls", engine.AddDays(p.AsOf(), 14))
		p.Work("season-review", "Review next season's call listings", engine.AddDays(p.AsOf(), 90))
		return nil
	}
	p.SetTarget(last)
	p.Event("results", "Last results expected (about 6 weeks after the final deadline)", engine.AddWeeks(last, 6), "the organisers announce results on their own schedule")
	for i := 1; i <= n; i++ {
		p.DependsOn("results", fmt.Sprintf("call-%d-submit", i))
	}
	return nil
}

func vaCallsRecommend(in *engine.Input, p *engine.Plan) error {
	fees := p.Get("fees").(map[string]any)
	if !in.Bool("images_ready") {
		p.RecommendOn(engine.High, "photography", "Photograph the work once, for every call",
			"Book one session for high-resolution, colour-accurate images (1920 px on the long side is a common portal size) and reuse them all season.")
	}
	first := ""
	if name, ok := p.Get("first_call").(string); ok {
		p.RecommendOn(engine.High, "call-1-submit", "Submit "+name+" early", "Portals slow down on deadline day and close at a fixed hour in their own time zone; submit two working days ahead.")
		first = fmt.Sprintf(", starting with %s by %s", name, p.Ref("call-1-submit"))
	}
	p.Recommend(engine.Medium, "Keep a submissions log", "Track each call's images, fee, result and juror; reuse what was accepted and stop paying fees to calls that never respond.")
	p.Recommend(engine.Low, "Budget delivery for acceptances", "Accepted work must usually be delivered at your cost; keep shipping or hand-delivery money aside before paying more entry fees.")
	p.Strategy("Enter %d of the open calls this season for %s in fees (budget %s), submitting each two working days before its deadline%s.",
		p.Get("calls_entered"), studioMoney(in, fees["planned_fees_usd"].(float64)), studioMoney(in, fees["budget_usd"].(float64)), first)
	return nil
}
