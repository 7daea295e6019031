// Package analytics records API usage on the request path without I/O and
// aggregates it per minute, organization, key, route and status, with
// latencies in mergeable histograms so that replicas add up and
// percentiles are computed when a report is asked for.
package analytics

import (
	"encoding/binary"
	"errors"
	"maps"
	"math/bits"
	"slices"
	"time"
)

// Latencies are counted in log-linear buckets of microseconds, the same
// fixed layout on every replica (as in HdrHistogram): exact below 64 µs,
// then 32 buckets per power of two, so a bucket is at most 1/32 (3.125%)
// of its lower bound wide. A percentile is reported as the middle of its
// bucket, within 1.6% of the exact nearest-rank value.
const (
	subBucketBits  = 5
	subBucketCount = 1 << subBucketBits // 32
)

// Resolution is the largest relative error of a reported percentile.
const Resolution = 1.0 / (2 * subBucketCount)

// bucketOf returns the bucket index of a latency in microseconds.
func bucketOf(us uint64) int {
	if us < 2*subBucketCount {
		return int(us)
	}
	shift := bits.Len64(us) - subBucketBits - 1
	return (shift+1)*subBucketCount + int(us>>shift) - subBucketCount
}

// bucketBounds returns the [lower, upper) microseconds of a bucket.
func bucketBounds(idx int) (lower, upper uint64) {
	if idx < 2*subBucketCount {
		return uint64(idx), uint64(idx) + 1
	}
	shift := idx/subBucketCount - 1
	m := uint64(idx%subBucketCount + subBucketCount)
	return m << shift, (m + 1) << shift
}

// Histogram counts latencies per bucket. The zero value is empty and ready.
type Histogram struct {
	counts map[int]uint64
}

// Observe counts one latency.
func (h *Histogram) Observe(d time.Duration) {
	if h.counts == nil {
		h.counts = make(map[int]uint64, 8)
	}
	us := d.Microseconds()
	if us < 0 {
		us = 0
	}
	h.counts[bucketOf(uint64(us))]++
}

// Merge adds another histogram's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	if len(o.counts) == 0 {
		return
	}
	if h.counts == nil {
		h.counts = make(map[int]uint64, len(o.counts))
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
}

// Count is the number of latencies observed.
func (h *Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.counts {
		n += c
	}
	return n
}

// Quantile returns the q-quantile (0 < q <= 1) by nearest rank: the middle
// of the bucket holding the ceil(q*n)-th smallest latency. Empty → 0.
func (h *Histogram) Quantile(q float64) time.Duration {
	n := h.Count()
	if n == 0 {
		return 0
	}
	rank := uint64(q * float64(n))
	if float64(rank) < q*float64(n) {
		rank++
	}
	rank = max(rank, 1)
	var seen uint64
	for _, idx := range slices.Sorted(maps.Keys(h.counts)) {
		seen += h.counts[idx]
		if seen >= rank {
			lo, hi := bucketBounds(idx)
			if hi-lo == 1 {
				return time.Duration(lo) * time.Microsecond
			}
			return time.Duration(lo+hi) * time.Microsecond / 2
		}
	}
	return 0 // unreachable: rank <= n
}

// QuantileMillis is Quantile in (fractional) milliseconds, as reported.
func (h *Histogram) QuantileMillis(q float64) float64 {
	return float64(h.Quantile(q).Microseconds()) / 1000
}

// MarshalBinary encodes the histogram compactly: for every non-empty bucket
// in ascending order, the index delta and the count as uvarints.
func (h *Histogram) MarshalBinary() ([]byte, error) {
	out := make([]byte, 0, 4*len(h.counts))
	prev := 0
	for _, idx := range slices.Sorted(maps.Keys(h.counts)) {
		c := h.counts[idx]
		if c == 0 {
			continue
		}
		out = binary.AppendUvarint(out, uint64(idx-prev))
		out = binary.AppendUvarint(out, c)
		prev = idx
	}
	return out, nil
}

var errCorrupt = errors.New("analytics: corrupt histogram")

// UnmarshalBinary decodes an encoding and adds it to h (so decoding several
// rows into one histogram merges them).
func (h *Histogram) UnmarshalBinary(b []byte) error {
	if h.counts == nil {
		h.counts = make(map[int]uint64, 8)
	}
	idx := 0
	for len(b) > 0 {
		delta, n := binary.Uvarint(b)
		if n <= 0 {
			return errCorrupt
		}
		b = b[n:]
		c, n := binary.Uvarint(b)
		if n <= 0 {
			return errCorrupt
		}
		b = b[n:]
		idx += int(delta)
		if idx > 4096 {
			return errCorrupt
		}
		h.counts[idx] += c
	}
	return nil
}
