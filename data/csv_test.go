package data

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	comma := "# made by hand\nx, y ,z\n\n1,-2.5, 3e-2\r\n 4 ,5,6\n"
	for _, b := range [][]byte{[]byte(comma), gz([]byte(comma))} {
		s, err := ReadCSV(bytes.NewReader(b), "a.csv")
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 2 || s.D != 3 || !slices.Equal(s.Real, []float32{1, -2.5, 0.03, 4, 5, 6}) || s.Labels != nil || s.Scaling != nil ||
			s.Validate() != nil || s.Source != "CSV a.csv (2×3, comma-separated, header on line 2)" {
			t.Errorf("%+v", s)
		}
	}
	s, err := ReadCSV(strings.NewReader("1 2\t3\n\n4   5 6 \n"), "w.txt")
	if err != nil || !slices.Equal(s.Real, []float32{1, 2, 3, 4, 5, 6}) || s.Source != "CSV w.txt (2×3, whitespace-separated)" {
		t.Errorf("whitespace: %+v %v", s, err)
	}
	// A header without a comma before comma-separated rows.
	s, err = ReadCSV(strings.NewReader("weight\n1,2\n"), "h.csv")
	if err == nil || !strings.Contains(err.Error(), "h.csv: line 2: 2 columns, but the header (line 1) has 1") {
		t.Errorf("header of one column: %v", err)
	}
	s, err = ReadCSV(strings.NewReader("x;y\n1 2\n"), "h.csv")
	if err == nil || !strings.Contains(err.Error(), "line 2: 2 columns, but the header (line 1) has 1") {
		t.Errorf("header of one column: %v", err)
	}
	// One column; a number-free header line.
	s, err = ReadCSV(strings.NewReader("value\n7\n-0\n"), "c.csv")
	if err != nil || s.D != 1 || !slices.Equal(s.Real, []float32{7, 0}) {
		t.Errorf("one column: %+v %v", s, err)
	}
	bad := []struct{ in, want string }{
		{"", "line 0: no rows of numbers"},
		{"# only a comment\n\n", "line 2: no rows of numbers"},
		{"a,b\n", "line 1: no rows of numbers"},
		{"1,2\n3\n", "line 2: 1 columns, want 2 (as on line 1)"},
		{"a,b,c\n1,2\n", "line 2: 2 columns, but the header (line 1) has 3"},
		{"1,2\n3,x\n", "line 2: column 2: \"x\" is not a number"},
		{"1,x\n", "line 1: column 2: \"x\" is not a number"},
		{"1,,3\n", "line 1: column 2: empty field"},
		{"1,2,\n", "line 1: column 3: empty field"},
		{"1 2\n3 NaN\n", "line 2: column 2: \"NaN\" is not a finite number"},
		{"1e999\n", "line 1: column 1: \"1e999\" is out of the float64 range"},
		{"1,2\n1,-1e999\n", "line 2: column 2: \"-1e999\" is out of the float64 range"},
		{"1 2\n3,4\n", "line 2: 1 columns, want 2"},
		{"1 2\n3,4 5\n", "line 2: column 1: \"3,4\" is not a number"},
		{"1,2\n3 4,5\n", "line 2: column 1: \"3 4\" is not a number"},
		{"2\n" + strings.Repeat("9", maxLine+1) + "\n", "line 2: line longer than"},
		// Go's literal syntax is not CSV's: 1_0 is not 10, 0x1p3 not 8.
		{"1,2\n1_0,3\n", "line 2: column 1: \"1_0\" is not a number"},
		{"1\n0x1p3\n", "line 2: column 1: \"0x1p3\" is not a number"},
		{"1,2\n\ufeff3,4\n", "line 2: column 1: \"\\ufeff3\" is not a number"}, // a BOM only starts a file
	}
	// A byte order mark starts the file: dropped before a header and
	// before a first row of numbers alike (which is then not a header).
	for _, in := range []string{"\ufeff5\n6\n", "\ufeffv\n5\n6\n", "\ufeff 5\n6\n"} {
		s, err := ReadCSV(strings.NewReader(in), "bom.csv")
		if err != nil || s.N != 2 || !slices.Equal(s.Real, []float32{5, 6}) {
			t.Errorf("%q: %+v %v, want the rows 5 and 6", in, s, err)
		}
	}
	for _, c := range bad {
		_, err := ReadCSV(strings.NewReader(c.in), "f.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.csv: ") {
			t.Errorf("%.20q: err = %v, want %q", c.in, err, c.want)
		}
	}
}
