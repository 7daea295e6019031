package workflows

import (
	"fmt"
	"math"
	"strings"

	"github.com/creativeops/creativeops/engine"
)

// ACX audio submission check: every file measured against the ACX audio
// submission requirements, with the mastering move that fixes it.
// Rules used (ACX Audio Submission Requirements):
//   - Each file measures -23 to -18 dB RMS, peaks no higher than -3 dB and a
//     noise floor no higher than -60 dB RMS.
//   - 192 kbps or higher constant-bit-rate MP3 at 44.1 kHz; all files mono or
//     all stereo.
//   - One chapter per file, no longer than 120 minutes, with 0.5–1 s of room
//     tone at the head and 1–5 s at the tail.
//   - Opening and closing credits, and a retail sample of 1–5 minutes: a
//     book missing either credit file, or with a sample outside that
//     range, is rejected like a failing file, so the plan is "nothing to
//     fix" only when neither the files nor the package has a rejection
//     reason, and package fixes get a business day before the final listen.
//   - Gain moves RMS, peaks and noise floor together: the fix for a file is
//     the gain to the -20 dB RMS middle of the range, then a limiter with
//     its ceiling at -3.5 dB for any peak the gain leaves above that
//     ceiling (MP3 encoding raises peaks by a few tenths of a dB, so a WAV
//     limited to exactly -3 dB can fail on the exported MP3; the ACX
//     mastering chain of the Audacity manual limits to -3.5 dB), then noise
//     reduction for any floor pushed above -60 dB. The limiter reduction is
//     measured to the -3.5 dB ceiling, not to -3 dB: a -1.9 dB peak needs
//     1.6 dB of limiting, not 1.1.
//   - ACX quality review takes 10–14 business days after submission; ACX
//     is a US service, so its business days skip US federal holidays and
//     the 24 December–1 January week.
//   - A submission date already past is re-planned on the earliest date the
//     fixes allow; the submission, the final listen and the remastering are
//     deliverables, kept off weekends and the holidays of the country the
//     producer works in.
//
// acxCalendar is ACX's: its quality review runs on US business days.
var acxCalendar = engine.Calendar{Region: engine.RegionUS}

