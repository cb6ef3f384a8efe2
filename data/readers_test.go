package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// idxBytes makes an IDX file of unsigned bytes.
func idxBytes(dims []uint32, data []byte) []byte {
	b := []byte{0, 0, 8, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, data...)
}

func TestReadIDX(t *testing.T) {
	good := idxBytes([]uint32{2, 2, 3}, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 255})
	for _, b := range [][]byte{good, gz(good)} {
		x, err := ReadIDX(bytes.NewReader(b), "x.idx")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.Dims, []int{2, 2, 3}) || x.ItemSize() != 6 || x.Data[11] != 255 {
			t.Errorf("%v", x)
		}
	}
	// A reader without Len (size unknown) goes through the growing path.
	x, err := ReadIDX(struct{ *bytes.Reader }{bytes.NewReader(good)}, "x.idx")
	if err != nil || len(x.Data) != 12 {
		t.Fatal(x, err)
	}
	bad := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "byte offset 0: empty file"},
		{"short header", []byte{0, 0}, "byte offset 2: truncated IDX header"},
		{"magic", []byte{1, 0, 8, 1, 0, 0, 0, 1, 0}, "byte offset 0: bad IDX magic"},
		{"type", []byte{0, 0, 0x0d, 1, 0, 0, 0, 1, 0}, "unsupported IDX element type 0x0d"},
		{"no dims", []byte{0, 0, 8, 0}, "IDX with 0 dimensions"},
		{"short dims", []byte{0, 0, 8, 2, 0, 0, 0, 1}, "byte offset 8: truncated IDX header"},
		{"zero dim", idxBytes([]uint32{3, 0}, nil), "dimension 1 is 0"},
		{"huge", idxBytes([]uint32{1 << 31, 1 << 31}, nil), "declare more than"},
		{"truncated", idxBytes([]uint32{2, 3}, []byte{1, 2, 3, 4}), "byte offset 16: truncated: header [2 3] declares 6 data bytes, file ends after 4"},
		{"trailing", idxBytes([]uint32{2}, []byte{1, 2, 3}), "byte offset 10: unexpected data after"},
		{"gzip truncated", gz(good)[:30], "x.idx"},
	}
	for _, c := range bad {
		_, err := ReadIDX(bytes.NewReader(c.b), "x.idx")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.idx: ") {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestReadMNISTFiles(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "a-images-idx3-ubyte")
	lab := filepath.Join(dir, "a-labels-idx1-ubyte")
	os.WriteFile(img, gz(idxBytes([]uint32{3, 2, 2}, []byte{0, 255, 0, 255, 200, 0, 0, 0, 0, 0, 0, 255})), 0o644)
	os.WriteFile(lab, idxBytes([]uint32{3}, []byte{1, 0, 2}), 0o644)
	s, err := LoadFile(img, Options{}) // format detected through gzip; labels found by name
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 3 || s.D != 4 || s.NumClasses != 3 || !slices.Equal(s.Labels, []int32{1, 0, 2}) {
		t.Fatalf("%v", s)
	}
	if !slices.Equal(s.Row(0), []uint8{0, 1, 0, 1}) || !slices.Equal(s.Row(2), []uint8{0, 0, 0, 1}) {
		t.Errorf("rows %v", s.X)
	}
	os.WriteFile(lab, idxBytes([]uint32{2}, []byte{1, 0}), 0o644)
	if _, err := ReadMNIST(img, lab, Binarization{}, 1); err == nil || !strings.Contains(err.Error(), "2 labels, but") {
		t.Errorf("label count mismatch: %v", err)
	}
	if _, err := ReadMNIST(lab, "", Binarization{}, 1); err == nil || !strings.Contains(err.Error(), "labels file") {
		t.Errorf("labels as images: %v", err)
	}
	if _, err := ReadMNIST(img, "", Binarization{Method: "magic"}, 1); err == nil {
		t.Error("unknown method accepted")
	}
}

