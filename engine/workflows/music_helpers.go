package workflows

import (
	"regexp"
	"strings"
)

// Helpers shared by the music, songwriting, film, television, screenwriting,
// publishing, audiobooks and podcasting workflows. Names are specific so they
// do not clash with other verticals' files in this package. Calendar, fee
// tier and date helpers these workflows share with the other verticals live
// in the engine package.

var slugKeyRe = regexp.MustCompile(`[^a-z0-9]+`)

// slugKey turns a name into a milestone key fragment ("Baltic Summer IFF" →
// "baltic-summer-iff").
func slugKey(s string) string {
	return strings.Trim(slugKeyRe.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
