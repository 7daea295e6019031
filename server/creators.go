package server

import (
	"context"
	"database/sql"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/creator"
	"github.com/creativeops/creativeops/events"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/storage"
)

const maxMetadataBytes = 16 << 10

type creatorsService struct {
	creativeopsv1.UnimplementedCreatorsServiceServer
	store  *storage.Store
	events *events.Emitter
}

func (s *creatorsService) CreateCreator(ctx context.Context, req *creativeopsv1.CreateCreatorRequest) (*creativeopsv1.Creator, error) {
	p := principal(ctx)
	// Report every business-rule problem at once, like schema violations.
	vErr, eErr := checkVertical("vertical", req.GetVertical()), checkEmail(req.GetEmail())
	switch {
	case vErr != nil && eErr != nil:
		return nil, apierror.InvalidFields("invalid request: vertical and email", append(vErr.Violations, eErr.Violations...))
	case vErr != nil:
		return nil, vErr
	case eErr != nil:
		return nil, eErr
	}
	email := req.GetEmail()
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
	// The creator.created event (and its webhook deliveries) commits with
	// the creator, so neither exists without the other. Both are built
	// before the transaction, which then only writes.
	t := time.Now().UTC().Truncate(time.Microsecond)
	c := &ent.Creator{
		ID: ids.New(ids.Creator), OrganizationID: p.OrganizationID,
		Name: req.GetName(), Email: email, EmailKey: strings.ToLower(email),
		Vertical: req.GetVertical(), Status: "active", Metadata: metadata,
		CreatedAt: t, UpdatedAt: t,
	}
	out := creatorToProto(c)
	data, err := events.Encode(out)
	if err != nil {
		return nil, err
	}
	err = s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		err := tx.Creator.Create().
			SetID(c.ID).
			SetOrganizationID(c.OrganizationID).
			SetName(c.Name).
			SetEmail(c.Email).
			SetEmailKey(c.EmailKey).
			SetVertical(c.Vertical).
			SetStatus(c.Status).
			SetMetadata(c.Metadata).
			SetCreatedAt(t).
			SetUpdatedAt(t).
			Exec(ctx)
		if err != nil {
			return err
		}
		_, err = s.events.EmitEncoded(ctx, tx, sqlTx, p.OrganizationID, events.CreatorCreated, data)
		return err
	})
	if ent.IsConstraintError(err) {
		return nil, apierror.Conflict("DUPLICATE_EMAIL", fmt.Sprintf("a creator with email %s already exists in this organization", email),
			map[string]string{"field": "email"})
	}
	if err != nil {
		return nil, err
	}
	setHTTPStatus(ctx, 201)
	return out, nil
}

func (s *creatorsService) GetCreator(ctx context.Context, req *creativeopsv1.GetCreatorRequest) (*creativeopsv1.Creator, error) {
	p := principal(ctx)
	c, err := s.store.Read.Creator.Query().Where(creator.ID(req.GetId()), creator.OrganizationID(p.OrganizationID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("creator", req.GetId())
	}
	if err != nil {
		return nil, err
	}
	return creatorToProto(c), nil
}

func (s *creatorsService) ListCreators(ctx context.Context, req *creativeopsv1.ListCreatorsRequest) (*creativeopsv1.ListCreatorsResponse, error) {
	p := principal(ctx)
	after, err := decodePageToken(req)
	if err != nil {
		return nil, err
	}
	size := pageSize(req.GetPageSize())
	q := s.store.Read.Creator.Query().Where(creator.OrganizationID(p.OrganizationID))
	if v := req.GetVertical(); v != "" {
		if err := checkVertical("vertical", v); err != nil {
			return nil, err
		}
		q = q.Where(creator.Vertical(v))
	}
	if after != "" {
		q = q.Where(creator.IDLT(after))
	}
	rows, err := q.Order(ent.Desc(creator.FieldID)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, size, func(c *ent.Creator) string { return c.ID })
	out := &creativeopsv1.ListCreatorsResponse{Creators: make([]*creativeopsv1.Creator, len(rows)), NextPageToken: next}
	for i, c := range rows {
		out.Creators[i] = creatorToProto(c)
	}
	return out, nil
}

// checkVertical enforces that a vertical key is one the engine knows.
func checkVertical(field, key string) *apierror.Error {
	if _, ok := engine.LookupVertical(key); !ok {
		return apierror.Invalid("UNKNOWN_VERTICAL", field,
			fmt.Sprintf("unknown vertical %q; GET /v1/engine/verticals lists the keys", key))
	}
	return nil
}

// checkEmail accepts a bare RFC 5322 address (no display name) whose
// domain has a dot.
func checkEmail(s string) *apierror.Error {
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Name != "" || addr.Address != s || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return apierror.InvalidField("email", "must be an email address such as name@example.com")
	}
	return nil
}

func creatorToProto(c *ent.Creator) *creativeopsv1.Creator {
	out := &creativeopsv1.Creator{
		Id:        c.ID,
		Name:      c.Name,
		Email:     c.Email,
		Vertical:  c.Vertical,
		Status:    c.Status,
		CreatedAt: timestamppb.New(c.CreatedAt),
		UpdatedAt: timestamppb.New(c.UpdatedAt),
	}
	if c.Metadata != nil {
		if m, err := structpb.NewStruct(c.Metadata); err == nil {
			out.Metadata = m
		}
	}
	return out
}
