package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
)

// Get reads with a statement of its own rather than ent's query: it must
// read what ent reads, field for field, for a job in each state, and only
// the organization's own.
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
			r := NewRunner(st, nil, nil, nil, nil, nil, nil)
			at := time.Now().UTC().Truncate(time.Microsecond)
			later := at.Add(1500 * time.Millisecond)
			create := func(id string) *ent.JobCreate {
				return st.Ent.Job.Create().SetID(id).SetOrganizationID("org_a").SetKeyID("key_1").SetVertical("music").
					SetWorkflow("release-strategy").SetContext(map[string]any{"title": "Night Owl", "tags": []any{"ünïcode", 1.5}}).
					SetCreatedAt(at).SetUpdatedAt(at)
			}
			jobsMade := []*ent.JobCreate{
				create("job_queued").SetStatus(Queued).SetAsync(true),
				create("job_done").SetStatus(Completed).SetProgress(100).SetAttempts(1).SetCurrentStep("plan").
					SetResult(map[string]any{"plan": map[string]any{"weeks": 6.0}}).SetStartedAt(at).SetCompletedAt(later),
				create("job_failed").SetStatus(Failed).SetAttempts(3).SetErrorCode("STEP_FAILED").
					SetErrorMessage("no \"date\"").SetErrorStep("plan").SetStartedAt(at).SetCompletedAt(later),
				create("job_empty").SetStatus(Queued).SetContext(nil),
			}
			for _, c := range jobsMade {
				if err := c.Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range []string{"job_queued", "job_done", "job_failed", "job_empty"} {
				got, err := r.Get(ctx, "org_a", id)
				if err != nil {
					t.Fatal(err)
				}
				e, err := st.Read.Job.Get(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if want := toJob(e); !reflect.DeepEqual(got, want) {
					t.Errorf("Get(%s) = %+v\nent reads %+v", id, got, want)
				}
			}
			for _, read := range []struct{ org, id string }{{"org_b", "job_done"}, {"org_a", "job_missing"}} {
				_, err := r.Get(ctx, read.org, read.id)
				var apiErr *apierror.Error
				if !errors.As(err, &apiErr) || apiErr.Code != codes.NotFound {
					t.Errorf("Get(%s, %s): %v, want not found", read.org, read.id, err)
				}
			}
		})
	}
}

// A column added to jobs must be read by Get (or named here as one it does
// not need): its statement lists the columns itself.
func TestGetReadsEveryColumn(t *testing.T) {
	notRead := []string{job.FieldUpdatedAt, job.FieldCurrentStep}
	for _, c := range job.Columns {
		if !slices.Contains(getColumns, c) && !slices.Contains(notRead, c) {
			t.Errorf("column %s of jobs is not read by Get", c)
		}
	}
}

// On SQLite a job's context and result are stored compressed, and a row an
// earlier version wrote (JSON text) reads back the same through Get and
// through ent.
func TestDocumentsCompressedOnSQLite(t *testing.T) {
	ctx := context.Background()
	st := teststore.Open(t, testdb.Backend{Name: "sqlite", URL: testdb.SQLiteURL})
	if err := st.Ent.Organization.Create().SetID("org_a").SetName("a").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(st, nil, nil, nil, nil, nil, nil)
	result := map[string]any{"strategy": strings.Repeat("Deliver to the distributor three weeks ahead. ", 30),
		"timeline": map[string]any{"milestones": []any{map[string]any{"key": "a", "date": "2027-01-29"}}}}
	if err := st.Ent.Job.Create().SetID("job_1").SetOrganizationID("org_a").SetKeyID("key_1").SetVertical("music").
		SetWorkflow("release-strategy").SetStatus(Completed).SetContext(map[string]any{"artist": "Nova"}).
		SetResult(result).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(result)
	var kind string
	var n int
	if err := st.DB.QueryRowContext(ctx, "SELECT typeof(result), length(result) FROM jobs WHERE id = 'job_1'").Scan(&kind, &n); err != nil {
		t.Fatal(err)
	}
	if kind != "blob" || n >= len(js)/2 {
		t.Errorf("a %d-byte result is stored as a %s of %d bytes, want a compressed blob", len(js), kind, n)
	}
	want, err := r.Get(ctx, "org_a", "job_1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want.Result, result) {
		t.Fatalf("the result reads back as %v", want.Result)
	}
	// As an earlier version stored it.
	if _, err := st.DB.ExecContext(ctx, "UPDATE jobs SET result = ?, context = ? WHERE id = 'job_1'", string(js), `{"artist":"Nova"}`); err != nil {
		t.Fatal(err)
	}
	got, err := r.Get(ctx, "org_a", "job_1")
	if err != nil {
		t.Fatal(err)
	}
	e, err := st.Read.Job.Get(ctx, "job_1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(toJob(e), want) {
		t.Errorf("a row of JSON text reads\n%+v\n(ent: %+v)\nwhere the compressed one read\n%+v", got, toJob(e), want)
	}
}
