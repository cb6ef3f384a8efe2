package data

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The hand-made training matrix of TestStandardiseByHand and its statistics,
// worked out on paper:
//
//	column 0: 1 3 1 3   mean 2, squares 1+1+1+1 = 4, σ² = 4/4 = 1
//	column 1: 5 5 5 5   constant: offset 5, scale 1
//	column 2: 0 0 4 4   mean 2, squares 4·4 = 16, σ² = 4, σ = 2
//	column 3: 0 1 2 3   mean 1.5, squares 2.25+0.25+0.25+2.25 = 5, σ² = 1.25
const handTrain = "a,b,c,d,label\n1,5,0,0,7\n3,5,0,1,-2\n1,5,4,2,7\n3,5,4,3,7\n"

// The test file: a label (0.5) absent from training, values outside the
// training range.
const handTest = "5 7 2 3 0.5\n1 5 0 0 -2\n"

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestStandardiseByHand(t *testing.T) {
	dir := writeFiles(t, map[string]string{"train.csv": handTrain, "test.txt": handTest})
	train, test, err := Load(filepath.Join(dir, "train.csv"), Options{Real: RealStandardise, LabelColumn: -1,
		TestPath: filepath.Join(dir, "test.txt"), Format: "csv"})
	if err != nil {
		t.Fatal(err)
	}
	c := train.Scaling
	if c == nil || test.Scaling != c || c.Mode != RealStandardise {
		t.Fatalf("scaling %+v / %+v", c, test.Scaling)
	}
	if !slices.Equal(c.Offset, []float64{2, 5, 2, 1.5}) || !slices.Equal(c.Scale, []float64{1, 1, 2, math.Sqrt(1.25)}) ||
		!slices.Equal(c.Constant, []int{1}) {
		t.Errorf("offset %v scale %v constant %v", c.Offset, c.Scale, c.Constant)
	}
	// Column 3: ±0.5/√1.25 = ±1/√5 = ±0.447213595…, ±1.5/√1.25 = ±3/√5 = ±1.341640786…
	const r, r3 = 0.4472136, 1.3416408
	wantTrain := []float32{-1, 0, -1, -r3, 1, 0, -1, -r, -1, 0, 1, r, 1, 0, 1, r3}
	if !slices.Equal(train.Real, wantTrain) {
		t.Errorf("train\n%v\nwant\n%v", train.Real, wantTrain)
	}
	// Test rows with the training statistics: (5−2)/1, (7−5)/1, (2−2)/2, (3−1.5)/√1.25.
	wantTest := []float32{3, 2, 0, r3, -1, 0, -1, -r3}
	if !slices.Equal(test.Real, wantTest) {
		t.Errorf("test %v, want %v", test.Real, wantTest)
	}
	// Labels: values −2, 0.5, 7 of both files → 0, 1, 2.
	if !slices.Equal(train.Labels, []int32{2, 0, 2, 2}) || !slices.Equal(test.Labels, []int32{1, 0}) ||
		!slices.Equal(train.ClassNames, []string{"-2", "0.5", "7"}) || test.NumClasses != 3 {
		t.Errorf("labels %v %v %v", train.Labels, test.Labels, train.ClassNames)
	}
	for _, s := range []*Set{train, test} {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
		if s.D != 4 || s.X != nil || !strings.Contains(s.Source, "labels from column 5 (-2,0.5,7 → 0..2); standardised per unit") ||
			!strings.Contains(s.Source, "1 units constant") {
			t.Errorf("%s: D %d, source %q", s.Name, s.D, s.Source)
		}
	}

	// Unit mode: (x − min)/(max − min) per column with the training min and max.
	train, test, err = Load(filepath.Join(dir, "train.csv"), Options{Real: RealUnit, LabelColumn: 5,
		TestPath: filepath.Join(dir, "test.txt"), Format: "csv"})
	if err != nil {
		t.Fatal(err)
	}
	if c := train.Scaling; !slices.Equal(c.Offset, []float64{1, 5, 0, 0}) || !slices.Equal(c.Scale, []float64{2, 1, 4, 3}) {
		t.Errorf("unit scaling %+v", c)
	}
	if want := []float32{0, 0, 0, 0, 1, 0, 0, float32(1.0 / 3), 0, 0, 1, float32(2.0 / 3), 1, 0, 1, 1}; !slices.Equal(train.Real, want) {
		t.Errorf("unit train %v", train.Real)
	}
	if want := []float32{2, 2, 0.5, 1, 0, 0, 0, 0}; !slices.Equal(test.Real, want) {
		t.Errorf("unit test %v", test.Real)
	}

	// No mode: values as read, no scaling; no label column: all five columns.
	s, err := LoadFile(filepath.Join(dir, "train.csv"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Scaling != nil || s.D != 5 || s.Labels != nil || !slices.Equal(s.RealRow(1), []float32{3, 5, 0, 1, -2}) {
		t.Errorf("as read: %+v", s)
	}
}

// TestScalingRoundTrip: standardising and mapping back gives the input
// again, to float32 precision; the JSON record round-trips exactly.
func TestScalingRoundTrip(t *testing.T) {
	// Standardising and mapping back gives the input again, to float32
	// precision; the JSON record round-trips exactly.
	dir := writeFiles(t, map[string]string{"m.csv": "0.1 10\n0.7 30\n0.4 11\n"})
	s, err := LoadFile(filepath.Join(dir, "m.csv"), Options{Real: RealStandardise})
	if err != nil {
		t.Fatal(err)
	}
	back := make([]float32, len(s.Real))
	s.Scaling.ToInput(back, s.Real)
	for k, want := range []float64{0.1, 10, 0.7, 30, 0.4, 11} {
		if math.Abs(float64(back[k])-want) > 1e-6*math.Abs(want) {
			t.Errorf("value %d: %v back as %v", k, want, back[k])
		}
	}
	b, err := json.Marshal(s.Scaling)
	if err != nil {
		t.Fatal(err)
	}
	var again Scaling
	if err := json.Unmarshal(b, &again); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Offset, s.Scaling.Offset) || !slices.Equal(again.Scale, s.Scaling.Scale) ||
		again.Mode != RealStandardise || again.From != s.Scaling.From || !strings.Contains(string(b), `"mode":"standardise"`) {
		t.Errorf("JSON %s → %+v", b, again)
	}
}

// TestMNISTGreyLevels: a fake mnist/ directory of two training and one
// test image; the grey levels scaled by hand.
func TestMNISTGreyLevels(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "mnist"), 0o755)
	img := func(rows ...[3]byte) []byte { // 784-pixel images: three pixels set, the rest 0
		b := make([]byte, 784*len(rows))
		for i, r := range rows {
			b[784*i], b[784*i+1], b[784*i+783] = r[0], r[1], r[2]
		}
		return gz(idxBytes([]uint32{uint32(len(rows)), 28, 28}, b))
	}
	files := map[string][]byte{
		MNISTTrainImages: img([3]byte{255, 51, 7}, [3]byte{0, 153, 7}),
		MNISTTrainLabels: gz(idxBytes([]uint32{2}, []byte{3, 9})),
		MNISTTestImages:  img([3]byte{102, 0, 10}),
		MNISTTestLabels:  gz(idxBytes([]uint32{1}, []byte{4})),
	}
	for name, b := range files {
		os.WriteFile(filepath.Join(dir, "mnist", name), b, 0o644)
	}
	train, test, err := Load("mnist", Options{Dir: dir, Real: RealUnit})
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 2 || test.N != 1 || train.D != 784 || train.NumClasses != 10 || !slices.Equal(train.Labels, []int32{3, 9}) {
		t.Fatalf("%v / %v", train, test)
	}
	// g/255: 255 → 1, 51 → 0.2, 153 → 0.6, 7 → 7/255, 102 → 0.4.
	if r := train.RealRow(0); r[0] != 1 || r[1] != 0.2 || r[2] != 0 || r[783] != float32(7.0/255) {
		t.Errorf("train row 0 %v…%v", r[:3], r[783])
	}
	if r := test.RealRow(0); r[0] != 0.4 || r[783] != float32(10.0/255) {
		t.Errorf("test row %v", r[:3])
	}
	if c := train.Scaling; c.Mode != RealUnit || c.Scale[5] != 255 || c.Offset[5] != 0 || test.Scaling != c ||
		!strings.Contains(train.Source, "level/255") {
		t.Errorf("unit scaling %+v, source %q", c.Mode, train.Source)
	}

	train, test, err = Load("mnist", Options{Dir: dir, Real: RealStandardise})
	if err != nil {
		t.Fatal(err)
	}
	// Pixel 0: 255, 0 → mean 127.5, σ 127.5. Pixel 1: 51, 153 → mean 102,
	// σ 51. Pixel 783: 7, 7 → constant. Every other pixel: constant 0.
	c := train.Scaling
	if c.Offset[0] != 127.5 || c.Scale[0] != 127.5 || c.Offset[1] != 102 || c.Scale[1] != 51 ||
		c.Offset[783] != 7 || c.Scale[783] != 1 || len(c.Constant) != 782 || c.Constant[0] != 2 || c.Constant[781] != 783 {
		t.Errorf("standardise offset %v… scale %v… constant %d", c.Offset[:3], c.Scale[:3], len(c.Constant))
	}
	if r := train.RealRow(1); r[0] != -1 || r[1] != 1 || r[2] != 0 || r[783] != 0 {
		t.Errorf("train row 1 %v", r[:3])
	}
	// Test: (102−127.5)/127.5 = −0.2, (0−102)/51 = −2, (10−7)/1 = 3.
	if r := test.RealRow(0); r[0] != -0.2 || r[1] != -2 || r[783] != 3 {
		t.Errorf("test row %v…%v", r[:3], r[783])
	}
	for _, s := range []*Set{train, test} {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
	}

	// An IDX file alone: its own statistics, labels found by name.
	s, err := LoadFile(filepath.Join(dir, "mnist", MNISTTrainImages), Options{Real: RealStandardise})
	if err != nil || !slices.Equal(s.Scaling.Scale, c.Scale) || s.Labels == nil {
		t.Errorf("LoadFile: %v", err)
	}
	// The binary path is untouched: threshold binarisation of the same files.
	bin, _, err := Load("mnist", Options{Dir: dir, Binarization: Binarization{Method: Threshold}})
	if err != nil || bin.Real != nil || !slices.Equal(bin.Row(0)[:3], []uint8{1, 0, 0}) {
		t.Errorf("binary: %v", err)
	}
	if _, _, err := Load("mnist", Options{Dir: dir, Real: "z"}); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestRealModeRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.svm": "1 1:1\n", "a.csv": "1,2\n", "b.csv": "1,2,3\n"})
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"bas", Options{Real: RealUnit}, "bas is binary"},
		{"mushrooms", Options{Real: RealStandardise}, "mushrooms is binary"},
		{filepath.Join(dir, "a.svm"), Options{Real: RealUnit}, "a libsvm file is binary"},
		{filepath.Join(dir, "a.csv"), Options{LabelColumn: 3}, "label column 3, but the rows have 2 columns"},
		{filepath.Join(dir, "a.csv"), Options{LabelColumn: -2}, "label column -2"},
		{filepath.Join(dir, "a.csv"), Options{TestPath: filepath.Join(dir, "b.csv")}, "has 2 units per row but"},
		{filepath.Join(dir, "a.csv"), Options{Format: "xls"}, "unknown format xls"},
		{filepath.Join(dir, "a.svm"), Options{LabelColumn: 1}, "a label column applies to .npy and CSV files, not libsvm files"},
		{"mnist", Options{LabelColumn: -1}, "mnist has its labels"},
		{"connect4", Options{LabelColumn: 1}, "connect-4 has its labels"},
	}
	for _, c := range cases {
		if _, _, err := Load(c.name, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: %v, want %q", filepath.Base(c.name), c.opts, err, c.want)
		}
	}
	one := writeFiles(t, map[string]string{"one.csv": "1\n2\n"})
	if _, err := LoadFile(filepath.Join(one, "one.csv"), Options{LabelColumn: 1}); err == nil || !strings.Contains(err.Error(), "only column") {
		t.Errorf("label column alone: %v", err)
	}
	// Values that overflow once scaled, and a file too large to standardise.
	huge := writeFiles(t, map[string]string{"h.csv": "-1e308,1\n1e308,2\n", "f.csv": "1e39\n"})
	if _, err := LoadFile(filepath.Join(huge, "h.csv"), Options{Real: RealUnit}); err == nil || !strings.Contains(err.Error(), "unit 0: values too large") {
		t.Errorf("overflowing range: %v", err)
	}
	if _, err := LoadFile(filepath.Join(huge, "f.csv"), Options{}); err == nil || !strings.Contains(err.Error(), "f.csv: row 0 unit 0: value 1e+39 is out of float32 range") {
		t.Errorf("float32 overflow: %v", err)
	}
}

