package ipreg

import (
	"context"
	"strings"
	"time"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/iprecord"
)

// Work is a registered work as the catalog shows it.
type Work struct {
	ID             string
	OrganizationID string
	CreatorID      string
	Title          string
	Type           string
	ContentHash    string
	Description    string
	Timestamp      time.Time
	CertificateID  string
	Status         string
	LogIndex       int64
	// Token is the RFC 3161 timestamp response (DER).
	Token []byte

	logOrigin   string
	recordBytes []byte
}

func toWork(r *ent.IPRecord) *Work {
	return &Work{
		ID: r.ID, OrganizationID: r.OrganizationID, CreatorID: r.CreatorID, Title: r.Title,
		Type: r.Type, ContentHash: r.ContentHash, Description: r.Description, Timestamp: r.Timestamp,
		CertificateID: r.CertificateID, Status: r.Status, LogIndex: r.LogIndex, Token: r.Token,
		logOrigin: r.LogOrigin, recordBytes: r.RecordBytes,
	}
}

// CatalogQuery selects a page of an organization's registered works,
// newest first. Empty fields do not filter.
type CatalogQuery struct {
	CreatorID        string
	Type             string
	TitleContains    string
	ContentHash      string // normalised (NormalizeContentHash)
	RegisteredAfter  *time.Time
	RegisteredBefore *time.Time
	After            string // the last id of the previous page
	Limit            int
}

// Catalog returns up to q.Limit works matching q, and how many match in
// all (across pages).
func (r *Registry) Catalog(ctx context.Context, orgID string, q CatalogQuery) ([]*Work, int, error) {
	query := r.store.Read.IPRecord.Query().Where(iprecord.OrganizationID(orgID))
	if q.CreatorID != "" {
		query = query.Where(iprecord.CreatorID(q.CreatorID))
	}
	if q.Type != "" {
		query = query.Where(iprecord.Type(q.Type))
	}
	if v := strings.TrimSpace(q.TitleContains); v != "" {
		query = query.Where(iprecord.TitleContainsFold(v))
	}
	if q.RegisteredAfter != nil {
		query = query.Where(iprecord.TimestampGT(*q.RegisteredAfter))
	}
	if q.RegisteredBefore != nil {
		query = query.Where(iprecord.TimestampLT(*q.RegisteredBefore))
	}
	if q.ContentHash != "" {
		query = query.Where(iprecord.ContentHash(q.ContentHash))
	}
	total, err := query.Clone().Count(ctx)
	if err != nil {
		return nil, 0, err
	}
	if q.After != "" {
		query = query.Where(iprecord.IDLT(q.After))
	}
	rows, err := query.Order(ent.Desc(iprecord.FieldID)).Limit(q.Limit).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]*Work, len(rows))
	for i, w := range rows {
		out[i] = toWork(w)
	}
	return out, total, nil
}

// Work returns a registered work of the organization by its id.
func (r *Registry) Work(ctx context.Context, orgID, id string) (*Work, error) {
	w, err := r.store.Read.IPRecord.Query().Where(iprecord.ID(id), iprecord.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("ip record", id)
	}
	if err != nil {
		return nil, err
	}
	return toWork(w), nil
}

// WorkByCertificate returns a registered work of the organization by its
// certificate id.
func (r *Registry) WorkByCertificate(ctx context.Context, orgID, certificateID string) (*Work, error) {
	w, err := r.store.Read.IPRecord.Query().Where(iprecord.CertificateID(certificateID), iprecord.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("certificate", certificateID)
	}
	if err != nil {
		return nil, err
	}
	return toWork(w), nil
}
