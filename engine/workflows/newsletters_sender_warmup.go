package workflows

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/creativeops/creativeops/engine"
)

// Deliverability plan for a newsletter starting on a new sending domain or
// moving platforms. Rules used:
//   - Gmail and Yahoo sender requirements (in force since February 2024):
//     every sender needs SPF or DKIM; bulk senders (about 5,000+ messages a
//     day to Gmail) need SPF, DKIM and a DMARC record aligned with the From
//     domain, one-click unsubscribe (RFC 8058 List-Unsubscribe-Post) honoured
//     within two days, and a user-reported spam rate under 0.3% in Postmaster
//     Tools, ideally under 0.1%. Any send day over 5,000 is treated as bulk
//     here, since the Gmail share of a list is rarely known.
//   - A spam rate at or over 0.3% holds the ramp: volume stays at the
//     first send, to engaged readers only, until Postmaster Tools shows the
//     rate under the limit; the plan dates that check instead of a full-list
//     day it cannot know.
//   - Warm-up: mailbox providers trust volume they have seen grow. Start with
//     the most engaged readers and at most double the volume each business
//     day: from 500 on a new domain, from 2,000 when a known domain moves to
//     new infrastructure (ESP warm-up guidance, conservative ends).
//   - DNS changes take up to 48 hours to propagate, and DMARC aggregate
//     reports arrive daily: authentication is set up a week before the first
//     send.
//   - Readers who have not opened or clicked in 90 days drag placement down;
//     under 20% engaged calls for a re-engagement pass before sending.
func init() {
	engine.Register(&engine.Workflow{
		ID:                 "newsletters-sender-warmup",
		Name:               "Sender warm-up and compliance",
		Vertical:           "newsletters",
		CountryIndependent: "Gmail's and Yahoo's sender requirements apply to every sender to their inboxes, whatever the sender's country.",
		PastDate:           engine.PastDate{Field: "start_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "Google: email sender guidelines (February 2024; spam rate under 0.1%, never 0.3% or more)", URL: "https://support.google.com/a/answer/81126", Checked: "2026-11"},
			{Title: "Yahoo: sender best practices", URL: "https://senders.yahooinc.com/best-practices/", Checked: "2026-11"},
			{Title: "RFC 8058: one-click unsubscribe", URL: "https://www.rfc-editor.org/rfc/rfc8058", Checked: "2026-11"},
		},
		Description: "Checks a newsletter's sending setup against Gmail and Yahoo's sender rules (SPF, DKIM, DMARC, one-click unsubscribe, spam rate) and schedules a warm-up that doubles daily volume from the most engaged readers to the full list; a spam rate at or over Gmail's 0.3% limit holds the ramp at its first send until the rate is under it. A first send too soon for authentication and a seed test, or already past, is re-planned on the earliest feasible workday.",
		Fields: []engine.Field{
			{Name: "list_size", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(10_000_000), Description: "Subscribers to send to."},
			{Name: "start_date", Kind: engine.Date, Required: true, Description: "First send from the new domain or platform."},
			{Name: "situation", Kind: engine.String, Enum: []string{"new-domain", "platform-migration", "established"}, Default: "platform-migration", Description: "New sending domain, a known domain moving platform, or an established setup."},
			{Name: "authentication", Kind: engine.StringList, Enum: []string{"spf", "dkim", "dmarc"}, Default: []string{}, Description: "Authentication records already published for the sending domain."},
			{Name: "one_click_unsubscribe", Kind: engine.Boolean, Default: false, Description: "Whether messages carry RFC 8058 one-click unsubscribe headers."},
			{Name: "engaged_pct", Kind: engine.Number, Default: 40, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Share of the list that opened or clicked in the last 90 days, in percent."},
			{Name: "spam_rate_pct", Kind: engine.Number, Default: 0.05, Min: engine.Bound(0), Max: engine.Bound(100), Description: "User-reported spam rate from Postmaster Tools or the old platform, in percent."},
		},
		ExampleContext: map[string]any{
			"list_size":             38000,
			"start_date":            "2026-12-07",
			"situation":             "platform-migration",
			"authentication":        []any{"spf", "dkim"},
			"one_click_unsubscribe": true,
			"engaged_pct":           35,
			"spam_rate_pct":         0.08,
			"as_of":                 "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-compliance", Run: newsWarmupCompliance},
			{Name: "ramp", Run: newsWarmupRamp},
			{Name: "recommend", Run: newsWarmupRecommend},
		},
	})
}