// TestLoadNPYFiles: a training and a test .npy file with a label column,
// scaled to [0, 1] by the training set's range.
func TestLoadNPYFiles(t *testing.T) {
	f8 := func(v ...float64) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	dir := t.TempDir()
	// Columns: label, unit 0, unit 1. Unit 0 spans 2..6, unit 1 −1..1.
	os.WriteFile(filepath.Join(dir, "train"), npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3), }",
		f8(1, 2, -1, 0, 6, 1, 1, 3, 0)), 0o644)
	os.WriteFile(filepath.Join(dir, "test.npy.gz"), gz(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3), }",
		f8(2, 4, 3))), 0o644)
	train, test, err := Load(filepath.Join(dir, "train"), Options{TestPath: filepath.Join(dir, "test.npy.gz"), LabelColumn: 1, Real: RealUnit})
	if err != nil {
		t.Fatal(err)
	}
	if train.D != 2 || !slices.Equal(train.Real, []float32{0, 0, 1, 1, 0.25, 0.5}) || !slices.Equal(test.Real, []float32{0.5, 2}) {
		t.Errorf("values %v / %v", train.Real, test.Real)
	}
	if !slices.Equal(train.Labels, []int32{1, 0, 1}) || !slices.Equal(test.Labels, []int32{2}) || !slices.Equal(test.ClassNames, []string{"0", "1", "2"}) {
		t.Errorf("labels %v / %v %v", train.Labels, test.Labels, test.ClassNames)
	}
	if !strings.Contains(train.Source, "labels from column 1 (0,1,2 → 0..2); scaled per unit to [0, 1]") {
		t.Errorf("source %q", train.Source)
	}
	for _, s := range []*Set{train, test} {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
	}
}
