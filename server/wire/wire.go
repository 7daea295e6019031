// Package wire translates between the domain packages and the protobuf
// messages of the API (gen/creativeops/v1). It is the one place that knows
// both, so the domain never imports gen/ and a proto change stops here.
package wire

import (
	"fmt"
	"math"
	"time"

	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/creators"
	"github.com/creativeops/creativeops/events"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/webhooks"
)

// JSON renders messages exactly as the REST API does: proto field names,
// every field present.
var JSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// EventData renders a domain resource as the data of its event, exactly as
// the API returns the resource. It is the events.Encoder of the service.
func EventData(resource any) ([]byte, error) {
	switch r := resource.(type) {
	case *creators.Creator:
		return JSON.Marshal(Creator(r))
	case *creators.Deleted:
		return JSON.Marshal(&creativeopsv1.CreatorDeleted{Id: r.ID, DeletedAt: timestamppb.New(r.DeletedAt)})
	case *jobs.Job:
		if b, ok := jobEventData(r); ok {
			return b, nil
		}
		return JSON.Marshal(Job(r))
	case *ipreg.Work:
		return JSON.Marshal(Record(r))
	case *ipreg.CertificateUpdate:
		return JSON.Marshal(&creativeopsv1.CertificateUpdated{Id: r.ID, CertificateId: r.CertificateID, ExternalTimestamps: ExternalTimestamps(r.ExternalTimestamps)})
	case *webhooks.Webhook:
		return JSON.Marshal(Webhook(r))
	}
	if b, ok, err := planEventData(resource); ok {
		return b, err
	}
	return nil, fmt.Errorf("wire: no event encoding for %T", resource)
}

// Time converts an optional time.
func Time(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}

// Struct converts a JSON object; nil stays nil.
func Struct(m map[string]any) *structpb.Struct {
	if m == nil {
		return nil
	}
	s, err := structpb.NewStruct(m)
	if err != nil {
		return nil
	}
	return s
}

// Creator renders a creator.
func Creator(c *creators.Creator) *creativeopsv1.Creator {
	return &creativeopsv1.Creator{
		Id:        c.ID,
		Name:      c.Name,
		Email:     c.Email,
		Vertical:  c.Vertical,
		Status:    c.Status,
		Metadata:  Struct(c.Metadata),
		CreatedAt: timestamppb.New(c.CreatedAt),
		UpdatedAt: timestamppb.New(c.UpdatedAt),
		Revision:  int32(c.Revision),
	}
}

// Key renders an API key, without its secret.
func Key(k *auth.Key) *creativeopsv1.APIKey {
	out := &creativeopsv1.APIKey{
		Id:                      k.ID,
		OrganizationId:          k.OrganizationID,
		Name:                    k.Name,
		Scopes:                  k.Scopes,
		Prefix:                  k.Prefix,
		CreatedAt:               timestamppb.New(k.CreatedAt),
		ExpiresAt:               Time(k.ExpiresAt),
		RevokedAt:               Time(k.RevokedAt),
		PreviousSecretExpiresAt: Time(k.PreviousSecretExpiresAt),
	}
	if k.RateLimit != nil {
		out.RateLimit = &creativeopsv1.RateLimit{RequestsPerSecond: k.RateLimit.RequestsPerSecond, Burst: int32(k.RateLimit.Burst)}
	}
	return out
}

// AuditEvent renders an audit log entry.
func AuditEvent(e *audit.Event) *creativeopsv1.AuditEvent {
	details := e.Details
	if details == nil {
		details = map[string]string{}
	}
	return &creativeopsv1.AuditEvent{
		Id:             e.ID,
		OrganizationId: e.OrganizationID,
		Actor:          e.Actor,
		Action:         string(e.Action),
		TargetType:     e.TargetType,
		TargetId:       e.TargetID,
		Origin: &creativeopsv1.AuditOrigin{
			ClientIp: e.Origin.ClientIP, UserAgent: e.Origin.UserAgent,
			RequestId: e.Origin.RequestID, Transport: e.Origin.Transport,
		},
		Details:   details,
		CreatedAt: timestamppb.New(e.CreatedAt),
	}
}

