package main

import (
	"strings"
	"testing"
)

// Each workflow's sources are listed under it, with the month each was
// checked.
func TestRenderListsSources(t *testing.T) {
	doc := string(render())
	i := strings.Index(doc, "\n### audiobooks-acx-check\n")
	if i < 0 {
		t.Fatal("no audiobooks-acx-check section")
	}
	section := doc[i:]
	section = section[:strings.Index(section[1:], "\n### ")+1]
	want := "- [ACX Audio Submission Requirements (levels, format, room tone, opening and closing credits, retail sample 1–5 minutes)](https://www.acx.com/help/acx-audio-submission-requirements/201456300), checked 2026-11\n"
	if !strings.Contains(section, want) {
		t.Errorf("section lacks %q:\n%s", want, section)
	}
}

// Each workflow states the calendars and currencies it supports, and the
// closures are listed once with their sources.
func TestRenderListsCalendarsAndCurrencies(t *testing.T) {
	doc := string(render())
	for _, want := range []string{
		"`DE` Germany",
		"Calendars: any of the ",
		"Currencies: none (no amounts).", // e.g. publishing-query-plan
		"Currencies: any listed above (`currency`, default `GBP`).", // comedy-edinburgh-fringe
		"[Steamworks: upcoming Steam sales and events](https://partner.steamgames.com/doc/marketing/upcoming_events)",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs lack %q", want)
		}
	}
}

// Each workflow says what it does with an event date already past.
func TestRenderStatesPastDatePolicy(t *testing.T) {
	doc := string(render())
	for _, want := range []string{
		"Past-date policy: `pub_date` already past gives a post-event plan",
		"Past-date policy: `delivery_date` already past (or too close) is re-planned",
		"Past-date policy: entries of `calls` whose dates have passed are left out",
		"Past-date policy: not applicable",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs lack %q", want)
		}
	}
}
