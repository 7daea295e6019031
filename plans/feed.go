package plans

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/creator"
	"github.com/creativeops/creativeops/ent/plan"
	"github.com/creativeops/creativeops/ent/planmilestone"
	"github.com/creativeops/creativeops/ent/predicate"
	"github.com/creativeops/creativeops/storage"
)

// Calendar apps cannot send an API key, so a plan may have a secret feed
// URL: the calendar route with ?token=<feed token>. The token is 32 random
// bytes; like an API key, only its SHA-256 is stored (Plan.feed_token_hash),
// so the URL is shown once, when it is made. It opens that plan's calendar
// and nothing else: it is not a credential of the API.

// FeedTokenPrefix starts every feed token, so that a leaked one is
// recognized for what it is (and audit.Record refuses to log one).
const FeedTokenPrefix = "pft_"

// feedTokenBytes is the token's randomness: 256 bits, beyond guessing.
const feedTokenBytes = 32

// feedTokenLen is the length of a well-formed token.
var feedTokenLen = len(FeedTokenPrefix) + base64.RawURLEncoding.EncodedLen(feedTokenBytes)

// FeedRateLimit bounds the requests of one feed URL: calendar apps poll
// every hour or few, so a URL polled more than once a second is being
// misused, or shared far beyond a team.
var FeedRateLimit = auth.RateLimit{RequestsPerSecond: 1, Burst: 10}

// CalendarPath is the calendar route of a plan.
func CalendarPath(planID string) string { return "/v1/plans/" + planID + "/calendar.ics" }

// FeedURL is the secret URL of a plan's feed token.
func FeedURL(baseURL, planID, token string) string {
	return baseURL + CalendarPath(planID) + "?" + url.Values{"token": {token}}.Encode()
}

// NewFeedToken returns a new feed token and the hash stored for it.
func NewFeedToken() (token, hash string) {
	b := make([]byte, feedTokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	token = FeedTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashFeedToken(token)
}

// HashFeedToken is the stored form of a feed token: its SHA-256 in hex.
// Tokens are looked up by it; a random 256-bit token leaves nothing to
// learn from how long a lookup takes.
func HashFeedToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// wellFormedFeedToken tells a string that could be a token from one that
// cannot, which is refused without a database lookup.
func wellFormedFeedToken(token string) bool {
	rest, ok := strings.CutPrefix(token, FeedTokenPrefix)
	if !ok || len(token) != feedTokenLen {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

// Feeds creates and revokes plans' feed tokens and serves their calendars.
type Feeds struct {
	store *storage.Store
	// baseURL is the service's public URL, which feed URLs and the
	// calendar's links start with.
	baseURL string
}

// NewFeeds returns the feeds of the plans in store; baseURL is the
// service's public URL (--public-url).
func NewFeeds(store *storage.Store, baseURL string) *Feeds {
	return &Feeds{store: store, baseURL: strings.TrimRight(baseURL, "/")}
}

// Feed is a feed URL as it is made: shown once.
type Feed struct {
	URL       string
	CreatedAt time.Time
}

// Create gives the organization's plan a new feed token and returns its
// URL. A token made before stops working in the same transaction: making
// a feed again is how a leaked URL is replaced.
func (f *Feeds) Create(ctx context.Context, orgID, planID string) (*Feed, error) {
	token, hash := NewFeedToken()
	created := time.Now().UTC().Truncate(time.Microsecond)
	err := f.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		old, err := tx.Plan.Query().Where(plan.ID(planID), plan.OrganizationID(orgID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apierror.NotFound("plan", planID)
		}
		if err != nil {
			return err
		}
		if err := tx.Plan.UpdateOne(old).SetFeedTokenHash(hash).SetFeedCreatedAt(created).Exec(ctx); err != nil {
			return err
		}
		details := map[string]string{}
		if old.FeedTokenHash != "" {
			details["replaced"] = "true"
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.PlanFeedCreated,
			TargetType: audit.TargetPlan, TargetID: planID, Details: details,
		})
	})
	if err != nil {
		return nil, err
	}
	return &Feed{URL: FeedURL(f.baseURL, planID, token), CreatedAt: created}, nil
}

// Revoke removes the plan's feed token: its URL answers 404 from then on.
// Revoking a plan that has no feed changes nothing.
func (f *Feeds) Revoke(ctx context.Context, orgID, planID string) error {
	return f.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		p, err := tx.Plan.Query().Where(plan.ID(planID), plan.OrganizationID(orgID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apierror.NotFound("plan", planID)
		}
		if err != nil || p.FeedTokenHash == "" {
			return err
		}
		if err := tx.Plan.UpdateOne(p).SetFeedTokenHash("").ClearFeedCreatedAt().Exec(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.PlanFeedRevoked,
			TargetType: audit.TargetPlan, TargetID: planID,
		})
	})
}

