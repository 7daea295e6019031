package workflows

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Book launch calendar, scheduled backwards from publication day.
// Rules used:
//   - Trade books go on sale on one weekday: Tuesday in the US, Thursday
//     in the UK (the country input picks it).
//   - Store buyers order 6–9 months ahead, from the catalog and sales
//     conference: catalog copy and metadata final 9 months out, last call 6.
//   - Trade reviewers (Publishers Weekly, Kirkus, Library Journal, Booklist)
//     want galleys 4–5 months before publication; their reviews run about
//     3 months out. Long-lead magazines close 4–6 months ahead.
//   - Podcasts and broadcast book 4–6 weeks out; pre-order pushes run in
//     the last 8 weeks.
//   - Print formats: print-ready files go to the printer 16 weeks before
//     publication and bound books reach the warehouse 8 weeks out, so
//     stores can order and stock them (offset printing 4–6 weeks, freight
//     and distribution the rest). An independent print-on-demand edition
//     needs a proof copy ordered 6 weeks out.
//   - Audiobooks: narration is cast and recorded from 16 weeks out and the
//     finished master delivered 8 weeks out, for retailer review (ACX
//     reviews in up to 10 business days, longer in busy months).
//   - Independent authors: each print format needs its own ISBN (Bowker,
//     US: $125 for one, $295 for ten); an ebook needs none on KDP (Amazon
//     assigns an ASIN), so no ISBN is costed for it. An ebook on KDP
//     pre-order must have its final file in 72 hours before release.
//     Printed ARCs cost about $10.50 each printed and mailed (short-run
//     print ≈$6 plus media mail), a conservative figure, for the trade
//     galleys; a title with no print format, or past its galley window,
//     sends e-galleys, which cost nothing to mail. ISBNs are bought before
//     the first hand-over that needs them (listing or proof).
//   - Trade reviews, long-lead magazines, early distributor listings and
//     podcast pitching are publicity an independent author may skip: a
//     missed window is advice for an independent title, never a reason to
//     move its publication. Only production hand-overs (print proof,
//     audiobook, the KDP final file) re-plan it.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "publishing-launch-timeline",
		Name:        "Book launch timeline",
		Vertical:    "publishing",
		PastDate:    engine.PastDate{Field: "pub_date", Policy: engine.PastPostEvent},
		Description: "Schedules a book launch backwards from publication day (buyers, galleys, long-lead and trade reviews, pre-orders, podcasts), flags every window already missed with the earliest publication date that keeps them, and costs ISBNs (print formats; KDP ebooks need none) and ARCs for independent authors. A publication date that misses a window is re-planned to the earliest date that keeps every window (a Tuesday for US trade books, a Thursday in the UK); for an independent title only production hand-overs re-plan it, and missed publicity windows (trade reviews, long-lead, podcasts) are advice. A publication date already past gives a post-event plan for the book on sale.",
		Fields: []engine.Field{
			{Name: "title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(300), Description: "Book title."},
			{Name: "pub_date", Kind: engine.Date, Required: true, Description: "Planned publication (on-sale) date."},
			{Name: "path", Kind: engine.String, Enum: []string{"traditional", "independent"}, Default: "traditional", Description: "Traditional publisher or independent (self-published)."},
			{Name: "formats", Kind: engine.StringList, Enum: []string{"hardcover", "paperback", "ebook", "audiobook"}, Default: []string{"hardcover", "ebook"}, Min: engine.Bound(1), Description: "Formats published on the day."},
			{Name: "arc_count", Kind: engine.Integer, Default: 50, Min: engine.Bound(0), Max: engine.Bound(2000), Description: "Printed advance reader copies to send."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
			{Name: "budget_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Launch budget (independent authors: ISBNs and ARCs come out of it)."},
		},
		ExampleContext: map[string]any{
			"title":      "The Lighthouse Ledger",
			"pub_date":   "2027-09-14",
			"path":       "traditional",
			"formats":    []any{"hardcover", "ebook", "audiobook"},
			"arc_count":  120,
			"budget_usd": 4000,
			"as_of":      "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "The Bookseller: UK trade publication day (Thursday)", URL: "https://www.thebookseller.com/", Checked: "2026-11"},
			{Title: "Publishers Weekly: review submission guidelines (galleys 4–5 months ahead)", URL: "https://www.publishersweekly.com/pw/corp/submissionguidelines.html", Checked: "2026-11"},
			{Title: "Kindle Direct Publishing: pre-orders (final file 72 hours before release)", URL: "https://kdp.amazon.com/en_US/help/topic/G201499380", Checked: "2026-11"},
			{Title: "Bowker MyIdentifiers: ISBN prices (US)", URL: "https://www.myidentifiers.com/", Checked: "2026-11"},
			{Title: "Nielsen ISBN Store: ISBN prices (UK)", URL: "https://www.nielsenisbnstore.com/", Checked: "2026-11"},
			{Title: "Kindle Direct Publishing: ISBNs (not required for Kindle eBooks, which get an ASIN)", URL: "https://kdp.amazon.com/en_US/help/topic/G200672390", Checked: "2026-11"},
			{Title: "ACX: audio submission requirements and review", URL: "https://www.acx.com/help/acx-audio-submission-requirements/201456300", Checked: "2026-11"},
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
	// optionalIndie marks publicity an independent title may skip: a missed
	// window is dropped from its plan with advice, and never moves it.
	optionalIndie bool
}

var pubLaunchWindows = []pubLaunchWindow{
	{"catalog-metadata", "Catalog copy, metadata and cover final for buyers", "BUYER_WINDOW_MISSED", 9, 0, 182, false, true, false},
	{"retail-listing", "Metadata and pre-order listings live with distributors", "LISTING_LATE", 4, 0, 60, true, false, true},
	{"long-lead-pitch", "Long-lead magazines pitched", "LONG_LEAD_MISSED", 6, 0, 122, true, true, true},
	{"galleys-to-trade", "Galleys to trade reviewers (PW, Kirkus, LJ, Booklist)", "TRADE_REVIEW_WINDOW_MISSED", 5, 0, 122, true, true, true},
	{"trade-reviews", "Trade reviews run; pull quotes for marketing", "", 3, 0, 0, true, true, true},
	{"preorder-push", "Pre-order campaign starts", "", 0, 56, 0, true, true, false},
	{"podcast-pitching", "Podcast and media bookings pitched", "MEDIA_WINDOW_MISSED", 0, 42, 28, true, true, true},
}

func pubLaunchCheckDate(in *engine.Input, p *engine.Plan) error {
	asked := in.Date("pub_date")
	pub := asked
	day := pubLaunchDay(in)
	if in.Str("path") == "traditional" && asked.Weekday() != day && !asked.Before(p.AsOf()) {
		pub = engine.OnOrAfter(asked, day)
		code := "PUB_DATE_NOT_TUESDAY"
		if day == time.Thursday {
			code = "PUB_DATE_NOT_THURSDAY"
		}
		p.Warn(code, "%s is a %s; %s trade books go on sale on %ss: plan for %s %s.", engine.FormatDate(asked), asked.Weekday(), in.Region(), day, day, engine.FormatDate(pub))
	}
	p.Set("pub_date", engine.FormatDate(pub))
	return nil
}

// pubLaunchDay is the weekday trade books go on sale in the plan's country:
// Tuesday in the US, Thursday in the UK.
func pubLaunchDay(in *engine.Input) time.Weekday {
	if in.Region() == engine.RegionUK {
		return time.Thursday
	}
	return time.Tuesday
}

// pubLaunchFormatSteps are the production hand-overs of the formats
// published, in days before publication.
func pubLaunchFormatSteps(in *engine.Input) []pubLaunchWindow {
	indie := in.Str("path") == "independent"
	var out []pubLaunchWindow
	formats := in.Strings("formats")
	if slices.Contains(formats, "hardcover") || slices.Contains(formats, "paperback") {
		if indie {
			out = append(out, pubLaunchWindow{key: "print-proof", title: "Print-on-demand proof copy ordered and checked", code: "PRINT_PROOF_LATE", idealDays: 42, lastDay: 21})
		} else {
			out = append(out,
				pubLaunchWindow{key: "files-to-printer", title: "Print-ready files to the printer", code: "PRINTER_DEADLINE_MISSED", idealDays: 112, lastDay: 84},
				pubLaunchWindow{key: "bound-books", title: "Bound books in the warehouse", code: "", idealDays: 56, lastDay: 56})
		}
	}
	if slices.Contains(formats, "audiobook") {
		out = append(out,
			pubLaunchWindow{key: "audio-narration", title: "Audiobook narration starts", code: "AUDIOBOOK_LATE", idealDays: 112, lastDay: 84},
			pubLaunchWindow{key: "audio-master", title: "Finished audiobook master delivered for retailer review", code: "", idealDays: 56, lastDay: 28})
	}
	if slices.Contains(formats, "ebook") && indie {
		out = append(out, pubLaunchWindow{key: "final-ebook-file", title: "Final ebook file uploaded (KDP: 72 hours before release)", idealDays: 3, lastDay: 3})
	}
	return out
}

// pubLaunchSteps lists the windows that apply to this book.
func pubLaunchSteps(in *engine.Input) []pubLaunchWindow {
	indie := in.Str("path") == "independent"
	var out []pubLaunchWindow
	for _, w := range pubLaunchWindows {
		if (indie && !w.independent) || (!indie && !w.traditional) {
			continue
		}
		out = append(out, w)
	}
	return append(out, pubLaunchFormatSteps(in)...)
}

// pubLaunchSchedule builds the launch on the requested publication date
// when every window with a last useful day can still be kept, and
// otherwise on the earliest date that keeps them all (on the country's
// trade weekday for trade books): a missed buyer or review window is not
// made up by warning.
func pubLaunchSchedule(in *engine.Input, p *engine.Plan) error {
	requested, _ := engine.ParseDate(p.Get("pub_date").(string))
	if requested.Before(p.AsOf()) {
		return pubLaunchAfter(p, requested)
	}
	indie := in.Str("path") == "independent"
	r := in.Region()
	steps := pubLaunchSteps(in)
	// The last useful day of a window that has one decides how far the
	// publication date must move to keep it.
	// Publicity an independent author may skip never moves the date.
	binding := func(w pubLaunchWindow) bool { return !indie || !w.optionalIndie }
	needDays := 0
	for _, w := range steps {
		if binding(w) && engine.AddDays(requested, -w.lastDay).Before(p.AsOf()) {
			needDays = max(needDays, w.lastDay)
		}
	}
	if requested.Before(p.AsOf()) {
		needDays = max(needDays, 1)
	}
	pub := requested
	if needDays > 0 {
		for _, w := range steps {
			if binding(w) && engine.AddDays(requested, -w.lastDay).Before(p.AsOf()) && w.code != "" {
				p.Warn(w.code, "%s was due by %s; it is %s late for publication on %s.", w.title, engine.FormatDate(engine.AddDays(requested, -w.lastDay)),
					engine.Plural(engine.DaysBetween(engine.AddDays(requested, -w.lastDay), p.AsOf()), "day", "days"), engine.FormatDate(requested))
			}
		}
		pub = engine.AddDays(p.AsOf(), needDays)
		if !indie {
			pub = engine.OnOrAfter(pub, pubLaunchDay(in))
		}
		why := fmt.Sprintf("Publication on %s leaves too little time for every launch window (the longest needs %s before publication).", engine.FormatDate(requested), engine.Plural(needDays, "day", "days"))
		if indie {
			why = fmt.Sprintf("Publication on %s leaves too little time for production (the longest hand-over needs %s before publication).", engine.FormatDate(requested), engine.Plural(needDays, "day", "days"))
		}
		if requested.Before(p.AsOf()) {
			why = fmt.Sprintf("Publication day %s is before the plan date %s.", engine.FormatDate(requested), engine.FormatDate(p.AsOf()))
		}
		p.Replanned(requested, pub, why)
		p.Set("earliest_feasible_pub_date", engine.FormatDate(pub))
		p.Set("requested_pub_date", engine.FormatDate(requested))
	}
	if indie {
		// Publicity windows missed for the settled date are advice for an
		// independent title: warned once and dropped from the plan. Trade
		// reviews go with their galleys.
		var kept []pubLaunchWindow
		var skipped []string
		for _, w := range steps {
			if w.optionalIndie && w.lastDay > 0 && engine.AddDays(pub, -w.lastDay).Before(p.AsOf()) {
				skipped = append(skipped, w.key)
				p.Warn(w.code, "%s was due by %s for publication on %s; it is optional for an independent title, so the date stands and the plan goes without it.",
					w.title, engine.FormatDate(engine.AddDays(pub, -w.lastDay)), engine.FormatDate(pub))
				continue
			}
			kept = append(kept, w)
		}
		steps = slices.DeleteFunc(kept, func(w pubLaunchWindow) bool {
			return w.key == "trade-reviews" && slices.Contains(skipped, "galleys-to-trade")
		})
		p.Set("skipped_windows", skipped)
		// ISBNs are bought before the first hand-over that prints or lists
		// them.
		for _, w := range steps {
			if w.key == "retail-listing" || w.key == "print-proof" {
				isbnBy := engine.Later(p.AsOf(), engine.AddDays(engine.AddMonths(pub, -w.idealMonths), -w.idealDays))
				if d, ok := p.Get("isbns_by").(string); !ok || engine.FormatDate(isbnBy) < d {
					p.Set("isbns_by", engine.FormatDate(isbnBy))
				}
			}
		}
	}
	p.SetTarget(pub)
	p.Set("pub_date", engine.FormatDate(pub))
	p.Set("days_until_pub", engine.DaysBetween(p.AsOf(), pub))
	if engine.InDeadWeek(pub) {
		// Stores, reviewers and media are off between Christmas and New
		// Year; a launch there sells into an empty week.
		better := time.Date(pub.Year()+map[bool]int{true: 1, false: 0}[pub.Month() == time.December], time.January, 2, 0, 0, 0, 0, time.UTC)
		if !indie {
			better = engine.OnOrAfter(better, pubLaunchDay(in))
		}
		p.Warn("PUB_DATE_IN_DEAD_WEEK", "%s falls in the 24 December–1 January dead week, when reviewers, media and store buyers are away and launch-week sales are lost to the holiday; publish on %s instead.",
			engine.FormatDate(pub), p.Label("publication date clear of the dead week", better))
		p.Set("better_pub_date", p.Label("publication date clear of the dead week", better))
	}
	var windows []map[string]any
	for _, w := range steps {
		ideal := engine.Later(p.AsOf(), engine.AddDays(engine.AddMonths(pub, -w.idealMonths), -w.idealDays))
		last := engine.AddDays(pub, -w.lastDay)
		if w.key == "trade-reviews" || w.key == "preorder-push" {
			p.Milestone(w.key, w.title, ideal)
		} else {
			p.Deliverable(w.key, w.title, ideal, r)
		}
		windows = append(windows, map[string]any{"key": w.key, "ideal": p.Ref(w.key), "last": engine.FormatDate(last)})
	}
	p.Event("pub-day", "Publication day", pub, "the publication date the plan is built on")
	p.Work("post-launch-review", "Week-four review: sales, reviews, reprint and ad decisions", engine.AddWeeks(pub, 4))
	if d := p.GetDate("isbns_by"); !d.IsZero() && (slices.Contains(in.Strings("formats"), "hardcover") || slices.Contains(in.Strings("formats"), "paperback")) {
		p.Deliverable("isbns", "ISBNs bought and assigned to the print formats", d, r)
		p.DependsOn("retail-listing", "isbns")
		p.DependsOn("print-proof", "isbns")
		p.Set("isbns_by", p.Ref("isbns"))
	} else if !d.IsZero() {
		p.Set("isbns_by", p.Label("ISBNs bought, for an author who buys their own", d))
	}
	p.DependsOn("bound-books", "files-to-printer")
	p.DependsOn("audio-master", "audio-narration")
	for _, w := range steps {
		p.DependsOn("pub-day", w.key)
	}
	p.SetSchedule("windows", "each launch window's last useful day (ideal is the window's milestone)", windows)
	return nil
}

// pubLaunchAfter plans for a book already on sale: the launch windows are
// behind it, so what is left is selling the book that is out.
func pubLaunchAfter(p *engine.Plan, pub time.Time) error {
	p.SetTarget(pub)
	p.PostEvent(pub, "the book is on sale, so buyer catalogs, galleys and trade reviews, long-lead press and pre-orders can no longer be had; "+
		"what is left is reader reviews, ads, events and backlist pricing, and the sales review that decides reprints.")
	p.Set("days_until_pub", engine.DaysBetween(p.AsOf(), pub))
	p.Set("windows", []map[string]any{})
	p.Event("pub-day", "Publication day", pub, "the publication date the plan is built on")
	p.Work("post-launch-review", "Sales review: reviews, reprint and ad decisions", engine.Later(p.AsOf(), engine.AddWeeks(pub, 4)))
	return nil
}

// ISBN prices are the national agency's, in its currency: Bowker in the
// US ($125 one, $295 ten), Nielsen in the UK (£93 one, £174 ten); Canada's
// and New Zealand's national libraries assign them free. Elsewhere the US
// price is converted and the plan says to check the national agency. A
// printed ARC costs about $10.50 (US short-run digital printing and
// media mail), converted.
type pubISBNPrice struct {
	one, ten engine.Benchmark
}

func pubISBN(one, ten float64, cur, agency, source string) pubISBNPrice {
	return pubISBNPrice{
		engine.Benchmark{Amount: engine.In(one, cur), What: "one ISBN (" + agency + ")", Source: source},
		engine.Benchmark{Amount: engine.In(ten, cur), What: "ten ISBNs (" + agency + ")", Source: source},
	}
}

var (
	pubISBNPrices = map[engine.Region]pubISBNPrice{
		"US": pubISBN(125, 295, "USD", "Bowker, US", "https://www.myidentifiers.com/"),
		"GB": pubISBN(93, 174, "GBP", "Nielsen ISBN Agency, UK", "https://www.nielsenisbnstore.com/"),
		"CA": pubISBN(0, 0, "CAD", "ISBN Canada, free", "https://library-archives.canada.ca/eng/services/isbn-canada/"),
		"NZ": pubISBN(0, 0, "NZD", "National Library of New Zealand, free", "https://natlib.govt.nz/publishers-and-authors/isbns-issns-and-ismns"),
	}
	pubLaunchARCUnit = engine.Benchmark{Amount: engine.InUSD(10.5), What: "printed ARC, printed and mailed", Source: "US short-run digital printing and media mail"}
)

// pubISBNPriceFor is the ISBN price of the plan's country, the US price
// (converted) with a warning where the country's agency is not listed.
func pubISBNPriceFor(in *engine.Input, p *engine.Plan) (one, ten float64) {
	pr, ok := pubISBNPrices[in.Region()]
	if !ok {
		pr = pubISBNPrices["US"]
		p.Warn("ISBN_PRICE_UNKNOWN", "ISBN prices of %s's national agency are not in this plan's table; the US price (Bowker, USD 125 for one, USD 295 for ten), converted, is used: many agencies charge less or nothing.", in.Region().Name())
	}
	return in.Benchmark(p, pr.one), in.Benchmark(p, pr.ten)
}

func pubLaunchBudget(in *engine.Input, p *engine.Plan) error {
	isbns := 0
	printed := false
	if in.Str("path") == "independent" {
		for _, f := range in.Strings("formats") {
			// KDP assigns ebooks an ASIN and audiobook distributors their
			// own identifiers: only print formats need an ISBN bought.
			if f == "hardcover" || f == "paperback" {
				isbns++
				printed = true
			}
		}
	}
	isbnCost := 0.0
	if isbns > 0 {
		one, ten := pubISBNPriceFor(in, p)
		isbnCost = math.Min(float64(isbns)*one, ten)
	}
	// A traditional publisher prints and mails the galleys; an independent
	// title with no print edition sends e-galleys.
	skipped, _ := p.Get("skipped_windows").([]string)
	printedARCs := printed && !slices.Contains(skipped, "galleys-to-trade")
	var arcs float64
	if in.Str("path") == "independent" && printedARCs {
		arcs = in.RoundMinor(float64(in.Int("arc_count")) * in.Benchmark(p, pubLaunchARCUnit))
	}
	total := in.RoundMinor(isbnCost + arcs)
	arcCount := in.Int("arc_count")
	if in.Str("path") == "independent" && !printedARCs {
		arcCount = 0
	}
	costs := map[string]any{"isbns": isbns, "isbn_usd": isbnCost, "arcs": arcCount, "arc_usd": arcs, "fixed_total_usd": total}
	if in.Has("budget_usd") {
		b := in.Float("budget_usd")
		costs["remaining_usd"] = in.RoundMinor(b - total)
		if total > b {
			affordable := max(0, int(engine.Round((b-isbnCost)/in.Benchmark(p, pubLaunchARCUnit), 6)))
			p.Warn("BUDGET_SHORT", "ISBNs (%s) and %s (%s) cost %s, more than the %s budget; the budget covers %s; send the rest as e-galleys.",
				in.Money(isbnCost), engine.Plural(in.Int("arc_count"), "printed ARC", "printed ARCs"), in.Money(arcs), in.Money(total), in.Money(b), engine.Plural(affordable, "printed ARC", "printed ARCs"))
			p.Set("affordable_arcs", affordable)
		}
	}
	p.Set("costs", costs)
	return nil
}

func pubLaunchRecommend(in *engine.Input, p *engine.Plan) error {
	if p.DateOf("pub-day").Before(p.AsOf()) {
		p.RecommendOn(engine.High, "post-launch-review", "Review sales and decide on reprints and ads",
			"Compare sell-through by format and retailer with the first printing; reprint or adjust ads and price where the book sells.")
		p.Recommend(engine.Medium, "Ask readers for reviews", "Retail and reader-site reviews keep selling a book after launch; ask newsletter readers and event audiences for them.")
		p.Strategy("%q has been on sale since %s (%s): the launch windows are behind it, so the plan sells the book that is out, with a sales review on %s.",
			in.Str("title"), p.Ref("pub-day"), strings.Join(in.Strings("formats"), ", "), p.Ref("post-launch-review"))
		return nil
	}
	indie := in.Str("path") == "independent"
	skipped, _ := p.Get("skipped_windows").([]string)
	galleysSkipped := slices.Contains(skipped, "galleys-to-trade")
	switch {
	case galleysSkipped:
		p.Recommend(engine.Medium, "Gather reader reviews instead of trade reviews",
			"The trade-review galley window (4–5 months before publication) has passed for this date; trade reviews are optional for an independent title. Send e-galleys to readers and bloggers for launch-week reviews; paid indie review programmes (Kirkus Indie, BookLife) also review books already published.")
	case indie:
		p.RecommendOn(engine.High, "galleys-to-trade", "Send galleys to the review channels that take independent books",
			"Publishers Weekly reviews independent titles through BookLife; Kirkus and Foreword have indie programmes; send galleys 4–5 months ahead with the metadata sheet.")
	default:
		p.RecommendOn(engine.High, "galleys-to-trade", "Get galleys to trade reviewers",
			"Trade reviewers (Publishers Weekly, Kirkus, Library Journal, Booklist) need galleys 4–5 months before publication; confirm your publicist's mailing date.")
	}
	podcastAdvice := "Pitch podcasts and radio with a one-page author sheet and three talking points, aiming for interviews in launch week."
	if slices.Contains(skipped, "podcast-pitching") {
		p.Recommend(engine.Medium, "Book podcasts 4–6 weeks out", podcastAdvice)
	} else {
		p.RecommendOn(engine.Medium, "podcast-pitching", "Book podcasts 4–6 weeks out", podcastAdvice)
	}
	p.RecommendOn(engine.Medium, "preorder-push", "Run a pre-order campaign",
		"Pre-orders count towards first-week sales; offer a pre-order bonus and push it in the last 8 weeks.")
	if e, ok := p.Get("earliest_feasible_pub_date").(string); ok {
		p.RecommendBy(engine.High, p.AsOf(), "Move publication with the publisher and retailers",
			fmt.Sprintf("This plan publishes on %s instead of %s, the earliest date that keeps galleys, long-lead and buyer timing; update the date in the metadata feed and pre-order listings now.", e, p.Get("requested_pub_date")))
	}
	formats := in.Strings("formats")
	if slices.Contains(formats, "audiobook") {
		p.RecommendOn(engine.Medium, "audio-narration", "Cast the audiobook narrator",
			"Audition narrators in the two weeks before recording starts; a finished master is due 8 weeks before publication so retailers can review it and list it with the print and ebook editions.")
	}
	if (slices.Contains(formats, "hardcover") || slices.Contains(formats, "paperback")) && !indie {
		p.RecommendOn(engine.Medium, "files-to-printer", "Lock the print files",
			"Final interior and jacket files go to the printer 16 weeks out; corrections after that cost a reprint or a slipped date.")
	}
	costs := p.Get("costs").(map[string]any)
	spend := fmt.Sprintf("the publisher covers %s", engine.Plural(in.Int("arc_count"), "galley", "galleys"))
	if indie {
		switch c := costs["fixed_total_usd"].(float64); {
		case costs["isbns"].(int) == 0 && costs["arcs"].(int) == 0:
			spend = "no ISBN is needed for the ebook on KDP, and galleys go out as e-books at no cost"
		case costs["arcs"].(int) == 0:
			spend = fmt.Sprintf("ISBNs for the print formats cost %s, and galleys go out as e-books", in.Money(c))
		default:
			spend = fmt.Sprintf("ISBNs for the print formats and %s cost %s", engine.Plural(costs["arcs"].(int), "printed ARC", "printed ARCs"), in.Money(c))
		}
	}
	if rem, ok := costs["remaining_usd"].(float64); ok && rem >= 0 {
		spend += fmt.Sprintf("; %s of the %s budget is left for ads, events and giveaways", in.Money(rem), in.Money(in.Float("budget_usd")))
	}
	reviews := "no trade-review galleys (their window has passed, and they are optional for an independent title)"
	if !galleysSkipped {
		reviews = "galleys to reviewers by " + p.Ref("galleys-to-trade")
	}
	podcasts := "podcasts pitched for after launch"
	if !slices.Contains(skipped, "podcast-pitching") {
		podcasts = "podcasts pitched from " + p.Ref("podcast-pitching")
	}
	p.Strategy("Publish %q in %s on %s (%s, %s out): %s, pre-orders pushed from %s, %s; %s.",
		in.Str("title"), strings.Join(formats, ", "), p.Ref("pub-day"), in.Str("path"), engine.Plural(p.Get("days_until_pub").(int), "day", "days"), reviews,
		p.Ref("preorder-push"), podcasts, spend)
	return nil
}
