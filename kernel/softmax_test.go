package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Tests of SoftmaxSample and Softmax on the tier in use: the exponential
// against math.Exp, the probabilities against a float64 softmax, the unit
// chosen against the float64 cumulative probabilities at the stream's
// uniform, the stream's position, hand-worked special cases, a χ² test of
// the draws, and the checks of groups. softmax_tiers_test.go holds every
// tier to the generic code bit for bit.

// ulp32 is float32's unit roundoff, 2⁻²⁴.
const ulp32 = 1.0 / (1 << 24)

// softmaxShapes are the group sizes of the rows the tests use: Connect-4
// (42 cells of 3 states), Mushrooms (its 21 attributes, 112 units), label
// groups, one large group, and many groups of one and two units.
var softmaxShapes = []struct {
	name  string
	sizes []int
}{
	{"connect4", slices.Repeat([]int{3}, 42)},
	{"mushrooms", []int{6, 4, 10, 2, 9, 2, 2, 2, 12, 2, 4, 4, 9, 9, 1, 4, 3, 5, 9, 6, 7}},
	{"label10", []int{10}},
	{"label2", []int{2}},
	{"one500", []int{500}},
	{"pairs", []int{1, 2, 2, 1, 1, 2, 1, 2, 2, 2, 1, 1, 1, 2, 2, 1, 2, 1, 1, 2, 2, 2, 2, 1, 1, 2, 1, 1, 2, 2, 1, 2, 1}},
	{"singles", slices.Repeat([]int{1}, 37)},
}

// groupsOf returns the group boundaries of the given sizes.
func groupsOf(sizes []int) []int32 {
	g := []int32{0}
	for _, k := range sizes {
		g = append(g, g[len(g)-1]+int32(k))
	}
	return g
}

// softmax64 is the softmax of a group of finite inputs in float64.
func softmax64(x []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	p := make([]float64, len(x))
	var s float64
	for j, v := range x {
		p[j] = math.Exp(float64(v) - m)
		s += p[j]
	}
	for j := range p {
		p[j] /= s
	}
	return p
}

// softmaxTol is the relative error bound of a group's float32
// probabilities against softmax64, for a group of k units whose largest
// distance below the maximum (among the units above −87) is dmax: the
// exponential's error (≤ 1e−7, twice: the unit's and the sum's), the
// rounding of pre[j] − m (u·|d|, the unit's and at most u·dmax in the sum),
// the sequential sum's (k − 1)·u and the division's u. The probability of
// unit j may be off by softmaxTol(k, dmax, |d_j|)·p plus 2e−38 absolute
// (units below −87 are 0, and their true probability is below e⁻⁸⁷).
func softmaxTol(k int, dmax, dj float64) float64 {
	return 2e-7 + ulp32*(dj+dmax+float64(k)+2)
}

// rowInputs fills pre for the groups with values of the given spread and
// returns it.
func rowInputs(r *rand.Rand, n int, spread float32) []float32 {
	pre := make([]float32, n)
	for i := range pre {
		pre[i] = spread * (2*r.Float32() - 1)
	}
	return pre
}

