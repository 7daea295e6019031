package wire

import (
	"encoding/json"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
)

// CreatorJSON renders a creator message as JSON.Marshal does (the REST
// API's rendering), in the same way and for the same reason as JobJSON:
// protojson's reflection was the largest part of a creator's read after
// the database. It reports false when it cannot (text that is not UTF-8,
// a number JSON cannot write, a timestamp out of range, no timestamp),
// and the caller uses protojson.
func CreatorJSON(p *creativeopsv1.Creator) ([]byte, bool) {
	if p == nil || p.CreatedAt == nil || p.UpdatedAt == nil || p.CreatedAt.CheckValid() != nil || p.UpdatedAt.CheckValid() != nil ||
		!validUTF8(p.GetId(), p.GetName(), p.GetEmail(), p.GetVertical(), p.GetStatus()) {
		return nil, false
	}
	metadata, ok := structMap(p.Metadata)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(creatorJSON{
		ID: p.GetId(), Name: p.GetName(), Email: p.GetEmail(), Vertical: p.GetVertical(), Status: p.GetStatus(),
		Metadata: metadata, CreatedAt: protoTime(p.CreatedAt.AsTime()), UpdatedAt: protoTime(p.UpdatedAt.AsTime()),
	})
	return b, err == nil
}

// creatorJSON is creativeopsv1.Creator as protojson renders it with JSON's
// options: proto field names, every field present (an absent metadata as
// null).
type creatorJSON struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Email     string         `json:"email"`
	Vertical  string         `json:"vertical"`
	Status    string         `json:"status"`
	Metadata  map[string]any `json:"metadata"`
	CreatedAt string         `json:"created_at"`
	UpdatedAt string         `json:"updated_at"`
}
