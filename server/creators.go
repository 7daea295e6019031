package server

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/creators"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/server/wire"
)

// maxMetadataBytes bounds a creator's metadata as its JSON takes on the
// wire.
const maxMetadataBytes = 16 << 10

type creatorsService struct {
	creativeopsv1.UnimplementedCreatorsServiceServer
	creators *creators.Service
}

func (s *creatorsService) CreateCreator(ctx context.Context, req *creativeopsv1.CreateCreatorRequest) (*creativeopsv1.Creator, error) {
	p := principal(ctx)
	var metadata map[string]any
	if req.GetMetadata() != nil {
		b, err := protojson.Marshal(req.GetMetadata())
		if err != nil {
			return nil, apierror.InvalidField("metadata", "is not a JSON object")
		}
		if len(b) > maxMetadataBytes {
			return nil, apierror.InvalidField("metadata", fmt.Sprintf("is %d bytes as JSON; at most %d are allowed", len(b), maxMetadataBytes))
		}
		metadata = req.GetMetadata().AsMap()
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
	rows, err := s.creators.List(ctx, principal(ctx).OrganizationID, creators.ListQuery{
		Vertical: req.GetVertical(), After: page.after, Limit: page.fetch(),
	})
	if err != nil {
		return nil, err
	}
	items, next := renderPage(req, rows, page.size, func(c *creators.Creator) string { return c.ID }, wire.Creator)
	return &creativeopsv1.ListCreatorsResponse{Creators: items, NextPageToken: next}, nil
}
