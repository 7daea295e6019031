package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"time"

	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/plans"
)

// The calendar feed, GET /v1/plans/{id}/calendar.ics, is a plain HTTP
// handler beside the gateway: its body is iCalendar, not a message, and a
// calendar app calls it with a feed token in the URL where API clients
// send credentials. It goes through the REST middleware like every route
// (request id, request log, metrics, usage analytics under its template).

// calendarRoute names the feed's requests in logs, metrics and analytics.
var calendarRoute = route{http.MethodGet, "/v1/plans/{id}/calendar.ics"}

// calendarScope is the scope a key needs to read a plan's calendar: that
// of reading the plan itself, as the protos declare it for GetPlan.
func calendarScope() string {
	m, _ := rpcrule.Lookup("/creativeops.v1.PlansService/GetPlan")
	return m.Scope
}

// feedTokenParam is the query parameter of a feed URL's token.
const feedTokenParam = "token"

// servePlanCalendar answers with a plan's calendar, to a feed URL's token
// or to API credentials (a key, an OAuth token, a dashboard session).
func (s *Server) servePlanCalendar(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ri := requestInfoFrom(ctx)
	ri.route = calendarRoute
	id := r.PathValue("id")
	fail := func(err error) {
		writeError(w, r, status.Convert(toStatusError(ctx, s.log, err)))
	}

	var fp *plans.FeedPlan
	var err error
	if q := r.URL.Query(); q.Has(feedTokenParam) {
		// A feed URL: the token alone decides, whatever else is sent.
		if fp, err = s.planFeeds.ByToken(ctx, id, q.Get(feedTokenParam)); err != nil {
			fail(err)
			return
		}
		ri.orgID = fp.OrganizationID
		d := s.limiter.Take(ctx, "plan_feed:"+fp.TokenHash, plans.FeedRateLimit)
		c := rateCharge{lim: plans.FeedRateLimit, d: d}
		c.setHeaders(w.Header())
		if !d.Allowed {
			s.metrics.rateLimited.Inc()
			writeError(w, r, c.exceeded("a calendar feed URL may be fetched %s times per second", nil).GRPCStatus())
			return
		}
	} else {
		p, err := s.principal(ctx, headerMetadata(r.Header))
		if err != nil {
			if errors.Is(err, auth.ErrUnauthenticated) {
				err = errUnauthenticated
			}
			fail(err)
			return
		}
		ri.keyID, ri.orgID = p.KeyID, p.OrganizationID
		if scope := calendarScope(); !p.Allows(scope) {
			writeError(w, r, missingScope(scope).GRPCStatus())
			return
		}
		c := s.chargeRate(ctx, p, 1)
		c.setHeaders(w.Header())
		if !c.d.Allowed {
			s.metrics.rateLimited.Inc()
			writeError(w, r, c.refusal(p.KeyID).GRPCStatus())
			return
		}
		if fp, err = s.planFeeds.ByOrganization(ctx, p.OrganizationID, id); err != nil {
			fail(err)
			return
		}
	}

	body, err := s.planFeeds.Calendar(ctx, fp)
	if err != nil {
		fail(err)
		return
	}
	sum := sha256.Sum256(body)
	h := w.Header()
	h.Set("Content-Type", "text/calendar; charset=utf-8")
	h.Set("Content-Disposition", `inline; filename="`+fp.ID+`.ics"`)
	// Calendar apps poll: an unchanged plan costs them a 304. The URL may
	// carry a token, so no shared cache keeps the document.
	h.Set("ETag", `"`+hex.EncodeToString(sum[:16])+`"`)
	h.Set("Cache-Control", "private, no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	// ServeContent answers If-None-Match (304), HEAD and ranges.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}
