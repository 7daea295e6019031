package workflows

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Book launch calendar, scheduled backwards from publication day.
// Rules used:
//   - US trade books go on sale on Tuesdays.
//   - Store buyers order 6–9 months ahead, from the catalog and sales
//     conference: catalog copy and metadata final 9 months out, last call 6.
//   - Trade reviewers (Publishers Weekly, Kirkus, Library Journal, Booklist)
//     want galleys 4–5 months before publication; their reviews run about
//     3 months out. Long-lead magazines close 4–6 months ahead.
//   - Podcasts and broadcast book 4–6 weeks out; pre-order pushes run in
//     the last 8 weeks.
//   - Independent authors: each format needs its own ISBN (Bowker, US: $125
//     for one, $295 for ten); an ebook on KDP pre-order must have its final
//     file in 72 hours before release. Printed ARCs cost about $10.50 each
//     printed and mailed (short-run print ≈$6 plus media mail), a
//     conservative figure.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "publishing-launch-timeline",
		Name:        "Book launch timeline",
		Vertical:    "publishing",
		Description: "Schedules a book launch backwards from publication day (buyers, galleys, long-lead and trade reviews, pre-orders, podcasts), flags every window already missed with the earliest publication date that keeps them, and costs ISBNs and ARCs for independent authors.",
		Fields: []engine.Field{
			{Name: "title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(300), Description: "Book title."},
			{Name: "pub_date", Kind: engine.Date, Required: true, Description: "Planned publication (on-sale) date."},
			{Name: "path", Kind: engine.String, Enum: []string{"traditional", "independent"}, Default: "traditional", Description: "Traditional publisher or independent (self-published)."},
			{Name: "formats", Kind: engine.StringList, Enum: []string{"hardcover", "paperback", "ebook", "audiobook"}, Default: []string{"hardcover", "ebook"}, Min: engine.Bound(1), Description: "Formats published on the day."},
			{Name: "arc_count", Kind: engine.Integer, Default: 50, Min: engine.Bound(0), Max: engine.Bound(2000), Description: "Printed advance reader copies to send."},
			{Name: "budget_usd", Kind: engine.Number, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Launch budget (independent authors: ISBNs and ARCs come out of it)."},
		},
		ExampleContext: map[string]any{
			"title":     "The Lighthouse Ledger",
			"pub_date":  "2027-09-14",
			"path":      "traditional",
			"formats":   []any{"hardcover", "ebook", "audiobook"},
			"arc_count": 120,
			"as_of":     "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-date", Run: pubLaunchCheckDate},
			{Name: "schedule", Run: pubLaunchSchedule},
			{Name: "budget", Run: pubLaunchBudget},
			{Name: "recommend", Run: pubLaunchRecommend},
		},
	})
}

// A launch window: the ideal time to act, the last useful day, and the
// warning raised when that day has passed. Offsets are from publication day.
type pubLaunchWindow struct {
	key, title, code                string
	idealMonths, idealDays, lastDay int // ideal: months and days before; last: days before
	independent, traditional        bool
}

var pubLaunchWindows = []pubLaunchWindow{
	{"catalog-metadata", "Catalog copy, metadata and cover final for buyers", "BUYER_WINDOW_MISSED", 9, 0, 182, false, true},
	{"retail-listing", "Metadata and pre-order listings live with distributors", "LISTING_LATE", 4, 0, 60, true, false},
	{"long-lead-pitch", "Long-lead magazines pitched", "LONG_LEAD_MISSED", 6, 0, 122, true, true},
	{"galleys-to-trade", "Galleys to trade reviewers (PW, Kirkus, LJ, Booklist)", "TRADE_REVIEW_WINDOW_MISSED", 5, 0, 122, true, true},
	{"trade-reviews", "Trade reviews run; pull quotes for marketing", "", 3, 0, 0, true, true},
	{"preorder-push", "Pre-order campaign starts", "", 0, 56, 0, true, true},
	{"podcast-pitching", "Podcast and media bookings pitched", "MEDIA_WINDOW_MISSED", 0, 42, 28, true, true},
	{"final-ebook-file", "Final ebook file uploaded (KDP: 72 hours before release)", "", 0, 3, 3, true, false},
}

func pubLaunchCheckDate(in *engine.Input, p *engine.Plan) error {
	asked := in.Date("pub_date")
	pub := asked
	if in.Str("path") == "traditional" && asked.Weekday() != time.Tuesday {
		pub = engine.OnOrAfter(asked, time.Tuesday)
		p.Warn("PUB_DATE_NOT_TUESDAY", "%s is a %s; US trade books go on sale on Tuesdays: plan for Tuesday %s.", engine.FormatDate(asked), asked.Weekday(), engine.FormatDate(pub))
	}
	p.SetTarget(pub)
	p.Set("pub_date", engine.FormatDate(pub))
	p.Set("days_until_pub", engine.DaysBetween(p.AsOf(), pub))
	if pub.Before(p.AsOf()) {
		p.Warn("PUB_DATE_PASSED", "Publication day %s is before the plan date %s.", engine.FormatDate(pub), engine.FormatDate(p.AsOf()))
	}
	return nil
}