// TestSoftmaxExp holds expRef to math.Exp: every 1009th float32 of
// [−87, 0] within 1e−7 relative (over every float32 of [−87, 0] the worst
// is 8.13e−8, 0.98 ulp, at −59.950527: run this loop with a step of 1),
// exactly 1 at ±0, and 0 below −87.
func TestSoftmaxExp(t *testing.T) {
	for b := uint32(0x80000000); b <= math.Float32bits(expFloor); b += 1009 {
		x := math.Float32frombits(b)
		got, want := float64(expRef(x)), math.Exp(float64(x))
		if math.Abs(got-want) > 1e-7*want {
			t.Fatalf("expRef(%g) = %g, want %g (relative error %.3g)", x, got, want, math.Abs(got-want)/want)
		}
	}
	for _, c := range []struct{ x, want float32 }{
		{0, 1}, {float32(math.Copysign(0, -1)), 1},
		{expFloor, float32(math.Exp(-87))},
		{math.Nextafter32(expFloor, -100), 0}, {-100, 0}, {-3e38, 0}, {float32(math.Inf(-1)), 0},
	} {
		if got := expRef(c.x); math.Abs(float64(got-c.want)) > 1e-7*float64(c.want) {
			t.Errorf("expRef(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if got := expRef(float32(math.NaN())); got == got {
		t.Errorf("expRef(NaN) = %g, want NaN", got)
	}
}

// TestSoftmaxProbabilities holds Softmax and SoftmaxSample on every shape
// and spread of inputs to a float64 softmax (within softmaxTol), each
// group's probabilities to a sum of 1 within (k+2)·u, SoftmaxSample's
// probabilities to Softmax's bits, its states to one unit on per group,
// and the unit on to the float64 cumulative probabilities at the group's
// uniform: unit k is on only if C_{k−1} ≤ u < C_k, within twice
// softmaxTol, with C the float64 cumulative sums and u the group's uniform
// read from a copy of the stream.
func TestSoftmaxProbabilities(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, sh := range softmaxShapes {
		groups := groupsOf(sh.sizes)
		n := int(groups[len(groups)-1])
		for _, spread := range []float32{0.001, 1, 4, 20, 60} {
			for rep := 0; rep < 40; rep++ {
				pre := rowInputs(r, n, spread)
				s0 := NewStream(uint64(rep), 5)
				u := make([]float32, len(groups)-1)
				su := s0
				su.Uniforms(u)
				prob, state, only := make([]float32, n), make([]float32, n), make([]float32, n)
				SoftmaxSample(prob, state, pre, groups, &s0)
				Softmax(only, pre, groups)
				for g := 0; g+1 < len(groups); g++ {
					g0, g1 := int(groups[g]), int(groups[g+1])
					checkSoftmaxGroup(t, sh.name, g, pre[g0:g1], prob[g0:g1], state[g0:g1], only[g0:g1], u[g])
				}
			}
		}
	}
}

// checkSoftmaxGroup checks one group's outputs as TestSoftmaxProbabilities
// describes; only are Softmax's probabilities.
func checkSoftmaxGroup(t *testing.T, shape string, g int, pre, prob, state, only []float32, u float32) {
	t.Helper()
	k := len(pre)
	p64 := softmax64(pre)
	m := float64(slices.Max(pre))
	var dmax float64
	for _, v := range pre {
		if d := m - float64(v); d <= 87 {
			dmax = math.Max(dmax, d)
		}
	}
	var sum float64
	on := -1
	for j := range pre {
		if math.Float32bits(prob[j]) != math.Float32bits(only[j]) {
			t.Fatalf("%s group %d: SoftmaxSample prob[%d] = %g, Softmax %g", shape, g, j, prob[j], only[j])
		}
		tol := softmaxTol(k, dmax, m-float64(pre[j]))*p64[j] + 2e-38
		if math.Abs(float64(prob[j])-p64[j]) > tol {
			t.Fatalf("%s group %d (k = %d): prob[%d] = %g, want %g ± %.3g", shape, g, k, j, prob[j], p64[j], tol)
		}
		sum += float64(prob[j])
		switch state[j] {
		case 1:
			if on >= 0 {
				t.Fatalf("%s group %d: units %d and %d both on", shape, g, on, j)
			}
			on = j
		case 0:
		default:
			t.Fatalf("%s group %d: state[%d] = %g", shape, g, j, state[j])
		}
	}
	if math.Abs(sum-1) > float64(k+2)*ulp32 {
		t.Fatalf("%s group %d (k = %d): probabilities sum to 1%+.3g", shape, g, k, sum-1)
	}
	if on < 0 {
		t.Fatalf("%s group %d: no unit on", shape, g)
	}
	if prob[on] == 0 {
		t.Fatalf("%s group %d: unit %d of probability 0 is on", shape, g, on)
	}
	var lo float64
	for j := 0; j < on; j++ {
		lo += p64[j]
	}
	hi := lo + p64[on]
	tol := 2 * softmaxTol(k, dmax, dmax)
	if !(float64(u) >= lo-tol && float64(u) < hi+tol) {
		t.Fatalf("%s group %d: unit %d on at u = %.9g, outside its interval [%.9g, %.9g)", shape, g, on, u, lo, hi)
	}
}

// TestSoftmaxStream: a call with G groups uses one draw a group, ⌈G/16⌉
// blocks, whatever the group sizes, and leaves the stream where G draws
// leave it.
func TestSoftmaxStream(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for g := 0; g <= 50; g++ {
		sizes := make([]int, g)
		for i := range sizes {
			sizes[i] = 1 + r.IntN(5)
		}
		groups := groupsOf(sizes)
		n := int(groups[g])
		pre := rowInputs(r, n, 3)
		s1 := NewStream(uint64(g), 6)
		s2 := s1
		SoftmaxSample(make([]float32, n), make([]float32, n), pre, groups, &s1)
		s2.Uint32s(make([]uint32, g))
		if s1 != s2 {
			t.Fatalf("%d groups of %v units: the stream is not where %d draws leave it", g, sizes, g)
		}
	}
}

// TestSoftmaxSpecial: hand-worked groups. Equal inputs, and a group of
// −Inf only, have e_j = 1 each, so prob is exactly 1/k and the unit on is
// ⌊k·u⌋ (c_j = j+1 and t = k·u exactly); −Inf and inputs more than 87
// below the maximum have probability 0 and are never on; +Inf takes the
// whole probability; a NaN makes the group's probabilities NaN and its
// last unit on; a group of one unit is always on.
func TestSoftmaxSpecial(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	cases := []struct {
		name string
		pre  []float32
		prob []float32 // nil: k equal units
	}{
		{"equal", []float32{3, 3, 3, 3, 3}, nil},
		{"equal negative", []float32{-50, -50}, nil},
		{"all -Inf", []float32{-inf, -inf, -inf, -inf}, nil},
		{"-Inf", []float32{-inf, 2, -inf}, []float32{0, 1, 0}},
		{"below -87", []float32{0, -87.5, -1e30}, []float32{1, 0, 0}},
		{"overflowing difference", []float32{3e38, -3e38}, []float32{1, 0}},
		{"+Inf", []float32{1, inf, 3}, []float32{0, 1, 0}},
		{"+Inf twice", []float32{inf, -inf, inf}, []float32{0.5, 0, 0.5}},
		{"one unit", []float32{-7}, []float32{1}},
		{"one unit -Inf", []float32{-inf}, []float32{1}},
		{"one unit +Inf", []float32{inf}, []float32{1}},
		{"ln 3", []float32{0, float32(math.Log(3))}, []float32{0.25, 0.75}},
	}
	for _, c := range cases {
		k := len(c.pre)
		want := c.prob
		if want == nil {
			want = slices.Repeat([]float32{1 / float32(k)}, k)
		}
		for seed := uint64(0); seed < 200; seed++ {
			s := NewStream(seed, 7)
			var u [1]float32
			su := s
			su.Uniforms(u[:])
			prob, state := make([]float32, k), make([]float32, k)
			SoftmaxSample(prob, state, c.pre, []int32{0, int32(k)}, &s)
			// The unit that must be on: ⌊t⌋ for k equal units (t = k·u
			// rounded to float32); the unit of probability 1; with two
			// units of ½ and one of 0 (c = 1, 1, 2), the first if t < 1.
			on := slices.Index(want, 1)
			switch {
			case c.prob == nil:
				on = int(float32(k) * u[0])
			case c.name == "+Inf twice" && float32(2)*u[0] < 1:
				on = 0
			case c.name == "+Inf twice":
				on = 2
			}
			for j := range want {
				if !near(prob[j], want[j], 3e-7) {
					t.Fatalf("%s: prob = %v, want %v", c.name, prob, want)
				}
				if want[j] == 0 && state[j] != 0 {
					t.Fatalf("%s: unit %d of probability 0 on (state %v)", c.name, j, state)
				}
			}
			if slices.Max(state) != 1 || sumOf(state) != 1 || (on >= 0 && state[on] != 1) {
				t.Fatalf("%s at u = %g: state %v, want one unit on (unit %d)", c.name, u[0], state, on)
			}
		}
	}
	// A single NaN unit: on, with probability NaN.
	prob, state := make([]float32, 1), make([]float32, 1)
	s := NewStream(1, 8)
	SoftmaxSample(prob, state, []float32{float32(math.NaN())}, []int32{0, 1}, &s)
	if prob[0] == prob[0] || state[0] != 1 {
		t.Errorf("one NaN unit: prob %g, state %g; want NaN, 1", prob[0], state[0])
	}
	// A NaN: every probability of its group NaN, the last unit on; the
	// other groups are untouched by it.
	pre := []float32{1, nan, 2, 0.5, -0.5}
	prob, state = make([]float32, 5), make([]float32, 5)
	SoftmaxSample(prob, state, pre, []int32{0, 3, 5}, &s)
	for j := 0; j < 3; j++ {
		if prob[j] == prob[j] {
			t.Errorf("NaN group: prob[%d] = %g, want NaN", j, prob[j])
		}
	}
	if !slices.Equal(state[:3], []float32{0, 0, 1}) {
		t.Errorf("NaN group: state %v, want the last unit on", state[:3])
	}
	if p := softmax64(pre[3:]); !near(prob[3], float32(p[0]), 1e-7) || sumOf(state[3:]) != 1 {
		t.Errorf("group after the NaN: prob %v state %v, want prob[3] = %g", prob[3:], state[3:], p[0])
	}
}

func sumOf(s []float32) float32 {
	var t float32
	for _, v := range s {
		t += v
	}
	return t
}

// TestSoftmaxAlias: with prob = pre both functions give the bits they give
// with separate slices.
func TestSoftmaxAlias(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, sh := range softmaxShapes {
		groups := groupsOf(sh.sizes)
		pre := rowInputs(r, int(groups[len(groups)-1]), 5)
		n := len(pre)
		s1 := NewStream(9, 9)
		s2 := s1
		prob, state := make([]float32, n), make([]float32, n)
		SoftmaxSample(prob, state, pre, groups, &s1)
		in, state2 := clone(pre), make([]float32, n)
		SoftmaxSample(in, state2, in, groups, &s2)
		if !slices.Equal(in, prob) || !slices.Equal(state2, state) || s1 != s2 {
			t.Fatalf("%s: SoftmaxSample in place differs", sh.name)
		}
		in = clone(pre)
		Softmax(in, in, groups)
		if !slices.Equal(in, prob) {
			t.Fatalf("%s: Softmax in place differs", sh.name)
		}
	}
}

// TestSoftmaxGroupsChecked: a bad partition or a short output panics with
// a message that names what is wrong.
func TestSoftmaxGroupsChecked(t *testing.T) {
	pre := make([]float32, 6)
	for _, c := range []struct {
		groups []int32
		n      int
		want   string
	}{
		{nil, 6, "groups is empty"},
		{[]int32{1, 6}, 6, "groups[0] = 1"},
		{[]int32{0, 3, 3, 6}, 6, "groups[2] = 3 not above groups[1] = 3"},
		{[]int32{0, 4, 2, 6}, 6, "groups[2] = 2 not above"},
		{[]int32{0, 3, 5}, 6, "groups ends at 5, need len(pre) = 6"},
		{[]int32{0, 3, 7}, 6, "groups ends at 7"},
		{[]int32{0, 6}, 5, "prob has length 5, need 6"},
	} {
		for _, sample := range []bool{true, false} {
			msg := func() (msg string) {
				defer func() { msg, _ = recover().(string) }()
				prob := make([]float32, c.n)
				if sample {
					s := NewStream(1, 1)
					SoftmaxSample(prob, make([]float32, 6), pre, c.groups, &s)
				} else {
					Softmax(prob, pre, c.groups)
				}
				return ""
			}()
			if !strings.Contains(msg, c.want) {
				t.Errorf("groups %v, len(prob) %d: panic %q, want one with %q", c.groups, c.n, msg, c.want)
			}
		}
	}
	func() {
		defer func() {
			if msg, _ := recover().(string); !strings.Contains(msg, "state has length 2") {
				t.Errorf("short state: panic %q", msg)
			}
		}()
		s := NewStream(1, 1)
		SoftmaxSample(make([]float32, 6), make([]float32, 2), pre, []int32{0, 6}, &s)
	}()
	func() {
		defer func() {
			if msg, _ := recover().(string); !strings.Contains(msg, "more than 16777216") {
				t.Errorf("group of 2²⁴+1 units: panic %q", msg)
			}
		}()
		checkGroups([]int32{0, 1<<24 + 1}, 1<<24+1)
	}()
	// The empty row: groups = [0] is valid.
	s := NewStream(1, 1)
	SoftmaxSample(nil, nil, nil, []int32{0}, &s)
	Softmax(nil, nil, []int32{0})
}

// chiGroups are the groups of the χ² test: very peaked (one unit about
// 0.9989, one about 1e−13), near uniform over 10 and over 500 units, a
// spread group of 12, Connect-4-like and label-like groups, and one unit.
var chiGroups = func() [][]float32 {
	r := rand.New(rand.NewPCG(27, 28))
	jitter := func(k int, a float32) []float32 { return rowInputs(r, k, a) }
	return [][]float32{
		{8, 0, 0.5, -1, -2, -22},
		jitter(10, 0.01),
		jitter(500, 0.1),
		jitter(12, 2.5),
		{-1, 0.5, 2},
		{0, 0.85},
		{3},
	}
}()

// chiSquare returns the χ² statistic of counts against the probabilities p
// (n draws) and its degrees of freedom, pooling the cells expected below 5
// into one (itself added to the largest cell if it is expected below 5).
func chiSquare(counts []int, p []float64, n int) (stat float64, df int) {
	type cell struct {
		obs int
		exp float64
	}
	var cells []cell
	var pool cell
	for j, q := range p {
		if e := q * float64(n); e < 5 {
			pool.obs += counts[j]
			pool.exp += e
		} else {
			cells = append(cells, cell{counts[j], e})
		}
	}
	if pool.exp >= 5 {
		cells = append(cells, pool)
	} else if len(cells) > 0 {
		big := 0
		for i := range cells {
			if cells[i].exp > cells[big].exp {
				big = i
			}
		}
		cells[big].obs += pool.obs
		cells[big].exp += pool.exp
	}
	for _, c := range cells {
		d := float64(c.obs) - c.exp
		stat += d * d / c.exp
	}
	return stat, len(cells) - 1
}

// chiCounts are the counts of chiDraws(chiDrawCount), drawn once for both
// χ² tests.
var chiCounts = sync.OnceValue(func() [][]int { return chiDraws(chiDrawCount) })

// chiDraws draws n rows of chiGroups through SoftmaxSample and returns the
// counts of each group's units.
func chiDraws(n int) [][]int {
	var pre []float32
	groups := []int32{0}
	for _, g := range chiGroups {
		pre = append(pre, g...)
		groups = append(groups, int32(len(pre)))
	}
	counts := make([][]int, len(chiGroups))
	for g := range counts {
		counts[g] = make([]int, len(chiGroups[g]))
	}
	prob, state := make([]float32, len(pre)), make([]float32, len(pre))
	s := NewStream(29, 30)
	for i := 0; i < n; i++ {
		SoftmaxSample(prob, state, pre, groups, &s)
		for g := range counts {
			for j, v := range state[groups[g]:groups[g+1]] {
				if v == 1 {
					counts[g][j]++
				}
			}
		}
	}
	return counts
}

// chiDrawCount is the number of rows the χ² tests draw.
const chiDrawCount = 40000

// chiAlpha is the false alarm rate of TestSoftmaxChiSquare as a whole,
// split evenly over its groups (Bonferroni).
const chiAlpha = 1e-3

// chiLimit is the χ² bound with df degrees of freedom at a false alarm
// rate of chiAlpha/len(chiGroups).
func chiLimit(df int) float64 {
	return distuv.ChiSquared{K: float64(df)}.Quantile(1 - chiAlpha/float64(len(chiGroups)))
}

// TestSoftmaxChiSquare: 40,000 draws of each of chiGroups on the tier in
// use (every tier gives the same bits: softmax_tiers_test.go) fit the
// float64 softmax probabilities: each group's χ² is below its bound at a
// false alarm rate of 10⁻³/7, 10⁻³ for the whole test (a fixed seed, so
// the test passes or fails the same way on every run). Units of
// probability below 10⁻¹² are never drawn (they would be with probability
// below 4·10⁻⁸), and the single unit always.
func TestSoftmaxChiSquare(t *testing.T) {
	counts := chiCounts()
	for g, pre := range chiGroups {
		p := softmax64(pre)
		for j, q := range p {
			if q < 1e-12 && counts[g][j] != 0 {
				t.Errorf("group %d: unit %d of probability %.3g drawn %d times", g, j, q, counts[g][j])
			}
		}
		if len(p) == 1 {
			if counts[g][0] != chiDrawCount {
				t.Errorf("group %d: the single unit drawn %d times of %d", g, counts[g][0], chiDrawCount)
			}
			continue
		}
		stat, df := chiSquare(counts[g], p, chiDrawCount)
		if lim := chiLimit(df); stat > lim {
			t.Errorf("group %d (%d units): χ² = %.1f with %d degrees of freedom, above %.1f", g, len(p), stat, df, lim)
		}
	}
}

// TestSoftmaxChiSquareDetects: the χ² test above rejects draws that are
// slightly off: each unit's count given to the next unit (an off-by-one
// in the selection) in the spread and Connect-4-like groups, and the
// counts of the spread group against the probabilities at inputs 5% larger.
func TestSoftmaxChiSquareDetects(t *testing.T) {
	counts := chiCounts()
	for _, g := range []int{3, 4} {
		c := counts[g]
		shifted := append([]int{c[len(c)-1]}, c[:len(c)-1]...)
		if stat, df := chiSquare(shifted, softmax64(chiGroups[g]), chiDrawCount); stat <= chiLimit(df) {
			t.Errorf("group %d off by one: χ² = %.1f, not above %.1f", g, stat, chiLimit(df))
		}
	}
	hot := clone(chiGroups[3])
	for j := range hot {
		hot[j] *= 1.05
	}
	if stat, df := chiSquare(counts[3], softmax64(hot), chiDrawCount); stat <= chiLimit(df) {
		t.Errorf("inputs 5%% larger: χ² = %.1f, not above %.1f", stat, chiLimit(df))
	}
}

// TestSoftmaxExtremeUniforms: the first group's draw set by hand to the
// least and the greatest uniform, u = 0 and 1 − 2⁻²⁴ (xoshiro128++'s
// output is rotl(s0+s3, 7) + s0: lane 0 in state (0, 1, 0, 0) draws 0,
// in state (2³²−1, 0, 0, 1) draws 2³²−1). At u = 0 the unit on is the
// first of positive probability, at the greatest u the last one, on
// every tier: a unit of probability 0 before or after them is never on.
func TestSoftmaxExtremeUniforms(t *testing.T) {
	inf := float32(math.Inf(1))
	lane0 := func(s0, s1, s2, s3 uint32) Stream {
		st := NewStream(1, 2)
		st.s[0][0], st.s[1][0], st.s[2][0], st.s[3][0] = s0, s1, s2, s3
		return st
	}
	low, high := lane0(0, 1, 0, 0), lane0(math.MaxUint32, 0, 0, 1)
	var u, v [1]float32
	s, h := low, high
	s.Uniforms(u[:])
	h.Uniforms(v[:])
	if u[0] != 0 || v[0] != 1-ulp32 {
		t.Fatalf("the crafted streams draw %g and %g, want 0 and 1 − 2⁻²⁴", u[0], v[0])
	}
	for _, c := range []struct {
		name string
		s    Stream
		pre  []float32
		on   int
	}{
		{"u = 0 after a unit of probability 0", low, []float32{-inf, 2, 1}, 1},
		{"u = 0", low, []float32{0, 5}, 0},
		{"u = 0, the unit below −87 first", low, []float32{-90, 0, 0}, 1},
		{"greatest u before a unit of probability 0", high, []float32{1, 2, -inf}, 1},
		{"greatest u before units below −87", high, []float32{3, -1e30, 0, -inf, -88}, 2},
		{"greatest u, equal units", high, []float32{0, 0, 0, 0}, 3},
	} {
		for _, im := range append(softmaxTiers(), generic) {
			k := len(c.pre)
			prob, state := make([]float32, k+1), make([]float32, k+1)
			s := c.s
			// A second group, so that the draw of lane 1 is used too.
			im.softmaxSample(prob, state, append(clone(c.pre), 0), []int32{0, int32(k), int32(k + 1)}, &s)
			want := make([]float32, k+1)
			want[c.on], want[k] = 1, 1
			if !slices.Equal(state, want) {
				t.Errorf("%s, %s: state %v, want %v", im.name, c.name, state, want)
			}
		}
	}
}