func TestReadLIBSVM(t *testing.T) {
	in := "+1 1:1 3:1\n-1 2:1.0 3:0\n\n0 # a comment\n1 4:1 \r\n"
	for _, b := range [][]byte{[]byte(in), gz([]byte(in))} {
		s, err := ReadLIBSVM(bytes.NewReader(b), "f.svm", 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 4 || s.D != 4 || s.NumClasses != 3 || !slices.Equal(s.ClassNames, []string{"-1", "0", "1"}) ||
			!slices.Equal(s.Labels, []int32{2, 0, 1, 2}) ||
			!slices.Equal(s.X, []uint8{1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}) {
			t.Fatalf("%v %v", s, s.X)
		}
	}
	s, err := ReadLIBSVM(strings.NewReader(in), "f.svm", 6)
	if err != nil || s.D != 6 {
		t.Fatal(s, err)
	}
	bad := []struct{ in, want string }{
		{"", "line 0: no examples"},
		{"\n\n", "line 2: no examples"},
		{"a 1:1\n", "line 1: label \"a\" is not a number"},
		{"1 1:1\nNaN 1:1\n", "line 2: label"},
		{"1 1:1\n1 1\n", "line 2: \"1\" is not index:value"},
		{"1 0:1\n", "line 1: feature index 0 < 1"},
		{"1 x:1\n", "line 1: bad feature index"},
		{"1 2:1 2:1\n", "line 1: feature index 2 after 2"},
		{"1 3:1 2:1\n", "line 1: feature index 2 after 3"},
		{"1 1:1\n1 9:1\n", "line 2: feature index 9 > number of features 6"},
		{"1 1:0.5\n", "line 1: feature 1 has value \"0.5\""},
		{"1 1:2\n", "want 0 or 1"},
		{"1 qid:3 1:1\n", "bad feature index \"qid\""},
	}
	if _, err := ReadLIBSVM(strings.NewReader("1 99999999:1\n"), "f.svm", 0); err == nil || !strings.Contains(err.Error(), "line 1: feature index 99999999 > limit") {
		t.Errorf("limit: %v", err)
	}
	for _, c := range bad {
		_, err := ReadLIBSVM(strings.NewReader(c.in), "f.svm", 6)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.svm: ") {
			t.Errorf("%q: err = %v, want %q", c.in, err, c.want)
		}
	}
}

const splitGood = `Name: TOY
Split: train set
Number of examples: 3
Example size: 4
Has labels: Yes
Number of labels: 2
Data shuffled with seed: 812

Label: 1
0 1 1 0 
Label: 0
1 1 1 1
Label: 1
0	0 0 0
`

func TestReadSplit(t *testing.T) {
	for _, b := range [][]byte{[]byte(splitGood), gz([]byte(splitGood))} {
		s, h, err := ReadSplit(bytes.NewReader(b), "toy.data")
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 3 || s.D != 4 || s.NumClasses != 2 || !slices.Equal(s.Labels, []int32{1, 0, 1}) ||
			!slices.Equal(s.X, []uint8{0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0}) || h.Name != "TOY" || h.ShuffleSeed != "812" {
			t.Fatalf("%v %v %+v", s, s.X, h)
		}
		if !strings.Contains(s.Source, "seed 812") {
			t.Error(s.Source)
		}
	}
	unl := "Name: U\nNumber of examples: 2\nExample size: 2\nHas labels: No\n\n1 0\n0 1\n"
	s, _, err := ReadSplit(strings.NewReader(unl), "u.data")
	if err != nil || s.Labels != nil || s.N != 2 {
		t.Fatal(s, err)
	}
	rep := func(old, new string) string { return strings.Replace(splitGood, old, new, 1) }
	bad := []struct{ in, want string }{
		{"", "line 1: empty file"},
		{"\nName: X\n", "line 1: blank line before the header"},
		{"Name: X\nNumber of examples: 1\n", "line 2: file ends in the header"},
		{rep("Split: train set", "Split train set"), "line 2: header line"},
		{rep("Number of examples: 3", "Number of examples: three"), "line 3: header \"Number of examples\""},
		{rep("Example size: 4", "Name: again"), "line 4: header key \"Name\" repeated (first on line 1)"},
		{rep("Example size: 4\n", ""), "header lacks \"Example size\""},
		{rep("Has labels: Yes", "Has labels: maybe"), "line 5: header \"Has labels\""},
		{rep("Number of labels: 2\n", ""), "lacks \"Number of labels\""},
		{rep("Number of examples: 3", "Number of examples: 0"), "declares 0 examples"},
		{rep("Number of examples: 3", "Number of examples: 4"), "line 14: file ends after 3 examples, header says 4"},
		{rep("Number of examples: 3", "Number of examples: 2"), "line 13: more examples than the header's 2"},
		{rep("Label: 0", "Label: 2"), "line 11: label \"2\" is not an integer in 0..1"},
		{rep("Label: 0\n", ""), "line 11: want \"Label: k\" before example 2"},
		{rep("1 1 1 1", "1 1 1"), "line 12: example 2 has 3 values, header says 4"},
		{rep("1 1 1 1", "1 1 1 1 0"), "line 12: example 2 has more than 4 values"},
		{rep("1 1 1 1", "1 1 2 1"), "line 12: column 5: example 2: unexpected \"2\""},
		{rep("1 1 1 1", "1 1 11 1"), "line 12: column 6"},
		{rep("1 1 1 1", "1,1,1,1"), "line 12: column 2"},
		{strings.TrimSuffix(splitGood, "0\t0 0 0\n"), "file ends after a label line"},
		{rep("Number of examples: 3", "Number of examples: 99999999999"), "too large"},
		// A class name is allocated per declared label before any example:
		// 9·10¹⁷ of them would be a panic (makeslice), 2^16 + 1 is past the cap.
		{rep("Number of labels: 2", "Number of labels: 900000000000000000"), "line 6: Number of labels is 900000000000000000 (want 1 to 65536)"},
		{rep("Number of labels: 2", "Number of labels: 65537"), "line 6: Number of labels is 65537 (want 1 to 65536)"},
	}
	for _, c := range bad {
		_, _, err := ReadSplit(strings.NewReader(c.in), "toy.data")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "toy.data: ") {
			t.Errorf("%q:\nerr = %v\nwant %q", c.want, err, c.want)
		}
	}
}

