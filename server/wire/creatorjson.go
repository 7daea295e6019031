package wire

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

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
	created, updated := p.CreatedAt.AsTime(), p.UpdatedAt.AsTime()
	if b, ok := appendCreator(make([]byte, 0, 320), p, metadata, created, updated); ok {
		return b, true
	}
	b, err := json.Marshal(creatorJSON{
		ID: p.GetId(), Name: p.GetName(), Email: p.GetEmail(), Vertical: p.GetVertical(), Status: p.GetStatus(),
		Metadata: metadata, CreatedAt: protoTime(created), UpdatedAt: protoTime(updated), Revision: p.GetRevision(),
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
	Revision  int32          `json:"revision"`
}

// appendCreator writes the bytes json.Marshal writes of a creatorJSON
// when every text field is written as it is (verbatimJSON), and reports
// false otherwise. json.Marshal finds the struct's fields by reflection,
// and each timestamp was a string of its own: half the time of a
// creator's JSON, now spent on metadata alone.
func appendCreator(b []byte, p *creativeopsv1.Creator, metadata map[string]any, created, updated time.Time) ([]byte, bool) {
	for _, f := range [...]struct{ name, value string }{
		{`{"id":"`, p.GetId()}, {`","name":"`, p.GetName()}, {`","email":"`, p.GetEmail()},
		{`","vertical":"`, p.GetVertical()}, {`","status":"`, p.GetStatus()},
	} {
		if !verbatimJSON(f.value) {
			return nil, false
		}
		b = append(append(b, f.name...), f.value...)
	}
	b = append(b, `","metadata":`...)
	if metadata == nil {
		b = append(b, "null"...)
	} else {
		m, err := json.Marshal(metadata)
		if err != nil {
			return nil, false
		}
		b = append(b, m...)
	}
	b = appendProtoTime(append(b, `,"created_at":"`...), created)
	b = appendProtoTime(append(b, `","updated_at":"`...), updated)
	b = strconv.AppendInt(append(b, `","revision":`...), int64(p.GetRevision()), 10)
	return append(b, '}'), true
}

// verbatimJSON reports whether json.Marshal writes s as it is between its
// quotes: valid UTF-8 without the characters it escapes (control
// characters, the quote and backslash, HTML's <, > and &, and the line
// and paragraph separators JavaScript takes for line ends).
func verbatimJSON(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += n
	}
	return true
}
