package engine

import (
	"fmt"
	"slices"

	"github.com/creativeops/creativeops/apierror"
)

// Vertical is a creative industry the engine has planning workflows for.
// Creators pick one as their primary vertical, so this list is the single
// source of truth for vertical keys across the service.
type Vertical struct {
	Key         string
	Name        string
	Description string
}

var verticals = []Vertical{
	{"music", "Music", "Recorded music releases: singles, EPs and albums, distribution, playlist pitching and touring."},
	{"songwriting", "Songwriting", "Songwriters and composers: publishing administration, co-writes, sync pitching and registrations."},
	{"film", "Film", "Independent feature and short films: festivals, distribution and theatrical or streaming release."},
	{"television", "Television", "Series development and production: pitch packages, pilots, and broadcast or streaming delivery."},
	{"screenwriting", "Screenwriting", "Feature and TV screenplays: contests, fellowships, representation and script registration."},
	{"publishing", "Publishing", "Books through trade or independent publishing: queries, launches, review copies and rights."},
	{"audiobooks", "Audiobooks", "Audiobook production and distribution: narration, mastering specifications and retail release."},
	{"podcasting", "Podcasting", "Podcast shows: launches, episode calendars, directory submission and sponsorship."},
	{"visual-art", "Visual art", "Painting, sculpture and mixed media: pricing, exhibitions, galleries and open calls."},
	{"photography", "Photography", "Commercial and fine-art photography: shoots, licensing, prints and editions."},
	{"illustration", "Illustration", "Editorial, publishing and commercial illustration: commissions, rates and portfolio reviews."},
	{"comics", "Comics", "Comics and graphic novels: serialisation, print runs, conventions and crowdfunding."},
	{"animation", "Animation", "Animated shorts and series: production pipelines, festivals and studio pitches."},
	{"fashion", "Fashion", "Fashion labels: collections, wholesale calendars, production and drops."},
	{"design", "Design", "Product, graphic and brand design: client projects, retainers and launches."},
	{"crafts", "Crafts", "Handmade goods: pricing, markets and fairs, online shops and production batches."},
	{"games", "Games", "Video games: store pages, wishlists, festivals, demos and launch."},
	{"tabletop", "Tabletop", "Board, card and role-playing games: crowdfunding, manufacturing and freight."},
	{"video", "Video", "Online video creators: upload calendars, sponsorships and production schedules."},
	{"social-media", "Social media", "Social media creators: content calendars, brand deals and growth campaigns."},
	{"newsletters", "Newsletters", "Paid and free newsletters: publishing cadence, paid launches and growth."},
	{"comedy", "Comedy", "Stand-up and sketch comedy: tours, specials, festival submissions and sets."},
	{"theater", "Theater", "Stage productions: rehearsal schedules, budgets, grants and opening runs."},
	{"live-events", "Live events", "Concerts, festivals and live experiences: booking, ticketing, budgets and production."},
}

// Verticals returns every vertical in a stable order.
func Verticals() []Vertical { return slices.Clone(verticals) }

// CheckVertical refuses a vertical key the engine does not know, naming
// the request field that carried it.
func CheckVertical(field, key string) *apierror.Error {
	if _, ok := LookupVertical(key); !ok {
		return apierror.Invalid("UNKNOWN_VERTICAL", field,
			fmt.Sprintf("unknown vertical %q; GET /v1/engine/verticals lists the keys", key))
	}
	return nil
}

// LookupVertical reports the vertical with the given key.
func LookupVertical(key string) (Vertical, bool) {
	for _, v := range verticals {
		if v.Key == key {
			return v, true
		}
	}
	return Vertical{}, false
}

// VerticalKeys lists the known keys, for error messages and schemas.
func VerticalKeys() []string {
	keys := make([]string, len(verticals))
	for i, v := range verticals {
		keys[i] = v.Key
	}
	return keys
}
