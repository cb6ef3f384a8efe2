package main

import (
	"math"

	"github.com/ncg-rbm/ncg/data"
)

// The images of a Gaussian model's chains show the means d + Cᵀh of the
// visible units in the data's input scale: each mean is mapped back
// through the set's Scaling (the inverse of what -real applied; values
// read as they are stay so) and drawn on one grey scale for every unit,
// black at the smallest input value of the training set and white at its
// largest (MNIST's grey levels 0 and 255), means beyond clipped.

// inputRange returns the smallest and largest value of the real-valued
// set s in its input scale (its rows mapped back by s.Scaling), or 0 and 1
// for a set without rows; hi > lo (lo + 1 when every value is lo).
func inputRange(s *data.Set) (lo, hi float64) {
	if s.N == 0 {
		return 0, 1
	}
	// The map back is increasing in each unit (Scale > 0), so each unit's
	// extremes map to the extremes of its input values.
	mins := append([]float32(nil), s.RealRow(0)...)
	maxs := append([]float32(nil), mins...)
	for i := 1; i < s.N; i++ {
		for j, v := range s.RealRow(i) {
			mins[j], maxs[j] = min(mins[j], v), max(maxs[j], v)
		}
	}
	s.Scaling.ToInput(mins, mins)
	s.Scaling.ToInput(maxs, maxs)
	lo, hi = math.Inf(1), math.Inf(-1)
	for j := range mins {
		lo, hi = min(lo, float64(mins[j])), max(hi, float64(maxs[j]))
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	return lo, hi
}

// meanLevels returns the grey levels (0 black … 255 white) of means, whole
// rows of the scaling's units: each mapped back to the input scale by sc
// (nil: as they are), then to 255·(v − lo)/(hi − lo) rounded, clipped to
// 0…255 (a NaN mean, of a diverged model, is black).
func meanLevels(means []float32, sc *data.Scaling, lo, hi float64) []uint8 {
	in := make([]float32, len(means))
	sc.ToInput(in, means)
	out := make([]uint8, len(in))
	for k, v := range in {
		if p := (float64(v) - lo) / (hi - lo); p > 0 {
			out[k] = uint8(math.Round(255 * min(1, p)))
		}
	}
	return out
}
