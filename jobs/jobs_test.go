package jobs

import (
	"context"
	"errors"
	"reflect"
	"slices"
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
