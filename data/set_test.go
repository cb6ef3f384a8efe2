package data

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func toy() *Set {
	return &Set{Name: "toy", N: 4, D: 3, X: []uint8{1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1},
		Labels: []int32{0, 1, 2, 1}, NumClasses: 3, ClassNames: []string{"a", "b", "c"}, Source: "hand-made"}
}

func TestSetMethods(t *testing.T) {
	s := toy()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Row(1), []uint8{1, 1, 0}) || s.Label(3) != 1 {
		t.Error("Row/Label")
	}
	sub := s.Subset([]int{3, 0, 3})
	if sub.N != 3 || !slices.Equal(sub.X, []uint8{1, 1, 1, 1, 0, 0, 1, 1, 1}) || !slices.Equal(sub.Labels, []int32{1, 0, 1}) {
		t.Errorf("subset %v", sub)
	}
	sub.X[0] = 0
	if s.X[9] != 1 {
		t.Error("subset shares rows")
	}
	oh, err := s.WithOneHotLabels()
	if err != nil {
		t.Fatal(err)
	}
	if oh.D != 6 || oh.LabelUnits != 3 || !slices.Equal(oh.Row(2), []uint8{0, 0, 0, 0, 0, 1}) || !slices.Equal(oh.Row(0), []uint8{1, 0, 0, 1, 0, 0}) {
		t.Errorf("one-hot %v", oh.X)
	}
	if err := oh.Validate(); err != nil {
		t.Error(err)
	}
	if _, err := oh.WithOneHotLabels(); err == nil {
		t.Error("one-hot twice")
	}
	if _, err := (&Set{N: 1, D: 1, X: []uint8{1}}).WithOneHotLabels(); err == nil {
		t.Error("one-hot without labels")
	}
	if m := s.Marginals(0); !slices.Equal(m, []float64{0.75, 0.5, 0.25}) {
		t.Errorf("marginals %v", m)
	}
	if m := s.Marginals(1); m[2] != 2.0/6 {
		t.Errorf("smoothed marginals %v", m)
	}
	if m := s.SmoothedMarginals(2, 0); m[0] != 5.0/6 {
		t.Errorf("smoothed marginals %v", m)
	}
	if d := s.Density(); d != 0.5 {
		t.Errorf("density %v", d)
	}
	if !slices.Equal(s.ClassCounts(), []int{1, 2, 1}) || !strings.Contains(s.String(), "toy: 4×3") {
		t.Error(s.ClassCounts(), s.String())
	}
	for _, bad := range []*Set{
		{N: 2, D: 2, X: []uint8{0, 1, 1}},
		{N: 1, D: 2, X: []uint8{0, 2}},
		{N: 1, D: 1, X: []uint8{0}, Labels: []int32{1}, NumClasses: 1},
		{N: 1, D: 1, X: []uint8{0}, Labels: []int32{0, 0}, NumClasses: 1},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v passed Validate", bad)
		}
	}
}

func TestSplit(t *testing.T) {
	s := &Set{Name: "r", N: 100, D: 1, X: make([]uint8, 100), Labels: make([]int32, 100), NumClasses: 100}
	for i := range s.Labels {
		s.Labels[i] = int32(i)
	}
	tr, te := Split(s, 70, 9)
	if tr.N != 70 || te.N != 30 || !strings.Contains(tr.Source, "PCG seed 9") {
		t.Fatal(tr, te)
	}
	seen := map[int32]bool{}
	for _, l := range append(slices.Clone(tr.Labels), te.Labels...) {
		seen[l] = true
	}
	if len(seen) != 100 {
		t.Error("not a partition")
	}
	tr2, _ := Split(s, 70, 9)
	tr3, _ := Split(s, 70, 10)
	if !slices.Equal(tr.Labels, tr2.Labels) || slices.Equal(tr.Labels, tr3.Labels) {
		t.Error("split not determined by the seed")
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for nTrain > N")
		}
	}()
	Split(s, 101, 0)
}