func pubLaunchSchedule(in *engine.Input, p *engine.Plan) error {
	pub, _ := engine.ParseDate(p.Get("pub_date").(string))
	indie := in.Str("path") == "independent"
	hasEbook := slices.Contains(in.Strings("formats"), "ebook")
	// The latest "last day" that has already passed decides how far the
	// publication date must move to keep every window.
	needDays := 0
	var windows []map[string]any
	for _, w := range pubLaunchWindows {
		if (indie && !w.independent) || (!indie && !w.traditional) || (w.key == "final-ebook-file" && !hasEbook) {
			continue
		}
		ideal := engine.PrevWorkday(engine.AddDays(engine.AddMonths(pub, -w.idealMonths), -w.idealDays))
		last := engine.AddDays(pub, -w.lastDay)
		p.Milestone(w.key, w.title, ideal)
		windows = append(windows, map[string]any{"key": w.key, "ideal": engine.FormatDate(ideal), "last": engine.FormatDate(last)})
		if w.code != "" && last.Before(p.AsOf()) && !pub.Before(p.AsOf()) {
			p.Warn(w.code, "%s was due by %s (ideally %s); it is %d days late.", w.title, engine.FormatDate(last), engine.FormatDate(ideal), engine.DaysBetween(last, p.AsOf()))
			needDays = max(needDays, w.lastDay)
		}
	}
	p.Milestone("pub-day", "Publication day", pub)
	p.Milestone("post-launch-review", "Week-four review: sales, reviews, reprint and ad decisions", engine.AddWeeks(pub, 4))
	p.Set("windows", windows)
	if needDays > 0 {
		earliest := engine.AddDays(p.AsOf(), needDays)
		if !indie {
			earliest = engine.OnOrAfter(earliest, time.Tuesday)
		}
		p.Set("earliest_feasible_pub_date", engine.FormatDate(earliest))
	}
	return nil
}

const (
	pubLaunchISBNOne = 125.0
	pubLaunchISBNTen = 295.0
	pubLaunchARCUnit = 10.5
)

func pubLaunchBudget(in *engine.Input, p *engine.Plan) error {
	isbns := 0
	if in.Str("path") == "independent" {
		for _, f := range in.Strings("formats") {
			if f != "audiobook" { // audiobook distributors assign their own identifiers
				isbns++
			}
		}
	}
	isbnCost := math.Min(float64(isbns)*pubLaunchISBNOne, pubLaunchISBNTen)
	// A traditional publisher prints and mails the galleys.
	var arcs float64
	if in.Str("path") == "independent" {
		arcs = engine.Money(float64(in.Int("arc_count")) * pubLaunchARCUnit)
	}
	total := engine.Money(isbnCost + arcs)
	costs := map[string]any{"isbns": isbns, "isbn_usd": isbnCost, "arcs": in.Int("arc_count"), "arc_usd": arcs, "fixed_total_usd": total}
	if in.Has("budget_usd") {
		b := in.Float("budget_usd")
		costs["remaining_usd"] = engine.Money(b - total)
		if total > b {
			affordable := max(0, int((b-isbnCost)/pubLaunchARCUnit))
			p.Warn("BUDGET_SHORT", "ISBNs ($%.2f) and %d printed ARCs ($%.2f) cost $%.2f, more than the $%.2f budget; the budget covers %d printed ARCs; send the rest as e-galleys.",
				isbnCost, in.Int("arc_count"), arcs, total, b, affordable)
			p.Set("affordable_arcs", affordable)
		}
	}
	p.Set("costs", costs)
	return nil
}

func pubLaunchRecommend(in *engine.Input, p *engine.Plan) error {
	pub, _ := engine.ParseDate(p.Get("pub_date").(string))
	indie := in.Str("path") == "independent"
	galleys := engine.Later(p.AsOf(), engine.PrevWorkday(engine.AddMonths(pub, -5)))
	if indie {
		p.RecommendBy(engine.High, galleys, "Send galleys to the review channels that take independent books",
			"Publishers Weekly reviews independent titles through BookLife; Kirkus and Foreword have indie programmes; send galleys 4–5 months ahead with the metadata sheet.")
	} else {
		p.RecommendBy(engine.High, galleys, "Get galleys to trade reviewers",
			"Trade reviewers (Publishers Weekly, Kirkus, Library Journal, Booklist) need galleys 4–5 months before publication; confirm your publicist's mailing date.")
	}
	p.RecommendBy(engine.Medium, engine.Later(p.AsOf(), engine.AddDays(pub, -42)), "Book podcasts 4–6 weeks out",
		"Pitch podcasts and radio with a one-page author sheet and three talking points, aiming for interviews in launch week.")
	p.RecommendBy(engine.Medium, engine.Later(p.AsOf(), engine.AddDays(pub, -56)), "Run a pre-order campaign",
		"Pre-orders count towards first-week sales; offer a pre-order bonus and push it in the last 8 weeks.")
	if e, ok := p.Get("earliest_feasible_pub_date").(string); ok {
		p.Recommend(engine.High, "Consider moving publication",
			fmt.Sprintf("Windows have been missed; publishing on %s or later keeps galleys, long-lead and buyer timing intact.", e))
	}
	costs := p.Get("costs").(map[string]any)
	spend := fmt.Sprintf("the publisher covers %d galleys", in.Int("arc_count"))
	if indie {
		spend = fmt.Sprintf("ISBNs and %d printed ARCs cost $%.2f", in.Int("arc_count"), costs["fixed_total_usd"].(float64))
	}
	p.Strategy("Publish %q on %s (%s, %d days out): galleys to reviewers by %s, pre-orders pushed from %s, podcasts pitched from %s; %s.",
		in.Str("title"), engine.FormatDate(pub), in.Str("path"), p.Get("days_until_pub").(int), engine.FormatDate(galleys),
		engine.FormatDate(engine.AddDays(pub, -56)), engine.FormatDate(engine.AddDays(pub, -42)), spend)
	return nil
}
