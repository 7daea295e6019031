package clock

import (
	"testing"
	"time"
)

func TestTestClockMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	c := NewTest(start)
	if !c.Now().Equal(start) {
		t.Fatalf("Now = %v, want %v", c.Now(), start)
	}
	c.Advance(36 * time.Hour)
	if want := start.Add(36 * time.Hour); !c.Now().Equal(want) {
		t.Fatalf("after Advance: %v, want %v", c.Now(), want)
	}
	c.Set(start)
	if !c.Now().Equal(start) {
		t.Fatalf("after Set: %v", c.Now())
	}
	var _ Clock = Real{}
}
