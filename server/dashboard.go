package server

import (
	"context"
	"log/slog"
	"net/http"

	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/dashboard"
)

// dashboardHost lends the dashboard's session API the server's error
// answers and request bookkeeping (dashboard.Host).
type dashboardHost struct{ log *slog.Logger }

var _ dashboard.Host = dashboardHost{}

func (dashboardHost) WriteError(w http.ResponseWriter, r *http.Request, st *status.Status) {
	writeError(w, r, st)
}

func (h dashboardHost) Status(ctx context.Context, err error) *status.Status {
	return status.Convert(toStatusError(ctx, h.log, err))
}

func (dashboardHost) RequestID(ctx context.Context) string { return requestIDFrom(ctx) }

func (dashboardHost) NoteKey(ctx context.Context, keyID string) {
	if ri := requestInfoFrom(ctx); ri != nil {
		ri.keyID = keyID
	}
}