func init() {
	engine.Register(&engine.Workflow{
		ID:          "audiobooks-acx-check",
		Name:        "ACX mastering check",
		Vertical:    "audiobooks",
		PastDate:    engine.PastDate{Field: "submission_date", Policy: engine.PastReplan},
		Description: "Checks each audiobook file's RMS, peak, noise floor, format and length against the ACX submission requirements, computes the gain, limiting and noise reduction that fix each failing file, and dates the submission and ACX review. A submission date already past, or too close for the fixes, is re-planned on the earliest feasible submission; the ACX review is counted in US business days.",
		Fields: []engine.Field{
			{Name: "files", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(300), Description: "Measurements of each file (from the mastering meter).", Items: []engine.Field{
				{Name: "name", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "File or chapter name."},
				{Name: "rms_db", Kind: engine.Number, Required: true, Min: engine.Bound(-90), Max: engine.Bound(0), Description: "Total RMS level in dB."},
				{Name: "peak_db", Kind: engine.Number, Required: true, Min: engine.Bound(-90), Max: engine.Bound(6), Description: "Peak level in dB."},
				{Name: "noise_floor_db", Kind: engine.Number, Required: true, Min: engine.Bound(-120), Max: engine.Bound(0), Description: "Noise floor (RMS of room tone) in dB."},
				{Name: "duration_minutes", Kind: engine.Number, Required: true, Min: engine.Bound(0), Max: engine.Bound(1440), Description: "Running time in minutes (0–1,440; ACX allows 120 a file)."},
				{Name: "sample_rate_hz", Kind: engine.Integer, Default: 44100, Min: engine.Bound(8000), Max: engine.Bound(192000), Description: "Sample rate in Hz (8,000–192,000; ACX needs 44,100)."},
				{Name: "bitrate_kbps", Kind: engine.Integer, Default: 192, Min: engine.Bound(8), Max: engine.Bound(320), Description: "MP3 bit rate in kbps (8–320; ACX needs 192 or more)."},
				{Name: "constant_bitrate", Kind: engine.Boolean, Default: true, Description: "Whether the MP3 is CBR."},
				{Name: "channels", Kind: engine.String, Enum: []string{"mono", "stereo"}, Default: "mono", Description: "Channel format."},
				{Name: "head_room_tone_s", Kind: engine.Number, Min: engine.Bound(0), Max: engine.Bound(60), Description: "Seconds of room tone before the voice (0–60; ACX wants 0.5–1)."},
				{Name: "tail_room_tone_s", Kind: engine.Number, Min: engine.Bound(0), Max: engine.Bound(60), Description: "Seconds of room tone after the voice (0–60; ACX wants 1–5)."},
			}},
			{Name: "has_opening_credits", Kind: engine.Boolean, Default: true, Description: "Whether an opening-credits file is included."},
			{Name: "has_closing_credits", Kind: engine.Boolean, Default: true, Description: "Whether a closing-credits file is included."},
			{Name: "retail_sample_minutes", Kind: engine.Number, Required: true, Min: engine.Bound(0), Max: engine.Bound(60), Description: "Length of the retail sample in minutes."},
			{Name: "submission_date", Kind: engine.Date, Required: true, Description: "Date the book will be submitted to ACX."},
			engine.RegionField(),
		},
		Sources: []engine.Source{
			{Title: "ACX Audio Submission Requirements (levels, format, room tone, opening and closing credits, retail sample 1–5 minutes)", URL: "https://www.acx.com/help/acx-audio-submission-requirements/201456300", Checked: "2026-11"},
			{Title: "Audacity Manual: ACX Check and the audiobook mastering chain (limiter at -3.5 dB)", URL: "https://manual.audacityteam.org/man/acx_check.html", Checked: "2026-11"},
			{Title: "ACX: how long the quality review takes", URL: "https://www.acx.com/help/faq", Checked: "2026-11"},
		},
		ExampleContext: map[string]any{
			"files": []any{
				map[string]any{"name": "00 Opening Credits", "rms_db": -20.1, "peak_db": -4.2, "noise_floor_db": -68, "duration_minutes": 0.4, "head_room_tone_s": 0.8, "tail_room_tone_s": 2},
				map[string]any{"name": "01 Chapter One", "rms_db": -19.4, "peak_db": -3.6, "noise_floor_db": -65, "duration_minutes": 38, "head_room_tone_s": 0.7, "tail_room_tone_s": 2.5},
				map[string]any{"name": "02 Chapter Two", "rms_db": -24.6, "peak_db": -6.5, "noise_floor_db": -63, "duration_minutes": 41, "head_room_tone_s": 0.6, "tail_room_tone_s": 3},
				map[string]any{"name": "03 Chapter Three", "rms_db": -18.9, "peak_db": -1.8, "noise_floor_db": -66, "duration_minutes": 126, "head_room_tone_s": 0.5, "tail_room_tone_s": 2},
				map[string]any{"name": "99 Closing Credits", "rms_db": -20.3, "peak_db": -4.5, "noise_floor_db": -67, "duration_minutes": 0.5, "head_room_tone_s": 0.9, "tail_room_tone_s": 4},
			},
			"retail_sample_minutes": 4,
			"submission_date":       "2026-12-04",
			"as_of":                 "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-files", Run: acxCheckFiles},
			{Name: "check-package", Run: acxCheckPackage},
			{Name: "schedule", Run: acxCheckSchedule},
			{Name: "recommend", Run: acxCheckRecommend},
		},
	})
}

const (
	acxRMSMin, acxRMSMax, acxRMSTarget = -23.0, -18.0, -20.0
	acxPeakMax                         = -3.0
	// acxLimiterCeiling is where the limiter is set: half a dB under the
	// -3 dB requirement, the headroom MP3 encoding eats.
	acxLimiterCeiling = -3.5
	acxNoiseMax       = -60.0
	acxMaxMinutes     = 120.0
	acxReviewBizDays  = 14
)

