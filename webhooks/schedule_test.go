package webhooks

import (
	"testing"
	"time"
)

func TestDefaultScheduleIsSvixSchedule(t *testing.T) {
	want := []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
		2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	if len(DefaultSchedule) != len(want) {
		t.Fatalf("len = %d, want %d", len(DefaultSchedule), len(want))
	}
	for i := range want {
		if d, ok := DefaultSchedule.Next(i, func() float64 { return 0.5 }); !ok || d != want[i] {
			t.Errorf("Next(%d) = %v, %v; want %v, true", i, d, ok, want[i])
		}
	}
}

func TestScheduleNextJitter(t *testing.T) {
	s := Schedule{0, 100 * time.Second, time.Hour}
	tests := []struct {
		attempts int
		jitter   float64
		want     time.Duration
	}{
		{0, 0, 0},
		{0, 1, 0},
		{1, 0, 90 * time.Second},
		{1, 0.5, 100 * time.Second},
		{1, 1, 110 * time.Second},
		{1, 0.75, 105 * time.Second},
		{2, 0, 54 * time.Minute},
		{2, 1, 66 * time.Minute},
		{1, -3, 90 * time.Second}, // out-of-range jitter is clamped
		{1, 7, 110 * time.Second},
		{-1, 0.5, 0}, // negative counts as no attempt yet
	}
	for _, tt := range tests {
		d, ok := s.Next(tt.attempts, func() float64 { return tt.jitter })
		if !ok || d != tt.want {
			t.Errorf("Next(%d, %v) = %v, %v; want %v, true", tt.attempts, tt.jitter, d, ok, tt.want)
		}
	}
}

func TestScheduleNextRandomJitterBounds(t *testing.T) {
	seenLow, seenHigh := false, false
	for range 10000 {
		for i, base := range DefaultSchedule {
			d, ok := DefaultSchedule.Next(i, nil)
			lo, hi := time.Duration(float64(base)*0.9), time.Duration(float64(base)*1.1)
			if !ok || d < lo || d > hi {
				t.Fatalf("Next(%d) = %v, %v; want within [%v, %v]", i, d, ok, lo, hi)
			}
			if base > 0 {
				seenLow = seenLow || d < base
				seenHigh = seenHigh || d > base
			}
		}
	}
	if !seenLow || !seenHigh {
		t.Fatal("jitter never went both below and above the base delay")
	}
}

func TestScheduleExhaustion(t *testing.T) {
	for _, s := range []Schedule{DefaultSchedule, {0, time.Second}, {}} {
		if d, ok := s.Next(len(s), nil); ok || d != 0 {
			t.Errorf("%v: Next(%d) = %v, %v; want exhausted", s, len(s), d, ok)
		}
		if _, ok := s.Next(len(s)+5, nil); ok {
			t.Errorf("%v: Next past the end not exhausted", s)
		}
	}
	// Eight attempts in total: Next succeeds for 0..7 attempts made.
	n := 0
	for ; ; n++ {
		if _, ok := DefaultSchedule.Next(n, nil); !ok {
			break
		}
	}
	if n != 8 {
		t.Fatalf("DefaultSchedule allows %d attempts, want 8", n)
	}
}

func TestParseSchedule(t *testing.T) {
	tests := []struct {
		in      string
		want    Schedule
		wantErr bool
	}{
		{in: "0s,1s,2s", want: Schedule{0, time.Second, 2 * time.Second}},
		{in: " 0s , 500ms,1m30s ", want: Schedule{0, 500 * time.Millisecond, 90 * time.Second}},
		{in: "10ms", want: Schedule{10 * time.Millisecond}},
		{in: DefaultSchedule.String(), want: DefaultSchedule},
		{in: "", wantErr: true},
		{in: "   ", wantErr: true},
		{in: "1s,,2s", wantErr: true},
		{in: "1s,", wantErr: true},
		{in: "1", wantErr: true},
		{in: "-1s", wantErr: true},
		{in: "soon", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseSchedule(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseSchedule(%q) = %v, want error", tt.in, got)
			}
			continue
		}
		if err != nil || got.String() != tt.want.String() || len(got) != len(tt.want) {
			t.Errorf("ParseSchedule(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// Jittered delays are whole microseconds, so next_retry_at has the
// precision of every other API timestamp.
func TestScheduleNextMicroseconds(t *testing.T) {
	for _, j := range []float64{0, 0.123456789, 0.5, 0.987654321} {
		for n := range DefaultSchedule {
			d, ok := DefaultSchedule.Next(n, func() float64 { return j })
			if !ok || d%time.Microsecond != 0 {
				t.Fatalf("attempt %d, jitter %v: delay %v (%d ns)", n, j, d, int64(d))
			}
		}
	}
}
