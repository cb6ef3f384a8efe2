package data

import (
	"bytes"
	"strings"
	"testing"
)

// The fuzz targets check that no input makes a reader panic, and that what
// a reader accepts is a valid Set. Seed corpora: testdata/fuzz/<Name>/.

func checkSet(t *testing.T, s *Set, err error) {
	t.Helper()
	if err != nil {
		if !strings.HasPrefix(err.Error(), "in: ") {
			t.Fatalf("error does not name the input: %v", err)
		}
		return
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

func FuzzReadIDX(f *testing.F) {
	f.Add(idxBytes([]uint32{2, 2}, []byte{0, 1, 2, 255}))
	f.Add(gz(idxBytes([]uint32{1, 3}, []byte{9, 8, 7})))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := ReadIDX(bytes.NewReader(b), "in")
		if err != nil {
			return
		}
		n := 1
		for _, d := range x.Dims {
			n *= d
		}
		if n != len(x.Data) {
			t.Fatalf("dims %v, %d bytes", x.Dims, len(x.Data))
		}
		if len(x.Dims) > 1 {
			s := &Set{N: x.Dims[0], D: x.ItemSize(), X: x.Data}
			if _, err := Binarize(s.X, Binarization{Seed: 1}, 1); err != nil {
				t.Fatal(err)
			}
			checkSet(t, s, nil)
		}
	})
}

func FuzzReadLIBSVM(f *testing.F) {
	f.Add([]byte("+1 1:1 3:1\n-1 2:1.0\n"), 0)
	f.Add([]byte("2 5:1\n"), 5)
	f.Fuzz(func(t *testing.T, b []byte, nf int) {
		defer SetMaxFeatures(1 << 12)()
		s, err := ReadLIBSVM(bytes.NewReader(b), "in", nf)
		checkSet(t, s, err)
		if err == nil && nf > 0 && s.D != nf {
			t.Fatalf("D = %d, want %d", s.D, nf)
		}
	})
}

func FuzzReadSplit(f *testing.F) {
	f.Add([]byte(splitGood))
	f.Add([]byte("Name: U\nNumber of examples: 1\nExample size: 2\n\n1 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, h, err := ReadSplit(bytes.NewReader(b), "in")
		checkSet(t, s, err)
		if err == nil && (s.N != h.N || s.D != h.D) {
			t.Fatalf("%d×%d, header %d×%d", s.N, s.D, h.N, h.D)
		}
	})
}

func FuzzReadNPY(f *testing.F) {
	f.Add(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }", make([]byte, 16)))
	f.Add(gz(npyBytes("{'descr': '>f4', 'fortran_order': True, 'shape': (2, 1), }", make([]byte, 8))))
	f.Add(npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2), }", []byte{1, 2, 3, 4}))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadNPY(bytes.NewReader(b), "in")
		checkSet(t, s, err)
		if err == nil && (s.Real == nil || s.X != nil || s.N < 1 || s.D < 1) {
			t.Fatalf("%+v", s)
		}
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("a,b\n1,2.5\n-3,4e2\n"))
	f.Add([]byte("# c\n1 2 3\n\n4 5 6\n"))
	f.Add(gz([]byte("1\n2\n")))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadCSV(bytes.NewReader(b), "in")
		checkSet(t, s, err)
		if err == nil && (s.Real == nil || s.X != nil || s.N < 1 || s.D < 1) {
			t.Fatalf("%+v", s)
		}
	})
}

// FuzzReadOneHot reads the input as a LIBSVM file named connect-4 or as
// a split file (one-hot when its Name says so): what a reader accepts as
// connect-4 has its groups, which Validate checks on every row.
func FuzzReadOneHot(f *testing.F) {
	f.Add([]byte(c4Row("1", emptyBoard, nil, -1)+c4Row("-1", twoMoves, nil, -1)), false)
	f.Add([]byte(c4Row("0", emptyBoard, []int{37}, 41)), false)
	f.Add([]byte(c4Split("CONNECT-4", c4Values(twoMoves))), true)
	f.Add([]byte(c4Split("mushrooms", c4Values(twoMoves))), true)
	f.Fuzz(func(t *testing.T, b []byte, split bool) {
		var (
			s   *Set
			err error
		)
		name := "in/connect-4"
		if split {
			name = "in"
			s, _, err = ReadSplit(bytes.NewReader(b), name)
		} else {
			s, err = ReadLIBSVM(bytes.NewReader(b), name, 0)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), name+": ") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		if !split && (s.Groups.Len() != 42 || s.D != 126) {
			t.Fatalf("connect-4 read without its groups: %v", s)
		}
	})
}