// FeedPlan is a plan whose calendar a request may read.
type FeedPlan struct {
	ID             string
	OrganizationID string
	// TokenHash is the hash of the feed token that opened the plan (its
	// rate limit is that token's); empty when API credentials did.
	TokenHash string
	// FeedActive reports whether the plan has a feed URL.
	FeedActive bool

	plan *ent.Plan
}

func feedPlan(p *ent.Plan, tokenHash string) *FeedPlan {
	return &FeedPlan{ID: p.ID, OrganizationID: p.OrganizationID, TokenHash: tokenHash, FeedActive: p.FeedTokenHash != "", plan: p}
}

// ByOrganization returns a plan of the organization, for a caller with
// API credentials; another organization's plan is NotFound.
func (f *Feeds) ByOrganization(ctx context.Context, orgID, planID string) (*FeedPlan, error) {
	p, err := f.store.Read.Plan.Query().Where(plan.ID(planID), plan.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("plan", planID)
	}
	if err != nil {
		return nil, err
	}
	return feedPlan(p, ""), nil
}

// hasFeed is the predicate of the partial index of feed token hashes
// (plan_feed_token_hash_set), written as the index writes it, a literal
// and not an argument, so that both databases see the index serves the
// lookup.
var hasFeed = predicate.Plan(func(s *entsql.Selector) {
	s.Where(entsql.ExprP(s.C(plan.FieldFeedTokenHash) + " <> ''"))
})

// ByToken returns the plan whose feed token is token, when it is the plan
// the request names: a token opens its own plan's calendar only, and every
// way of not matching (no such token, a revoked or replaced one, another
// plan's, a deleted plan) is the same NotFound.
func (f *Feeds) ByToken(ctx context.Context, planID, token string) (*FeedPlan, error) {
	if !wellFormedFeedToken(token) {
		return nil, apierror.NotFound("plan", planID)
	}
	hash := HashFeedToken(token)
	p, err := f.store.Read.Plan.Query().Where(plan.FeedTokenHash(hash), hasFeed).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, apierror.NotFound("plan", planID)
	case err != nil:
		return nil, err
	case p.ID != planID:
		return nil, apierror.NotFound("plan", planID)
	}
	return feedPlan(p, hash), nil
}

// Calendar renders the plan's calendar (see Calendar).
func (f *Feeds) Calendar(ctx context.Context, fp *FeedPlan) ([]byte, error) {
	p := fp.plan
	ms, err := f.store.Read.PlanMilestone.Query().
		Where(planmilestone.PlanID(p.ID), planmilestone.Current(true)).
		Order(ent.Asc(planmilestone.FieldPosition), ent.Asc(planmilestone.FieldKey)).
		All(ctx)
	if err != nil {
		return nil, err
	}
	info := CalendarInfo{BaseURL: f.baseURL}
	if p.CreatorID != "" {
		c, err := f.store.Read.Creator.Query().
			Where(creator.ID(p.CreatorID), creator.OrganizationID(p.OrganizationID)).
			Select(creator.FieldName).Only(ctx)
		switch {
		case err == nil:
			info.CreatorName = c.Name
		case !ent.IsNotFound(err):
			return nil, err
		}
	}
	return Calendar(p, ms, info)
}
