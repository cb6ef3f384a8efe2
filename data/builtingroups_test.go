package data

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// c4Row is a LIBSVM connect-4 row, label first, with cell k (0-based, UCI
// order a1…g6) in state st[k] ('x', 'b' or 'o'): feature 3k+1 for x, 3k+2
// for b, 3k+3 for o, as LIBSVM encodes it; extra features are added, and
// cell drop left out.
func c4Row(label string, st string, extra []int, drop int) string {
	var f []int
	for k := range 42 {
		if k != drop {
			f = append(f, 3*k+1+strings.IndexByte("xbo", st[k]))
		}
	}
	f = append(f, extra...)
	slices.Sort(f)
	var b strings.Builder
	b.WriteString(label)
	for _, j := range f {
		fmt.Fprintf(&b, " %d:1", j)
	}
	return b.String() + "\n"
}

// c4Split is a split file of connect-4 with the given header Name and
// examples (one string of 126 values each).
func c4Split(name string, examples ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Name: %s\nNumber of examples: %d\nExample size: 126\nHas labels: Yes\nNumber of labels: 3\n\n", name, len(examples))
	for _, e := range examples {
		b.WriteString("Label: 2\n" + e + "\n")
	}
	return b.String()
}

// c4Values is the 126 values of a board (cell k in state st[k]).
func c4Values(st string) string {
	v := make([]string, 126)
	for j := range v {
		v[j] = "0"
	}
	for k := range 42 {
		v[3*k+strings.IndexByte("xbo", st[k])] = "1"
	}
	return strings.Join(v, " ")
}

// empty is the empty board; twoMoves has x on a1 and o on b1 (cells 0 and 6).
var (
	emptyBoard = strings.Repeat("b", 42)
	twoMoves   = "x" + strings.Repeat("b", 5) + "o" + strings.Repeat("b", 35)
)

// TestBuiltinGroupsByHand: the groups of the built-in sets, written out
// from the documented encodings.
func TestBuiltinGroupsByHand(t *testing.T) {
	g, attrs, ok := BuiltinGroups("connect4")
	if !ok || g.Check(126) != nil || g.Len() != 42 || len(attrs) != 42 {
		t.Fatalf("connect-4: %v %v %v", g, attrs, ok)
	}
	for k := range 42 {
		if g.Size(k) != 3 || g[k] != 3*k || !slices.Equal(attrs[k].Values, []string{"x", "b", "o"}) {
			t.Errorf("connect-4 group %d: units %d…, %v", k, g[k], attrs[k])
		}
	}
	// The UCI order: a1…a6 are cells 0…5, b1 is 6, c1 12, g6 41.
	for k, name := range map[int]string{0: "a1", 5: "a6", 6: "b1", 12: "c1", 23: "d6", 41: "g6"} {
		if attrs[k].Name != name {
			t.Errorf("connect-4 group %d is %q, want %q", k, attrs[k].Name, name)
		}
	}
	g, attrs, ok = BuiltinGroups("mushrooms")
	if !ok || g.Check(112) != nil || g.Len() != 21 || attrs[4].Name != "odor" || g[4] != 22 || g.Size(4) != 9 ||
		attrs[14].Name != "veil-type" || g.Size(14) != 1 || attrs[4].Values != nil {
		t.Errorf("mushrooms: %v %v %v", g, attrs, ok)
	}
	g[1], attrs[0].Name = 99, "changed" // the caller's copies
	if g2, a2, _ := BuiltinGroups("mushrooms"); g2[1] != 6 || a2[0].Name != "cap-shape" {
		t.Errorf("BuiltinGroups shares its tables: %v %v", g2, a2[0])
	}
	for _, name := range []string{"mnist", "bas", "x.csv"} {
		if _, _, ok := BuiltinGroups(name); ok {
			t.Errorf("%s has built-in groups", name)
		}
	}
}