// FuzzReadCategorical reads the input as a CSV or .npy training file of
// integer-coded categorical columns (categories as the flag value spec
// says) and the second input as its test file: whatever is accepted is a
// binary set whose groups are one column each, one unit on per group.
func FuzzReadCategorical(f *testing.F) {
	f.Add([]byte(catTrain), []byte(catTest), "data", 2, false)
	f.Add([]byte("1,2\n3,4\n"), []byte("0,0\n"), "5,5", 0, false)
	f.Add([]byte("0 1 1\n1 0 0\n"), []byte("1 1 1\n"), "2", -1, false)
	f.Add(npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2), }", []byte{1, 2, 3, 4}),
		npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2), }", []byte{1, 2}), "data", 0, true)
	f.Fuzz(func(t *testing.T, train, test []byte, spec string, labelColumn int, npy bool) {
		defer SetMaxFeatures(1 << 12)()
		c, err := ParseCategorical(spec)
		if err != nil || c == nil {
			return
		}
		format := FormatCSV
		if npy {
			format = FormatNPY
		}
		var files []*catFile
		for i, b := range [][]byte{train, test} {
			name := []string{"tr", "te"}[i]
			in, err := sniff(bytes.NewReader(b), name, int64(len(b)))
			if err != nil {
				return
			}
			f, err := readCat(in, format, labelColumn)
			if err != nil {
				if !strings.HasPrefix(err.Error(), name+": ") && !strings.HasPrefix(err.Error(), "data: "+name+": ") {
					t.Fatalf("error does not name the input: %v", err)
				}
				return
			}
			files = append(files, f)
		}
		cols := files[0].s.D
		tr, te, err := categoricalSets(c, files...)
		if err != nil {
			if !strings.Contains(err.Error(), "tr") && !strings.Contains(err.Error(), "te") {
				t.Fatalf("error names no input: %v", err)
			}
			return
		}
		for _, s := range []*Set{tr, te} {
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if s.Real != nil || s.Groups.Len() != cols || len(s.Attributes) != s.Groups.Len() || s.N != len(s.X)/max(s.D, 1) {
				t.Fatalf("%+v", s)
			}
			for i := 0; i < s.N; i++ {
				n := 0
				for _, v := range s.Row(i) {
					n += int(v)
				}
				if n != s.Groups.Len() {
					t.Fatalf("row %d has %d units on for %d groups", i, n, s.Groups.Len())
				}
			}
		}
	})
}

// FuzzReadAny goes through format detection and gzip sniffing like LoadFile.
func FuzzReadAny(f *testing.F) {
	f.Add(gz([]byte(splitGood)))
	f.Add([]byte("1 1:1\n"))
	f.Add(npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1), }", make([]byte, 4)))
	f.Fuzz(func(t *testing.T, b []byte) {
		defer SetMaxFeatures(1 << 12)()
		in, err := sniff(bytes.NewReader(b), "in", int64(len(b)))
		if err != nil {
			return
		}
		var head bytes.Buffer
		format, err := detect(teeReader{in.r, &head}, "in")
		if err != nil {
			return
		}
		// Re-read from the start: the raw bytes again.
		var s *Set
		switch format {
		case FormatIDX:
			x, err := ReadIDX(bytes.NewReader(b), "in")
			if err == nil && len(x.Dims) > 1 {
				s = &Set{N: x.Dims[0], D: x.ItemSize(), X: x.Data}
				_, err = Binarize(s.X, Binarization{Method: Threshold}, 0)
			}
			if err != nil || s == nil {
				return
			}
		case FormatLIBSVM:
			s, err = ReadLIBSVM(bytes.NewReader(b), "in", 0)
		case FormatSplit:
			s, _, err = ReadSplit(bytes.NewReader(b), "in")
		case FormatNPY:
			s, err = ReadNPY(bytes.NewReader(b), "in")
		}
		checkSet(t, s, err)
	})
}

type teeReader struct {
	r interface{ Read([]byte) (int, error) }
	w *bytes.Buffer
}

func (t teeReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.w.Write(p[:n])
	return n, err
}
