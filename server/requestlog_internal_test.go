package server

import (
	"testing"
	"time"
)

// Each organization's client errors are logged up to a burst, then at the
// budget's rate; the next line logged says how many were not. Server
// errors and slow requests are always logged, and "all" logs everything.
func TestClientErrorLinesBudget(t *testing.T) {
	l, err := newRequestLog(LogRequestsErrors, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	logged := 0
	for range ClientErrorLineBurst + 50 {
		if ok, n := l.clientError("org_a", now); ok {
			logged++
			if n != 0 {
				t.Fatalf("a line within the burst reports %d unlogged", n)
			}
		}
	}
	if logged != ClientErrorLineBurst {
		t.Fatalf("logged %d of a burst, want %d", logged, ClientErrorLineBurst)
	}
	// Another organization has its own budget.
	if ok, _ := l.clientError("org_b", now); !ok {
		t.Fatal("another organization's first client error was not logged")
	}
	// A tenth of a second later org_a has one line again, which carries
	// the count of the 50 it could not log.
	later := now.Add(time.Second / ClientErrorLinesPerSecond)
	if ok, n := l.clientError("org_a", later); !ok || n != 50 {
		t.Fatalf("after the refill: logged %v, unlogged %d, want true, 50", ok, n)
	}
	if ok, _ := l.clientError("org_a", later); ok {
		t.Fatal("logged beyond the refill")
	}
	for _, c := range []struct {
		o       outcome
		latency time.Duration
	}{{serverError, 0}, {clientError, 2 * time.Second}} {
		if ok, _ := l.wants("org_a", c.o, c.latency); !ok {
			t.Errorf("outcome %d, latency %v: not logged", c.o, c.latency)
		}
	}
	all, _ := newRequestLog(LogRequestsAll, time.Second)
	for i := range ClientErrorLineBurst + 10 {
		if ok, _ := all.wants("org_a", clientError, 0); !ok {
			t.Fatalf("all mode: client error %d not logged", i)
		}
	}
}
