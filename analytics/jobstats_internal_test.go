package analytics

import (
	"context"
	"strings"
	"testing"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/storage"
)

// The report counts active jobs from the index entries of queued and
// processing jobs alone: never a scan of the organization's jobs, nor a
// read of their rows.
func TestActiveJobsReadFromTheirIndex(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, testdb.SQLiteURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, keyID := range []string{"", "key_1"} {
		q := Query{Org: "org_a", KeyID: keyID, From: now.Add(-30 * 24 * time.Hour), To: now}
		// The statement jobStats runs.
		sel := entsql.Dialect(st.Dialect).Select(job.FieldStatus, "COUNT(*)").From(entsql.Table(job.Table))
		for _, p := range activeJobs(q) {
			p(sel)
		}
		query, args := sel.GroupBy(job.FieldStatus).Query()
		rows, err := st.DB.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		joined := strings.Join(plan, "\n")
		if !strings.Contains(joined, "USING COVERING INDEX job_organization_id_status_created_at_key_id (organization_id=? AND status=? AND created_at>? AND created_at<?)") {
			t.Errorf("key %q: the active jobs are not counted from their index alone:\n%s", keyID, joined)
		}
	}
}
