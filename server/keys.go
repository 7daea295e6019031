package server

import (
	"context"
	"errors"
	"time"

	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/server/wire"
)

const defaultRotationGrace = 24 * time.Hour

type keysService struct {
	creativeopsv1.UnimplementedKeysServiceServer
	keys *auth.Store
}

func (s *keysService) CreateKey(ctx context.Context, req *creativeopsv1.CreateKeyRequest) (*creativeopsv1.APIKey, error) {
	p := principal(ctx)
	params := auth.NewKeyParams{By: p, OrganizationID: p.OrganizationID, Name: req.GetName(), Scopes: req.GetScopes()}
	if req.GetExpiresAt() != nil {
		t := req.GetExpiresAt().AsTime()
		if !t.After(time.Now()) {
			return nil, apierror.InvalidField("expires_at", "must be in the future")
		}
		params.ExpiresAt = &t
	}
	if rl := req.GetRateLimit(); rl != nil {
		params.RateLimit = &auth.RateLimit{RequestsPerSecond: rl.GetRequestsPerSecond(), Burst: int(rl.GetBurst())}
	}
	k, secret, err := s.keys.CreateKey(ctx, params)
	if err != nil {
		return nil, err
	}
	out := wire.Key(k)
	out.Secret = &secret
	return out, nil
}

func (s *keysService) ListKeys(ctx context.Context, req *creativeopsv1.ListKeysRequest) (*creativeopsv1.ListKeysResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	rows, err := s.keys.ListKeys(ctx, principal(ctx).OrganizationID, page.after, page.fetch())
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, page.size, func(k *auth.Key) string { return k.ID })
	out := &creativeopsv1.ListKeysResponse{Keys: make([]*creativeopsv1.APIKey, len(rows)), NextPageToken: next}
	for i, k := range rows {
		out.Keys[i] = wire.Key(k)
	}
	return out, nil
}

func (s *keysService) RotateKey(ctx context.Context, req *creativeopsv1.RotateKeyRequest) (*creativeopsv1.APIKey, error) {
	p := principal(ctx)
	grace := defaultRotationGrace
	if req.GetGracePeriod() != nil {
		grace = req.GetGracePeriod().AsDuration()
	}
	k, secret, err := s.keys.RotateKey(ctx, p, p.OrganizationID, req.GetId(), grace)
	if errors.Is(err, auth.ErrNoSuchKey) {
		return nil, apierror.NotFound("api key", req.GetId())
	}
	if err != nil {
		return nil, err
	}
	out := wire.Key(k)
	out.Secret = &secret
	return out, nil
}

func (s *keysService) RevokeKey(ctx context.Context, req *creativeopsv1.RevokeKeyRequest) (*emptypb.Empty, error) {
	p := principal(ctx)
	err := s.keys.RevokeKey(ctx, p, p.OrganizationID, req.GetId())
	if errors.Is(err, auth.ErrNoSuchKey) {
		return nil, apierror.NotFound("api key", req.GetId())
	}
	if err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}
