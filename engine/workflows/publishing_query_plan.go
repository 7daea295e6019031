package workflows

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Literary agent query plan. Rules used:
//   - A query letter runs 250–350 words, with 2–3 comparable titles
//     published in the last 3–5 years (older comps suggest the author does
//     not know the current market).
//   - Word counts agents accept by category, as commonly published in agent
//     guidelines: literary 70–100k, upmarket and commercial 80–100k,
//     thriller, mystery and horror 70–90k, romance 70–100k, fantasy and
//     science fiction 90–120k, young adult 60–90k, middle grade 30–55k,
//     memoir 70–90k, narrative nonfiction 70–100k.
//   - A count outside the range is fixed before querying, not beside it:
//     the plan's first step is to cut or grow the manuscript into range.
//   - Query in batches of about 10 so the letter can be revised: most full
//     requests arrive within 4 weeks, so batches go out 4 weeks apart, and
//     fewer than 1 request per 10 queries means the package needs work.
//     Agents commonly answer in 6–12 weeks ("no response means no"); 8 weeks
//     are allowed after the last batch.
//   - Agencies slow down over the holidays: no batch goes out between
//     15 December and 6 January. Batches go out on Tuesdays, after agents
//     have cleared the weekend's inbox.
func init() {
	engine.Register(&engine.Workflow{
		ID:                 "publishing-query-plan",
		Name:               "Agent query plan",
		Vertical:           "publishing",
		CountryIndependent: "Querying follows agents' own submission windows and response times, set by each agency, not by the writer's country.",
		PastDate:           engine.PastDate{Field: "start_date", Policy: engine.PastReplan},
		Description:        "Checks a manuscript's word count, query length and comp titles against agent expectations, then schedules querying in batches with revision checkpoints and the date querying is complete. A start date already past starts querying on the plan date.",
		Fields: []engine.Field{
			{Name: "genre", Kind: engine.String, Required: true, Enum: []string{"literary", "upmarket", "commercial", "thriller", "mystery", "horror", "romance", "fantasy", "science_fiction", "young_adult", "middle_grade", "memoir", "narrative_nonfiction"}, Description: "Category the book is pitched in."},
			{Name: "word_count", Kind: engine.Integer, Required: true, Min: engine.Bound(1000), Max: engine.Bound(500000), Description: "Manuscript word count."},
			{Name: "query_words", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(2000), Description: "Word count of the query letter body."},
			{Name: "comp_titles", Kind: engine.ObjectList, Max: engine.Bound(6), Description: "Comparable titles named in the query.", Items: []engine.Field{
				{Name: "title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(300), Description: "Title of the comp."},
				{Name: "year", Kind: engine.Integer, Required: true, Min: engine.Bound(1900), Max: engine.Bound(2100), Description: "Year it was published."},
			}},
			{Name: "agents", Kind: engine.Integer, Default: 60, Min: engine.Bound(1), Max: engine.Bound(500), Description: "Agents on the query list."},
			{Name: "batch_size", Kind: engine.Integer, Default: 10, Min: engine.Bound(1), Max: engine.Bound(50), Description: "Queries per batch."},
			{Name: "start_date", Kind: engine.Date, Description: "First day of querying; defaults to the plan date."},
		},
		ExampleContext: map[string]any{
			"genre":       "upmarket",
			"word_count":  92000,
			"query_words": 310,
			"comp_titles": []any{
				map[string]any{"title": "Tomorrow, and Tomorrow, and Tomorrow", "year": 2022},
				map[string]any{"title": "The Covenant of Water", "year": 2023},
			},
			"agents":     40,
			"batch_size": 10,
			"start_date": "2026-12-08",
			"as_of":      "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "Jane Friedman: how to write a query letter (length, comps)", URL: "https://janefriedman.com/query-letters/", Checked: "2026-11"},
			{Title: "Writer's Digest: word counts by genre", URL: "https://www.writersdigest.com/", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "check-package", Run: pubQueryCheck},
			{Name: "schedule", Run: pubQuerySchedule},
			{Name: "recommend", Run: pubQueryRecommend},
		},
	})
}

var pubQueryRanges = map[string][2]int{
	"literary": {70000, 100000}, "upmarket": {80000, 100000}, "commercial": {80000, 100000},
	"thriller": {70000, 90000}, "mystery": {70000, 90000}, "horror": {70000, 90000}, "romance": {70000, 100000},
	"fantasy": {90000, 120000}, "science_fiction": {90000, 120000}, "young_adult": {60000, 90000},
	"middle_grade": {30000, 55000}, "memoir": {70000, 90000}, "narrative_nonfiction": {70000, 100000},
}

const (
	pubQueryBatchGapWeeks = 4
	pubQueryResponseWeeks = 8
)

// Revision pace for a manuscript outside the expected length.
const (
	pubQueryCutWordsPerDay  = 1000
	pubQueryGrowWordsPerDay = 500
	pubQueryMinRevisionDays = 5
)

func pubQueryCheck(in *engine.Input, p *engine.Plan) error {
	genre, wc := in.Str("genre"), in.Int("word_count")
	r := pubQueryRanges[genre]
	p.Set("word_count_range", r)
	if wc < r[0] || wc > r[1] {
		dir, by := "over", wc-r[1]
		if wc < r[0] {
			dir, by = "under", r[0]-wc
		}
		p.Warn("WORD_COUNT_OUT_OF_RANGE", "%s is %s %s the %s–%s agents expect for %s; many will pass on the number alone.", engine.Plural(wc, "word", "words"), engine.FormatInt(by), dir, engine.FormatInt(r[0]), engine.FormatInt(r[1]), strings.ReplaceAll(genre, "_", " "))
		verb := "cut"
		if dir == "under" {
			verb = "grow"
		}
		// Revising to length is work measured in working days: cutting
		// runs at about 1,000 words a day, adding new material at about
		// 500, and never less than a week.
		perDay := pubQueryCutWordsPerDay
		if verb == "grow" {
			perDay = pubQueryGrowWordsPerDay
		}
		days := max(pubQueryMinRevisionDays, int(math.Ceil(float64(by)/float64(perDay))))
		p.Set("revision_working_days", days)
		p.Set("word_count_fix", fmt.Sprintf("%s the manuscript by about %s words to the %s–%s range (about %s)", verb, engine.FormatInt(by), engine.FormatInt(r[0]), engine.FormatInt(r[1]), engine.Plural(days, "working day", "working days")))
	}
	switch q := in.Int("query_words"); {
	case q > 350:
		p.Warn("QUERY_TOO_LONG", "The query is %s; cut %d to reach 350 (aim for 250–350: hook, stakes, comps, bio).", engine.Plural(q, "word", "words"), q-350)
	case q < 250:
		p.Warn("QUERY_TOO_SHORT", "The query is %s; 250–350 leaves room for the stakes and the comps.", engine.Plural(q, "word", "words"))
	}
	oldest := p.AsOf().Year() - 5
	var stale []string
	comps := in.List("comp_titles")
	for _, c := range comps {
		if c.Int("year") < oldest {
			stale = append(stale, fmt.Sprintf("%s (%d)", c.Str("title"), c.Int("year")))
		}
	}
	if len(stale) > 0 {
		p.Warn("COMP_TOO_OLD", "%s %s more than 5 years old; use comps published %d or later.", strings.Join(stale, ", "), map[bool]string{true: "is", false: "are"}[len(stale) == 1], oldest)
	}
	if fresh := len(comps) - len(stale); fresh < 2 {
		p.Warn("TOO_FEW_COMPS", "The query has %s; agents look for 2–3 from the last 3–5 years.", engine.Plural(fresh, "current comp title", "current comp titles"))
	}
	p.Set("comps_current", len(comps)-len(stale))
	return nil
}

// pubQueryCompsLine names the comps the query should lead with: the
// current ones, most recent first; stale ones are named to be replaced.
func pubQueryCompsLine(in *engine.Input, p *engine.Plan) string {
	oldest := p.AsOf().Year() - 5
	var current, stale []string
	comps := in.List("comp_titles")
	sort.SliceStable(comps, func(i, j int) bool { return comps[i].Int("year") > comps[j].Int("year") })
	for _, c := range comps {
		name := fmt.Sprintf("%s (%d)", c.Str("title"), c.Int("year"))
		if c.Int("year") < oldest {
			stale = append(stale, name)
		} else {
			current = append(current, name)
		}
	}
	line := "no current comps yet: find two published since " + strconv.Itoa(oldest)
	if len(current) > 0 {
		line = "comps: " + strings.Join(current, " and ")
	}
	if len(stale) > 0 {
		line += "; replace " + strings.Join(stale, ", ")
	}
	return line
}

// pubQuerySendDay moves a batch to a Tuesday outside the holiday slowdown
// that is a working day of the plan's calendar.
func pubQuerySendDay(cal engine.Calendar, d time.Time) time.Time {
	d = engine.OnOrAfter(d, time.Tuesday)
	for cal.Closed(d) && !engine.InDeadWeek(d) {
		d = engine.OnOrAfter(engine.AddDays(d, 1), time.Tuesday)
	}
	if (d.Month() == time.December && d.Day() >= 15) || (d.Month() == time.January && d.Day() <= 6) {
		y := d.Year()
		if d.Month() == time.December {
			y++
		}
		d = engine.OnOrAfter(time.Date(y, time.January, 7, 0, 0, 0, 0, time.UTC), time.Tuesday)
		for cal.Closed(d) {
			d = engine.OnOrAfter(engine.AddDays(d, 1), time.Tuesday)
		}
	}
	return d
}

func pubQuerySchedule(in *engine.Input, p *engine.Plan) error {
	start := p.AsOf()
	if in.Has("start_date") {
		start = engine.Later(start, in.Date("start_date"))
	}
	// A manuscript revised to length first goes out only after the
	// revision and a day to finish the package.
	revision, _ := p.Get("revision_working_days").(int)
	if revision > 0 {
		start = engine.Later(start, p.Calendar().AddWorkdays(p.AsOf(), revision+1))
	}
	agents, size := in.Int("agents"), in.Int("batch_size")
	n := int(math.Ceil(float64(agents) / float64(size)))
	var batches []map[string]any
	send := pubQuerySendDay(p.Calendar(), start)
	if !send.Equal(engine.OnOrAfter(start, time.Tuesday)) {
		p.Warn("HOLIDAY_SLOWDOWN", "Querying would start in the holiday slowdown; the first batch moves to %s.", engine.FormatDate(send))
	}
	if requested := in.Date("start_date"); in.Has("start_date") && requested.Before(p.AsOf()) {
		replanOn(p, requested, send, "the start date has passed, so querying starts from the plan date")
	}
	p.SetTarget(send)
	for i := 0; i < n; i++ {
		if i > 0 {
			send = pubQuerySendDay(p.Calendar(), engine.AddWeeks(send, pubQueryBatchGapWeeks))
		}
		count := min(size, agents-i*size)
		batches = append(batches, map[string]any{"batch": i + 1, "send_date": p.Ref(fmt.Sprintf("batch-%d", i+1)), "queries": count, "revise_if_requests_below": int(math.Ceil(float64(count) / 10))})
		p.Milestone(fmt.Sprintf("batch-%d", i+1), fmt.Sprintf("Batch %d: %s out", i+1, engine.Plural(count, "query", "queries")), send)
	}
	first := p.DateOf("batch-1")
	checkpoint := engine.AddWeeks(first, pubQueryBatchGapWeeks)
	p.Work("package-ready", "Query package finished: letter, synopsis, opening pages", engine.Later(p.AsOf(), p.Calendar().AddWorkdays(first, -1)))
	p.DependsOn("batch-1", "package-ready")
	if revision > 0 {
		p.Precede("package-ready", "batch-1", 1)
		p.Work("revision", "Revision to length begins", p.AsOf())
		p.Precede("revision", "package-ready", revision)
	}
	done := engine.AddWeeks(p.DateOf(fmt.Sprintf("batch-%d", n)), pubQueryResponseWeeks)
	p.Work("first-checkpoint", "Checkpoint: count full requests from batch 1, revise before batch 2", engine.AddDays(checkpoint, -1))
	p.Work("querying-complete", "Last responses due; decide whether to revise or shelve", done)
	p.Set("batches", batches)
	p.Set("querying_complete", p.Ref("querying-complete"))
	p.Set("target_full_requests", int(math.Ceil(float64(agents)/10)))
	return nil
}

func pubQueryRecommend(in *engine.Input, p *engine.Plan) error {
	batches := p.Get("batches").([]map[string]any)
	// A word count agents reject on sight is fixed before the package goes
	// out, not noted beside it.
	fix, _ := p.Get("word_count_fix").(string)
	pkg := fmt.Sprintf("Query letter (250–350 words), synopsis and the first pages formatted to each agent's guidelines; %s.", pubQueryCompsLine(in, p))
	if fix != "" {
		pkg = fmt.Sprintf("First %s: agents pass on a count outside it. Then the query letter (250–350 words), synopsis and the first pages formatted to each agent's guidelines; %s.", fix, pubQueryCompsLine(in, p))
	}
	p.RecommendOn(engine.High, "package-ready", "Finish the query package", pkg)
	p.RecommendOn(engine.High, "first-checkpoint", "Revise if batch 1 is quiet",
		"Fewer than one full request per 10 queries means the query or opening pages are not working; revise before sending batch 2.")
	p.Recommend(engine.Medium, "Mix the batches",
		"Put a few dream agents, a few newer agents building lists and a few mid-career agents in every batch, so each batch tests the package fairly.")
	p.Recommend(engine.Low, "Track every query",
		"Log agent, date, materials sent and response; close out non-responders after their stated window.")
	r := p.Get("word_count_range").([2]int)
	lead := "Query"
	if fix != "" {
		lead = strings.ToUpper(fix[:1]) + fix[1:] + ", then query"
	}
	p.Strategy("%s %s for the %s-word %s manuscript (%s–%s expected) in %s from %s, revising after each; all responses in by %s; %s is the healthy benchmark.",
		lead, engine.Plural(in.Int("agents"), "agent", "agents"), engine.FormatInt(in.Int("word_count")), strings.ReplaceAll(in.Str("genre"), "_", " "), engine.FormatInt(r[0]), engine.FormatInt(r[1]),
		engine.Plural(len(batches), "batch", "batches"), batches[0]["send_date"], p.Get("querying_complete"), engine.Plural(p.Get("target_full_requests").(int), "full request", "full requests"))
	return nil
}
