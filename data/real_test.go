package data

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/internal/datatest"
)

func TestLoadMNIST(t *testing.T) {
	dir := datatest.Dir(t)
	datatest.File(t, "mnist/"+MNISTTrainImages)
	train, test, err := Load("mnist", Options{Dir: dir, Binarization: Binarization{Seed: 7}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s *Set
		n int
	}{{train, 60000}, {test, 10000}} {
		s := c.s
		if s.N != c.n || s.D != 784 || len(s.X) != c.n*784 || len(s.Labels) != c.n || s.NumClasses != 10 {
			t.Fatalf("%s: %d×%d, %d labels, %d classes", s.Name, s.N, s.D, len(s.Labels), s.NumClasses)
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		// Mean grey level of MNIST is about 0.13; stochastic binarisation
		// keeps it in expectation.
		if d := s.Density(); d < 0.12 || d > 0.14 {
			t.Errorf("%s: density %v", s.Name, d)
		}
		if !strings.Contains(s.Source, "seed 7") {
			t.Errorf("%s: source %q lacks the seed", s.Name, s.Source)
		}
	}
	if got := train.ClassCounts(); got[1] != 6742 || got[5] != 5421 {
		t.Errorf("train class counts %v", got)
	}
	if train.Bytes() > 50<<20 {
		t.Errorf("train holds %d bytes", train.Bytes())
	}
	// Same seed, same bits; another seed, other bits.
	again, err := ReadMNIST(filepath.Join(dir, "mnist", MNISTTestImages), "", Binarization{Seed: 7}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.X, test.X) {
		t.Error("binarisation not reproducible")
	}
	other, _ := ReadMNIST(filepath.Join(dir, "mnist", MNISTTestImages), "", Binarization{Seed: 8}, 2)
	if slices.Equal(other.X, test.X) {
		t.Error("seed has no effect")
	}
	thr, err := ReadMNIST(filepath.Join(dir, "mnist", MNISTTestImages), "", Binarization{Method: Threshold}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := thr.Density(); d < 0.1 || d > 0.15 {
		t.Errorf("threshold density %v", d)
	}
	runtime.KeepAlive(train)
}

func TestLoadMushrooms(t *testing.T) {
	dir := datatest.Dir(t)
	datatest.File(t, "mushrooms/mushrooms-train.data")
	train, test, err := Load("mushrooms", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 2000 || test.N != 6124 || train.D != 112 || test.D != 112 || train.NumClasses != 2 {
		t.Fatalf("train %v\ntest %v", train, test)
	}
	for _, s := range []*Set{train, test} {
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		// 21 active features per row (one per UCI attribute value present).
		for i := 0; i < s.N; i++ {
			n := 0
			for _, v := range s.Row(i) {
				n += int(v)
			}
			if n != 21 {
				t.Fatalf("%s row %d has %d ones", s.Name, i, n)
			}
		}
	}
	if !slices.Equal(train.ClassNames, []string{"1", "2"}) || !strings.Contains(train.Source, "seed 812") {
		t.Errorf("names %v source %q", train.ClassNames, train.Source)
	}
	if got := train.ClassCounts(); got[0] != 939 || got[1] != 1061 {
		t.Errorf("train class counts %v", got)
	}

	// Fallbacks, from directories of symbolic links (outside the repository).
	link := func(t *testing.T, files ...string) string {
		d := t.TempDir()
		os.Mkdir(filepath.Join(d, "mushrooms"), 0o755)
		for _, f := range files {
			if err := os.Symlink(filepath.Join(dir, "mushrooms", f), filepath.Join(d, "mushrooms", f)); err != nil {
				t.Skip("no symlinks:", err)
			}
		}
		return d
	}
	t.Run("train split and LIBSVM", func(t *testing.T) {
		tr2, te2, err := Load("mushrooms", Options{Dir: link(t, "mushrooms", "mushrooms-train.data")})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tr2.X, train.X) || te2.N != test.N || !sameRows(te2, test) {
			t.Errorf("test set from LIBSVM minus train split differs from the paper's test split")
		}
		if !strings.Contains(te2.Source, "not in") {
			t.Errorf("source %q", te2.Source)
		}
	})
	t.Run("LIBSVM only", func(t *testing.T) {
		tr3, te3, err := Load("mushrooms", Options{Dir: link(t, "mushrooms"), SplitSeed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if tr3.N != 2000 || te3.N != 6124 || !strings.Contains(tr3.Source, "PCG seed 3") {
			t.Errorf("%v / %v", tr3, te3)
		}
		both := &Set{N: 8124, D: 112, X: append(append([]uint8(nil), tr3.X...), te3.X...),
			Labels: append(append([]int32(nil), tr3.Labels...), te3.Labels...), NumClasses: 2}
		whole := &Set{N: 8124, D: 112, X: append(append([]uint8(nil), train.X...), test.X...),
			Labels: append(append([]int32(nil), train.Labels...), test.Labels...), NumClasses: 2}
		if !sameRows(both, whole) {
			t.Error("seeded split is not a partition of the same rows")
		}
	})
	t.Run("train split only", func(t *testing.T) {
		tr4, te4, err := Load("mushrooms", Options{Dir: link(t, "mushrooms-train.data"), HoldOut: 0.25})
		if err != nil {
			t.Fatal(err)
		}
		if tr4.N != 1500 || te4.N != 500 || !strings.Contains(te4.Source, "NOT the paper's test set") {
			t.Errorf("%v / %v", tr4, te4)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		_, _, err := Load("mushrooms", Options{Dir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "ncgbench data fetch mushrooms") {
			t.Errorf("err = %v", err)
		}
	})
}

// sameRows reports whether a and b hold the same multiset of (row, label).
func sameRows(a, b *Set) bool {
	if a.N != b.N || a.D != b.D {
		return false
	}
	d, err := difference(a, b)
	return err == nil && d.N == 0
}

func TestLoadConnect4(t *testing.T) {
	dir := datatest.Dir(t)
	datatest.File(t, "connect-4/connect-4-train.data")
	train, test, err := Load("connect-4", Options{Dir: dir, SplitSeed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(dir, "connect-4", "connect-4")) {
		if train.N != 16000 || test.N != 51557 {
			t.Errorf("%v / %v", train, test)
		}
	} else if train.N != 12800 || test.N != 3200 || !strings.Contains(test.Source, "hold-out") {
		t.Errorf("%v / %v", train, test)
	}
	if train.D != 126 || train.NumClasses != 3 || !slices.Equal(train.ClassNames, []string{"-1", "0", "1"}) {
		t.Errorf("%v", train)
	}
	for _, s := range []*Set{train, test} {
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	oh, err := train.WithOneHotLabels()
	if err != nil || oh.D != 129 || oh.LabelUnits != 3 {
		t.Fatalf("one-hot: %v %v", oh, err)
	}
}

func TestInfoSharedData(t *testing.T) {
	dir := datatest.Dir(t)
	for _, st := range Info(dir) {
		if st.Present && !st.OK {
			t.Errorf("%s: %s", st.Path, st.Check)
		}
		if st.Present && (st.MD5 != "" || st.RawMD5 != "") && !st.Verified {
			t.Errorf("%s not verified: %s", st.Path, st.Check)
		}
		t.Logf("%-35s present=%v verified=%v %s", st.Path, st.Present, st.Verified, st.Check)
	}
}

func TestDetectFormatShared(t *testing.T) {
	dir := datatest.Dir(t)
	for f, want := range map[string]string{
		"mnist/" + MNISTTestLabels:      FormatIDX,
		"mushrooms/mushrooms":           FormatLIBSVM,
		"mushrooms/mushrooms-test.data": FormatSplit,
	} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if !exists(p) {
			continue
		}
		got, err := DetectFormat(p)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", f, got, err, want)
		}
	}
	s, err := LoadFile(filepath.Join(dir, "mnist", MNISTTestImages), Options{})
	if err != nil || s.N != 10000 || s.Labels == nil {
		t.Errorf("LoadFile idx: %v %v", s, err)
	}
}

// TestLoadMNISTRealValued: the grey levels of the shared MNIST files,
// scaled to [0, 1] and standardised with the training set's statistics.
func TestLoadMNISTRealValued(t *testing.T) {
	if testing.Short() {
		t.Skip("reads all of MNIST twice")
	}
	dir := datatest.Dir(t)
	datatest.File(t, "mnist/"+MNISTTrainImages)
	train, test, err := Load("mnist", Options{Dir: dir, Real: RealUnit})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Set{train, test} {
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		if s.X != nil || s.D != 784 || s.NumClasses != 10 || s.Scaling != train.Scaling {
			t.Fatalf("%v", s)
		}
		// The mean grey level, about 0.13 like the binarised density.
		if d := s.Density(); d < 0.12 || d > 0.14 {
			t.Errorf("%s: mean %v", s.Name, d)
		}
		lo, hi := slices.Min(s.Real), slices.Max(s.Real)
		if lo != 0 || hi != 1 {
			t.Errorf("%s: values in [%v, %v]", s.Name, lo, hi)
		}
	}
	train, test, err = Load("mnist", Options{Dir: dir, Real: RealStandardise})
	if err != nil {
		t.Fatal(err)
	}
	c := train.Scaling
	if test.Scaling != c || c.Mode != RealStandardise || c.Validate(784) != nil {
		t.Fatalf("scaling %+v", c.Mode)
	}
	// On the training set every pixel has mean 0 and (unless constant)
	// standard deviation 1, up to float32 rounding.
	sums := train.Sums()
	ss := make([]float64, 784)
	for i := range train.N {
		for j, v := range train.RealRow(i) {
			ss[j] += float64(v) * float64(v)
		}
	}
	constant := map[int]bool{}
	for _, j := range c.Constant {
		constant[j] = true
	}
	for j := range 784 {
		m, sd := sums[j]/60000, math.Sqrt(ss[j]/60000)
		if math.Abs(m) > 1e-6 || (!constant[j] && math.Abs(sd-1) > 1e-5) || (constant[j] && sd != 0) {
			t.Fatalf("pixel %d: mean %v sd %v (constant %v)", j, m, sd, constant[j])
		}
	}
	// The corner pixels are 0 in every training image.
	if !constant[0] || !constant[783] || len(c.Constant) < 50 || len(c.Constant) > 100 {
		t.Errorf("%d constant pixels: %v", len(c.Constant), c.Constant)
	}
	t.Logf("%d constant pixels; test mean %.4f", len(c.Constant), test.Density())
}
