package server

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/apikey"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
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
	setHTTPStatus(ctx, 201)
	out := keyToProto(k)
	out.Secret = &secret
	return out, nil
}

func (s *keysService) ListKeys(ctx context.Context, req *creativeopsv1.ListKeysRequest) (*creativeopsv1.ListKeysResponse, error) {
	p := principal(ctx)
	after, err := decodePageToken(req)
	if err != nil {
		return nil, err
	}
	size := pageSize(req.GetPageSize())
	q := s.keys.Reader().APIKey.Query().Where(apikey.OrganizationID(p.OrganizationID))
	if after != "" {
		q = q.Where(apikey.IDLT(after))
	}
	rows, err := q.Order(ent.Desc(apikey.FieldID)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, size, func(k *ent.APIKey) string { return k.ID })
	out := &creativeopsv1.ListKeysResponse{Keys: make([]*creativeopsv1.APIKey, len(rows)), NextPageToken: next}
	for i, k := range rows {
		out.Keys[i] = keyToProto(k)
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
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("api key", req.GetId())
	}
	if err != nil {
		return nil, err
	}
	out := keyToProto(k)
	out.Secret = &secret
	return out, nil
}

func (s *keysService) RevokeKey(ctx context.Context, req *creativeopsv1.RevokeKeyRequest) (*emptypb.Empty, error) {
	p := principal(ctx)
	if err := s.keys.RevokeKey(ctx, p, p.OrganizationID, req.GetId()); ent.IsNotFound(err) {
		return nil, apierror.NotFound("api key", req.GetId())
	} else if err != nil {
		return nil, err
	}
	setHTTPStatus(ctx, 204)
	return &emptypb.Empty{}, nil
}

func keyToProto(k *ent.APIKey) *creativeopsv1.APIKey {
	out := &creativeopsv1.APIKey{
		Id:             k.ID,
		OrganizationId: k.OrganizationID,
		Name:           k.Name,
		Scopes:         k.Scopes,
		Prefix:         k.Prefix,
		CreatedAt:      timestamppb.New(k.CreatedAt),
		ExpiresAt:      optionalTime(k.ExpiresAt),
		RevokedAt:      optionalTime(k.RevokedAt),
	}
	if k.PreviousSecretHash != nil {
		out.PreviousSecretExpiresAt = optionalTime(k.PreviousSecretExpiresAt)
	}
	if k.RateLimitRps != nil && k.RateLimitBurst != nil {
		out.RateLimit = &creativeopsv1.RateLimit{RequestsPerSecond: *k.RateLimitRps, Burst: int32(*k.RateLimitBurst)}
	}
	return out
}

func optionalTime(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}
