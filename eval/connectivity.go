package eval

import (
	"fmt"
	"math"
)

// Connectivity summarises a connection mask over the data units.
type Connectivity struct {
	// Density is the fraction of present connections between the D data
	// visible units and the H hidden units (label units excluded).
	Density float64
	// MinDegree, MeanDegree and MaxDegree summarise the hidden units'
	// degrees: the number of data visible units each is connected to.
	MinDegree  int
	MeanDegree float64
	MaxDegree  int
}

// HiddenDegrees returns, for each hidden unit i, the number of data visible
// units j < D with mask[j*H+i] ≠ 0. The mask is X×H in the layout of
// Model.C; rows D..X−1 (label units) are not counted.
func HiddenDegrees(mask []float32, X, H, D int) ([]int, error) {
	if X <= 0 || H <= 0 || D <= 0 || D > X {
		return nil, fmt.Errorf("eval: connectivity of a %d×%d mask with %d data units; want X, H > 0 and 0 < D ≤ X", X, H, D)
	}
	if X > math.MaxInt/H || len(mask) != X*H {
		return nil, fmt.Errorf("eval: mask has length %d, want X·H = %d·%d", len(mask), X, H)
	}
	deg := make([]int, H)
	for j := 0; j < D; j++ {
		for i, v := range mask[j*H : (j+1)*H] {
			if v != 0 {
				deg[i]++
			}
		}
	}
	return deg, nil
}

// ConnectivityStats returns the density over data connections and the
// hidden-unit degree min, mean and max (see HiddenDegrees).
func ConnectivityStats(mask []float32, X, H, D int) (Connectivity, error) {
	deg, err := HiddenDegrees(mask, X, H, D)
	if err != nil {
		return Connectivity{}, err
	}
	c := Connectivity{MinDegree: deg[0], MaxDegree: deg[0]}
	total := 0
	for _, d := range deg {
		total += d
		c.MinDegree = min(c.MinDegree, d)
		c.MaxDegree = max(c.MaxDegree, d)
	}
	c.MeanDegree = float64(total) / float64(H)
	c.Density = float64(total) / (float64(D) * float64(H))
	return c, nil
}