// TestOneHotFilesRefused: a LIBSVM file named like mushrooms or connect-4,
// and a split file whose Name is one of them, are read as that set: rows
// that break a group are refused with the line and the group.
func TestOneHotFilesRefused(t *testing.T) {
	good := c4Row("1", emptyBoard, nil, -1) + c4Row("-1", twoMoves, nil, -1)
	// Cell c1 (k = 12, features 37–39) has x and blank, g6 (k = 41) nothing:
	// 42 features on, but not one in each cell.
	twoAndNone := c4Row("0", emptyBoard, []int{37}, 41)
	none := c4Row("0", emptyBoard, nil, 20) // d3, features 61–63
	for _, c := range []struct {
		name, in, want string
	}{
		{"connect-4", good + twoAndNone, "connect-4: line 3: group 12 (c1: features 37–39) has 2 on, want exactly 1: every connect-4 row is one-hot in each of its 42 categorical attributes"},
		{"dir/connect-4.gz", "\n" + good + none, "dir/connect-4.gz: line 4: group 20 (d3: features 61–63) has 0 on"},
		{"connect-4", "1 1:1 2:1\n", "line 1: group 0 (a1: features 1–3) has 2 on"},
		{"connect-4", "1 1:1 200:1\n", "line 1: feature index 200 > number of features 126"},
		{"mushrooms", "1 6:1 8:1 15:1 21:1 29:1 33:1 34:1 37:1 42:1 50:1 53:1 57:1 67:1 76:1 78:1 81:1 84:1 86:1 93:1 103:1 111:1\n" +
			"1 6:1 8:1 15:1 21:1 33:1 34:1 37:1 42:1 50:1 53:1 57:1 67:1 76:1 78:1 81:1 84:1 86:1 93:1 103:1 111:1\n",
			"mushrooms: line 2: group 4 (odor: features 23–31) has 0 on"},
	} {
		for _, b := range [][]byte{[]byte(c.in), gz([]byte(c.in))} {
			_, err := ReadLIBSVM(strings.NewReader(string(b)), c.name, 0)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %.30q:\nerr  %v\nwant %q", c.name, c.in, err, c.want)
			}
		}
	}
	// The same rows in a file named otherwise are plain binary rows.
	s, err := ReadLIBSVM(strings.NewReader(good+twoAndNone), "c4.svm", 126)
	if err != nil || s.Groups != nil || s.N != 3 {
		t.Errorf("c4.svm: %v %v", s, err)
	}
	if _, err := ReadLIBSVM(strings.NewReader(good), "connect-4", 125); err == nil || !strings.Contains(err.Error(), "125 features asked for, but the LIBSVM connect-4 set has 126") {
		t.Errorf("numFeatures: %v", err)
	}
	s, err = ReadLIBSVM(strings.NewReader(good), "connect-4", 0)
	if err != nil || s.Groups.Len() != 42 || len(s.Attributes) != 42 || s.Validate() != nil || !strings.Contains(s.Source, "one-hot in the 42 categorical groups of connect-4") {
		t.Fatalf("good rows: %v %v", s, err)
	}

	// Split files: by their Name, in any case.
	for _, c := range []struct{ in, want string }{
		{c4Split("CONNECT-4", c4Values(emptyBoard), c4Values(twoMoves)), ""},
		{c4Split("connect-4", c4Values(emptyBoard), strings.Replace(c4Values(twoMoves), "1", "0", 1)),
			"toy.data: line 10: example 2: group 0 (a1: values 1–3) has 0 on"},
		{c4Split("Connect-4", strings.Replace(c4Values(emptyBoard), "0", "1", 1)),
			"toy.data: line 8: example 1: group 0 (a1: values 1–3) has 2 on"},
		{strings.Replace(c4Split("CONNECT-4", "0 1"), "Example size: 126", "Example size: 2", 1),
			"toy.data: line 3: header declares examples of size 2, but a split of connect-4 has 126"},
	} {
		s, _, err := ReadSplit(strings.NewReader(c.in), "toy.data")
		if c.want == "" {
			if err != nil || s.Groups.Len() != 42 || s.Attributes[6].Name != "b1" || s.Validate() != nil {
				t.Errorf("good split: %v %v", s, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err  %v\nwant %q", err, c.want)
		}
	}
	// A split file of another Name is plain.
	s, _, err = ReadSplit(strings.NewReader(c4Split("BOARDS", strings.Repeat("1 ", 126))), "b.data")
	if err != nil || s.Groups != nil {
		t.Errorf("BOARDS: %v %v", s, err)
	}
}

// TestPaperSplitSlotsAreTheSet: a file in the place of a paper split is
// read as the set whatever its header's Name says.
func TestPaperSplitSlotsAreTheSet(t *testing.T) {
	bad := c4Split("BOARDS", c4Values(emptyBoard), strings.Replace(c4Values(twoMoves), "1", "0", 1))
	dir := writeFiles(t, map[string]string{})
	os.MkdirAll(filepath.Join(dir, "connect-4"), 0o755)
	os.WriteFile(filepath.Join(dir, "connect-4", "connect-4-train.data"), []byte(bad), 0o644)
	_, _, err := Load("connect-4", Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "connect-4-train.data: line 10: example 2: group 0 (a1: values 1–3) has 0 on") {
		t.Errorf("err = %v", err)
	}
}

// TestLoadSharesGroups: a training file of connect-4 with a test file that
// does not say what it is gives the test set its groups, if its rows fit
// them, and the other way round.
func TestLoadSharesGroups(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"connect-4": c4Row("1", emptyBoard, nil, -1) + c4Row("-1", twoMoves, nil, -1),
		"plain.svm": c4Row("0", twoMoves, nil, -1),
		"bad.svm":   c4Row("0", twoMoves, nil, -1) + c4Row("0", twoMoves, []int{2}, -1),
	})
	p := func(f string) string { return filepath.Join(dir, f) }
	for _, c := range [][2]string{{"connect-4", "plain.svm"}, {"plain.svm", "connect-4"}} {
		tr, te, err := Load(p(c[0]), Options{TestPath: p(c[1]), NumFeatures: 126})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*Set{tr, te} {
			if s.Groups.Len() != 42 || len(s.Attributes) != 42 || s.Validate() != nil {
				t.Errorf("%s: %v", s.Name, s.Groups)
			}
		}
	}
	_, _, err := Load(p("connect-4"), Options{TestPath: p("bad.svm"), NumFeatures: 126})
	if err == nil || !strings.Contains(err.Error(), "bad.svm: example 2: group 0 (a1) has 2 units on, want exactly 1: the rows of") {
		t.Errorf("err = %v", err)
	}
}

