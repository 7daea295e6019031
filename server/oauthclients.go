package server

import (
	"context"
	"errors"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/creativeops/creativeops/apierror"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/server/wire"
)

type oauthClientsService struct {
	creativeopsv1.UnimplementedOAuthClientsServiceServer
	oauth *oauth.Service
}

func (s *oauthClientsService) CreateOAuthClient(ctx context.Context, req *creativeopsv1.CreateOAuthClientRequest) (*creativeopsv1.OAuthClient, error) {
	p := principal(ctx)
	params := oauth.NewClientParams{By: p, OrganizationID: p.OrganizationID, Name: req.GetName(), Scopes: req.GetScopes(), JWKSURI: req.GetJwksUri()}
	if req.GetTokenLifetime() != nil {
		params.TokenLifetime = req.GetTokenLifetime().AsDuration()
	}
	if req.GetJwks() != nil {
		b, err := protojson.Marshal(req.GetJwks())
		if err != nil {
			return nil, apierror.InvalidField("jwks", "must be a JSON Web Key Set")
		}
		params.JWKS = string(b)
	}
	c, secret, err := s.oauth.CreateClient(ctx, params)
	if err != nil {
		return nil, err
	}
	out := wire.OAuthClient(c)
	out.Secret = &secret
	return out, nil
}

func (s *oauthClientsService) ListOAuthClients(ctx context.Context, req *creativeopsv1.ListOAuthClientsRequest) (*creativeopsv1.ListOAuthClientsResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	rows, err := s.oauth.ListClients(ctx, principal(ctx).OrganizationID, page.after, page.fetch())
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, page.size, func(c *oauth.Client) string { return c.ID })
	out := &creativeopsv1.ListOAuthClientsResponse{Clients: make([]*creativeopsv1.OAuthClient, len(rows)), NextPageToken: next}
	for i, c := range rows {
		out.Clients[i] = wire.OAuthClient(c)
	}
	return out, nil
}

func (s *oauthClientsService) GetOAuthClient(ctx context.Context, req *creativeopsv1.GetOAuthClientRequest) (*creativeopsv1.OAuthClient, error) {
	c, err := s.oauth.GetClient(ctx, principal(ctx).OrganizationID, req.GetId())
	if errors.Is(err, oauth.ErrNoSuchClient) {
		return nil, apierror.NotFound("oauth client", req.GetId())
	}
	if err != nil {
		return nil, err
	}
	return wire.OAuthClient(c), nil
}

func (s *oauthClientsService) RotateOAuthClient(ctx context.Context, req *creativeopsv1.RotateOAuthClientRequest) (*creativeopsv1.OAuthClient, error) {
	p := principal(ctx)
	grace := defaultRotationGrace
	if req.GetGracePeriod() != nil {
		grace = req.GetGracePeriod().AsDuration()
	}
	c, secret, err := s.oauth.RotateClient(ctx, p, p.OrganizationID, req.GetId(), grace)
	if errors.Is(err, oauth.ErrNoSuchClient) {
		return nil, apierror.NotFound("oauth client", req.GetId())
	}
	if err != nil {
		return nil, err
	}
	out := wire.OAuthClient(c)
	out.Secret = &secret
	return out, nil
}

func (s *oauthClientsService) DeleteOAuthClient(ctx context.Context, req *creativeopsv1.DeleteOAuthClientRequest) (*emptypb.Empty, error) {
	p := principal(ctx)
	err := s.oauth.RevokeClient(ctx, p, p.OrganizationID, req.GetId())
	if errors.Is(err, oauth.ErrNoSuchClient) {
		return nil, apierror.NotFound("oauth client", req.GetId())
	}
	if err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}
