package creators

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
	"github.com/creativeops/creativeops/storage"
)

func newTestService(t *testing.T, b testdb.Backend) (*Service, *storage.Store) {
	t.Helper()
	st := teststore.Open(t, b)
	for _, org := range []string{"org_a", "org_b"} {
		if err := st.Ent.Organization.Create().SetID(org).SetName(org).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return NewService(st, events.NewEmitter(func(v any) ([]byte, error) { return json.Marshal(v) },
		func(context.Context, *ent.Client, *sql.Tx, []*ent.Event) error { return nil })), st
}

func TestMergeMetadata(t *testing.T) {
	base := map[string]any{"label": "Night Owl", "tier": "gold"}
	for _, tc := range []struct {
		name  string
		patch map[string]any
		clear bool
		want  map[string]any
	}{
		{"adds and keeps", map[string]any{"city": "Lyon"}, false, map[string]any{"label": "Night Owl", "tier": "gold", "city": "Lyon"}},
		{"null removes", map[string]any{"tier": nil}, false, map[string]any{"label": "Night Owl"}},
		{"replaces a value", map[string]any{"tier": map[string]any{"level": 2.0}}, false, map[string]any{"label": "Night Owl", "tier": map[string]any{"level": 2.0}}},
		{"removing every key is none", map[string]any{"tier": nil, "label": nil}, false, nil},
		{"clear then set", map[string]any{"city": "Lyon"}, true, map[string]any{"city": "Lyon"}},
		{"clear alone", nil, true, nil},
	} {
		if got := mergeMetadata(base, tc.patch, tc.clear); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	if len(base) != 2 {
		t.Errorf("the base was changed: %v", base)
	}
}

// The created-time filters bound the id as well as created_at; a creator
// made at the bound's very millisecond is on the right side of it.
func TestListByCreatedTime(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := newTestService(t, b)
			var made []*Creator
			for _, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
				c, err := s.Create(ctx, "org_a", New{Name: "N", Email: email, Vertical: "music"})
				if err != nil {
					t.Fatal(err)
				}
				made = append(made, c)
				time.Sleep(3 * time.Millisecond)
			}
			ids := func(q ListQuery) []string {
				q.Limit = 10
				rows, err := s.List(ctx, "org_a", q)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, r := range rows {
					out = append(out, r.ID)
				}
				return out
			}
			at := made[1].CreatedAt
			if got := ids(ListQuery{CreatedAfter: &at}); !reflect.DeepEqual(got, []string{made[2].ID, made[1].ID}) {
				t.Errorf("created_after its own time: %v", got)
			}
			if got := ids(ListQuery{CreatedBefore: &at}); !reflect.DeepEqual(got, []string{made[0].ID}) {
				t.Errorf("created_before its own time: %v", got)
			}
			end := made[2].CreatedAt.Add(time.Microsecond)
			if got := ids(ListQuery{CreatedAfter: &at, CreatedBefore: &end, Email: "C@EXAMPLE.com"}); !reflect.DeepEqual(got, []string{made[2].ID}) {
				t.Errorf("range and email: %v", got)
			}
			if got := ids(ListQuery{Email: "a@example.com"}); !reflect.DeepEqual(got, []string{made[0].ID}) {
				t.Errorf("by email: %v", got)
			}
		})
	}
}

// Of concurrent updates made from one revision, exactly one applies; the
// others are told the revision changed.
func TestConcurrentUpdatesOfOneRevision(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := newTestService(t, b)
			c, err := s.Create(ctx, "org_a", New{Name: "N", Email: "n@example.com", Vertical: "music"})
			if err != nil {
				t.Fatal(err)
			}
			const n = 6
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					name, rev := "Name "+string(rune('A'+i)), 1
					_, errs[i] = s.Update(ctx, "org_a", c.ID, Patch{Name: &name, Revision: &rev})
				}()
			}
			wg.Wait()
			ok := 0
			for _, err := range errs {
				var e *apierror.Error
				switch {
				case err == nil:
					ok++
				case errors.As(err, &e) && e.Code == codes.Aborted && e.Reason == "REVISION_MISMATCH":
				default:
					t.Errorf("unexpected error: %v", err)
				}
			}
			if ok != 1 {
				t.Fatalf("%d of %d updates from revision 1 applied, want 1", ok, n)
			}
			got, err := s.Get(ctx, "org_a", c.ID)
			if err != nil || got.Revision != 2 {
				t.Fatalf("revision after the updates: %v %v", got, err)
			}
		})
	}
}

