package server

import (
	"context"
	"encoding/base64"
	"fmt"

	"google.golang.org/genproto/googleapis/api/httpbody"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/creators"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/server/wire"
)

type ipService struct {
	creativeopsv1.UnimplementedIPServiceServer
	creators *creators.Service
	registry *ipreg.Registry
}

func (s *ipService) RegisterWork(ctx context.Context, req *creativeopsv1.RegisterWorkRequest) (*creativeopsv1.IPRecord, error) {
	p := principal(ctx)
	hash, err := ipreg.NormalizeContentHash(req.GetContentHash())
	if err != nil {
		return nil, apierror.InvalidField("content_hash", err.Error())
	}
	exists, err := s.creators.Exists(ctx, p.OrganizationID, req.GetCreatorId())
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierror.NotFound("creator", req.GetCreatorId())
	}
	rec, err := s.registry.Register(ctx, ipreg.Registration{
		OrganizationID: p.OrganizationID,
		CreatorID:      req.GetCreatorId(),
		Title:          req.GetTitle(),
		Type:           req.GetType(),
		ContentHash:    hash,
		Description:    req.GetDescription(),
	})
	if err != nil {
		return nil, err
	}
	return wire.Record(rec), nil
}

func (s *ipService) ListCatalog(ctx context.Context, req *creativeopsv1.ListCatalogRequest) (*creativeopsv1.ListCatalogResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	q := ipreg.CatalogQuery{
		CreatorID: req.GetCreatorId(), Type: req.GetType(), TitleContains: req.GetQ(),
		After: page.after, Limit: page.fetch(),
	}
	if v := req.GetRegisteredAfter(); v != nil {
		t := v.AsTime()
		q.RegisteredAfter = &t
	}
	if v := req.GetRegisteredBefore(); v != nil {
		t := v.AsTime()
		q.RegisteredBefore = &t
	}
	if v := req.GetContentHash(); v != "" {
		if q.ContentHash, err = ipreg.NormalizeContentHash(v); err != nil {
			return nil, apierror.InvalidField("content_hash", err.Error())
		}
	}
	rows, total, more, err := s.registry.Catalog(ctx, principal(ctx).OrganizationID, q)
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, page.size, func(w *ipreg.Work) string { return w.ID })
	out := &creativeopsv1.ListCatalogResponse{Records: make([]*creativeopsv1.IPRecord, len(rows)), Total: int32(total), NextPageToken: next, TotalIsLowerBound: more}
	for i, r := range rows {
		out.Records[i] = wire.Record(r)
	}
	return out, nil
}

func (s *ipService) GetRecord(ctx context.Context, req *creativeopsv1.GetRecordRequest) (*creativeopsv1.IPRecord, error) {
	r, err := s.registry.Work(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return wire.Record(r), nil
}

func (s *ipService) GetCertificate(ctx context.Context, req *creativeopsv1.GetCertificateRequest) (*creativeopsv1.Certificate, error) {
	r, err := s.registry.WorkByCertificate(ctx, principal(ctx).OrganizationID, req.GetCertificateId())
	if err != nil {
		return nil, err
	}
	b, err := s.registry.Certificate(ctx, r)
	if err != nil {
		return nil, err
	}
	return wire.Certificate(b), nil
}

func (s *ipService) GetCertificateToken(ctx context.Context, req *creativeopsv1.GetCertificateTokenRequest) (*httpbody.HttpBody, error) {
	r, err := s.registry.WorkByCertificate(ctx, principal(ctx).OrganizationID, req.GetCertificateId())
	if err != nil {
		return nil, err
	}
	return &httpbody.HttpBody{ContentType: "application/timestamp-reply", Data: r.Token}, nil
}

func (s *ipService) GetCheckpoint(ctx context.Context, _ *creativeopsv1.GetCheckpointRequest) (*creativeopsv1.Checkpoint, error) {
	h, err := s.registry.Head(ctx)
	if err != nil {
		return nil, err
	}
	return &creativeopsv1.Checkpoint{Origin: h.Origin, TreeSize: h.Size, RootHash: base64.StdEncoding.EncodeToString(h.Root), Checkpoint: h.Checkpoint}, nil
}

func (s *ipService) GetConsistencyProof(ctx context.Context, req *creativeopsv1.GetConsistencyProofRequest) (*creativeopsv1.ConsistencyProof, error) {
	h, err := s.registry.Head(ctx)
	if err != nil {
		return nil, err
	}
	from, to := req.GetFrom(), req.GetTo()
	if from > to {
		return nil, apierror.InvalidField("from", "must not exceed to")
	}
	if to > h.Size {
		return nil, apierror.InvalidField("to", fmt.Sprintf("the log has %d entries", h.Size))
	}
	proof, err := s.registry.Consistency(ctx, from, to)
	if err != nil {
		return nil, err
	}
	out := &creativeopsv1.ConsistencyProof{From: from, To: to, Proof: make([][]byte, len(proof))}
	for i, p := range proof {
		out.Proof[i] = append([]byte(nil), p[:]...)
	}
	return out, nil
}

func (s *ipService) GetKeys(ctx context.Context, _ *creativeopsv1.GetKeysRequest) (*creativeopsv1.IPKeys, error) {
	keys, err := s.registry.PublishedKeys(ctx)
	if err != nil {
		return nil, err
	}
	out := &creativeopsv1.IPKeys{TsaPolicyOid: ipreg.PolicyOID}
	for i, k := range keys {
		if i == 0 {
			out.TsaRootPem, out.TsaCertificatePem = k.TSARootPEM, k.TSACertPEM
		}
		out.LogKeys = append(out.LogKeys, &creativeopsv1.LogKey{Origin: k.Origin, VerifierKey: k.VerifierKey, Current: k.Current})
	}
	for _, w := range s.registry.WitnessStatuses() {
		lw := &creativeopsv1.LogWitness{Name: w.Name, VerifierKey: w.VerifierKey, Url: w.URL, Status: w.Status, Detail: w.Detail, CosignedSize: w.CosignedSize}
		if !w.CosignedAt.IsZero() {
			lw.CosignedAt = timestamppb.New(w.CosignedAt)
		}
		out.Witnesses = append(out.Witnesses, lw)
	}
	return out, nil
}
