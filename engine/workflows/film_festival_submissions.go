package workflows

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Festival submission plan. Rules used:
//   - Festivals publish early / regular (official) / late deadlines with
//     rising fees (e.g. Sundance 2020 features via FilmFreeway: $65 / $85 /
//     $110), so each festival is entered at the cheapest deadline still open
//     once the film is locked.
//   - Premiere status gates eligibility: a film offers a world premiere
//     until it first screens publicly, an international premiere until it
//     screens outside its home country, and a regional premiere after that.
//     A festival that asks for a higher premiere than the film can still
//     offer will not programme it, and screening early at one festival
//     spends the premiere another one on the list requires.
//   - Only one festival can give a film its world premiere: two festivals on
//     the list that both require it are exclusive, whatever their dates
//     (the first to accept wins it; the other must be withdrawn from).
//   - The fee budget buys the most value, not the first festivals listed:
//     the set of eligible, open entries that fits the budget with the
//     largest total priority (1–5 per festival, 3 by default, so with equal
//     priorities the most festivals), ties going to the festivals listed
//     first (the order of preference).
func init() {
	engine.Register(&engine.Workflow{
		ID:                 "film-festival-submissions",
		Name:               "Festival submission plan",
		Vertical:           "film",
		CountryIndependent: "Each festival sets its own deadlines, fees (in its own terms) and premiere rules; the filmmaker's country changes none of them.",
		PastDate:           engine.PastDate{Field: "festivals", Policy: engine.PastSkip},
		Sources: []engine.Source{
			{Title: "FilmFreeway: festival deadlines and fee tiers", URL: "https://filmfreeway.com/", Checked: "2026-11"},
			{Title: "Sundance Film Festival submission rules (premiere status)", URL: "https://www.sundance.org/", Checked: "2026-11"},
		},
		Description: "Picks the cheapest open deadline of each festival once the film is locked, checks premiere eligibility and premiere conflicts between festivals, and spends the fee budget in order of preference. Festivals whose deadlines have passed, or that open before the film is ready, are left out for their next edition.",
		Fields: []engine.Field{
			{Name: "film_title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Title of the film."},
			{Name: "picture_lock_date", Kind: engine.Date, Required: true, Description: "Date a submittable cut is ready."},
			{Name: "premiere_status", Kind: engine.String, Enum: []string{"world", "international", "regional", "none"}, Default: "world", Description: "Highest premiere the film can still offer: world (never screened publicly), international (screened only at home), regional (screened abroad), none (released)."},
			{Name: "festivals", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(40), Description: "Festivals in order of preference, with their deadlines and fees.", Items: []engine.Field{
				{Name: "name", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Festival name."},
				{Name: "festival_date", Kind: engine.Date, Required: true, Description: "Opening day of the festival."},
				{Name: "premiere_required", Kind: engine.String, Enum: []string{"world", "international", "regional", "none"}, Default: "none", Description: "Premiere status the festival requires."},
				{Name: "early_deadline", Kind: engine.Date, Description: "Early deadline."},
				{Name: "early_fee_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(10000), Description: "Fee at the early deadline (0–10,000)."},
				{Name: "regular_deadline", Kind: engine.Date, Required: true, Description: "Regular (official) deadline."},
				{Name: "regular_fee_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(10000), Description: "Fee at the regular deadline (0–10,000)."},
				{Name: "late_deadline", Kind: engine.Date, Description: "Late deadline."},
				{Name: "late_fee_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(10000), Description: "Fee at the late deadline (0–10,000)."},
				{Name: "priority", Kind: engine.Integer, Default: 3, Min: engine.Bound(1), Max: engine.Bound(5), Description: "How much this festival matters, 1 (nice to have) to 5 (essential); the budget buys the largest total priority."},
			}},
			{Name: "budget_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(1000000), Description: "Total submission-fee budget (0–1,000,000)."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"film_title":        "Salt Year",
			"picture_lock_date": "2027-01-15",
			"premiere_status":   "world",
			"festivals": []any{
				map[string]any{"name": "Hudson Spring Film Festival", "festival_date": "2027-06-09", "premiere_required": "world",
					"early_deadline": "2026-11-13", "early_fee_usd": 60, "regular_deadline": "2027-01-15", "regular_fee_usd": 80, "late_deadline": "2027-01-22", "late_fee_usd": 100},
				map[string]any{"name": "Baltic Summer IFF", "festival_date": "2027-07-02", "premiere_required": "international",
					"regular_deadline": "2027-03-01", "regular_fee_usd": 0},
				map[string]any{"name": "Lakeside Film Festival", "festival_date": "2027-08-04", "premiere_required": "world",
					"early_deadline": "2027-03-15", "early_fee_usd": 50, "regular_deadline": "2027-04-30", "regular_fee_usd": 75, "late_deadline": "2027-05-20", "late_fee_usd": 100},
				map[string]any{"name": "Hometown Film Days", "festival_date": "2027-05-14", "premiere_required": "none",
					"early_deadline": "2026-12-15", "early_fee_usd": 25, "regular_deadline": "2027-02-01", "regular_fee_usd": 40},
			},
			"budget_usd": 300,
			"as_of":      "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "pick-deadlines", Run: filmFestPick},
			{Name: "check-premieres", Run: filmFestPremieres},
			{Name: "budget", Run: filmFestBudget},
			{Name: "recommend", Run: filmFestRecommend},
		},
	})
}

var filmFestPremiereRank = map[string]int{"none": 0, "regional": 1, "international": 2, "world": 3}

type filmFestEntry struct {
	name, premiere string
	date           time.Time
	priority       int
	tier           engine.FeeTier
	open, eligible bool
	hasEarly       bool
	earlyFee       float64
	held           bool    // the festival opens before the film is ready
	savings        float64 // fee saved by entering at this tier rather than the last one
}

func filmFestEntries(in *engine.Input, p *engine.Plan) []*filmFestEntry {
	ready := engine.Later(p.AsOf(), in.Date("picture_lock_date"))
	can := filmFestPremiereRank[in.Str("premiere_status")]
	var out []*filmFestEntry
	for _, f := range in.List("festivals") {
		tiers := []engine.FeeTier{
			{Name: "early", Deadline: f.Date("early_deadline"), FeeUSD: f.Float("early_fee_usd")},
			{Name: "regular", Deadline: f.Date("regular_deadline"), FeeUSD: f.Float("regular_fee_usd")},
			{Name: "late", Deadline: f.Date("late_deadline"), FeeUSD: f.Float("late_fee_usd")},
		}
		e := &filmFestEntry{name: f.Str("name"), premiere: f.Str("premiere_required"), date: f.Date("festival_date"), priority: max(1, f.Int("priority"))}
		e.tier, e.open = engine.CheapestOpenTier(tiers, ready)
		e.held = e.date.Before(ready)
		e.open = e.open && !e.held
		e.eligible = filmFestPremiereRank[e.premiere] <= can
		e.hasEarly = !tiers[0].Deadline.IsZero()
		e.earlyFee = tiers[0].FeeUSD
		if e.open {
			e.savings = engine.LastTierFee(tiers) - e.tier.FeeUSD
		}
		out = append(out, e)
	}
	return out
}

func filmFestPick(in *engine.Input, p *engine.Plan) error {
	lock := in.Date("picture_lock_date")
	for _, e := range filmFestEntries(in, p) {
		switch {
		case !e.eligible:
			p.Warn("PREMIERE_INELIGIBLE", "%s requires a %s premiere; the film can only offer a %s premiere, so it will not be programmed.", e.name, e.premiere, in.Str("premiere_status"))
		case e.held:
			p.Warn("FESTIVAL_PASSED", "%s opens %s, before the film is ready (%s); aim for its next edition.", e.name, engine.FormatDate(e.date), engine.FormatDate(engine.Later(p.AsOf(), lock)))
		case !e.open:
			p.Warn("DEADLINE_PASSED", "Every %s deadline has passed by %s (film ready %s); aim for its next edition.", e.name, engine.FormatDate(engine.Later(p.AsOf(), lock)), engine.FormatDate(lock))
		case e.hasEarly && e.tier.Name != "early":
			p.Warn("EARLY_DEADLINE_MISSED", "%s: the film is ready %s, after the early deadline, so it is entered at the %s deadline %s for %s.",
				e.name, engine.FormatDate(engine.Later(p.AsOf(), lock)), e.tier.Name, engine.FormatDate(e.tier.Deadline), in.Money(e.tier.FeeUSD))
		}
	}
	return nil
}

// A festival that opens before a preferred festival needing a world premiere
// spends it if the film is accepted and screens there. (Whether it also spends
// the international premiere depends on the country, which is not known.)
func filmFestPremieres(in *engine.Input, p *engine.Plan) error {
	entries := filmFestEntries(in, p)
	conflicts := []string{}
	for i, top := range entries {
		if !top.eligible || !top.open || top.premiere != "world" {
			continue
		}
		for _, other := range entries[i+1:] {
			if other.eligible && other.open && other.date.Before(top.date) && other.premiere != "world" {
				p.Warn("PREMIERE_CONFLICT", "%s (%s) screens before %s (%s) and does not require a world premiere: screening there would make the film ineligible for %s. Hold it until %s has decided.",
					other.name, engine.FormatDate(other.date), top.name, engine.FormatDate(top.date), top.name, top.name)
				conflicts = append(conflicts, other.name+" before "+top.name)
			}
		}
	}
	exclusive := []string{}
	for i, a := range entries {
		if !a.eligible || !a.open || a.premiere != "world" {
			continue
		}
		for _, b := range entries[i+1:] {
			if b.eligible && b.open && b.premiere == "world" {
				p.Warn("WORLD_PREMIERE_EXCLUSIVE", "%s and %s both require the world premiere; only one can have it. Enter both if you like, but when one accepts, withdraw from the other before it programmes the film.",
					a.name, b.name)
				exclusive = append(exclusive, a.name+" / "+b.name)
			}
		}
	}
	p.Set("premiere_conflicts", conflicts)
	p.Set("exclusive_premieres", exclusive)
	return nil
}

// filmFestChoose picks the entries the budget buys: the largest total
// priority that fits, ties to the festivals listed first. Fees are rounded
// up to whole dollars, so the chosen set never costs more than the budget.
func filmFestChoose(entries []*filmFestEntry, budget float64, capped bool) []bool {
	take := make([]bool, len(entries))
	var total float64
	for i, e := range entries {
		if e.eligible && e.open {
			take[i] = true
			total += e.tier.FeeUSD
		}
	}
	if !capped || total <= budget {
		return take
	}
	// Value: priority first, then a preference bonus smaller than one
	// priority point in total (at most 40 entries: 40·41/2 < 1000).
	n := len(entries)
	capacity := int(math.Floor(min(budget, total)))
	// 0/1 knapsack over whole dollars, last entry first, so that keep[i]
	// says whether entry i is taken given the dollars left for entries i..
	best := make([]int32, capacity+1)
	keep := make([][]uint64, n)
	cost := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		keep[i] = make([]uint64, capacity/64+1)
		if !take[i] {
			continue
		}
		cost[i] = int(math.Ceil(entries[i].tier.FeeUSD - 1e-9))
		v := int32(entries[i].priority*1000 + (n - i))
		for c := capacity; c >= cost[i]; c-- {
			if w := best[c-cost[i]] + v; w > best[c] {
				best[c] = w
				keep[i][c/64] |= 1 << (c % 64)
			}
		}
	}
	chosen := make([]bool, n)
	c := capacity
	for i := 0; i < n; i++ {
		if take[i] && keep[i][c/64]&(1<<(c%64)) != 0 {
			chosen[i] = true
			c -= cost[i]
		}
	}
	return chosen
}

func filmFestBudget(in *engine.Input, p *engine.Plan) error {
	entries := filmFestEntries(in, p)
	budget, capped := in.Float("budget_usd"), in.Has("budget_usd")
	var spent, saved, missedEarly float64
	plan := []map[string]any{}
	dropped := []string{}
	chosen := filmFestChoose(entries, budget, capped)
	for i, e := range entries {
		if !e.eligible || !e.open {
			continue
		}
		if !chosen[i] {
			dropped = append(dropped, e.name)
			continue
		}
		spent += e.tier.FeeUSD
		saved += e.savings
		if e.hasEarly && e.tier.Name != "early" {
			missedEarly += e.tier.FeeUSD - e.earlyFee
		}
		key := "submit-" + slugKey(e.name)
		plan = append(plan, map[string]any{
			"festival": e.name, "festival_date": engine.FormatDate(e.date), "deadline": e.tier.Name,
			"submit_by": p.Ref(key), "fee_usd": e.tier.FeeUSD, "premiere_required": e.premiere,
			"priority": e.priority,
		})
		p.Milestone(key, fmt.Sprintf("Submit to %s (%s deadline)", e.name, e.tier.Name), e.tier.Deadline)
		if due := e.tier.Deadline; engine.InDeadWeek(due) {
			// Festival offices and submission-platform support are closed
			// between 24 December and 1 January: enter before it.
			better := p.Calendar().PrevWorkday(engine.AddDays(time.Date(due.Year()-map[bool]int{true: 1, false: 0}[due.Month() == time.January], time.December, 24, 0, 0, 0, 0, time.UTC), -1))
			if !better.Before(engine.Later(p.AsOf(), in.Date("picture_lock_date"))) {
				p.Warn("ENTRY_IN_DEAD_WEEK", "The %s deadline of %s (%s) falls in the 24 December–1 January dead week, when festival offices and platform support are closed; submit by %s.",
					e.tier.Name, e.name, engine.FormatDate(due), engine.FormatDate(better))
				p.Move(key, better, "entered before the 24 December–1 January closure of festival offices")
			}
		}
		p.Event("festival-"+slugKey(e.name), e.name+" opens", e.date, "the festival's dates")
	}
	if len(dropped) > 0 {
		p.Warn("OVER_BUDGET", "The %s fee budget cannot cover every entry; it buys the highest-priority set for %s, leaving out %s. Raise the budget or ask those festivals for a fee waiver.", in.Money(budget), in.Money(spent), strings.Join(dropped, ", "))
	}
	p.Set("submissions", plan)
	p.Set("fees", map[string]any{"total_usd": engine.Money(spent), "saved_vs_late_usd": engine.Money(saved), "missed_early_cost_usd": engine.Money(missedEarly), "budget_usd": budget})
	p.Set("left_out", dropped)
	lock := in.Date("picture_lock_date")
	if lock.Before(p.AsOf()) {
		// Locked already: entries go in from the plan date.
		p.Set("picture_locked_on", engine.FormatDate(lock))
	} else {
		p.Handover(engine.KindDeliverable, "picture-lock", "Submission cut locked, screener and subtitles ready", lock)
		for _, s := range plan {
			p.DependsOn("submit-"+slugKey(s["festival"].(string)), "picture-lock")
		}
	}
	if len(plan) > 0 {
		first := plan[0]["festival_date"].(string)
		for _, s := range plan {
			if s["festival_date"].(string) < first {
				first = s["festival_date"].(string)
			}
		}
		d, _ := engine.ParseDate(first)
		p.SetTarget(d)
	} else {
		p.Work("next-cycle", "Start planning the next festival cycle", engine.AddMonths(engine.Later(p.AsOf(), lock), 1))
	}
	return nil
}

func filmFestRecommend(in *engine.Input, p *engine.Plan) error {
	plan := p.Get("submissions").([]map[string]any)
	fees := p.Get("fees").(map[string]any)
	sorted := append([]map[string]any(nil), plan...)
	submitKey := func(s map[string]any) string { return "submit-" + slugKey(s["festival"].(string)) }
	sort.SliceStable(sorted, func(i, j int) bool { return p.DateOf(submitKey(sorted[i])).Before(p.DateOf(submitKey(sorted[j]))) })
	for _, s := range sorted {
		p.RecommendOn(engine.High, submitKey(s), "Submit to "+s["festival"].(string),
			fmt.Sprintf("Enter at the %s deadline for %s; festival opens %s (premiere required: %s).", s["deadline"], in.Money(s["fee_usd"].(float64)), s["festival_date"], s["premiere_required"]))
	}
	lock := in.Date("picture_lock_date")
	p.RecommendBy(engine.Medium, engine.Later(p.AsOf(), lock), "Prepare the submission kit",
		"Private screener link, English subtitles, logline, synopsis, director's statement, stills and credits list ready at lock, so every entry goes in on its first open deadline.")
	p.Recommend(engine.Medium, "Guard the premiere",
		"Do not screen publicly, online or at smaller festivals until your top-choice premiere festivals have notified; premiere status is spent by the first public screening.")
	if len(plan) == 0 {
		p.Recommend(engine.High, "Rebuild the festival list", "No listed festival is both open and eligible: add festivals whose deadlines fall after picture lock and whose premiere rules the film meets.")
	}
	p.Strategy("Enter %q in %s for %s in fees (saving %s against late deadlines), locked by %s, offering a %s premiere; %s left out by budget.",
		in.Str("film_title"), engine.Plural(len(plan), "festival", "festivals"), in.Money(fees["total_usd"].(float64)), in.Money(fees["saved_vs_late_usd"].(float64)),
		engine.FormatDate(lock), in.Str("premiere_status"), engine.Plural(len(p.Get("left_out").([]string)), "festival", "festivals"))
	return nil
}
