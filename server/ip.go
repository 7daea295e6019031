package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/api/httpbody"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/creator"
	"github.com/creativeops/creativeops/ent/iprecord"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/storage"
)

type ipService struct {
	creativeopsv1.UnimplementedIPServiceServer
	store    *storage.Store
	registry *ipreg.Registry
}

func (s *ipService) RegisterWork(ctx context.Context, req *creativeopsv1.RegisterWorkRequest) (*creativeopsv1.IPRecord, error) {
	p := principal(ctx)
	hash, err := ipreg.NormalizeContentHash(req.GetContentHash())
	if err != nil {
		return nil, apierror.InvalidField("content_hash", err.Error())
	}
	exists, err := s.store.Read.Creator.Query().Where(creator.ID(req.GetCreatorId()), creator.OrganizationID(p.OrganizationID)).Exist(ctx)
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
	setHTTPStatus(ctx, 201)
	return ipreg.RecordToProto(rec), nil
}

func (s *ipService) ListCatalog(ctx context.Context, req *creativeopsv1.ListCatalogRequest) (*creativeopsv1.ListCatalogResponse, error) {
	p := principal(ctx)
	after, err := decodePageToken(req)
	if err != nil {
		return nil, err
	}
	size := pageSize(req.GetPageSize())
	q := s.store.Read.IPRecord.Query().Where(iprecord.OrganizationID(p.OrganizationID))
	if v := req.GetCreatorId(); v != "" {
		q = q.Where(iprecord.CreatorID(v))
	}
	if v := req.GetType(); v != "" {
		q = q.Where(iprecord.Type(v))
	}
	if v := strings.TrimSpace(req.GetQ()); v != "" {
		q = q.Where(iprecord.TitleContainsFold(v))
	}
	if v := req.GetRegisteredAfter(); v != nil {
		q = q.Where(iprecord.TimestampGT(v.AsTime()))
	}
	if v := req.GetRegisteredBefore(); v != nil {
		q = q.Where(iprecord.TimestampLT(v.AsTime()))
	}
	if v := req.GetContentHash(); v != "" {
		hash, err := ipreg.NormalizeContentHash(v)
		if err != nil {
			return nil, apierror.InvalidField("content_hash", err.Error())
		}
		q = q.Where(iprecord.ContentHash(hash))
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	if after != "" {
		q = q.Where(iprecord.IDLT(after))
	}
	rows, err := q.Order(ent.Desc(iprecord.FieldID)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, size, func(r *ent.IPRecord) string { return r.ID })
	out := &creativeopsv1.ListCatalogResponse{Records: make([]*creativeopsv1.IPRecord, len(rows)), Total: int32(total), NextPageToken: next}
	for i, r := range rows {
		out.Records[i] = ipreg.RecordToProto(r)
	}
	return out, nil
}

func (s *ipService) GetRecord(ctx context.Context, req *creativeopsv1.GetRecordRequest) (*creativeopsv1.IPRecord, error) {
	p := principal(ctx)
	r, err := s.store.Read.IPRecord.Query().Where(iprecord.ID(req.GetId()), iprecord.OrganizationID(p.OrganizationID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("ip record", req.GetId())
	}
	if err != nil {
		return nil, err
	}
	return ipreg.RecordToProto(r), nil
}

func (s *ipService) record(ctx context.Context, certificateID string) (*ent.IPRecord, error) {
	p := principal(ctx)
	r, err := s.store.Read.IPRecord.Query().Where(iprecord.CertificateID(certificateID), iprecord.OrganizationID(p.OrganizationID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("certificate", certificateID)
	}
	return r, err
}

func (s *ipService) GetCertificate(ctx context.Context, req *creativeopsv1.GetCertificateRequest) (*creativeopsv1.Certificate, error) {
	r, err := s.record(ctx, req.GetCertificateId())
	if err != nil {
		return nil, err
	}
	b, err := s.registry.Certificate(ctx, r)
	if err != nil {
		return nil, err
	}
	return ipreg.BundleToProto(b), nil
}

func (s *ipService) GetCertificateToken(ctx context.Context, req *creativeopsv1.GetCertificateTokenRequest) (*httpbody.HttpBody, error) {
	r, err := s.record(ctx, req.GetCertificateId())
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
			out.TsaRootPem, out.TsaCertificatePem = k.TsaRootPem, k.TsaCertPem
		}
		out.LogKeys = append(out.LogKeys, &creativeopsv1.LogKey{Origin: k.Origin, VerifierKey: k.VerifierKey, Current: k.Current})
	}
	return out, nil
}
