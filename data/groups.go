package data

import "fmt"

// Groups partitions the data units of each row into categorical
// attributes, each one-hot encoded: group g is units Groups[g] …
// Groups[g+1]−1, and in every row exactly one unit of each group is 1.
// It is stored as offsets, len G+1 for G groups: Groups[0] = 0, strictly
// increasing, and Groups[G] = the number of data units. A group of one
// unit (an attribute with a single value) is allowed: its unit is always 1.
type Groups []int

// Len returns the number of groups.
func (g Groups) Len() int { return max(len(g)-1, 0) }

// Size returns the number of units of group k.
func (g Groups) Size(k int) int { return g[k+1] - g[k] }

// Check validates the offsets for rows of d data units.
func (g Groups) Check(d int) error {
	if len(g) < 2 {
		return fmt.Errorf("data: groups: %d offsets, need at least 2 (one group)", len(g))
	}
	if g[0] != 0 {
		return fmt.Errorf("data: groups: the first group starts at unit %d, want 0", g[0])
	}
	for k := 0; k+1 < len(g); k++ {
		if g[k+1] <= g[k] {
			return fmt.Errorf("data: groups: group %d is units %d…%d (empty or reversed)", k, g[k], g[k+1]-1)
		}
	}
	if last := g[len(g)-1]; last != d {
		return fmt.Errorf("data: groups cover %d units, the rows have %d data units", last, d)
	}
	return nil
}

// CheckRows checks that every row of the binary rows x (n rows of d units,
// row-major; only the first g's last offset units of each row are checked)
// has exactly one unit on in each group; the error names the first row
// (0-based) and group that break it.
func (g Groups) CheckRows(x []uint8, n, d int) error {
	for r := 0; r < n; r++ {
		row := x[r*d : (r+1)*d]
		for k := 0; k < g.Len(); k++ {
			on := 0
			for _, v := range row[g[k]:g[k+1]] {
				on += int(v)
			}
			if on != 1 {
				return fmt.Errorf("row %d, group %d (units %d…%d): %d units on, want exactly 1", r, k, g[k], g[k+1]-1, on)
			}
		}
	}
	return nil
}