// Job renders a job.
func Job(j *jobs.Job) *creativeopsv1.Job {
	out := &creativeopsv1.Job{
		Id:          j.ID,
		Status:      j.Status,
		Vertical:    j.Vertical,
		Workflow:    j.Workflow,
		Progress:    int32(j.Progress),
		CreatedAt:   timestamppb.New(j.CreatedAt),
		StartedAt:   Time(j.StartedAt),
		CompletedAt: Time(j.CompletedAt),
		Attempts:    int32(j.Attempts),
		Async:       j.Async,
		PlanId:      j.PlanID,
		CreatorId:   j.CreatorID,
		Context:     Struct(j.Context),
		Result:      Struct(j.Result),
	}
	if out.Context == nil {
		out.Context = &structpb.Struct{}
	}
	if j.Status == jobs.Failed {
		out.Error = &creativeopsv1.JobError{Code: j.ErrorCode, Message: j.ErrorMessage, Step: j.ErrorStep}
	}
	return out
}

// Record renders a registered work.
func Record(r *ipreg.Work) *creativeopsv1.IPRecord {
	return &creativeopsv1.IPRecord{
		Id:            r.ID,
		CreatorId:     r.CreatorID,
		Title:         r.Title,
		Type:          r.Type,
		ContentHash:   r.ContentHash,
		Description:   r.Description,
		Timestamp:     timestamppb.New(r.Timestamp),
		CertificateId: r.CertificateID,
		Status:        r.Status,
		LogIndex:      r.LogIndex,
	}
}

// Certificate renders a certificate bundle.
func Certificate(b ipreg.Bundle) *creativeopsv1.Certificate {
	proof := make([][]byte, len(b.InclusionProof))
	for i, h := range b.InclusionProof {
		proof[i] = append([]byte(nil), h[:]...)
	}
	return &creativeopsv1.Certificate{
		Format: b.Format, Record: b.Record, Id: b.ID, OrganizationId: b.OrganizationID, CreatorId: b.CreatorID,
		Title: b.Title, Type: b.Type, Description: b.Description, Timestamp: timestamppb.New(b.Timestamp),
		CertificateId: b.CertificateID, ContentHash: b.ContentHash, Token: b.Token, LogIndex: b.LogIndex,
		TreeSize: b.TreeSize, InclusionProof: proof, Checkpoint: b.Checkpoint, LogVerifierKey: b.LogVerifierKey,
		TsaRootPem: b.TSARootPEM, TsaPolicyOid: b.TSAPolicyOID, ExternalTimestamps: ExternalTimestamps(b.ExternalTimestamps),
	}
}

// ExternalTimestamps renders a certificate's timestamps from independent
// authorities.
func ExternalTimestamps(ets []ipreg.ExternalTimestamp) []*creativeopsv1.ExternalTimestamp {
	out := make([]*creativeopsv1.ExternalTimestamp, len(ets))
	for i, et := range ets {
		out[i] = &creativeopsv1.ExternalTimestamp{
			AuthorityUrl: et.AuthorityURL, Status: et.Status, Token: et.Token, GenTime: Time(et.GenTime),
			Error: et.Error, Attempts: int32(min(et.Attempts, math.MaxInt32)),
		}
	}
	return out
}

// Bundle is the inverse of Certificate, for the offline verifier.
func Bundle(c *creativeopsv1.Certificate) ipreg.Bundle {
	proof := make([]tlog.Hash, len(c.GetInclusionProof()))
	for i, h := range c.GetInclusionProof() {
		copy(proof[i][:], h)
	}
	return ipreg.Bundle{
		Format: c.GetFormat(), Record: c.GetRecord(), ID: c.GetId(), OrganizationID: c.GetOrganizationId(),
		CreatorID: c.GetCreatorId(), Title: c.GetTitle(), Type: c.GetType(), Description: c.GetDescription(),
		Timestamp: c.GetTimestamp().AsTime(), CertificateID: c.GetCertificateId(), ContentHash: c.GetContentHash(),
		Token: c.GetToken(), LogIndex: c.GetLogIndex(), TreeSize: c.GetTreeSize(), InclusionProof: proof,
		Checkpoint: c.GetCheckpoint(), LogVerifierKey: c.GetLogVerifierKey(), TSARootPEM: c.GetTsaRootPem(),
		TSAPolicyOID: c.GetTsaPolicyOid(), ExternalTimestamps: externalTimestamps(c.GetExternalTimestamps()),
	}
}

