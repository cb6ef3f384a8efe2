package engine

import (
	"math"
	"testing"
)

// TestConnectivity: degrees and density of a mask worked out by hand,
// the label row not counted.
func TestConnectivity(t *testing.T) {
	// X = 4 (3 data units + 1 label unit), H = 3.
	m := &Model{X: 4, H: 3, DataUnits: 3, A: []float32{
		1, 0, 1,
		1, 0, 0,
		1, 1, 0,
		1, 1, 1, // label row: not counted
	}}
	if deg := m.Degrees(); deg[0] != 3 || deg[1] != 1 || deg[2] != 1 {
		t.Errorf("degrees %v, want [3 1 1]", deg)
	}
	c := m.Connectivity()
	if c.Active != 5 || c.DegreeMin != 1 || c.DegreeMax != 3 || math.Abs(c.DegreeMean-5.0/3) > 1e-12 || math.Abs(c.Density-5.0/9) > 1e-12 {
		t.Errorf("connectivity %+v, want 5 active, degrees 1…3, mean 5/3, density 5/9", c)
	}
}
