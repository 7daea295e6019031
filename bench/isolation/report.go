package main

import (
	"fmt"
	"strings"
	"time"
)

// target is the bound: under attack, B's figures stay within this
// multiple of its idle baseline.
const target = 2.0

type report struct {
	Options                  options
	Started, Finished        time.Time
	LoadAvgStart, LoadAvgEnd string
	Cores                    int
	Baseline, Attack         phase
	// Subscribed is how many webhooks A got registered.
	Subscribed     int
	AttackSent     int
	AttackOutcomes map[string]map[int]int
}

// check is one line of the verdict.
type check struct {
	What                string
	Baseline, Attack    time.Duration
	Judged, Informative bool
}

func (c check) ratio() float64 {
	if c.Baseline <= 0 {
		return 0
	}
	return float64(c.Attack) / float64(c.Baseline)
}

func (c check) pass() bool { return !c.Judged || c.ratio() <= target }

func (r *report) checks() []check {
	b, a := r.Baseline, r.Attack
	return []check{
		{What: "request latency p50", Baseline: b.Overall.P50, Attack: a.Overall.P50, Informative: true},
		{What: "request latency p99", Baseline: b.Overall.P99, Attack: a.Overall.P99, Judged: true},
		{What: "webhook delivery delay p50", Baseline: b.DelayP50, Attack: a.DelayP50, Judged: true},
		{What: "webhook delivery delay p99", Baseline: b.DelayP99, Attack: a.DelayP99, Judged: true},
	}
}

// serverErrors is B's 5xx (or gRPC server-fault) answers in a phase.
func serverErrors(p phase) int { return p.Ops.ServerErrors }

// attackServerErrors is A's 5xx answers: bad input must never cause one.
func (r *report) attackServerErrors() int {
	n := 0
	for _, st := range r.AttackOutcomes {
		for s, c := range st {
			if s >= 500 {
				n += c
			}
		}
	}
	return n
}

// Pass is the verdict: every judged ratio within the target, no 5xx for
// B or for A, every event of B delivered with a valid signature.
func (r *report) Pass() bool {
	for _, c := range r.checks() {
		if !c.pass() {
			return false
		}
	}
	for _, p := range []phase{r.Baseline, r.Attack} {
		if serverErrors(p) > 0 || p.Delivered < p.Expected || p.BadSignatures > 0 {
			return false
		}
	}
	return r.attackServerErrors() == 0
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func (r *report) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	o := r.Options
	db := map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}[o.db]
	w("### %s: %s\n\n", db, verdict(r.Pass()))
	w("%s, %d cores, load average %s at the start and %s at the end (the machine is shared). "+
		"B runs %d req/s for %s per phase; A floods at %d req/s and creates creators at %d req/s on keys limited to the default 100 req/s.\n\n",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Cores, r.LoadAvgStart, r.LoadAvgEnd, o.rps, o.duration, o.floodRPS, o.eventRPS)
	w("| organization B | baseline | under attack | ratio | target ≤ %.0f× |\n|---|---:|---:|---:|---|\n", target)
	for _, c := range r.checks() {
		v := verdict(c.pass())
		if c.Informative {
			v = "(not judged)"
		}
		w("| %s | %s | %s | %.2f× | %s |\n", c.What, ms(c.Baseline), ms(c.Attack), c.ratio(), v)
	}
	w("\n| organization B | baseline | under attack |\n|---|---:|---:|\n")
	w("| requests (errors, of which 5xx) | %d (%d, %d) | %d (%d, %d) |\n",
		r.Baseline.Overall.Sent, r.Baseline.Ops.Errors, serverErrors(r.Baseline), r.Attack.Overall.Sent, r.Attack.Ops.Errors, serverErrors(r.Attack))
	w("| events delivered / emitted | %d / %d | %d / %d |\n", r.Baseline.Delivered, r.Baseline.Expected, r.Attack.Delivered, r.Attack.Expected)
	w("| delivery delay max | %s | %s |\n", ms(r.Baseline.DelayMax), ms(r.Attack.DelayMax))
	w("| bad signatures | %d | %d |\n", r.Baseline.BadSignatures, r.Attack.BadSignatures)
	w("| server CPU during the phase and settling | %.1f s | %.1f s |\n", r.Baseline.ServerCPU, r.Attack.ServerCPU)
	w("| harness CPU (both organizations' clients, receivers) | %.1f s | %.1f s |\n", r.Baseline.HarnessCPU, r.Attack.HarnessCPU)
	w("\nB per operation (service time, the slower of REST and gRPC):\n\n| operation | baseline p50 | p99 | under attack p50 | p99 |\n|---|---:|---:|---:|---:|\n")
	for _, op := range mergeOps(r.Baseline) {
		at := mergeOps(r.Attack)
		var a opLatency
		for _, x := range at {
			if x.op == op.op {
				a = x
			}
		}
		w("| %s | %s | %s | %s | %s |\n", op.op, ms(op.p50), ms(op.p99), ms(a.p50), ms(a.p99))
	}
	w("\nOrganization A: %d webhooks registered (the quota), %d requests in all; answers by kind:\n\n", r.Subscribed, r.AttackSent)
	w("| A's request | 2xx | 400 | 413 | 429 | other 4xx | 5xx | no answer |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range kinds(r.AttackOutcomes) {
		var ok, bad, big, limited, other, server, none int
		for s, n := range r.AttackOutcomes[k] {
			switch {
			case s == 0:
				none += n
			case s < 300:
				ok += n
			case s == 400:
				bad += n
			case s == 413:
				big += n
			case s == 429:
				limited += n
			case s >= 500:
				server += n
			default:
				other += n
			}
		}
		w("| %s | %d | %d | %d | %d | %d | %d | %d |\n", k, ok, bad, big, limited, other, server, none)
	}
	w("\n")
	return b.String()
}

type opLatency struct {
	op       string
	p50, p99 time.Duration
}

// mergeOps gives one line per operation: the worse of its two transports.
func mergeOps(p phase) []opLatency {
	var out []opLatency
	idx := map[string]int{}
	for _, s := range p.Ops.Ops {
		i, ok := idx[string(s.Op)]
		if !ok {
			idx[string(s.Op)] = len(out)
			out = append(out, opLatency{op: string(s.Op), p50: s.P50, p99: s.P99})
			continue
		}
		out[i].p50, out[i].p99 = max(out[i].p50, s.P50), max(out[i].p99, s.P99)
	}
	return out
}