const (
	newsBulkPerDay      = 5000
	newsSpamLimitPct    = 0.3
	newsSpamTargetPct   = 0.1
	newsAuthLeadDays    = 7
	newsLowEngagedPct   = 20
	newsWarmupNewDomain = 500
	newsWarmupMigration = 2000
)

func newsWarmupCompliance(in *engine.Input, p *engine.Plan) error {
	list, asOf := in.Int("list_size"), p.AsOf()
	start := in.Date("start_date")
	have := in.Strings("authentication")
	bulk := list > newsBulkPerDay
	p.Set("bulk_sender", bulk)
	missing := []string{}
	if bulk {
		for _, r := range []string{"spf", "dkim", "dmarc"} {
			if !slices.Contains(have, r) {
				missing = append(missing, strings.ToUpper(r))
			}
		}
		if !in.Bool("one_click_unsubscribe") {
			p.Warn("ONE_CLICK_UNSUBSCRIBE_MISSING", "Sending %d a day makes this a bulk sender: Gmail and Yahoo require one-click unsubscribe (RFC 8058) honoured within two days.", list)
		}
	} else if !slices.Contains(have, "spf") && !slices.Contains(have, "dkim") {
		missing = []string{"SPF or DKIM"}
	}
	p.Set("missing_authentication", missing)
	if len(missing) > 0 {
		p.Warn("MISSING_AUTHENTICATION", "Gmail and Yahoo reject or junk mail from this setup: publish %s for the sending domain before the first send.", strings.Join(missing, ", "))
		if engine.DaysBetween(asOf, start) < newsAuthLeadDays {
			alt := p.Calendar().NextWorkday(engine.AddDays(asOf, newsAuthLeadDays))
			p.Warn("AUTH_LEAD_TIME", "Authentication set up now is live and verified a week later, after %s; move the first send to %s.", engine.FormatDate(start), engine.FormatDate(alt))
			p.Set("earliest_feasible_start_date", p.Label("earliest first send once authentication is verified", alt))
		}
	}
	switch spam := in.Float("spam_rate_pct"); {
	case spam >= newsSpamLimitPct:
		p.Warn("SPAM_RATE_TOO_HIGH", "A %.2f%% spam rate is at or over Gmail's 0.3%% limit; clean the list and fix sign-up consent before sending at volume.", spam)
	case spam >= newsSpamTargetPct:
		p.Warn("SPAM_RATE_ELEVATED", "A %.2f%% spam rate is over the 0.1%% Gmail recommends; a warm-up on top of it risks the new reputation.", spam)
	}
	if e := in.Float("engaged_pct"); e < newsLowEngagedPct {
		p.Warn("LOW_ENGAGEMENT", "Only %.0f%% of the list engaged in 90 days; run a re-engagement email and suppress the %d who do not respond before warming up.",
			e, int(math.Round(float64(list)*(1-e/100))))
	}
	return nil
}