func acxCheckFiles(in *engine.Input, p *engine.Plan) error {
	var results []map[string]any
	failing := map[string][]string{}
	failed := 0
	for _, f := range in.List("files") {
		name := f.Str("name")
		rms, peak, noise := f.Float("rms_db"), f.Float("peak_db"), f.Float("noise_floor_db")
		problems, fixes := []string{}, []string{}
		fail := func(code, problem string) {
			problems = append(problems, problem)
			failing[code] = append(failing[code], name+" ("+problem+")")
		}
		gain := 0.0
		if rms < acxRMSMin || rms > acxRMSMax {
			gain = engine.Round(acxRMSTarget-rms, 1)
			fail("RMS_OUT_OF_RANGE", fmt.Sprintf("RMS %.1f dB outside -23 to -18", rms))
			fixes = append(fixes, fmt.Sprintf("apply %+.1f dB gain to reach -20 dB RMS", gain))
		}
		if newPeak := peak + gain; newPeak > acxLimiterCeiling {
			limit := engine.Round(newPeak-acxLimiterCeiling, 1)
			if peak > acxPeakMax {
				fail("PEAK_TOO_HIGH", fmt.Sprintf("peak %.1f dB above -3", peak))
			}
			fixes = append(fixes, fmt.Sprintf("limit peaks by %.1f dB (ceiling -3.5 dB for MP3 headroom)", limit))
		}
		if newNoise := noise + gain; newNoise > acxNoiseMax {
			if noise > acxNoiseMax {
				fail("NOISE_FLOOR_TOO_HIGH", fmt.Sprintf("noise floor %.1f dB above -60", noise))
			}
			fixes = append(fixes, fmt.Sprintf("reduce noise by %.1f dB (or re-record in a quieter room)", newNoise-acxNoiseMax))
		}
		if d := f.Float("duration_minutes"); d > acxMaxMinutes {
			fail("FILE_TOO_LONG", fmt.Sprintf("%.0f minutes, over 120", d))
			fixes = append(fixes, fmt.Sprintf("split into %d files at a section break", int(math.Ceil(d/acxMaxMinutes))))
		}
		if f.Int("sample_rate_hz") != 44100 || f.Int("bitrate_kbps") < 192 || !f.Bool("constant_bitrate") {
			fail("FORMAT_INVALID", fmt.Sprintf("%d Hz, %d kbps, CBR %v", f.Int("sample_rate_hz"), f.Int("bitrate_kbps"), f.Bool("constant_bitrate")))
			fixes = append(fixes, "export 44.1 kHz, 192 kbps CBR MP3")
		}
		if f.Has("head_room_tone_s") {
			if h := f.Float("head_room_tone_s"); h < 0.5 || h > 1 {
				fail("ROOM_TONE", fmt.Sprintf("head room tone %.1f s, want 0.5–1", h))
				fixes = append(fixes, "trim or pad head room tone to 0.5–1 s")
			}
		}
		if f.Has("tail_room_tone_s") {
			if t := f.Float("tail_room_tone_s"); t < 1 || t > 5 {
				fail("ROOM_TONE", fmt.Sprintf("tail room tone %.1f s, want 1–5", t))
				fixes = append(fixes, "trim or pad tail room tone to 1–5 s")
			}
		}
		if len(problems) > 0 {
			failed++
		}
		results = append(results, map[string]any{"name": name, "pass": len(problems) == 0, "problems": problems, "fixes": fixes, "gain_db": gain})
	}
	for _, code := range []string{"RMS_OUT_OF_RANGE", "PEAK_TOO_HIGH", "NOISE_FLOOR_TOO_HIGH", "FILE_TOO_LONG", "FORMAT_INVALID", "ROOM_TONE"} {
		if names := failing[code]; len(names) > 0 {
			p.Warn(code, "%s: %s.", engine.Plural(len(names), "file fails", "files fail"), strings.Join(names, "; "))
		}
	}
	p.Set("files", results)
	p.Set("failing_files", failed)
	p.Set("passing_files", len(results)-failed)
	return nil
}

func acxCheckPackage(in *engine.Input, p *engine.Plan) error {
	channels := map[string]int{}
	var minutes float64
	for _, f := range in.List("files") {
		channels[f.Str("channels")]++
		minutes += f.Float("duration_minutes")
	}
	// Each of these is a rejection reason of its own, however well the
	// chapter files measure, so each is a fix before submission.
	var fixes []string
	if len(channels) > 1 {
		p.Warn("MIXED_CHANNELS", "%d mono and %d stereo files: ACX needs every file in the same channel format.", channels["mono"], channels["stereo"])
		fixes = append(fixes, "export every file in one channel format")
	}
	var credits []string
	if !in.Bool("has_opening_credits") {
		credits = append(credits, "opening")
	}
	if !in.Bool("has_closing_credits") {
		credits = append(credits, "closing")
	}
	if len(credits) > 0 {
		p.Warn("CREDITS_MISSING", "ACX needs separate opening and closing credit files (title, author, narrator; \"The end\" and credits); the %s credits are missing.", strings.Join(credits, " and "))
		fixes = append(fixes, "record the "+strings.Join(credits, " and ")+" credits")
	}
	if s := in.Float("retail_sample_minutes"); s < 1 || s > 5 {
		p.Warn("RETAIL_SAMPLE_LENGTH", "The retail sample is %.1f minutes; ACX needs 1–5 minutes, without explicit content.", s)
		fixes = append(fixes, "cut a 1–5 minute retail sample")
	}
	p.Set("package_fixes", fixes)
	p.Set("total_runtime_hours", engine.Round(minutes/60, 2))
	return nil
}