func TestBarsAndStripes(t *testing.T) {
	for n := 1; n <= 5; n++ {
		s, err := BarsAndStripes(n)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 1<<(n+1)-2 || s.D != n*n {
			t.Fatalf("n=%d: %d×%d", n, s.N, s.D)
		}
		seen := map[string]bool{}
		for i := 0; i < s.N; i++ {
			r := s.Row(i)
			seen[string(r)] = true
			rowsConst, colsConst := true, true
			for a := 0; a < n; a++ {
				for b := 0; b < n; b++ {
					rowsConst = rowsConst && r[a*n+b] == r[a*n]
					colsConst = colsConst && r[a*n+b] == r[b]
				}
			}
			if !rowsConst && !colsConst {
				t.Errorf("n=%d row %d is neither bars nor stripes: %v", n, i, r)
			}
		}
		if len(seen) != s.N {
			t.Errorf("n=%d: %d distinct of %d", n, len(seen), s.N)
		}
	}
	if _, err := BarsAndStripes(0); err == nil {
		t.Error("size 0 accepted")
	}
	a, _ := SampleBarsAndStripes(4, 1000, 1)
	b, _ := SampleBarsAndStripes(4, 1000, 1)
	all, _ := BarsAndStripes(4)
	if a.N != 1000 || !slices.Equal(a.X, b.X) {
		t.Error("sampling not reproducible")
	}
	if _, err := difference(all.Subset(Permutation(all.N, 0)), all); err != nil {
		t.Error(err)
	}
	tr, te, err := Load("bas", Options{})
	if err != nil || tr.N != 30 || te.N != 30 || tr.D != 16 || !slices.Equal(tr.X, te.X) {
		t.Errorf("Load bas: %v %v %v", tr, te, err)
	}
	tr, _, err = Load("bas", Options{BASSize: 3, BASSamples: 50, SplitSeed: 4})
	if err != nil || tr.N != 50 || tr.D != 9 {
		t.Errorf("Load bas sampled: %v %v", tr, err)
	}
}

// TestLemire checks that the 16-bit draw → u map used by Binarize gives
// every u in 0..254 exactly 257 of the accepted values x = 1..65535.
func TestLemire(t *testing.T) {
	var c [255]int
	for x := uint32(1); x < 1<<16; x++ {
		c[(x*255)>>16]++
	}
	for u, n := range c {
		if n != 257 {
			t.Fatalf("u=%d has %d preimages", u, n)
		}
	}
}

func TestBinarizeStochastic(t *testing.T) {
	const n = 200000
	for _, g := range []uint8{0, 1, 51, 128, 254, 255} {
		pix := make([]uint8, n)
		for i := range pix {
			pix[i] = g
		}
		if _, err := Binarize(pix, Binarization{Seed: uint64(g)}, 1); err != nil {
			t.Fatal(err)
		}
		ones := 0
		for _, v := range pix {
			ones += int(v)
		}
		p := float64(g) / 255
		sd := math.Sqrt(p*(1-p)/n) + 1e-12
		if z := (float64(ones)/n - p) / sd; math.Abs(z) > 5 {
			t.Errorf("g=%d: %d ones of %d, z=%.1f", g, ones, n, z)
		}
	}
	// Random pixels: reproducible for a seed and stream, different across streams.
	src := make([]uint8, 10000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = uint8(r.IntN(256))
	}
	a, b, c := slices.Clone(src), slices.Clone(src), slices.Clone(src)
	Binarize(a, Binarization{Seed: 3}, 1)
	Binarize(b, Binarization{Seed: 3}, 1)
	Binarize(c, Binarization{Seed: 3}, 2)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Error("not determined by seed and stream")
	}
	d := []uint8{0, 127, 128, 255}
	desc, _ := Binarize(d, Binarization{Method: Threshold}, 0)
	if !slices.Equal(d, []uint8{0, 0, 1, 1}) || !strings.Contains(desc, "128") {
		t.Error(d, desc)
	}
}
