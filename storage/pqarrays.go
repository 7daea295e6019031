package storage

import (
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/lib/pq"
)

// River's database/sql driver binds PostgreSQL arrays as lib/pq values
// (pq.Array). pgx encodes those only as driver.Valuers: it renders the
// array as text, fails to send that as a binary array (building an error),
// parses the text back and encodes the result. Every job inserted, fetched
// or completed paid that for a dozen parameters. encodePQArrays hands pgx
// the slice inside instead, which it encodes like any other slice, to the
// same values (nil slices and elements still NULL).
func encodePQArrays(m *pgtype.Map) {
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapPQArray}, m.TryWrapEncodePlanFuncs...)
}

func tryWrapPQArray(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	slice := pqSlice(value)
	if slice == nil {
		return nil, nil, false
	}
	return &pqArrayPlan{slice: reflect.TypeOf(slice)}, slice, true
}

// pqSlice returns the slice inside a lib/pq array value, or nil.
func pqSlice(value any) any {
	switch a := value.(type) {
	case pq.GenericArray:
		return a.A
	case *pq.StringArray:
		return elems(a)
	case *pq.Int64Array:
		return elems(a)
	case *pq.Int32Array:
		return elems(a)
	case *pq.BoolArray:
		return elems(a)
	case *pq.ByteaArray:
		return elems(a)
	case *pq.Float64Array:
		return elems(a)
	}
	return nil
}

// elems is the slice a typed lib/pq array points to ([]string for a
// *pq.StringArray), or nil for a nil pointer.
func elems[A ~[]E, E any](a *A) any {
	if a == nil {
		return nil
	}
	return []E(*a)
}

// pqArrayPlan encodes a pq array as its slice. pgx keeps a plan per
// parameter type and value type, and every pq.GenericArray has the same
// type whatever it holds: the plan is for the slice type it was made for
// and refuses another rather than misencode it.
type pqArrayPlan struct {
	next  pgtype.EncodePlan
	slice reflect.Type
}

func (p *pqArrayPlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *pqArrayPlan) Encode(value any, buf []byte) ([]byte, error) {
	slice := pqSlice(value)
	if slice == nil || reflect.TypeOf(slice) != p.slice {
		return nil, fmt.Errorf("storage: %T bound where an array of %v was", value, p.slice)
	}
	return p.next.Encode(slice, buf)
}
