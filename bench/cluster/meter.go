package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/storage"
)

// meter follows the CPU and memory of every process taking part: the
// replicas, this harness (load generator, and the proxy if any), and the PostgreSQL
// backends serving the run's database.
type meter struct {
	c      *clustertest.Cluster
	dbName string
	// stats reads the run database's pg_stat_database row (nil on SQLite).
	stats *sql.DB

	mu   sync.Mutex
	pg   map[int]float64 // backend pid → CPU seconds last seen
	done chan struct{}
	wg   sync.WaitGroup
}

func newMeter(c *clustertest.Cluster, dbName string) *meter {
	m := &meter{c: c, dbName: dbName, pg: map[int]float64{}, done: make(chan struct{})}
	if dbName != "" {
		if db, err := sql.Open("pgx", storage.WithoutPoolParams(c.DatabaseURL)); err == nil {
			db.SetMaxOpenConns(1)
			m.stats = db
		}
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			m.sample()
			select {
			case <-m.done:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *meter) stop() {
	close(m.done)
	m.wg.Wait()
	if m.stats != nil {
		m.stats.Close()
	}
}

// transactions is the run database's committed and rolled-back
// transactions so far, as PostgreSQL counts them: a statement outside a
// transaction counts one, a transaction one whatever its statements. The
// counters lag by up to a second (backends report them when idle).
func (m *meter) transactions() float64 {
	if m.stats == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var n float64
	// The meter's own query is one transaction more per reading.
	_ = m.stats.QueryRowContext(ctx, "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1", m.dbName).Scan(&n)
	return n
}

// sample refreshes the figures of processes that could vanish before the
// end of a phase (PostgreSQL backends come and go with pool connections).
func (m *meter) sample() {
	for _, r := range m.c.Replicas {
		r.Sample()
	}
	if m.dbName == "" {
		return
	}
	pids := postgresBackends(m.dbName)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, pid := range pids {
		if u, err := clustertest.ProcUsage(pid); err == nil {
			m.pg[pid] = u.CPUSeconds
		}
	}
}

// postgresBackends lists the server processes connected to database name,
// whose command lines read "postgres: 15/main: USER DB ADDR STATE".
func postgresBackends(name string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	needle := []byte(" " + name + " ")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.HasPrefix(cmd, []byte("postgres: ")) {
			continue
		}
		if bytes.Contains(cmd, needle) {
			out = append(out, pid)
		}
	}
	return out
}

type reading struct {
	replicas map[string]float64
	self     float64
	pg       map[int]float64
	xacts    float64
}

func (m *meter) read() reading {
	m.sample()
	r := reading{replicas: map[string]float64{}, pg: map[int]float64{}, xacts: m.transactions()}
	for _, rep := range m.c.Replicas {
		r.replicas[rep.Name] = rep.Lifetime().CPUSeconds
	}
	if u, err := clustertest.ProcUsage(os.Getpid()); err == nil {
		r.self = u.CPUSeconds
	}
	m.mu.Lock()
	for pid, cpu := range m.pg {
		r.pg[pid] = cpu
	}
	m.mu.Unlock()
	return r
}

// since is each process's use from before until now.
func (m *meter) since(before reading) []processUsage {
	now := m.read()
	var out []processUsage
	for _, rep := range m.c.Replicas {
		out = append(out, processUsage{Name: "creativeops " + rep.Name, CPUSeconds: now.replicas[rep.Name] - before.replicas[rep.Name], PeakRSS: rep.Lifetime().PeakRSS})
	}
	if m.dbName != "" {
		var pg float64
		for pid, cpu := range now.pg {
			pg += cpu - before.pg[pid]
		}
		out = append(out, processUsage{Name: "PostgreSQL backends (" + strconv.Itoa(len(now.pg)) + ")", CPUSeconds: pg, Transactions: now.xacts - before.xacts})
	}
	name := "harness (load generator)"
	if m.c.Proxy != nil {
		name = "harness (load generator + proxy)"
	}
	self := processUsage{Name: name, CPUSeconds: now.self - before.self}
	if u, err := clustertest.ProcUsage(os.Getpid()); err == nil {
		self.PeakRSS = u.PeakRSS
	}
	return append(out, self)
}
