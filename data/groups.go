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
func (g Groups) CheckRows(x []uint8, n, d int) error { return g.checkRows(x, n, d, nil) }

// checkRows is CheckRows, naming the group's attribute when attrs does.
func (g Groups) checkRows(x []uint8, n, d int, attrs []Attribute) error {
	for r := 0; r < n; r++ {
		if k, on := g.broken(x[r*d : (r+1)*d]); k >= 0 {
			name := ""
			if k < len(attrs) && attrs[k].Name != "" {
				name = attrs[k].Name + ", "
			}
			return fmt.Errorf("row %d, group %d (%sunits %d…%d): %d units on, want exactly 1", r, k, name, g[k], g[k+1]-1, on)
		}
	}
	return nil
}

// broken returns the first group of row that does not have exactly one
// unit on, and how many it has; k is −1 when every group has one.
func (g Groups) broken(row []uint8) (k, on int) {
	for k := 0; k < g.Len(); k++ {
		on := 0
		for _, v := range row[g[k]:g[k+1]] {
			on += int(v)
		}
		if on != 1 {
			return k, on
		}
	}
	return -1, 0
}

// Attribute names the categorical attribute of one group of [Groups]: Name
// is the attribute ("odor", "a1", a CSV column's header), and Values, when
// not nil, is the category each unit of the group stands for, in unit
// order ("x", "b", "o" for a Connect-4 cell; "3", "7", "12" for the codes
// of an integer column). Values is nil where the source does not say.
type Attribute struct {
	Name   string   `json:"name"`
	Values []string `json:"values,omitempty"`
}

// attrName is " (name)" of group k's attribute, or "" when attrs does not
// name it.
func attrName(attrs []Attribute, k int) string {
	if k < len(attrs) && attrs[k].Name != "" {
		return " (" + attrs[k].Name + ")"
	}
	return ""
}

// checkAttributes checks that attrs name the groups g: one per group, and
// Values (when not nil) one per unit of its group.
func checkAttributes(attrs []Attribute, g Groups) error {
	if g == nil {
		return fmt.Errorf("%d attribute names without groups", len(attrs))
	}
	if len(attrs) != g.Len() {
		return fmt.Errorf("%d attribute names for %d groups", len(attrs), g.Len())
	}
	for k, a := range attrs {
		if a.Values != nil && len(a.Values) != g.Size(k) {
			return fmt.Errorf("group %d (%s): %d values for %d units", k, a.Name, len(a.Values), g.Size(k))
		}
	}
	return nil
}

// Describe is the groups in words: "42 categorical groups of 3 units", or
// "21 categorical groups of 1 to 12 units, 112 in all".
func (g Groups) Describe() string {
	n := g.Len()
	if n == 0 {
		return "no categorical groups"
	}
	lo, hi := g.Size(0), g.Size(0)
	for k := 1; k < n; k++ {
		lo, hi = min(lo, g.Size(k)), max(hi, g.Size(k))
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	if lo == hi && lo == 1 {
		return fmt.Sprintf("%d categorical group%s of 1 unit", n, plural)
	}
	if lo == hi {
		return fmt.Sprintf("%d categorical group%s of %d units", n, plural, lo)
	}
	return fmt.Sprintf("%d categorical group%s of %d to %d units, %d in all", n, plural, lo, hi, g[n])
}