func acxCheckSchedule(in *engine.Input, p *engine.Plan) error {
	r := in.Region()
	requested := in.Date("submission_date")
	failed := p.Get("failing_files").(int)
	packageFixes := p.Get("package_fixes").([]string)
	// Remastering and re-checking: a business day per 5 failing files, at
	// least one, finished two business days before submission for a final
	// listen the day before. Recording credits or cutting a sample is a
	// business day of its own work, done alongside any remastering.
	fixDays := int(math.Ceil(float64(failed) / 5))
	if len(packageFixes) > 0 {
		fixDays = max(fixDays, 1)
	}
	need := 1 // the final listen
	if fixDays > 0 {
		need = fixDays + 2
	}
	earliest := p.Calendar().AddWorkdays(p.Calendar().NextWorkday(p.AsOf()), need)
	submit := p.Calendar().PrevWorkday(requested)
	switch {
	case requested.Before(p.AsOf()):
		submit = earliest
		p.Replanned(requested, submit, fmt.Sprintf("The submission date %s is before the plan date %s.", engine.FormatDate(requested), engine.FormatDate(p.AsOf())))
	case submit.Before(earliest):
		submit = earliest
		why := "The final listen needs a working day before submission."
		if failed == 0 && len(packageFixes) > 0 {
			why = fmt.Sprintf("The package needs a business day of fixes (%s) and a final listen before submission.", strings.Join(packageFixes, "; "))
		}
		if failed > 0 {
			why = fmt.Sprintf("%s need about %s of remastering and a final listen before submission.",
				acxFiles(failed, "failing file", "failing files"), engine.Plural(fixDays, "business day", "business days"))
			p.Warn("FIX_TIME_SHORT", "%s need about %s of remastering and a final listen before submission; submit on %s instead.",
				acxFiles(failed, "failing file", "failing files"), engine.Plural(fixDays, "business day", "business days"), engine.FormatDate(submit))
		}
		p.Replanned(requested, submit, why)
	}
	if _, _, ok := p.IsReplanned(); ok {
		p.Set("earliest_submission_date", engine.FormatDate(submit))
	}
	// The submission is a hand-over: asked for on a closed day, it is moved
	// by the calendar, which reports the move.
	asked := submit
	if _, _, ok := p.IsReplanned(); !ok {
		asked = requested
	}
	p.Deliverable("submit", "Submitted to ACX", asked, r)
	submit = p.DateOf("submit")
	p.SetTarget(submit)
	if failed > 0 {
		p.Deliverable("remaster", "Failing files remastered and re-measured", p.Calendar().AddWorkdays(submit, -2), r)
	}
	if len(packageFixes) > 0 {
		p.Deliverable("package-fixes", "Package fixed: "+strings.Join(packageFixes, "; "), p.Calendar().AddWorkdays(submit, -2), r)
	}
	review := acxCalendar.AddWorkdays(submit, acxReviewBizDays)
	p.Deliverable("final-listen", "Final listen of the whole book", p.Calendar().AddWorkdays(submit, -1), r)
	p.Event("acx-review-done", "ACX quality review complete (about 14 business days)", review, "ACX's review finishes on its own schedule")
	p.DependsOn("final-listen", "remaster", "package-fixes")
	p.DependsOn("submit", "final-listen")
	p.DependsOn("acx-review-done", "submit")
	p.Set("review_complete_estimate", p.Ref("acx-review-done"))
	p.Set("submit_date", p.Ref("submit"))
	return nil
}

// acxFiles counts files in words: "1 failing file", "3 failing files".
func acxFiles(n int, singular, plural string) string { return engine.Plural(n, singular, plural) }

func acxCheckRecommend(in *engine.Input, p *engine.Plan) error {
	failed := p.Get("failing_files").(int)
	if failed > 0 {
		p.RecommendOn(engine.High, "remaster", "Remaster the failing files",
			"Apply the listed gain first, then the limiter, then noise reduction, and re-measure every file on the exported MP3, not the WAV.")
	}
	p.Recommend(engine.High, "Master the whole book with one chain",
		"Run every chapter through the same gain, limiter and noise settings so levels stay consistent from file to file; ACX rejects books whose files jump in level.")
	p.Recommend(engine.Medium, "Listen, don't just meter",
		"ACX also rejects mouth noise, plosives, missed words and mid-word edits; spot-check the start, middle and end of every file.")
	packageFixes := p.Get("package_fixes").([]string)
	if len(packageFixes) > 0 {
		p.RecommendOn(engine.High, "package-fixes", "Complete the package ACX requires",
			"ACX rejects a book without opening and closing credit files, with a retail sample outside 1–5 minutes, or with mixed mono and stereo files: "+strings.Join(packageFixes, "; ")+".")
	}
	// "Nothing to fix" is said only when no rejection reason is left, in the
	// files or in the package.
	var todo []string
	if failed > 0 {
		todo = append(todo, "fix "+acxFiles(failed, "file", "files"))
	}
	todo = append(todo, packageFixes...)
	fix := "nothing to fix"
	if len(todo) > 0 {
		fix = strings.Join(todo, ", ")
	}
	p.Set("ready_to_submit", len(todo) == 0)
	p.Strategy("Files passing the ACX checks: %d of %d (%.2f hours in all); %s before submitting on %s, and expect the ACX review to finish around %s.",
		p.Get("passing_files").(int), len(in.List("files")), p.Get("total_runtime_hours").(float64), fix, p.Get("submit_date"), p.Get("review_complete_estimate"))
	return nil
}
