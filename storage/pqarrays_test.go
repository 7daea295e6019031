package storage

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/lib/pq"

	"github.com/creativeops/creativeops/internal/testdb"
)

// River's array parameters (pq.Array) are encoded as the slices they
// hold, on both pools, and arrive intact: NULL for a nil slice or element.
func TestPostgresPQArrays(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	times := []time.Time{time.Date(2026, 11, 27, 8, 0, 0, 123456000, time.UTC), time.Date(1999, 1, 2, 3, 4, 5, 0, time.UTC)}
	smallints := []int16{1, -2, 32767}
	texts := []string{"a", "b,c", `"q"`, ""}
	blobs := [][]byte{{1, 2}, nil}
	for _, p := range []struct {
		name string
		pool *pgxpool.Pool
	}{{"requests", st.Pool}, {"background", st.Background.Pool}} {
		conn, err := p.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := conn.Conn().TypeMap()
		for _, v := range []struct {
			array string
			oid   uint32
			value any
		}{
			{"timestamptz[]", pgtype.TimestamptzArrayOID, pq.Array(times)}, {"int2[]", pgtype.Int2ArrayOID, pq.Array(smallints)},
			{"text[]", pgtype.TextArrayOID, pq.Array(texts)}, {"int8[]", pgtype.Int8ArrayOID, pq.Array([]int64{1})},
			{"int4[]", pgtype.Int4ArrayOID, pq.Array([]int32{1})}, {"bool[]", pgtype.BoolArrayOID, pq.Array([]bool{true})},
			{"bytea[]", pgtype.ByteaArrayOID, pq.Array(blobs)}, {"float8[]", pgtype.Float8ArrayOID, pq.Array([]float64{0.5})},
		} {
			if plan := m.PlanEncode(v.oid, pgtype.BinaryFormatCode, v.value); !isPQArrayPlan(plan) {
				t.Errorf("%s pool: %s encoded by %T, want the slice inside", p.name, v.array, plan)
			}
		}
		conn.Release()
	}
	var same bool
	if err := st.DB.QueryRowContext(ctx, `SELECT $1::timestamptz[] = ARRAY[$3::timestamptz, $4::timestamptz] AND $2::int2[] = '{1,-2,32767}'
		AND $5::text[] = ARRAY['a', 'b,c', '"q"', ''] AND ($6::bytea[])[1] = '\x0102'::bytea
		AND ($6::bytea[])[2] IS NULL AND cardinality($6::bytea[]) = 2 AND $7::text[] IS NULL`,
		pq.Array(times), pq.Array(smallints), times[0], times[1], pq.Array(texts), pq.Array(blobs), pq.Array([]string(nil))).Scan(&same); err != nil {
		t.Fatal(err)
	}
	if !same {
		t.Fatal("the arrays did not arrive intact")
	}
}

// pgx keeps one plan per parameter and value type, and every
// pq.GenericArray has the same type: a plan made for one slice type
// refuses another rather than misencode it.
func TestPQArrayPlanRefusesAnotherSlice(t *testing.T) {
	m := pgtype.NewMap()
	encodePQArrays(m)
	plan := m.PlanEncode(pgtype.Int2ArrayOID, pgtype.BinaryFormatCode, pq.Array([]int16{1}))
	if _, ok := plan.(*pqArrayPlan); !ok {
		t.Fatalf("plan %T, want the slice inside", plan)
	}
	if _, err := plan.Encode(pq.Array([]int16{1, 2}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Encode(pq.GenericArray{A: []time.Time{{}}}, nil); err == nil {
		t.Fatal("a []time.Time encoded by the plan for []int16")
	}
}

func isPQArrayPlan(plan pgtype.EncodePlan) bool {
	_, ok := plan.(*pqArrayPlan)
	return ok
}

// BenchmarkPQArrayEncode: the thirteen array parameters of inserting one
// River job, as pgx encodes them by default (driver.Valuer: text, a failed
// encode, a parse) and as the slices inside.
func BenchmarkPQArrayEncode(b *testing.B) {
	now := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	params := []struct {
		oid   uint32
		value any
	}{
		{pgtype.Int8ArrayOID, pq.Array([]int64{0})}, {pgtype.TextArrayOID, pq.Array([]string{`{"job_id":"job_01"}`})},
		{pgtype.TimestamptzArrayOID, pq.Array([]time.Time{now})}, {pgtype.TextArrayOID, pq.Array([]string{"engine.run"})},
		{pgtype.Int2ArrayOID, pq.Array([]int16{25})}, {pgtype.TextArrayOID, pq.Array([]string{"{}"})},
		{pgtype.Int2ArrayOID, pq.Array([]int16{1})}, {pgtype.TextArrayOID, pq.Array([]string{"default"})},
		{pgtype.TimestamptzArrayOID, pq.Array([]time.Time{now})}, {pgtype.TextArrayOID, pq.Array([]string{"available"})},
		{pgtype.TextArrayOID, pq.Array([]string{""})}, {pgtype.ByteaArrayOID, pq.Array([][]byte{nil})},
		{pgtype.Int4ArrayOID, pq.Array([]int32{0})},
	}
	for _, c := range []struct {
		name string
		hook bool
	}{{"valuer", false}, {"slice", true}} {
		b.Run(c.name, func(b *testing.B) {
			m := pgtype.NewMap()
			if c.hook {
				encodePQArrays(m)
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range params {
					if _, err := m.Encode(p.oid, pgtype.BinaryFormatCode, p.value, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
