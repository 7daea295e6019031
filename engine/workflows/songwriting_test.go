package workflows_test

import (
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestSongwritingSplitsSharesFeesAndDeadlines(t *testing.T) {
	res := run(t, "songwriting-split-registration", mediaExample(t, "songwriting-split-registration"))
	shares := res["royalty_shares"].([]any)
	nova := shares[0].(map[string]any)
	if nova["writer_share_pct"] != 25.0 || nova["publisher_share_pct"] != 25.0 || nova["per_1000_usd_writer"] != 250.0 {
		t.Errorf("a 50%% writer gets 25%% writer and 25%% publisher share ($250 of $1,000 each): %v", nova)
	}
	// The writers own the master in their song shares: the song and the
	// recording are one claim on a $65 Standard Application (Circular 56a),
	// not $65 twice.
	if total := mediaNum(t, res, "copyright_fees", "total_usd"); total != 65 {
		t.Errorf("copyright fees %v, want 65 (one Standard Application for song and recording)", total)
	}
	if res["copyright_deadline"] != "2027-06-05" {
		t.Errorf("§412 deadline %v, want release + 3 months = 2027-06-05", res["copyright_deadline"])
	}
	reg := milestoneDate(t, res, "pro-mlc-registration")
	if engine.DaysBetween(reg, mediaDay("2027-03-05")) != 14 {
		t.Errorf("registrations due %v, want 14 days before release", reg)
	}
	if !hasWarning(res, "WRITER_NOT_AFFILIATED") || hasWarning(res, "SPLITS_NOT_100") {
		t.Errorf("warnings %v", warningCodes(res))
	}
}

func TestSongwritingSplitsSingleWriterAndBadSplits(t *testing.T) {
	solo := run(t, "songwriting-split-registration", map[string]any{
		"song_title": "S", "release_date": "2027-03-05", "as_of": "2026-11-20", "register_sound_recording": false,
		"writers": []any{map[string]any{"name": "A", "share_pct": 100, "pro": "ASCAP", "publisher": "A Music"}},
	})
	if total := mediaNum(t, solo, "copyright_fees", "total_usd"); total != 45 {
		t.Errorf("one author, one work, not for hire is a $45 Single Application; got %v", total)
	}
	bad := run(t, "songwriting-split-registration", map[string]any{
		"song_title": "S", "release_date": "2027-03-05", "as_of": "2026-11-20",
		"writers": []any{
			map[string]any{"name": "A", "share_pct": 60, "pro": "BMI"},
			map[string]any{"name": "B", "share_pct": 30, "pro": "BMI"},
		},
	})
	if !hasWarning(bad, "SPLITS_NOT_100") || mediaNum(t, bad, "splits_total_pct") != 90 {
		t.Errorf("60+30 should warn SPLITS_NOT_100 with a 90%% total: %v", warningCodes(bad))
	}
}

func TestSongwritingSplitsCopyrightWindow(t *testing.T) {
	ctx := map[string]any{
		"song_title": "S", "release_date": "2026-10-02", "as_of": "2026-11-20",
		"writers": []any{map[string]any{"name": "A", "share_pct": 100, "pro": "BMI"}},
	}
	closing := run(t, "songwriting-split-registration", clone(ctx))
	if !hasWarning(closing, "COPYRIGHT_412_WINDOW_CLOSING") {
		t.Errorf("released 49 days ago: %v", warningCodes(closing))
	}
	ctx["release_date"] = "2026-07-01"
	closed := run(t, "songwriting-split-registration", ctx)
	if !hasWarning(closed, "COPYRIGHT_412_WINDOW_CLOSED") {
		t.Errorf("released more than 3 months ago: %v", warningCodes(closed))
	}
}

func TestSongwritingSyncQuoteExample(t *testing.T) {
	res := run(t, "songwriting-sync-quote", mediaExample(t, "songwriting-sync-quote"))
	// Streaming series $4,000 a side × 1.5 featured, worldwide.
	if s := mediaNum(t, res, "quote", "per_side_usd"); s != 6000 {
		t.Fatalf("per side %v, want 6000", s)
	}
	// 50% of the sync side plus the whole master side, less 25% commission.
	if n := mediaNum(t, res, "your_take", "net_usd"); n != (3000+6000)*0.75 {
		t.Errorf("net %v, want %v", n, (3000+6000)*0.75)
	}
	// $6,000 all-in is below 2 × 0.6 × $6,000 = $7,200.
	if !hasWarning(res, "OFFER_BELOW_RANGE") || mediaNum(t, res, "counter_offer_usd") != 12000 {
		t.Errorf("offer should be countered at 12000: %v %v", warningCodes(res), res["counter_offer_usd"])
	}
	if n := mediaNum(t, res, "offer_net_usd"); n != (1500+3000)*0.75 {
		t.Errorf("offer net %v, want %v", n, (1500+3000)*0.75)
	}
	air := milestoneDate(t, res, "air-date")
	files := milestoneDate(t, res, "files-delivered")
	if files.Weekday() == 6 || files.Weekday() == 0 || engine.DaysBetween(files, air) < 14 {
		t.Errorf("files due %v, want 10 business days before %v", files, air)
	}
}

func TestSongwritingSyncQuoteTerritoryAndClearance(t *testing.T) {
	ad := map[string]any{"media": "advertising_national", "territory": "us", "air_date": "2027-03-01", "as_of": "2026-11-20"}
	us := run(t, "songwriting-sync-quote", clone(ad))
	ad["territory"] = "worldwide"
	ww := run(t, "songwriting-sync-quote", ad)
	if a, b := mediaNum(t, us, "quote", "per_side_usd"), mediaNum(t, ww, "quote", "per_side_usd"); a != 50000 || b != 100000 {
		t.Errorf("national ad per side: US %v, worldwide %v; want 50000 and 100000", a, b)
	}
	tight := run(t, "songwriting-sync-quote", map[string]any{
		"media": "tv_episode", "owns_master": false, "air_date": "2026-12-18", "as_of": "2026-11-20",
	})
	// 15 business days from 2026-11-20, Thanksgiving (26 November) not
	// counted, end on 2026-12-14; the license is planned then.
	if !hasWarning(tight, "CLEARANCE_TOO_TIGHT") || tight["earliest_clearance_date"] != "2026-12-14" {
		t.Errorf("15 business days from 2026-11-20 is 2026-12-14: %v %v", warningCodes(tight), tight["earliest_clearance_date"])
	}
	if got := milestoneDate(t, tight, "license-signed"); engine.FormatDate(got) != "2026-12-14" {
		t.Errorf("license planned %v, want the earliest clearance 2026-12-14", got)
	}
	if !milestoneDate(t, tight, "files-delivered").After(milestoneDate(t, tight, "license-signed")) {
		t.Error("files are delivered after the license is signed")
	}
	aired := run(t, "songwriting-sync-quote", map[string]any{"media": "tv_episode", "air_date": "2026-10-02", "as_of": "2026-11-20"})
	if !hasWarning(aired, "POST_EVENT") || engine.FormatDate(milestoneDate(t, aired, "retroactive-license")) != "2026-11-20" {
		t.Errorf("a use that aired gets a retroactive license now: %v", warningCodes(aired))
	}
	oneStop := run(t, "songwriting-sync-quote", map[string]any{"media": "tv_episode", "air_date": "2026-12-18", "as_of": "2026-11-20"})
	if hasWarning(oneStop, "CLEARANCE_TOO_TIGHT") {
		t.Errorf("a one-stop song clears in 5 business days: %v", warningCodes(oneStop))
	}
}

// A work made for hire belongs to the hiring party from creation (17 U.S.C.
// §101, §201(b); U.S. Copyright Office Circular 30): it owns the publisher
// share and all mechanicals, it is the copyright claimant, so the $45
// Single Application (one author who is the claimant, not for hire) is not
// available and the filing is the $65 Standard Application. The writers
// keep only the writer share their PROs pay them. work_for_hire used to
// leave every figure but the fee unchanged.
func TestSongwritingWorkForHireMovesOwnershipToTheHiringParty_Circular30(t *testing.T) {
	ctx := map[string]any{
		"song_title": "S", "release_date": "2027-03-05", "as_of": "2026-11-20", "register_sound_recording": false,
		"writers": []any{map[string]any{"name": "A", "share_pct": 100, "pro": "ASCAP"}},
	}
	own := run(t, "songwriting-split-registration", clone(ctx))
	ctx["work_for_hire"] = true
	ctx["hiring_party"] = "Northlight Pictures"
	wfh := run(t, "songwriting-split-registration", clone(ctx))

	if total := mediaNum(t, wfh, "copyright_fees", "total_usd"); total != 65 {
		t.Errorf("work for hire: $65 Standard Application, not the $45 Single Application (Copyright Office fees, 37 CFR 201.3; Circular 30), got %v", total)
	}
	a := wfh["royalty_shares"].([]any)[0].(map[string]any)
	if a["writer_share_pct"] != 50.0 || a["publisher_share_pct"] != 0.0 || a["per_1000_usd_publisher"] != 0.0 {
		t.Errorf("the writer keeps the 50%% writer share and no publisher share (17 U.S.C. §201(b), Circular 30: the hiring party owns the work): %v", a)
	}
	if o := own["royalty_shares"].([]any)[0].(map[string]any); o["publisher_share_pct"] != 50.0 {
		t.Errorf("not for hire, the sole writer owns the 50%% publisher share: %v", o)
	}
	if got := mediaNum(t, wfh, "work_for_hire", "publisher_share_pct"); got != 50 {
		t.Errorf("hiring party publisher share %v, want 50", got)
	}
	if got := wfh["copyright_owner"]; got != "Northlight Pictures" {
		t.Errorf("copyright owner %v, want the hiring party", got)
	}
	if got := own["copyright_owner"]; got != "the writers, in their shares" {
		t.Errorf("copyright owner %v, want the writers", got)
	}
	if d := milestoneDate(t, wfh, "work-for-hire-agreement"); d.After(milestoneDate(t, wfh, "release")) {
		t.Errorf("work-for-hire agreement %v after release", d)
	}
	if !hasWarning(wfh, "WORK_FOR_HIRE_NEEDS_AGREEMENT") {
		t.Errorf("warnings %v", warningCodes(wfh))
	}
	if s := wfh["strategy"].(string); !strings.Contains(s, "Northlight Pictures owns the copyright") {
		t.Errorf("strategy %q does not name the owner", s)
	}
}

// A song already released gets a post-release plan: registrations are due
// on the plan date (the next open day), never before it, and the release
// is history.
func TestSongwritingSplitsAfterReleaseIsAPostReleasePlan(t *testing.T) {
	res := entRun(t, "songwriting-split-registration", map[string]any{"release_date": "2026-10-02"})
	entWant(t, res, "POST_EVENT", "COPYRIGHT_412_WINDOW_CLOSING")
	if tl := res["timeline"].(map[string]any); tl["post_event"] != true {
		t.Errorf("timeline %v is not marked post-event", tl)
	}
	for _, key := range []string{"late-split-sheet-signed", "late-pro-mlc-registration", "late-copyright-filed"} {
		if d := milestoneDate(t, res, key); engine.FormatDate(d) != "2026-11-20" {
			t.Errorf("%s due %v, want the plan date 2026-11-20", key, d)
		}
	}
}
