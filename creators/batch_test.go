package creators

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/creator"
	"github.com/creativeops/creativeops/ent/event"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
)

// CreateBatch, the seeding fast path, checks every entry as Create does
// and refuses the whole batch on one bad entry; a good batch stores each
// creator with its creator.created event.
func TestCreateBatchChecksAsCreateDoes(t *testing.T) {
	b := testdb.Backends(t)[0]
	ctx := context.Background()
	st := teststore.Open(t, b)
	if err := st.Ent.Organization.Create().SetID("org_a").SetName("org_a").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	s := NewService(st, events.NewEmitter(func(v any) ([]byte, error) { return json.Marshal(v) },
		func(context.Context, *ent.Client, *sql.Tx, []*ent.Event) error { return nil }))
	if _, err := s.Create(ctx, "org_a", New{Name: "Taken", Email: "taken@example.com", Vertical: "music"}); err != nil {
		t.Fatal(err)
	}
	good := New{Name: "Nova", Email: "nova@example.com", Vertical: "music"}
	for name, bad := range map[string]New{
		"email":              {Name: "X", Email: "not an email", Vertical: "music"},
		"vertical":           {Name: "X", Email: "x@example.com", Vertical: "knitting"},
		"duplicate in batch": {Name: "X", Email: "NOVA@example.com", Vertical: "music"},
		"taken email":        {Name: "X", Email: "Taken@Example.com", Vertical: "music"},
	} {
		if _, err := s.CreateBatch(ctx, "org_a", []New{good, bad}); err == nil {
			t.Errorf("%s: the batch was accepted", name)
		}
	}
	if n := st.Read.Creator.Query().CountX(ctx); n != 1 {
		t.Fatalf("refused batches left %d creators, want the 1 created before", n)
	}
	out, err := s.CreateBatch(ctx, "org_a", []New{good, {Name: "Ada", Email: "ada@example.com", Vertical: "music"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range out {
		got, err := s.Get(ctx, "org_a", c.ID)
		if err != nil || got.Email != c.Email || got.Status != Active || got.Revision != 1 {
			t.Errorf("Get(%s) = %+v, %v", c.ID, got, err)
		}
		if !st.Read.Creator.Query().Where(creator.ID(c.ID), creator.EmailKey(c.Email)).ExistX(ctx) {
			t.Errorf("%s: email_key is not the lower-cased email", c.ID)
		}
		if !st.Read.Event.Query().Where(event.Type(events.CreatorCreated), event.ObjectID(c.ID)).ExistX(ctx) {
			t.Errorf("%s: no creator.created event", c.ID)
		}
	}
}
