package server

import (
	"context"
	"net/http"
	"strings"

	"google.golang.org/grpc/metadata"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/server/wire"
	"github.com/creativeops/creativeops/storage"
)

// auditService serves GET /v1/audit-events.
type auditService struct {
	creativeopsv1.UnimplementedAuditServiceServer
	store *storage.Store
}

func (a *auditService) ListAuditEvents(ctx context.Context, req *creativeopsv1.ListAuditEventsRequest) (*creativeopsv1.ListAuditEventsResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	f := audit.Filter{
		OrganizationID: principal(ctx).OrganizationID,
		Action:         audit.Action(req.GetAction()),
		Actor:          req.GetActor(),
		TargetID:       req.GetTargetId(),
		After:          page.after,
		Limit:          page.fetch(),
	}
	if req.GetFrom() != nil {
		f.From = req.GetFrom().AsTime()
	}
	if req.GetTo() != nil {
		f.To = req.GetTo().AsTime()
	}
	if req.GetFrom() != nil && req.GetTo() != nil && !f.To.After(f.From) {
		return nil, apierror.InvalidField("to", "must be after from")
	}
	rows, err := audit.List(ctx, a.store.Read, f)
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, page.size, func(e *audit.Event) string { return e.ID })
	out := &creativeopsv1.ListAuditEventsResponse{AuditEvents: make([]*creativeopsv1.AuditEvent, len(rows)), NextPageToken: next}
	for i, e := range rows {
		out.AuditEvents[i] = wire.AuditEvent(e)
	}
	return out, nil
}

// rpcWebTransportKey marks calls that arrived as Connect or gRPC-Web
// requests (transcoded to gRPC by vanguard) with the name of their protocol.
type rpcWebTransportKey struct{}

// withRPCWebTransport names the protocol of a Connect or gRPC-Web request.
func withRPCWebTransport(r *http.Request) *http.Request {
	t := audit.TransportConnect
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc-web") {
		t = audit.TransportGRPCWeb
	}
	return r.WithContext(context.WithValue(r.Context(), rpcWebTransportKey{}, t))
}

// withAuditContext carries who is calling and from where to the domain,
// which records them with every security-relevant change (package audit).
// REST calls take the HTTP layer's view of the request; gRPC, Connect and
// gRPC-Web calls that of the gRPC server. The client address is the
// one edge.Proxies finds, which both layers put in the request's requestInfo
// (ri, nil for none).
func withAuditContext(ctx context.Context, ri *requestInfo, keyID string) context.Context {
	o := audit.Origin{Transport: audit.TransportGRPC}
	if ri != nil {
		o.RequestID, o.ClientIP = ri.id, ri.clientIP
	}
	if cameViaGateway(ri) {
		o.Transport = audit.TransportREST
		if ri != nil {
			o.UserAgent = ri.userAgent
		}
	} else {
		if t, ok := ctx.Value(rpcWebTransportKey{}).(string); ok {
			o.Transport = t
		}
		// Not FromIncomingContext, which copies every header.
		if v := metadata.ValueFromIncomingContext(ctx, "user-agent"); len(v) > 0 {
			o.UserAgent = v[0]
		}
	}
	return audit.WithCaller(ctx, keyID, o)
}