// TestAttributesKept: subsets, splits and one-hot labels keep the groups
// and their names; Validate checks the names against the groups.
func TestAttributesKept(t *testing.T) {
	s, err := ReadLIBSVM(strings.NewReader(c4Row("1", emptyBoard, nil, -1)+c4Row("-1", twoMoves, nil, -1)+c4Row("0", twoMoves, nil, -1)), "connect-4", 0)
	if err != nil {
		t.Fatal(err)
	}
	oh, err := s.WithOneHotLabels()
	if err != nil {
		t.Fatal(err)
	}
	tr, te := Split(s, 2, 1)
	for _, u := range []*Set{s.Subset([]int{2, 0}), tr, te, oh} {
		if u.Groups.Len() != 42 || len(u.Attributes) != 42 || u.Attributes[41].Name != "g6" || u.Validate() != nil {
			t.Errorf("%s: %v %v", u.Source, u.Groups, u.Attributes)
		}
	}
	if !strings.Contains(s.String(), "42 categorical groups of 3 units") {
		t.Error(s.String())
	}
	u := s.Subset([]int{0})
	u.Attributes = u.Attributes[:41]
	if err := u.Validate(); err == nil || !strings.Contains(err.Error(), "41 attribute names for 42 groups") {
		t.Errorf("short attributes: %v", err)
	}
	u.Attributes = []Attribute{{Name: "a", Values: []string{"x"}}}
	u.Groups = Groups{0, 126}
	if err := u.Validate(); err == nil || !strings.Contains(err.Error(), "row 0, group 0 (a, units 0…125): 42 units on") {
		t.Errorf("one group: %v", err)
	}
	u.X = make([]uint8, 126)
	u.X[5] = 1
	if err := u.Validate(); err == nil || !strings.Contains(err.Error(), "group 0 (a): 1 values for 126 units") {
		t.Errorf("values: %v", err)
	}
	if err := (&Set{N: 1, D: 1, X: []uint8{1}, Attributes: []Attribute{{Name: "a"}}}).Validate(); err == nil {
		t.Error("attributes without groups passed Validate")
	}
}