func TestDetectFormat(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"a": {idxBytes([]uint32{1, 2}, []byte{3, 4}), FormatIDX},
		"b": {gz([]byte(splitGood)), FormatSplit},
		"c": {[]byte("1 1:1\n"), FormatLIBSVM},
		"d": {gz([]byte("-1 1:1\n")), FormatLIBSVM},
		// .npy by its magic whatever the name; CSV by the name.
		"e":        {npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", []byte{0, 0, 0x80, 0x3f}), FormatNPY},
		"f.txt.gz": {gz(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", []byte{0, 0, 0x80, 0x3f})), FormatNPY},
		"g.csv":    {[]byte("Name: a,b\n1,2\n"), FormatCSV},
		"h.TSV.gz": {gz([]byte("1\t2\n")), FormatCSV},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, c.b, 0o644)
		if got, err := DetectFormat(p); err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", name, got, err, c.want)
		}
		if _, err := LoadFile(p, Options{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A name ending in .npy is read as .npy, and its content must be one.
	os.WriteFile(filepath.Join(dir, "i.npy"), []byte("1 1:1\n"), 0o644)
	if f, err := DetectFormat(filepath.Join(dir, "i.npy")); f != FormatNPY || err != nil {
		t.Errorf("i.npy: %q %v", f, err)
	}
	if _, err := LoadFile(filepath.Join(dir, "i.npy"), Options{}); err == nil || !strings.Contains(err.Error(), "bad .npy magic") {
		t.Errorf("i.npy: %v", err)
	}
	if _, err := LoadFile(filepath.Join(dir, "c"), Options{Format: FormatCSV}); err == nil || !strings.Contains(err.Error(), "line 1: column 2: \"1:1\" is not a number") {
		t.Errorf("LIBSVM read as CSV: %v", err)
	}
	p := filepath.Join(dir, "empty")
	os.WriteFile(p, nil, 0o644)
	if _, err := DetectFormat(p); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty: %v", err)
	}
	if _, err := LoadFile(filepath.Join(dir, "c"), Options{Format: "xls"}); err == nil {
		t.Error("unknown format accepted")
	}
	// Load with a path and a test path.
	tr, te, err := Load(filepath.Join(dir, "c"), Options{TestPath: filepath.Join(dir, "d")})
	if err != nil || tr.N != 1 || te.N != 1 {
		t.Errorf("%v %v %v", tr, te, err)
	}
	if _, _, err := Load("no-such-set", Options{}); err == nil || !strings.Contains(err.Error(), "neither a known data set") {
		t.Errorf("unknown name: %v", err)
	}
}
