package eval

import (
	"fmt"
	"math"
)

// PiecewiseSchedule returns the inverse temperatures of an AIS schedule that
// goes from knots[0] to knots[len-1] in equal steps on each segment:
// counts[s] steps between knots[s] and knots[s+1]. Every value is computed
// from its integer position (knots[s] + (knots[s+1]−knots[s])·i/counts[s]),
// so there is no accumulated drift, and the knots themselves appear exactly.
// The result has 1 + Σ counts entries.
func PiecewiseSchedule(knots []float64, counts []int) ([]float64, error) {
	if len(knots) < 2 || len(counts) != len(knots)-1 {
		return nil, fmt.Errorf("eval: schedule needs k ≥ 2 knots and k−1 step counts (have %d knots, %d counts)", len(knots), len(counts))
	}
	total := 0
	for s, c := range counts {
		if c <= 0 {
			return nil, fmt.Errorf("eval: schedule segment %d has %d steps; want at least 1", s, c)
		}
		if !(knots[s+1] > knots[s]) || math.IsInf(knots[s+1]-knots[s], 0) {
			return nil, fmt.Errorf("eval: schedule knots must increase (knot %d = %v, knot %d = %v)", s, knots[s], s+1, knots[s+1])
		}
		total += c
	}
	b := make([]float64, 0, total+1)
	for s, c := range counts {
		lo, hi := knots[s], knots[s+1]
		for i := 0; i < c; i++ {
			b = append(b, lo+(hi-lo)*float64(i)/float64(c))
		}
	}
	return append(b, knots[len(knots)-1]), nil
}

// DefaultSchedule is Salakhutdinov & Murray's (2008) schedule: β from 0 to
// 0.5 in steps of 1e-3, 0.5 to 0.9 in steps of 1e-4 and 0.9 to 1 in steps of
// 1e-5; 14,500 intervals, 14,501 values.
func DefaultSchedule() []float64 {
	b, err := PiecewiseSchedule([]float64{0, 0.5, 0.9, 1}, []int{500, 4000, 10000})
	if err != nil {
		panic(err) // constant arguments
	}
	return b
}

// UniformSchedule returns k+1 equally spaced β from 0 to 1 (k intervals).
func UniformSchedule(k int) []float64 {
	if k < 1 {
		k = 1
	}
	b, _ := PiecewiseSchedule([]float64{0, 1}, []int{k})
	return b
}

// RefineSchedule returns betas with every interval split into f equal
// ones (f ≥ 1; less counts as 1): f times the intervals, every value of
// betas kept exactly and each new one computed from its position (β_k +
// (β_{k+1} − β_k)·i/f), so that refining the paper's schedule keeps its
// shape: DefaultSchedule refined by 2 has 29,000 intervals, steps of
// 5·10⁻⁴, 5·10⁻⁵ and 5·10⁻⁶.
func RefineSchedule(betas []float64, f int) []float64 {
	f = max(f, 1)
	if len(betas) < 2 {
		return append([]float64(nil), betas...)
	}
	out := make([]float64, 0, (len(betas)-1)*f+1)
	for k := 0; k+1 < len(betas); k++ {
		lo, hi := betas[k], betas[k+1]
		out = append(out, lo)
		for i := 1; i < f; i++ {
			out = append(out, lo+(hi-lo)*float64(i)/float64(f))
		}
	}
	return append(out, betas[len(betas)-1])
}

// checkSchedule verifies that betas goes from 0 to 1 without decreasing.
func checkSchedule(b []float64) error {
	if len(b) < 2 {
		return fmt.Errorf("eval: AIS schedule has %d values; want at least 2 (0 and 1)", len(b))
	}
	if b[0] != 0 || b[len(b)-1] != 1 {
		return fmt.Errorf("eval: AIS schedule must start at 0 and end at 1 (have %v … %v)", b[0], b[len(b)-1])
	}
	for k := 1; k < len(b); k++ {
		if !(b[k] >= b[k-1]) || b[k] > 1 {
			return fmt.Errorf("eval: AIS schedule value %d (%v) is below value %d (%v) or above 1", k, b[k], k-1, b[k-1])
		}
	}
	return nil
}