func externalTimestamps(ets []*creativeopsv1.ExternalTimestamp) []ipreg.ExternalTimestamp {
	var out []ipreg.ExternalTimestamp
	for _, et := range ets {
		e := ipreg.ExternalTimestamp{AuthorityURL: et.GetAuthorityUrl(), Status: et.GetStatus(), Token: et.GetToken(), Error: et.GetError(), Attempts: int(et.GetAttempts())}
		if et.GetGenTime() != nil {
			t := et.GetGenTime().AsTime()
			e.GenTime = &t
		}
		out = append(out, e)
	}
	return out
}

// Webhook renders a webhook, without its secret.
func Webhook(w *webhooks.Webhook) *creativeopsv1.Webhook {
	return &creativeopsv1.Webhook{
		Id:                      w.ID,
		Url:                     w.URL,
		Events:                  w.Events,
		Description:             w.Description,
		Status:                  w.Status,
		CreatedAt:               timestamppb.New(w.CreatedAt),
		UpdatedAt:               timestamppb.New(w.UpdatedAt),
		DisabledReason:          w.DisabledReason,
		DisabledAt:              Time(w.DisabledAt),
		PreviousSecretExpiresAt: Time(w.PreviousSecretExpiresAt),
		ConsecutiveFailures:     int32(min(w.ConsecutiveFailures, math.MaxInt32)),
	}
}

// Event renders a recorded event: its data as the delivery body carries
// it.
func Event(e *events.Record) (*creativeopsv1.Event, error) {
	data := &structpb.Struct{}
	if len(e.Data) > 0 {
		if err := data.UnmarshalJSON(e.Data); err != nil {
			return nil, fmt.Errorf("wire: data of event %s: %w", e.ID, err)
		}
	}
	return &creativeopsv1.Event{
		Id: e.ID, Type: e.Type, Timestamp: timestamppb.New(e.CreatedAt), Data: data,
		ObjectId: e.ObjectID, Sequence: e.Sequence,
	}, nil
}

// Delivery renders a delivery with its attempts.
func Delivery(d *webhooks.Delivery) *creativeopsv1.Delivery {
	out := &creativeopsv1.Delivery{
		Id:             d.ID,
		WebhookId:      d.WebhookID,
		EventId:        d.EventID,
		EventType:      d.EventType,
		Status:         d.Status,
		Attempts:       int32(d.Attempts),
		ResponseStatus: int32(d.ResponseStatus),
		LatencyMs:      int32(min(d.LatencyMs, math.MaxInt32)),
		LastError:      d.LastError,
		NextRetryAt:    Time(d.NextRetryAt),
		CreatedAt:      timestamppb.New(d.CreatedAt),
		CompletedAt:    Time(d.CompletedAt),
		AttemptLog:     make([]*creativeopsv1.DeliveryAttempt, len(d.AttemptLog)),
	}
	for i, a := range d.AttemptLog {
		out.AttemptLog[i] = &creativeopsv1.DeliveryAttempt{
			Number:         int32(a.Number),
			At:             timestamppb.New(a.At),
			ResponseStatus: int32(a.ResponseStatus),
			LatencyMs:      int32(min(a.LatencyMs, math.MaxInt32)),
			Error:          a.Error,
			NextRetryAt:    Time(a.NextRetryAt),
			ResponseBody:   a.ResponseBody,
		}
	}
	return out
}

// OAuthClient renders an OAuth client (never its secret).
func OAuthClient(c *oauth.Client) *creativeopsv1.OAuthClient {
	out := &creativeopsv1.OAuthClient{
		Id:                      c.ID,
		OrganizationId:          c.OrganizationID,
		Name:                    c.Name,
		Scopes:                  c.Scopes,
		Prefix:                  c.Prefix,
		TokenLifetime:           durationpb.New(c.TokenLifetime),
		JwksUri:                 c.JWKSURI,
		CreatedAt:               timestamppb.New(c.CreatedAt),
		RevokedAt:               Time(c.RevokedAt),
		PreviousSecretExpiresAt: Time(c.PreviousSecretExpiresAt),
	}
	if c.JWKS != "" {
		// Stored only after it parsed as a JWK set.
		var set structpb.Struct
		if err := protojson.Unmarshal([]byte(c.JWKS), &set); err == nil {
			out.Jwks = &set
		}
	}
	return out
}
