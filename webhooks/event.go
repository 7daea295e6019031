package webhooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/creativeops/creativeops/events"
)

// EventWildcard subscribes to every event type, including ones added
// later, which is what customers who say "send me everything" expect.
const EventWildcard = "*"

// EventTypes lists the known event types (without the wildcard) in a stable
// order, for validation and for showing customers what they can pick: the
// types the protos declare (events.Types).
func EventTypes() []string { return events.Types() }

// IsKnownEventType reports whether t is one of EventTypes.
func IsKnownEventType(t string) bool {
	return slices.Contains(EventTypes(), t)
}

// ErrInvalidEventTypes is wrapped by ValidateEventTypes errors so that the
// API can answer 400 without matching on text.
var ErrInvalidEventTypes = errors.New("invalid event types")

// EventTypeError is a ValidateEventTypes error about one item of the list,
// so that the API can name it (events[2]) as it names any other field.
type EventTypeError struct {
	Index int
	err   error
}

func (e *EventTypeError) Error() string { return e.err.Error() }
func (e *EventTypeError) Unwrap() error { return e.err }

// ValidateEventTypes checks a subscription list. Unknown types are refused
// rather than ignored because a typo would otherwise be a subscription
// that silently never fires. An error about one item is an
// *EventTypeError.
func ValidateEventTypes(types []string) error {
	if len(types) == 0 {
		return fmt.Errorf("%w: at least one event type (or %q) is required", ErrInvalidEventTypes, EventWildcard)
	}
	seen := make(map[string]bool, len(types))
	for i, t := range types {
		if t != EventWildcard && !IsKnownEventType(t) {
			return &EventTypeError{Index: i, err: fmt.Errorf("%w: unknown event type %q", ErrInvalidEventTypes, t)}
		}
		if seen[t] {
			return &EventTypeError{Index: i, err: fmt.Errorf("%w: duplicate event type %q", ErrInvalidEventTypes, t)}
		}
		seen[t] = true
	}
	return nil
}

// Matches reports whether a webhook subscribed to subscribed should receive
// an event of eventType. Matching is exact (no prefix patterns) apart from
// the wildcard, so that adding an event type never silently widens an
// existing subscription other than "*".
func Matches(subscribed []string, eventType string) bool {
	for _, s := range subscribed {
		if s == EventWildcard || s == eventType {
			return true
		}
	}
	return false
}

// EventIDPrefix starts every event id, so ids are recognisable in logs and
// support requests.
const EventIDPrefix = "evt_"

// NewEventID returns a new event id. It is a ULID so that ids sort by
// creation time, which keeps database indexes and customer logs in order.
func NewEventID() string {
	return EventIDPrefix + ulid.Make().String()
}

// Event is the JSON body of a delivery. ID doubles as the webhook-id header,
// so it must stay the same for every attempt of one event.
type Event struct {
	ID        string
	Type      string
	Timestamp time.Time
	Data      json.RawMessage
}

// timestampLayout has a fixed three fractional digits: millisecond precision
// keeps events from the same second ordered, and a fixed width keeps the
// strings sortable as text, which RFC3339Nano (it trims trailing zeros)
// would not.
const timestampLayout = "2006-01-02T15:04:05.000Z07:00"

type eventJSON struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// MarshalJSON refuses an event without id, type or timestamp: a customer
// cannot deduplicate or route such an event, so it is a bug to send it.
// Missing data is sent as {} so receivers can always index into it.
func (e Event) MarshalJSON() ([]byte, error) {
	switch {
	case e.ID == "":
		return nil, errors.New("webhooks: event has no id")
	case e.Type == "":
		return nil, errors.New("webhooks: event has no type")
	case e.Timestamp.IsZero():
		return nil, errors.New("webhooks: event has no timestamp")
	}
	data := e.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	return json.Marshal(eventJSON{
		ID:        e.ID,
		Type:      e.Type,
		Timestamp: e.Timestamp.UTC().Format(timestampLayout),
		Data:      data,
	})
}

// UnmarshalJSON accepts any RFC 3339 timestamp so that stored payloads
// survive a future change of precision.
func (e *Event) UnmarshalJSON(b []byte) error {
	var v eventJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	ts, err := time.Parse(time.RFC3339Nano, v.Timestamp)
	if err != nil {
		return fmt.Errorf("webhooks: event timestamp: %w", err)
	}
	*e = Event{ID: v.ID, Type: v.Type, Timestamp: ts.UTC(), Data: v.Data}
	return nil
}
