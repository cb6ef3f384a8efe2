package data

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func realToy() *Set {
	return &Set{Name: "rt", N: 3, D: 2, Real: []float32{0.5, -1, 2, 0, 1.25, 3},
		Labels: []int32{1, 0, 1}, NumClasses: 2, Source: "hand-made"}
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

func TestRealSetMethods(t *testing.T) {
	s := realToy()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !s.IsReal() || toy().IsReal() {
		t.Error("IsReal")
	}
	if !slices.Equal(s.RealRow(1), []float32{2, 0}) {
		t.Errorf("RealRow(1) = %v", s.RealRow(1))
	}
	mustPanic(t, "Row of a real set", func() { s.Row(0) })
	mustPanic(t, "RealRow of a binary set", func() { toy().RealRow(0) })
	mustPanic(t, "RealRow out of range", func() { s.RealRow(3) })
	mustPanic(t, "Counts of a real set", func() { s.Counts() })
	c := &Scaling{Mode: RealUnit, Offset: []float64{0, 0}, Scale: []float64{255, 255}}
	s.Scaling = c
	sub := s.Subset([]int{2, 2, 0})
	if sub.X != nil || !slices.Equal(sub.Real, []float32{1.25, 3, 1.25, 3, 0.5, -1}) || sub.Scaling != c ||
		!slices.Equal(sub.Labels, []int32{1, 1, 1}) {
		t.Errorf("subset %+v", sub)
	}
	if err := sub.Validate(); err != nil {
		t.Error(err)
	}
	sub.Real[0] = 9
	if s.Real[4] != 1.25 {
		t.Error("subset shares rows")
	}
	if e := s.Subset(nil); e.Real == nil || e.N != 0 || !e.IsReal() {
		t.Errorf("empty subset %+v", e)
	}
	// Sums in row order: 0.5+2+1.25 = 3.75, −1+0+3 = 2.
	if got := s.Sums(); !slices.Equal(got, []float64{3.75, 2}) {
		t.Errorf("sums %v", got)
	}
	if got := s.Marginals(0); !slices.Equal(got, []float64{1.25, 2.0 / 3}) {
		t.Errorf("marginals %v", got)
	}
	if got := s.SmoothedMarginals(1, 0); got[0] != 4.75/4 {
		t.Errorf("smoothed %v", got)
	}
	if got := toy().Sums(); !slices.Equal(got, []float64{3, 2, 1}) {
		t.Errorf("binary sums %v", got)
	}
	if d := s.Density(); d != 5.75/6 {
		t.Errorf("density %v", d)
	}
	if str := s.String(); !strings.Contains(str, "rt: 3×2 real-valued, mean 0.9583") {
		t.Errorf("String %q", str)
	}
	if s.Bytes() != 6*4+3*4 {
		t.Errorf("Bytes %d", s.Bytes())
	}
	oh, err := s.WithOneHotLabels()
	if err != nil {
		t.Fatal(err)
	}
	if oh.D != 4 || oh.LabelUnits != 2 || oh.X != nil || oh.Scaling != c ||
		!slices.Equal(oh.RealRow(0), []float32{0.5, -1, 0, 1}) || !slices.Equal(oh.RealRow(1), []float32{2, 0, 1, 0}) {
		t.Errorf("one-hot %+v", oh)
	}
	if err := oh.Validate(); err != nil {
		t.Error(err)
	}
	bad := []struct {
		name string
		mod  func(*Set)
		want string
	}{
		{"both", func(s *Set) { s.X = []uint8{0} }, "both binary"},
		{"length", func(s *Set) { s.Real = s.Real[:5] }, "len(Real) = 5"},
		{"NaN", func(s *Set) { s.Real[3] = float32(math.NaN()) }, "row 1 unit 1 is NaN"},
		{"Inf", func(s *Set) { s.Real[0] = float32(math.Inf(1)) }, "row 0 unit 0 is +Inf"},
		{"label unit", func(s *Set) { s.LabelUnits = 1 }, "row 0 unit 1 is -1"},
		{"scaling units", func(s *Set) { s.Scaling = &Scaling{Mode: RealUnit, Offset: []float64{0}, Scale: []float64{1}} }, "1 offsets and 1 scales for 2 units"},
		{"scale 0", func(s *Set) {
			s.Scaling = &Scaling{Mode: RealStandardise, Offset: []float64{0, 0}, Scale: []float64{1, 0}}
		}, "unit 1: offset 0, scale 0"},
		{"scaling mode", func(s *Set) { s.Scaling = &Scaling{Offset: []float64{0, 0}, Scale: []float64{1, 1}} }, "scaling mode"},
		{"constant", func(s *Set) {
			s.Scaling = &Scaling{Mode: RealUnit, Offset: []float64{0, 0}, Scale: []float64{1, 1}, Constant: []int{2}}
		}, "constant unit 2"},
	}
	for _, b := range bad {
		s := realToy()
		b.mod(s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %v, want %q", b.name, err, b.want)
		}
	}
	bin := toy()
	bin.Scaling = c
	if err := bin.Validate(); err == nil || !strings.Contains(err.Error(), "binary set with a scaling") {
		t.Errorf("binary set with a scaling: %v", err)
	}
}

func TestParseRealMode(t *testing.T) {
	for in, want := range map[string]RealMode{"": RealNone, "binary": RealNone, "unit": RealUnit,
		"standardise": RealStandardise, "Standardize": RealStandardise} {
		if got, err := ParseRealMode(in); err != nil || got != want {
			t.Errorf("%q: %q, %v", in, got, err)
		}
	}
	if _, err := ParseRealMode("z-score"); err == nil {
		t.Error("z-score accepted")
	}
}

func TestScalingToInput(t *testing.T) {
	c := &Scaling{Mode: RealStandardise, Offset: []float64{2, -1}, Scale: []float64{0.5, 4}, From: "x"}
	dst := make([]float32, 4)
	c.ToInput(dst, []float32{1, 1, -2, 0.25})
	// 1·0.5+2, 1·4−1, −2·0.5+2, 0.25·4−1.
	if !slices.Equal(dst, []float32{2.5, 3, 1, 0}) {
		t.Errorf("ToInput %v", dst)
	}
	if got, want := c.LogScale(), math.Log(0.5)+math.Log(4); got != want {
		t.Errorf("LogScale %v, want %v", got, want)
	}
	var none *Scaling
	none.ToInput(dst, []float32{7, 8, 9, 10})
	if !slices.Equal(dst, []float32{7, 8, 9, 10}) || none.LogScale() != 0 || none.Units() != 0 {
		t.Errorf("nil scaling %v", dst)
	}
	mustPanic(t, "ToInput of part of a row", func() { c.ToInput(dst[:3], []float32{1, 2, 3}) })
	mustPanic(t, "ToInput of different lengths", func() { c.ToInput(dst, []float32{1, 2}) })
	mustPanic(t, "ToInput of a scaling without units", func() { (&Scaling{}).ToInput(dst, dst) })
}

// TestFitScalingByHand: the statistics of handTrain's first four columns.
func TestFitScalingByHand(t *testing.T) {
	x := []float64{1, 5, 0, 0, 3, 5, 0, 1, 1, 5, 4, 2, 3, 5, 4, 3}
	c, err := fitScaling(x, 4, 4, RealStandardise, false, "hand")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Offset, []float64{2, 5, 2, 1.5}) || !slices.Equal(c.Scale, []float64{1, 1, 2, math.Sqrt(1.25)}) ||
		!slices.Equal(c.Constant, []int{1}) || c.From != "hand" || c.Validate(4) != nil {
		t.Errorf("standardise: %+v", c)
	}
	if c, err = fitScaling(x, 4, 4, RealUnit, false, "hand"); err != nil ||
		!slices.Equal(c.Offset, []float64{1, 5, 0, 0}) || !slices.Equal(c.Scale, []float64{2, 1, 4, 3}) {
		t.Errorf("unit: %+v, %v", c, err)
	}
	g, err := fitScaling([]uint8{0, 255, 3, 9}, 2, 2, RealUnit, true, "grey")
	if err != nil || !slices.Equal(g.Scale, []float64{255, 255}) || !slices.Equal(g.Offset, []float64{0, 0}) || g.Constant != nil {
		t.Errorf("grey unit: %+v, %v", g, err)
	}
	v, err := applyScaling([]uint8{0, 255, 51, 9}, 2, g, "grey")
	if err != nil || !slices.Equal(v, []float32{0, 1, 0.2, float32(9.0 / 255)}) {
		t.Errorf("grey values %v, %v", v, err)
	}
	// Pixels 0, 0, 0 and 10, 20, 60: the second has mean 30, squares
	// 400+100+900 = 1400, σ = √(1400/3).
	g, err = fitScaling([]uint8{0, 10, 0, 20, 0, 60}, 3, 2, RealStandardise, true, "grey")
	if err != nil || g.Offset[1] != 30 || g.Scale[1] != math.Sqrt(1400.0/3) || !slices.Equal(g.Constant, []int{0}) {
		t.Errorf("grey standardise: %+v, %v", g, err)
	}
	if _, err := fitScaling([]float64{}, 0, 2, RealStandardise, false, "none"); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("no rows: %v", err)
	}
	if _, err := fitScaling(x, 4, 4, "z", false, "hand"); err == nil {
		t.Error("unknown mode accepted")
	}
}
