package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseCategorical(t *testing.T) {
	for _, c := range []struct {
		in   string
		want *Categorical
		back string
	}{
		{"", nil, ""},
		{"data", &Categorical{}, "data"},
		{"3", &Categorical{Size: 3}, "3"},
		{" 3, 4,2 ", &Categorical{Sizes: []int{3, 4, 2}}, "3,4,2"},
		{"1,1", &Categorical{Sizes: []int{1, 1}}, "1,1"},
	} {
		got, err := ParseCategorical(c.in)
		if err != nil || (got == nil) != (c.want == nil) || (got != nil && (got.Size != c.want.Size || !slices.Equal(got.Sizes, c.want.Sizes))) || got.String() != c.back {
			t.Errorf("%q: %+v %v", c.in, got, err)
		}
	}
	for _, in := range []string{"0", "-2", "x", "3,,4", "3,0", "2.5", "data,3", "1048577"} {
		if c, err := ParseCategorical(in); err == nil {
			t.Errorf("%q: %+v", in, c)
		}
	}
	for _, c := range []Categorical{{Size: -1}, {Size: 2, Sizes: []int{2}}, {Sizes: []int{}}, {Sizes: []int{2, 0}}} {
		if c.Validate() == nil {
			t.Errorf("%+v passed Validate", c)
		}
	}
}

// The hand-made files of TestCategoricalCSVByHand: the label is column 2;
// colour takes the values 3, 7, 12 and size 0, 1, 2 in the training file.
const (
	catTrain = "colour, label ,size\n3,1,0\n7,0,2\n\n3,1,-0\n12,0,1\n"
	catTest  = "7 1 1\n# a comment\n12 0 0\n"
)

func TestCategoricalCSVByHand(t *testing.T) {
	dir := writeFiles(t, map[string]string{"train.csv": catTrain, "test.csv": catTest, "bad.csv": "1,2\n2,3\n", "unseen.csv": "3 1 0\n\n7 5 1\n", "between.csv": "# 5 lies between 3 and 7\n5,1,0\n"})
	p := func(f string) string { return filepath.Join(dir, f) }
	train, test, err := Load(p("train.csv"), Options{Categorical: &Categorical{}, LabelColumn: 2, TestPath: p("test.csv")})
	if err != nil {
		t.Fatal(err)
	}
	// colour 3, 7, 12 → units 0, 1, 2; size 0, 1, 2 → units 3, 4, 5.
	wantTrain := []uint8{
		1, 0, 0, 1, 0, 0,
		0, 1, 0, 0, 0, 1,
		1, 0, 0, 1, 0, 0,
		0, 0, 1, 0, 1, 0,
	}
	wantTest := []uint8{0, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0}
	if !slices.Equal(train.X, wantTrain) || !slices.Equal(test.X, wantTest) {
		t.Errorf("train %v\ntest %v", train.X, test.X)
	}
	wantAttrs := []Attribute{{Name: "colour", Values: []string{"3", "7", "12"}}, {Name: "size", Values: []string{"0", "1", "2"}}}
	for _, s := range []*Set{train, test} {
		if s.D != 6 || s.Real != nil || !slices.Equal(s.Groups, Groups{0, 3, 6}) || s.Validate() != nil ||
			!slices.EqualFunc(s.Attributes, wantAttrs, func(a, b Attribute) bool { return a.Name == b.Name && slices.Equal(a.Values, b.Values) }) ||
			!strings.Contains(s.Source, "categorical columns one-hot (6 units), categories from "+p("train.csv")+": colour {3,7,12} size {0,1,2}") {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}
	if !slices.Equal(train.Labels, []int32{1, 0, 1, 0}) || !slices.Equal(test.Labels, []int32{1, 0}) || !slices.Equal(train.ClassNames, []string{"0", "1"}) {
		t.Errorf("labels %v %v %v", train.Labels, test.Labels, train.ClassNames)
	}

	// Stated: 13 colours (0…12) and 3 sizes; the groups are 0–12 and 13–15.
	train, err = LoadFile(p("train.csv"), Options{Categorical: &Categorical{Sizes: []int{13, 3}}, LabelColumn: 2})
	if err != nil {
		t.Fatal(err)
	}
	on := func(s *Set, i int) (u []int) {
		for j, v := range s.Row(i) {
			if v == 1 {
				u = append(u, j)
			}
		}
		return u
	}
	if !slices.Equal(train.Groups, Groups{0, 13, 16}) || !slices.Equal(on(train, 1), []int{7, 15}) || !slices.Equal(on(train, 3), []int{12, 14}) ||
		train.Attributes[0].Values[12] != "12" || len(train.Attributes[1].Values) != 3 || !strings.Contains(train.Source, "categories 0…K−1 stated, K = 13,3") {
		t.Errorf("stated: %v %v %+v", train.Groups, train.X, train)
	}
	// Without the label column it is a categorical column of its own.
	train, err = LoadFile(p("train.csv"), Options{Categorical: &Categorical{Size: 13}})
	if err != nil || !slices.Equal(train.Groups, Groups{0, 13, 26, 39}) || train.Attributes[1].Name != "label" || train.Labels != nil {
		t.Errorf("no label column: %v %v", train, err)
	}

	bad := []struct {
		name string
		opts Options
		want string
	}{
		{"train.csv", Options{Categorical: &Categorical{Size: 3}, LabelColumn: 2}, "train.csv: line 2: column 1: value 3 is outside the stated categories 0…2"},
		{"train.csv", Options{Categorical: &Categorical{Sizes: []int{13, 2}}, LabelColumn: 2}, "train.csv: line 3: column 3: value 2 is outside the stated categories 0…1"},
		{"train.csv", Options{Categorical: &Categorical{Sizes: []int{13, 3}}}, "categories stated for 2 columns, but the file has 3 (without the label column)"},
		{"train.csv", Options{Categorical: &Categorical{}, LabelColumn: 3, TestPath: p("unseen.csv")}, "unseen.csv: line 3: column 2: value 5 is not among the 2 categories of the column in the training file"},
		{"train.csv", Options{Categorical: &Categorical{}, LabelColumn: 2, TestPath: p("between.csv")}, "between.csv: line 2: column 1: value 5 is not among the 3 categories"},
		{"train.csv", Options{Categorical: &Categorical{}, LabelColumn: 2, TestPath: p("bad.csv")}, "has 2 categorical columns but " + p("bad.csv") + " has 1"},
		{"train.csv", Options{Categorical: &Categorical{}, Real: RealUnit}, "categorical columns are one-hot binary units; real-valued mode \"unit\""},
		{"train.csv", Options{Categorical: &Categorical{Size: -1}}, "-1 categories"},
	}
	for _, c := range bad {
		_, _, err := Load(p(c.name), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v:\nerr  %v\nwant %q", c.opts, err, c.want)
		}
	}
	for _, in := range []struct{ csv, want string }{
		{"1,2\n3,2.5\n", "f.csv: line 2: column 2: 2.5 is not an integer category code"},
		{"a\n\n1\n1e300\n", "f.csv: line 4: column 1: 1e+300 is not an integer category code (an integer of magnitude below 2⁵³)"},
		{"9007199254740992\n", "line 1: column 1: 9.007199254740992e+15 is not an integer"},
		{"1\nNaN\n", "f.csv: line 2: column 1: \"NaN\" is not a finite number"},
	} {
		dir := writeFiles(t, map[string]string{"f.csv": in.csv})
		_, err := LoadFile(filepath.Join(dir, "f.csv"), Options{Categorical: &Categorical{}})
		if err == nil || !strings.Contains(err.Error(), in.want) {
			t.Errorf("%q:\nerr  %v\nwant %q", in.csv, err, in.want)
		}
	}
	// The largest code that is exact, and its negative.
	dir = writeFiles(t, map[string]string{"f.csv": "9007199254740991\n-9007199254740991\n"})
	s, err := LoadFile(filepath.Join(dir, "f.csv"), Options{Categorical: &Categorical{}})
	if err != nil || !slices.Equal(s.Attributes[0].Values, []string{"-9007199254740991", "9007199254740991"}) {
		t.Errorf("2⁵³−1: %v %v", s, err)
	}
}

// TestCategoricalRefused: other formats, built-in sets and sizes beyond
// the limits are refused before anything is allocated.
func TestCategoricalRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{"f.svm": "1 1:1\n", "one.csv": strings.Repeat("0\n", 4097), "two.csv": "0,0\n"})
	p := func(f string) string { return filepath.Join(dir, f) }
	for _, c := range []struct {
		name string
		c    Categorical
		want string
	}{
		{p("f.svm"), Categorical{}, "categorical columns are read from .npy and CSV files, not libsvm files"},
		{"mushrooms", Categorical{}, "data: mushrooms: categorical columns apply to .npy and CSV files"},
		{"mnist", Categorical{}, "data: mnist: categorical columns apply"},
		// 4097 rows of 2²⁰ units are more than 2³² bytes.
		{p("one.csv"), Categorical{Size: 1 << 20}, "4097 rows of 1048576 one-hot units are more than 4294967296 bytes"},
		{p("two.csv"), Categorical{Sizes: []int{1 << 20, 1}}, "more than 1048576 one-hot units (2 columns so far)"},
	} {
		_, _, err := Load(c.name, Options{Categorical: &c.c})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v:\nerr  %v\nwant %q", filepath.Base(c.name), c.c, err, c.want)
		}
	}
}

