package server

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/creators"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/plans"
	"github.com/creativeops/creativeops/server/wire"
	"github.com/creativeops/creativeops/webhooks"
)

// maxMetadataBytes bounds a creator's metadata as its JSON takes on the
// wire.
const maxMetadataBytes = creators.MaxMetadataBytes

type creatorsService struct {
	creativeopsv1.UnimplementedCreatorsServiceServer
	creators *creators.Service
	// What an export gathers besides the creator's record.
	plans    *plans.Service
	runner   *jobs.Runner
	registry *ipreg.Registry
	webhooks *webhooks.Service
}

func (s *creatorsService) CreateCreator(ctx context.Context, req *creativeopsv1.CreateCreatorRequest) (*creativeopsv1.Creator, error) {
	p := principal(ctx)
	metadata, err := metadataOf(req.GetMetadata())
	if err != nil {
		return nil, err
	}
	c, err := s.creators.Create(ctx, p.OrganizationID, creators.New{
		Name: req.GetName(), Email: req.GetEmail(), Vertical: req.GetVertical(), Metadata: metadata,
	})
	if err != nil {
		return nil, err
	}
	return wire.Creator(c), nil
}

func (s *creatorsService) GetCreator(ctx context.Context, req *creativeopsv1.GetCreatorRequest) (*creativeopsv1.Creator, error) {
	c, err := s.creators.Get(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return wire.Creator(c), nil
}

func (s *creatorsService) ListCreators(ctx context.Context, req *creativeopsv1.ListCreatorsRequest) (*creativeopsv1.ListCreatorsResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	q := creators.ListQuery{Vertical: req.GetVertical(), Email: req.GetEmail(), After: page.after, Limit: page.fetch()}
	if req.GetCreatedAfter() != nil {
		t := req.GetCreatedAfter().AsTime()
		q.CreatedAfter = &t
	}
	if req.GetCreatedBefore() != nil {
		t := req.GetCreatedBefore().AsTime()
		q.CreatedBefore = &t
	}
	if q.CreatedAfter != nil && q.CreatedBefore != nil && !q.CreatedBefore.After(*q.CreatedAfter) {
		return nil, apierror.InvalidField("created_before", "must be after created_after")
	}
	rows, err := s.creators.List(ctx, principal(ctx).OrganizationID, q)
	if err != nil {
		return nil, err
	}
	items, next := renderPage(req, rows, page.size, func(c *creators.Creator) string { return c.ID }, wire.Creator)
	return &creativeopsv1.ListCreatorsResponse{Creators: items, NextPageToken: next}, nil
}

// metadataOf checks a request's metadata against the size bound and
// returns it as a map (nil for none).
func metadataOf(m *structpb.Struct) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	b, err := protojson.Marshal(m)
	if err != nil {
		return nil, apierror.InvalidField("metadata", "is not a JSON object")
	}
	if len(b) > maxMetadataBytes {
		return nil, apierror.InvalidField("metadata", fmt.Sprintf("is %d bytes as JSON; at most %d are allowed", len(b), maxMetadataBytes))
	}
	return m.AsMap(), nil
}

// updatable are the paths an update mask may name.
var updatable = []string{"name", "email", "vertical", "metadata"}