func newsWarmupRamp(in *engine.Input, p *engine.Plan) error {
	list, asOf := in.Int("list_size"), p.AsOf()
	start := p.Calendar().NextWorkday(in.Date("start_date"))
	// The seed test needs two days before the first send, and missing
	// authentication a week to publish and verify: a start sooner than that
	// (or already past) is re-planned on the earliest feasible workday.
	lead, why := 2, "a seed test needs two days before the first send"
	if len(p.Get("missing_authentication").([]string)) > 0 {
		lead, why = newsAuthLeadDays, "authentication takes a week to publish and verify"
	}
	if earliest := p.Calendar().NextWorkday(engine.AddDays(asOf, lead)); start.Before(earliest) {
		if in.Date("start_date").Before(asOf) {
			why = "the requested start date has passed"
		}
		replanOn(p, in.Date("start_date"), earliest, why)
		p.Set("earliest_feasible_start_date", engine.FormatDate(earliest))
		start = earliest
	}
	p.SetTarget(start)
	p.Set("first_send_date", engine.FormatDate(start))
	engaged := int(math.Round(float64(list) * in.Float("engaged_pct") / 100))
	volume := list
	switch in.Str("situation") {
	case "new-domain":
		volume = min(list, newsWarmupNewDomain)
	case "platform-migration":
		volume = min(list, newsWarmupMigration)
	}
	// A spam rate at or over Gmail's 0.3% limit is a hard stop, not a
	// risk: mail at volume from such a sender is junked or refused, and a
	// new reputation built on it is lost. The ramp holds at its first
	// volume, to engaged readers only, until Postmaster Tools shows the
	// rate under the limit; the plan cannot know when that will be, so it
	// dates the check, not the full list.
	if in.Float("spam_rate_pct") >= newsSpamLimitPct {
		if engaged > 0 {
			volume = min(volume, engaged)
		}
		resumeDays := 1
		for v := volume; v < list; v = min(list, v*2) {
			resumeDays++
		}
		p.Set("ramp_held", true)
		p.Set("send_days_once_resumed", resumeDays)
		p.Set("warmup_schedule", []map[string]any{{"date": engine.FormatDate(start), "volume": volume, "segment": "engaged readers only, ramp held"}})
		p.Set("warmup_send_days", 1)
		if len(p.Get("missing_authentication").([]string)) > 0 {
			p.Handover(engine.KindAction, "dns-setup", "SPF, DKIM and DMARC published and verified", engine.Later(asOf, engine.AddDays(start, -newsAuthLeadDays)))
		}
		p.Work("seed-test", "Test send to seed inboxes (Gmail, Outlook, Yahoo, Apple)", engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(start, -2))))
		p.Work("first-send", fmt.Sprintf("First warm-up send (%d most engaged), held at that volume", volume), start)
		check := p.Calendar().NextWorkday(engine.AddDays(start, 7))
		p.Work("spam-rate-check", "Postmaster Tools spam rate checked: doubling resumes only once it is under 0.3% (ideally 0.1%)", check)
		p.Set("spam_rate_check_date", engine.FormatDate(check))
		p.DependsOn("spam-rate-check", "first-send")
		chain(p, "dns-setup", "seed-test", "first-send")
		return nil
	}
	p.Set("ramp_held", false)
	var ramp []map[string]any
	day := start
	for {
		segment := "engaged readers"
		if volume > engaged {
			segment = "engaged, then less recent readers"
		}
		ramp = append(ramp, map[string]any{"date": engine.FormatDate(day), "volume": volume, "segment": segment})
		if volume >= list {
			break
		}
		volume = min(list, volume*2)
		day = p.Calendar().NextWorkday(engine.AddDays(day, 1))
	}
	p.SetSchedule("warmup_schedule", "each send day of the warm-up ramp", ramp)
	p.Set("warmup_send_days", len(ramp))
	p.Set("full_list_date", engine.FormatDate(day))
	if len(p.Get("missing_authentication").([]string)) > 0 {
		p.Handover(engine.KindAction, "dns-setup", "SPF, DKIM and DMARC published and verified", engine.Later(asOf, engine.AddDays(start, -newsAuthLeadDays)))
	}
	p.Work("seed-test", "Test send to seed inboxes (Gmail, Outlook, Yahoo, Apple)", engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(start, -2))))
	p.Work("first-send", fmt.Sprintf("First warm-up send (%d most engaged)", ramp[0]["volume"]), start)
	p.Work("full-list", "Full list reached", day)
	p.Work("postmaster-review", "Review Postmaster Tools: spam rate, domain reputation", engine.AddDays(day, 14))
	chain(p, "dns-setup", "seed-test", "first-send", "full-list", "postmaster-review")
	for _, m := range p.Milestones() {
		if m.Key == "dns-setup" && m.Date.Before(asOf) && len(p.Get("missing_authentication").([]string)) == 0 {
			continue
		}
		if m.Date.Before(asOf) {
			p.Warn("MILESTONE_PASSED", "%s was due %s, before the plan date %s.", m.Title, engine.FormatDate(m.Date), engine.FormatDate(asOf))
		}
	}
	return nil
}

