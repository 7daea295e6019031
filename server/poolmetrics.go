package server

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// poolCollector reports a PostgreSQL connection pool (pgxpool). On
// PostgreSQL the database/sql figures (go_sql_*) cannot show waits:
// database/sql opens as many connections as it is asked for and pgxpool
// bounds them, so a request waiting for a connection waits in pgxpool,
// and only these figures see it.
type poolCollector struct {
	pool  *pgxpool.Pool
	descs poolDescs
}

type poolDescs struct {
	conns, max, acquires, waits, waitSeconds, canceled *prometheus.Desc
}

func newPoolCollector(pool *pgxpool.Pool, name string) *poolCollector {
	l := prometheus.Labels{"pool": name}
	return &poolCollector{pool: pool, descs: poolDescs{
		conns: prometheus.NewDesc("creativeops_db_pool_connections",
			"PostgreSQL connections of the pool by state: acquired (in use), idle, constructing.", []string{"state"}, l),
		max: prometheus.NewDesc("creativeops_db_pool_max_connections",
			"The most connections the pool opens (--database-url's pool_max_conns).", nil, l),
		acquires: prometheus.NewDesc("creativeops_db_pool_acquires_total",
			"Connections taken from the pool.", nil, l),
		waits: prometheus.NewDesc("creativeops_db_pool_acquire_waits_total",
			"Takes that found no idle connection and waited for one (to be released or opened).", nil, l),
		waitSeconds: prometheus.NewDesc("creativeops_db_pool_acquire_wait_seconds_total",
			"Time spent by those waits.", nil, l),
		canceled: prometheus.NewDesc("creativeops_db_pool_acquire_canceled_total",
			"Waits given up because the request's context ended first.", nil, l),
	}}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	d := c.descs
	for _, desc := range []*prometheus.Desc{d.conns, d.max, d.acquires, d.waits, d.waitSeconds, d.canceled} {
		ch <- desc
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s, d := c.pool.Stat(), c.descs
	ch <- prometheus.MustNewConstMetric(d.conns, prometheus.GaugeValue, float64(s.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(d.conns, prometheus.GaugeValue, float64(s.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(d.conns, prometheus.GaugeValue, float64(s.ConstructingConns()), "constructing")
	ch <- prometheus.MustNewConstMetric(d.max, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(d.acquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(d.waits, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(d.waitSeconds, prometheus.CounterValue, s.EmptyAcquireWaitTime().Seconds())
	ch <- prometheus.MustNewConstMetric(d.canceled, prometheus.CounterValue, float64(s.CanceledAcquireCount()))
}