// An erased creator is not found, not listed, does not exist for IP
// registration, and cannot be updated or erased again; another
// organization cannot erase one.
func TestErasedCreatorIsGone(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			s, st := newTestService(t, b)
			c, err := s.Create(ctx, "org_a", New{Name: "Nova", Email: "nova@example.com", Vertical: "music", Metadata: map[string]any{"k": "v"}})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Erase(ctx, "org_b", c.ID); !isCode(err, codes.NotFound) {
				t.Fatalf("another organization erased it: %v", err)
			}
			if err := s.Erase(ctx, "org_a", c.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, "org_a", c.ID); !isCode(err, codes.NotFound) {
				t.Errorf("Get: %v", err)
			}
			if ok, err := s.Exists(ctx, "org_a", c.ID); ok || err != nil {
				t.Errorf("Exists: %v %v", ok, err)
			}
			if rows, err := s.List(ctx, "org_a", ListQuery{Limit: 10}); err != nil || len(rows) != 0 {
				t.Errorf("List: %v %v", rows, err)
			}
			name := "Back"
			if _, err := s.Update(ctx, "org_a", c.ID, Patch{Name: &name}); !isCode(err, codes.NotFound) {
				t.Errorf("Update: %v", err)
			}
			if err := s.Erase(ctx, "org_a", c.ID); !isCode(err, codes.NotFound) {
				t.Errorf("second Erase: %v", err)
			}
			row, err := st.Ent.Creator.Get(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if row.Name != "" || row.Email != "" || row.Metadata != nil || row.Status != Erased || row.EmailKey == "nova@example.com" {
				t.Errorf("the tombstone keeps personal data: %+v", row)
			}
			// The email is free again, for a new creator with a new id.
			again, err := s.Create(ctx, "org_a", New{Name: "Nova", Email: "nova@example.com", Vertical: "music"})
			if err != nil || again.ID == c.ID {
				t.Fatalf("create with the erased creator's email: %v %v", again, err)
			}
		})
	}
}

func isCode(err error, code codes.Code) bool {
	var e *apierror.Error
	return errors.As(err, &e) && e.Code == code
}

// An erasure or an export reads the creator's events through the
// (organization, creator) index, not every event of the organization; rows
// written before events had a creator column are still found by their data.
func TestCreatorEventsByCreatorColumn(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			s, st := newTestService(t, b)
			nova, err := s.Create(ctx, "org_a", New{Name: "Nova", Email: "nova@example.com", Vertical: "music"})
			if err != nil {
				t.Fatal(err)
			}
			other, err := s.Create(ctx, "org_a", New{Name: "Orla", Email: "orla@example.com", Vertical: "music"})
			if err != nil {
				t.Fatal(err)
			}
			// An event of another creator's job that happens to quote Nova's
			// id, and one written before the column existed (NULL).
			quoting := st.Ent.Event.Create().SetID("evt_quoting").SetOrganizationID("org_a").SetType("job.completed").
				SetData(`{"id":"job_1","creator_id":"` + other.ID + `","context":{"note":"` + nova.ID + `"}}`).
				SetCreatorID(other.ID).SaveX(ctx)
			legacy := st.Ent.Event.Create().SetID("evt_legacy").SetOrganizationID("org_a").SetType("job.completed").
				SetData(`{"id":"job_2","creator_id":"` + nova.ID + `"}`).SaveX(ctx)
			if legacy.CreatorID != nil {
				t.Fatalf("the legacy row has a creator: %v", *legacy.CreatorID)
			}
			got, err := s.Events(ctx, "org_a", nova.ID)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range got {
				ids = append(ids, e.ID)
			}
			if len(got) != 2 || !slices.Contains(ids, legacy.ID) || slices.Contains(ids, quoting.ID) {
				t.Fatalf("Nova's events: %v; want its creator.created and the legacy row, not %s", ids, quoting.ID)
			}
			if b.Name != "sqlite" {
				return
			}
			var query string
			var args []any
			namingQuery(st.Ent, "org_a", nova.ID).Modify(func(s *entsql.Selector) { query, args = s.Query() }).AllX(ctx)
			rows, err := st.DB.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			joined := strings.Join(plan, "\n")
			if strings.Contains(joined, "SCAN") || !strings.Contains(joined, "creator_id=?") {
				t.Errorf("the naming query does not search by creator:\n%s", joined)
			}
		})
	}
}