func newsWarmupRecommend(in *engine.Input, p *engine.Plan) error {
	start := p.GetDate("first_send_date")
	held := p.Get("ramp_held").(bool)
	if missing := p.Get("missing_authentication").([]string); len(missing) > 0 {
		p.RecommendOn(engine.High, "dns-setup", "Publish the missing DNS records",
			fmt.Sprintf("Add %s in the domain's DNS using the platform's values, start DMARC at p=none with a reporting address, and verify in the platform before sending.", strings.Join(missing, ", ")))
	}
	if held {
		spam := in.Float("spam_rate_pct")
		p.RecommendOn(engine.High, "seed-test", "Bring the spam rate under 0.3% before ramping",
			fmt.Sprintf("At %.2f%% the list is over Gmail's 0.3%% limit: suppress readers inactive for 90 days and any without clear consent, send only to recent openers and clickers, and keep the volume flat until Postmaster Tools shows the rate under 0.3%% (aim under 0.1%%); then double daily, %s to the full list.",
				spam, engine.Plural(p.Get("send_days_once_resumed").(int), "send day", "send days")))
		p.Strategy("Hold the warm-up of %s at %s from %s: the %.2f%% spam rate is over Gmail's 0.3%% limit, so volume stays flat until Postmaster Tools shows it under the limit (check on %s); once it is, doubling reaches the full list in %s, as a %s; %s.",
			engine.Plural(in.Int("list_size"), "subscriber", "subscribers"), engine.Plural(p.Get("warmup_schedule").([]map[string]any)[0]["volume"].(int), "engaged reader", "engaged readers"), engine.FormatDate(start),
			spam, p.Get("spam_rate_check_date"), engine.Plural(p.Get("send_days_once_resumed").(int), "send day", "send days"),
			map[bool]string{true: "bulk sender under Gmail and Yahoo's rules", false: "sender under 5,000 a day"}[p.Get("bulk_sender").(bool)],
			map[bool]string{true: "authentication complete", false: "publish the missing authentication first"}[len(p.Get("missing_authentication").([]string)) == 0])
		return nil
	}
	p.RecommendOn(engine.High, "seed-test", "Send to your most engaged readers first",
		fmt.Sprintf("Export openers and clickers of the last 90 days and send to them first; the schedule doubles daily to the full %d over %d send days.", in.Int("list_size"), p.Get("warmup_send_days")))
	p.Recommend(engine.Medium, "Watch Postmaster Tools daily during the ramp", "Hold the volume at the previous day's level if the spam rate passes 0.1% or domain reputation drops below High.")
	p.Recommend(engine.Low, "Keep one-click unsubscribe visible", "An easy unsubscribe is cheaper than a spam complaint, which counts against the 0.3% limit.")
	p.Strategy("Warm up %s from %s: %s doubling from the most engaged to the full list on %s, as a %s; %s.",
		engine.Plural(in.Int("list_size"), "subscriber", "subscribers"), engine.FormatDate(start), engine.Plural(p.Get("warmup_send_days").(int), "send day", "send days"), p.Get("full_list_date"),
		map[bool]string{true: "bulk sender under Gmail and Yahoo's rules", false: "sender under 5,000 a day"}[p.Get("bulk_sender").(bool)],
		map[bool]string{true: "authentication complete", false: "publish the missing authentication first"}[len(p.Get("missing_authentication").([]string)) == 0])
	return nil
}
