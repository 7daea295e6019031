package creators

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/creator"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
)

// Get reads with a statement of its own rather than ent's query: it must
// read what ent reads, field for field, and only the organization's own.
func TestGetReadsWhatEntReads(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := teststore.Open(t, b)
			for _, org := range []string{"org_a", "org_b"} {
				if err := st.Ent.Organization.Create().SetID(org).SetName(org).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			s := NewService(st, events.NewEmitter(func(v any) ([]byte, error) { return json.Marshal(v) },
				func(context.Context, *ent.Client, *sql.Tx, []*ent.Event) error { return nil }))
			with, err := s.Create(ctx, "org_a", New{Name: "Nova Reyes", Email: "nova@example.com", Vertical: "music",
				Metadata: map[string]any{"label": "Night Owl", "tags": []any{"lo-fi", "ünïcode"}, "plays": 12.5, "nested": map[string]any{"ok": true}}})
			if err != nil {
				t.Fatal(err)
			}
			without, err := s.Create(ctx, "org_a", New{Name: "Ada Quinn", Email: "ada@example.com", Vertical: "music"})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []*Creator{with, without} {
				got, err := s.Get(ctx, "org_a", c.ID)
				if err != nil {
					t.Fatal(err)
				}
				e, err := st.Read.Creator.Get(ctx, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				if want := fromEnt(e); !reflect.DeepEqual(got, want) {
					t.Errorf("Get(%s) = %+v\nent reads %+v", c.ID, got, want)
				}
				if !got.CreatedAt.Equal(c.CreatedAt) || got.Name != c.Name || got.Email != c.Email {
					t.Errorf("Get(%s) = %+v, created %+v", c.ID, got, c)
				}
			}
			for _, read := range []struct{ org, id string }{{"org_b", with.ID}, {"org_a", "cr_missing"}} {
				_, err := s.Get(ctx, read.org, read.id)
				var apiErr *apierror.Error
				if !errors.As(err, &apiErr) || apiErr.Code != codes.NotFound {
					t.Errorf("Get(%s, %s): %v, want not found", read.org, read.id, err)
				}
			}
			for _, read := range []struct {
				org, id string
				want    bool
			}{{"org_a", with.ID, true}, {"org_b", with.ID, false}, {"org_a", "cr_missing", false}} {
				if got, err := s.Exists(ctx, read.org, read.id); err != nil || got != read.want {
					t.Errorf("Exists(%s, %s) = %v, %v; want %v", read.org, read.id, got, err, read.want)
				}
			}
			// A request already given up reads nothing, though the read
			// itself is not cancelled once it runs (storage.KeyedRead).
			done, cancel := context.WithCancel(ctx)
			cancel()
			if _, err := s.Get(done, "org_a", with.ID); !errors.Is(err, context.Canceled) {
				t.Errorf("Get with a cancelled context: %v, want context.Canceled", err)
			}
		})
	}
}

// A column added to creators must be read by Get (or named here as one it
// does not need: the keys it selects by, which it is given, and the index
// column): its statement lists the columns itself.
func TestGetReadsEveryColumn(t *testing.T) {
	notRead := []string{creator.FieldID, creator.FieldOrganizationID, creator.FieldEmailKey}
	for _, c := range creator.Columns {
		if !slices.Contains(getColumns, c) && !slices.Contains(notRead, c) {
			t.Errorf("column %s of creators is not read by Get", c)
		}
	}
}