// TestCategoricalNPY: a .npy of little-endian int32 in Fortran order, the
// last column the label; a float64 file with a fraction is refused with its
// row and column.
func TestCategoricalNPY(t *testing.T) {
	// Rows (5, 9, 1), (5, 2, 0), (−1, 9, 1), column by column.
	var data []byte
	for _, v := range []int32{5, 5, -1, 9, 2, 9, 1, 0, 1} {
		data = binary.LittleEndian.AppendUint32(data, uint32(v))
	}
	b := npyBytes("{'descr': '<i4', 'fortran_order': True, 'shape': (3, 3), }", data)
	dir := writeFiles(t, map[string]string{"a.npy": string(b)})
	s, err := LoadFile(filepath.Join(dir, "a.npy"), Options{Categorical: &Categorical{}, LabelColumn: -1})
	if err != nil {
		t.Fatal(err)
	}
	// column 1: −1, 5 → units 0, 1; column 2: 2, 9 → units 2, 3.
	if !slices.Equal(s.X, []uint8{0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1}) || s.Attributes[0].Name != "column 1" ||
		!slices.Equal(s.Attributes[0].Values, []string{"-1", "5"}) || !slices.Equal(s.Labels, []int32{1, 0, 1}) {
		t.Errorf("%+v", s)
	}
	// 0.5 as float64 (0x3fe0000000000000) at row 2, column 2 of a 2×2 C-order array.
	f8 := make([]byte, 32)
	binary.LittleEndian.PutUint64(f8[24:], 0x3fe0000000000000)
	in, err := sniff(bytes.NewReader(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", f8)), "b.npy", -1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := readCat(in, FormatNPY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := categoricalSets(&Categorical{}, f); err == nil || !errors.Is(err, ErrCategories) ||
		err.Error() != "b.npy: row 2: column 2: 0.5 is not an integer category code (an integer of magnitude below 2⁵³): the data do not fit the categories" {
		t.Errorf("err = %v", err)
	}
}
