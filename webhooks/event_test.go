package webhooks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/events"
)

func TestEventMarshalJSON(t *testing.T) {
	ts := time.Date(2026, 3, 4, 5, 6, 7, 891_234_567, time.FixedZone("CET", 3600))
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{
			name: "full",
			ev:   Event{ID: "evt_1", Type: events.JobCompleted, Timestamp: ts, Data: json.RawMessage(`{"job_id":"j1","ok":true}`)},
			want: `{"id":"evt_1","type":"engine.job.completed","timestamp":"2026-03-04T04:06:07.891Z","data":{"job_id":"j1","ok":true}}`,
		},
		{
			name: "whole second keeps three digits, nil data is {}",
			ev:   Event{ID: "evt_2", Type: events.WebhookTest, Timestamp: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
			want: `{"id":"evt_2","type":"webhook.test","timestamp":"2026-01-01T00:00:00.000Z","data":{}}`,
		},
		{
			name: "data is compacted",
			ev:   Event{ID: "evt_3", Type: events.IPRegistered, Timestamp: ts, Data: json.RawMessage("{ \"a\" : [1, 2] }")},
			want: `{"id":"evt_3","type":"ip.registered","timestamp":"2026-03-04T04:06:07.891Z","data":{"a":[1,2]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.ev)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			var back Event
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if back.ID != tt.ev.ID || back.Type != tt.ev.Type || !back.Timestamp.Equal(tt.ev.Timestamp.Truncate(time.Millisecond)) {
				t.Fatalf("round trip: got %+v", back)
			}
		})
	}
}

func TestEventMarshalJSONRejectsIncompleteEvents(t *testing.T) {
	ts := time.Now()
	for name, ev := range map[string]Event{
		"no id":        {Type: events.WebhookTest, Timestamp: ts},
		"no type":      {ID: "evt_1", Timestamp: ts},
		"no timestamp": {ID: "evt_1", Type: events.WebhookTest},
		"invalid data": {ID: "evt_1", Type: events.WebhookTest, Timestamp: ts, Data: json.RawMessage(`{"a":`)},
	} {
		if b, err := json.Marshal(ev); err == nil {
			t.Errorf("%s: marshalled to %s, want error", name, b)
		}
	}
}

func TestNewEventID(t *testing.T) {
	a, b := NewEventID(), NewEventID()
	if !strings.HasPrefix(a, "evt_") || len(a) != len("evt_")+26 {
		t.Fatalf("NewEventID = %q", a)
	}
	if a == b || b < a {
		t.Fatalf("ids not unique and increasing: %q, %q", a, b)
	}
}

func TestValidateEventTypes(t *testing.T) {
	tests := []struct {
		types   []string
		wantErr bool
	}{
		{[]string{"*"}, false},
		{[]string{"engine.job.completed", "engine.job.failed", "ip.registered", "creator.created", "webhook.test"}, false},
		{[]string{"ip.registered", "*"}, false},
		{nil, true},
		{[]string{}, true},
		{[]string{"engine.job.*"}, true},
		{[]string{"ip.registered", "ip.registered"}, true},
		{[]string{"*", "*"}, true},
		{[]string{"IP.REGISTERED"}, true},
		{[]string{""}, true},
	}
	for _, tt := range tests {
		err := ValidateEventTypes(tt.types)
		if tt.wantErr != (err != nil) {
			t.Errorf("ValidateEventTypes(%q) = %v, wantErr %v", tt.types, err, tt.wantErr)
		}
		if err != nil && !errors.Is(err, ErrInvalidEventTypes) {
			t.Errorf("ValidateEventTypes(%q) = %v, not ErrInvalidEventTypes", tt.types, err)
		}
	}
	for _, typ := range EventTypes() {
		if ValidateEventTypes([]string{typ}) != nil {
			t.Errorf("known type %q refused", typ)
		}
	}
	// The item at fault is named, so the API can point at events[i].
	for types, want := range map[[3]string]int{
		{"*", "creator.created", "nothing.happened"}: 2,
		{"ip.registered", "ip.registered", "*"}:      1,
	} {
		item, ok := errors.AsType[*EventTypeError](ValidateEventTypes(types[:]))
		if !ok || item.Index != want {
			t.Errorf("ValidateEventTypes(%q) names item %+v, want %d", types, item, want)
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		subscribed []string
		eventType  string
		want       bool
	}{
		{[]string{"*"}, events.CreatorCreated, true},
		{[]string{events.IPRegistered, events.CreatorCreated}, events.CreatorCreated, true},
		{[]string{events.IPRegistered}, events.CreatorCreated, false},
		{[]string{"engine.job"}, events.JobFailed, false},
		{nil, events.WebhookTest, false},
	}
	for _, tt := range tests {
		if got := Matches(tt.subscribed, tt.eventType); got != tt.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tt.subscribed, tt.eventType, got, tt.want)
		}
	}
}
