package eval

import (
	"fmt"
	"math"
)

// The base-rate model of binary AIS: independent visible units with the
// training data's smoothed marginals.

// BaseRate returns the visible biases of the base-rate model: d_A_j =
// logit(p_j) with p_j = (count_j + alpha)/(n + 2·alpha) the marginal of unit
// j in the n rows of x (n×X binary), smoothed by the pseudo-count alpha > 0
// (alpha ones and alpha zeros added to every unit). The pseudo-count keeps
// the biases finite for units that are constant in the data (MNIST's border
// pixels); Salakhutdinov & Murray's code adds 5 ones per 100 cases.
// DataBaseRate applies the pseudo-count this project uses.
func BaseRate(x []uint8, n, X int, alpha float64) ([]float32, error) {
	if X <= 0 {
		return nil, fmt.Errorf("eval: base rate needs X > 0 units (have %d)", X)
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("eval: base-rate pseudo-count %v must be positive and finite", alpha)
	}
	if err := checkData(x, n, X); err != nil {
		return nil, err
	}
	cnt := make([]int, X)
	for r := 0; r < n; r++ {
		for j, v := range x[r*X : (r+1)*X] {
			cnt[j] += int(v)
		}
	}
	d := make([]float32, X)
	for j, c := range cnt {
		p := (float64(c) + alpha) / (float64(n) + 2*alpha)
		d[j] = float32(math.Log(p) - math.Log1p(-p))
	}
	return d, nil
}

// BasePseudoCount is the pseudo-count DataBaseRate adds per training row:
// 0.025 ones and 0.025 zeros to every unit's count for each of the n rows.
const BasePseudoCount = 0.025

// DataBaseRate is the base-rate model every AIS estimate of this project
// uses: BaseRate on the n training rows with the pseudo-count
// BasePseudoCount·n, so that p_j = (count_j + 0.025n)/(1.05n).
func DataBaseRate(x []uint8, n, X int) ([]float32, error) {
	return BaseRate(x, n, X, BasePseudoCount*float64(n))
}
