package edge

import (
	"testing"
	"time"
)

// Each organization's failures of each outcome (client errors, server
// errors) are logged up to a burst, then at the budget's rate; the next
// line logged says how many were not. Slow requests are always logged,
// and "all" logs everything.
func TestErrorLinesBudget(t *testing.T) {
	for _, o := range []Outcome{clientError, serverError} {
		l, err := NewRequestLog(LogRequestsErrors, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		logged := 0
		for range ErrorLineBurst + 50 {
			if ok, n := l.wantsAt("org_a", o, 0, now); ok {
				logged++
				if n != 0 {
					t.Fatalf("outcome %d: a line within the burst reports %d unlogged", o, n)
				}
			}
		}
		if logged != ErrorLineBurst {
			t.Fatalf("outcome %d: logged %d of a burst, want %d", o, logged, ErrorLineBurst)
		}
		// Another organization, and the other outcome, have their own
		// budgets.
		if ok, _ := l.failure("org_b", o, now); !ok {
			t.Fatalf("outcome %d: another organization's first failure was not logged", o)
		}
		if ok, _ := l.failure("org_a", clientError+serverError-o, now); !ok {
			t.Fatalf("outcome %d: the first failure of the other outcome was not logged", o)
		}
		// A tenth of a second later org_a has one line again, which
		// carries the count of the 50 it could not log.
		later := now.Add(time.Second / ErrorLinesPerSecond)
		if ok, n := l.failure("org_a", o, later); !ok || n != 50 {
			t.Fatalf("outcome %d: after the refill: logged %v, unlogged %d, want true, 50", o, ok, n)
		}
		if ok, _ := l.failure("org_a", o, later); ok {
			t.Fatalf("outcome %d: logged beyond the refill", o)
		}
		if ok, _ := l.Wants("org_a", o, 2*time.Second); !ok {
			t.Errorf("outcome %d: a slow request was not logged", o)
		}
		all, _ := NewRequestLog(LogRequestsAll, time.Second)
		for i := range ErrorLineBurst + 10 {
			if ok, _ := all.Wants("org_a", o, 0); !ok {
				t.Fatalf("all mode: failure %d of outcome %d not logged", i, o)
			}
		}
	}
	if UnloggedAttr(serverError) != "unlogged_server_errors" || UnloggedAttr(clientError) != "unlogged_client_errors" {
		t.Fatal("the left-out counts are misnamed")
	}
}