func (s *creatorsService) UpdateCreator(ctx context.Context, req *creativeopsv1.UpdateCreatorRequest) (*creativeopsv1.Creator, error) {
	// Without a mask, the fields the request sets are the mask (AIP-134).
	mask := req.GetUpdateMask().GetPaths()
	if len(mask) == 0 {
		for _, f := range []struct {
			path string
			set  bool
		}{{"name", req.Name != nil}, {"email", req.Email != nil}, {"vertical", req.Vertical != nil}, {"metadata", req.Metadata != nil}} {
			if f.set {
				mask = append(mask, f.path)
			}
		}
		if len(mask) == 0 {
			return nil, apierror.InvalidField("update_mask", "names no field and the request sets none; set one of name, email, vertical, metadata")
		}
	}
	var p creators.Patch
	for _, path := range mask {
		switch path {
		case "name":
			if req.Name == nil {
				return nil, apierror.InvalidField("name", "is in update_mask but not set; a creator's name cannot be removed")
			}
			p.Name = req.Name
		case "email":
			if req.Email == nil {
				return nil, apierror.InvalidField("email", "is in update_mask but not set; a creator's email cannot be removed")
			}
			p.Email = req.Email
		case "vertical":
			if req.Vertical == nil {
				return nil, apierror.InvalidField("vertical", "is in update_mask but not set; a creator's vertical cannot be removed")
			}
			p.Vertical = req.Vertical
		case "metadata":
			metadata, err := metadataOf(req.GetMetadata())
			if err != nil {
				return nil, err
			}
			// Merged key by key; in the mask without a value, it is removed.
			p.Metadata, p.ClearMetadata = metadata, req.Metadata == nil
		default:
			return nil, apierror.InvalidField("update_mask", fmt.Sprintf("path %q is not one of %s", path, strings.Join(updatable, ", ")))
		}
	}
	if req.Revision != nil {
		r := int(req.GetRevision())
		p.Revision = &r
	}
	c, err := s.creators.Update(ctx, principal(ctx).OrganizationID, req.GetId(), p)
	if err != nil {
		return nil, err
	}
	return wire.Creator(c), nil
}

func (s *creatorsService) DeleteCreator(ctx context.Context, req *creativeopsv1.DeleteCreatorRequest) (*emptypb.Empty, error) {
	if err := s.creators.Erase(ctx, principal(ctx).OrganizationID, req.GetId()); err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}

// exportPage is how many rows an export reads per query.
const exportPage = 200

func (s *creatorsService) ExportCreator(ctx context.Context, req *creativeopsv1.ExportCreatorRequest) (*creativeopsv1.CreatorExport, error) {
	orgID, id := principal(ctx).OrganizationID, req.GetId()
	c, err := s.creators.Get(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	out := &creativeopsv1.CreatorExport{ExportedAt: timestamppb.Now(), Creator: wire.Creator(c)}
	for after := ""; ; {
		page, err := s.plans.List(ctx, orgID, plans.ListQuery{CreatorID: id, After: after, Limit: exportPage})
		if err != nil {
			return nil, err
		}
		for _, p := range page {
			out.Plans = append(out.Plans, wire.Plan(p))
		}
		if len(page) < exportPage {
			break
		}
		after = page[len(page)-1].ID
	}
	for after := ""; ; {
		page, err := s.runner.List(ctx, orgID, jobs.ListQuery{CreatorID: id, After: after, Limit: exportPage})
		if err != nil {
			return nil, err
		}
		for _, j := range page {
			out.Jobs = append(out.Jobs, wire.Job(j))
		}
		if len(page) < exportPage {
			break
		}
		after = page[len(page)-1].ID
	}
	for after := ""; ; {
		page, _, _, err := s.registry.Catalog(ctx, orgID, ipreg.CatalogQuery{CreatorID: id, After: after, Limit: exportPage})
		if err != nil {
			return nil, err
		}
		for _, w := range page {
			b, err := s.registry.Certificate(ctx, w)
			if err != nil {
				return nil, err
			}
			out.Records, out.Certificates = append(out.Records, wire.Record(w)), append(out.Certificates, wire.Certificate(b))
		}
		if len(page) < exportPage {
			break
		}
		after = page[len(page)-1].ID
	}
	evs, err := s.creators.Events(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	eventIDs := make([]string, len(evs))
	for i, ev := range evs {
		eventIDs[i] = ev.ID
	}
	deliveries, err := s.webhooks.DeliveriesOfEvents(ctx, orgID, eventIDs)
	if err != nil {
		return nil, err
	}
	for _, ev := range evs {
		data := &structpb.Struct{}
		if err := protojson.Unmarshal(ev.Data, data); err != nil {
			return nil, fmt.Errorf("event %s: data: %w", ev.ID, err)
		}
		e := &creativeopsv1.ExportedEvent{Id: ev.ID, Type: ev.Type, CreatedAt: timestamppb.New(ev.CreatedAt), Data: data}
		for _, d := range deliveries[ev.ID] {
			e.Deliveries = append(e.Deliveries, wire.Delivery(d))
		}
		out.Events = append(out.Events, e)
	}
	return out, nil
}
