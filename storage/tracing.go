package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"github.com/XSAM/otelsql"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
)

// Traced is Open's option for a traced server: every statement run for a
// traced request or job is a child span of it, named by the driver call
// (sql.conn.query, sql.conn.exec, sql.tx.commit, ...) with the statement
// text (never its arguments). Statements outside any span (the queue's
// polling, the janitor) make none, so they do not start traces of their
// own. Without the option the connections are not wrapped at all.
func Traced(tp trace.TracerProvider) Option {
	return func(o *openOptions) { o.tracer = tp }
}

// Wrapped is Open's option that passes the connector of each of the
// store's database/sql pools through wrap: instrumentation, such as the
// tests' count of the rows a job reads. (River's own pgx pool on
// PostgreSQL is not one of them.)
func Wrapped(wrap func(driver.Connector) driver.Connector) Option {
	return func(o *openOptions) { o.wrap = wrap }
}

// openDB is sql.OpenDB, through o's wrapper and the tracing wrapper when
// they are set.
func openDB(c driver.Connector, o openOptions, system string) *sql.DB {
	if o.wrap != nil {
		c = o.wrap(c)
	}
	tp := o.tracer
	if tp == nil {
		return sql.OpenDB(c)
	}
	return otelsql.OpenDB(c,
		otelsql.WithTracerProvider(tp),
		// The service's metrics are Prometheus's (GET /metrics).
		otelsql.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelsql.WithAttributes(attribute.String("db.system.name", system)),
		otelsql.WithSpanOptions(otelsql.SpanOptions{
			OmitConnResetSession: true,
			OmitConnPrepare:      true,
			OmitRows:             true,
			OmitConnectorConnect: true,
			SpanFilter: func(ctx context.Context, _ otelsql.Method, _ string, _ []driver.NamedValue) bool {
				return trace.SpanContextFromContext(ctx).IsValid()
			},
		}),
	)
}
