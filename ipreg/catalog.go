package ipreg

import (
	"context"
	"fmt"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/iprecord"
	"github.com/creativeops/creativeops/ent/predicate"
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
// all (across pages). The count rides along with the page as a subquery,
// so a page costs one round trip to the database; only a page past the
// end, which has no row to carry it, counts on its own.
func (r *Registry) Catalog(ctx context.Context, orgID string, q CatalogQuery) ([]*Work, int, error) {
	match := []predicate.IPRecord{iprecord.OrganizationID(orgID)}
	if q.CreatorID != "" {
		match = append(match, iprecord.CreatorID(q.CreatorID))
	}
	if q.Type != "" {
		match = append(match, iprecord.Type(q.Type))
	}
	if v := strings.TrimSpace(q.TitleContains); v != "" {
		match = append(match, iprecord.TitleContainsFold(v))
	}
	if q.RegisteredAfter != nil {
		match = append(match, iprecord.TimestampGT(*q.RegisteredAfter))
	}
	if q.RegisteredBefore != nil {
		match = append(match, iprecord.TimestampLT(*q.RegisteredBefore))
	}
	if q.ContentHash != "" {
		match = append(match, iprecord.ContentHash(q.ContentHash))
	}
	page := r.store.Read.IPRecord.Query().Where(match...)
	if q.After != "" {
		page = page.Where(iprecord.IDLT(q.After))
	}
	page.Modify(func(s *sql.Selector) {
		count := sql.Dialect(s.Dialect()).Select(sql.Count("*")).From(sql.Table(iprecord.Table))
		for _, p := range match {
			p(count)
		}
		s.AppendSelectExprAs(count, catalogTotal)
	})
	rows, err := page.Order(ent.Desc(iprecord.FieldID)).Limit(q.Limit).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	if len(rows) == 0 {
		if q.After == "" {
			return nil, 0, nil
		}
		total, err := r.store.Read.IPRecord.Query().Where(match...).Count(ctx)
		return nil, total, err
	}
	total, err := rows[0].Value(catalogTotal)
	if err != nil {
		return nil, 0, err
	}
	n, ok := total.(int64)
	if !ok {
		return nil, 0, fmt.Errorf("catalog: count is a %T", total)
	}
	out := make([]*Work, len(rows))
	for i, w := range rows {
		out[i] = toWork(w)
	}
	return out, int(n), nil
}

// catalogTotal names the count selected beside a catalog page's columns.
const catalogTotal = "catalog_total"

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
