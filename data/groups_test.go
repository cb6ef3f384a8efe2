package data

import (
	"strings"
	"testing"
)

func TestGroupsCheck(t *testing.T) {
	for _, c := range []struct {
		g    Groups
		d    int
		want string
	}{
		{Groups{0, 3, 4, 6}, 6, ""},
		{Groups{0, 1}, 1, ""},
		{Groups{0}, 0, "at least 2"},
		{Groups{1, 3}, 3, "starts at unit 1"},
		{Groups{0, 2, 2, 4}, 4, "group 1 is units 2…1"},
		{Groups{0, 2, 4}, 5, "cover 4 units"},
	} {
		err := c.g.Check(c.d)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v.Check(%d) = %v, want %q", c.g, c.d, err, c.want)
		}
	}
	if g := (Groups{0, 3, 4}); g.Len() != 2 || g.Size(0) != 3 || g.Size(1) != 1 {
		t.Errorf("Len/Size of %v", g)
	}
}

// TestGroupsCheckRows names the first row and group with no unit or two
// units on.
func TestGroupsCheckRows(t *testing.T) {
	g := Groups{0, 2, 5}
	ok := []uint8{0, 1, 0, 0, 1, 1, 0, 1, 0, 0}
	if err := g.CheckRows(ok, 2, 5); err != nil {
		t.Fatal(err)
	}
	none := []uint8{0, 1, 0, 0, 1, 1, 0, 0, 0, 0}
	if err := g.CheckRows(none, 2, 5); err == nil || !strings.Contains(err.Error(), "row 1, group 1 (units 2…4): 0 units on") {
		t.Errorf("no unit on: %v", err)
	}
	two := []uint8{1, 1, 0, 0, 1, 1, 0, 1, 0, 0}
	if err := g.CheckRows(two, 2, 5); err == nil || !strings.Contains(err.Error(), "row 0, group 0 (units 0…1): 2 units on") {
		t.Errorf("two units on: %v", err)
	}
	// A set with groups is validated against them, and subsets keep them.
	s := &Set{Name: "s", N: 2, D: 5, X: none, Groups: g}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "row 1, group 1") {
		t.Errorf("Validate: %v", err)
	}
	s.X = ok
	if sub := s.Subset([]int{1}); len(sub.Groups) != 3 || sub.Validate() != nil {
		t.Errorf("Subset lost the groups: %v", sub.Groups)
	}
}
