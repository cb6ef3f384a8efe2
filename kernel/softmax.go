package kernel

import (
	"fmt"
	"math"
)

// Categorical (softmax) units: the units of a row are split into groups
// (one categorical attribute each), and a group's units are drawn together
// from the softmax of their inputs, exactly one of them on. Every step is
// one IEEE operation (add, subtract, multiply, divide, comparison,
// conversion, integer and bit operations), each rounded on its own and
// never fused, in the order written here, so every tier computes the same
// bits:
//
//   - the group's maximum m (an order-free result: a NaN is skipped, and
//     the sign of a zero m changes no difference below);
//   - d_j = pre[j] − m, or 0 where pre[j] = m (so an infinite m gives
//     d = 0 at the infinite units instead of ∞ − ∞);
//   - e_j = expRef(d_j), a Cephes-style float32 exponential that is 0
//     below −87 and exactly 1 at 0;
//   - the running sums c_j = c_{j−1} + e_j in the group's order, S the last;
//   - prob[j] = e_j / S;
//   - with u the group's uniform and t = u·S (rounded), the unit on is the
//     first j with c_j > t.
//
// The c_j tile [0, S) exactly (c_j = c_{j−1} where e_j = 0), and t < S for
// every u < 1 (S·(1 − 2⁻²⁴) rounds below S), so some unit always has
// c_j > t; the one found has e_j > 0, hence prob[j] > 0 (e_j ≥ e⁻⁸⁷ and
// S ≤ 2²⁴ in a group of at most 2²⁴ units), and the last unit with e_j > 0
// takes whatever the rounding of the c_j leaves. Only a NaN (a NaN input:
// S and t are then NaN) finds no unit; the group's last unit is on then.

// Cephes expf's constants: ln 2 split as expC1 + expC2 (expC1 exact in 9
// bits, so n·expC1 is exact for |n| < 2¹⁵) and the polynomial
// e^r ≈ 1 + r + r²·P(r) for |r| ≤ ln2/2.
const (
	expLog2e float32 = 1.44269504088896341
	expC1    float32 = 0.693359375
	expC2    float32 = -2.12194440e-4
	expP0    float32 = 1.9875691500e-4
	expP1    float32 = 1.3981999507e-3
	expP2    float32 = 8.3334519073e-3
	expP3    float32 = 4.1665795894e-2
	expP4    float32 = 1.6666665459e-1
	expP5    float32 = 5.0000001201e-1
	// expFloor is the input below which expRef is 0: at −87 the scale 2ⁿ
	// (n ≥ −126) and the result (e⁻⁸⁷ ≈ 1.6e−38) are still normal.
	expFloor float32 = -87
)

// maxGroup is the largest group SoftmaxSample takes: up to 2²⁴ units a
// unit with e_j > 0 has prob[j] > 0.
const maxGroup = 1 << 24

// expRef is e^x for x ≤ 0, in the kernels' sequence of operations
// (relative error at most 8.2e−8, under one ulp, over every float32 in
// [−87, 0]; TestSoftmaxExp checks a sample): 0 below −87
// and for −Inf, x itself for a NaN. With n = round(x·log2e) (to nearest,
// ties to even) and r = x − n·ln2 in two steps,
//
//	e^x = (1 + r + r²·P(r)) · 2ⁿ,
//
// 2ⁿ built in the exponent field (−126 ≤ n ≤ 0 here).
func expRef(x float32) float32 {
	if x != x {
		return x
	}
	if x < expFloor {
		return 0
	}
	t := float32(x * expLog2e)
	n := int32(math.RoundToEven(float64(t)))
	nf := float32(n)
	r := x - float32(nf*expC1)
	r = r - float32(nf*expC2)
	z := float32(r * r)
	y := float32(expP0 * r)
	y = float32(float32(y+expP1) * r)
	y = float32(float32(y+expP2) * r)
	y = float32(float32(y+expP3) * r)
	y = float32(float32(y+expP4) * r)
	y = y + expP5
	y = float32(y * z)
	y = y + r
	y = y + 1
	return float32(y * math.Float32frombits(uint32(n+127)<<23))
}

// groupMax is the largest non-NaN value of x, −Inf if there is none.
func groupMax(x []float32) float32 {
	m := float32(math.Inf(-1))
	for _, v := range x {
		if v > m {
			m = v
		}
	}
	return m
}

// softmaxExpShift sets d[j] = x[j] − m (0 where x[j] = m) for the group x
// with maximum m; d may be x.
func softmaxExpShift(d, x []float32) {
	m := groupMax(x)
	for j, v := range x {
		dv := v - m
		if v == m {
			dv = 0
		}
		d[j] = dv
	}
}

// softmaxExpGroup sets e[j] = expRef(x[j] − m) (0 where x[j] = m) for the
// group x with maximum m; e may be x.
func softmaxExpGroup(e, x []float32) {
	softmaxExpShift(e, x)
	for j, d := range e[:len(x)] {
		e[j] = expRef(d)
	}
}

// softmaxGeneric is Softmax: per group, prob = e/S.
func softmaxGeneric(prob, pre []float32, groups []int32) {
	for g := 0; g+1 < len(groups); g++ {
		p := prob[groups[g]:groups[g+1]]
		softmaxExpGroup(p, pre[groups[g]:groups[g+1]])
		var sum float32
		for _, e := range p {
			sum += e
		}
		for j := range p {
			p[j] /= sum
		}
	}
}

// softmaxSampleGeneric is SoftmaxSample: the running sums are kept in
// state until the unit is chosen.
func softmaxSampleGeneric(prob, state, pre []float32, groups []int32, s *Stream) {
	var blk [Lanes]uint32
	for g := 0; g+1 < len(groups); g++ {
		if g%Lanes == 0 {
			s.next(&blk)
		}
		g0, g1 := groups[g], groups[g+1]
		p, st := prob[g0:g1], state[g0:g1]
		softmaxExpGroup(p, pre[g0:g1])
		var c float32
		for j, e := range p {
			c += e
			st[j] = c
		}
		t := float32(uniform(blk[g%Lanes]) * c)
		k := len(p) - 1 // a NaN group: no c_j > t
		for j, cj := range st {
			if cj > t {
				k = j
				break
			}
		}
		for j := range p {
			p[j] /= c
			st[j] = 0
		}
		st[k] = 1
	}
}

// checkGroups panics unless groups is a valid partition of n units:
// groups[0] = 0, strictly increasing, groups[len−1] = n, no group above
// maxGroup units. The tier's groupsValid tests that; the loop below
// finds what to report.
func checkGroups(groups []int32, n int) {
	if cur.groupsValid(groups, n) {
		return
	}
	if len(groups) == 0 {
		panic(fmt.Sprintf("kernel: groups is empty, need [0 … %d]", n))
	}
	if groups[0] != 0 {
		panic(fmt.Sprintf("kernel: groups[0] = %d, need 0", groups[0]))
	}
	for g := 1; g < len(groups); g++ {
		a, b := int64(groups[g-1]), int64(groups[g])
		if b <= a {
			panic(fmt.Sprintf("kernel: groups[%d] = %d not above groups[%d] = %d", g, b, g-1, a))
		}
		if b-a > maxGroup {
			panic(fmt.Sprintf("kernel: group %d has %d units, more than %d", g-1, b-a, maxGroup))
		}
	}
	if last := groups[len(groups)-1]; int(last) != n {
		panic(fmt.Sprintf("kernel: groups ends at %d, need len(pre) = %d", last, n))
	}
}

// groupsValidGeneric is groupsValid: whether checkGroups(groups, n)
// passes.
func groupsValidGeneric(groups []int32, n int) bool {
	if len(groups) == 0 || groups[0] != 0 || int(groups[len(groups)-1]) != n {
		return false
	}
	for g := 1; g < len(groups); g++ {
		if d := int64(groups[g]) - int64(groups[g-1]); d <= 0 || d > maxGroup {
			return false
		}
	}
	return true
}

// SoftmaxSample draws categorical units: the units of pre are split into
// the G = len(groups)−1 groups groups[g] … groups[g+1]−1 (groups[0] = 0,
// strictly increasing, groups[G] = len(pre), at most 2²⁴ units a group;
// all checked), and for each group g in order, with m_g its largest input
// and u_g the uniform of the stream's g-th draw (one draw a group, so a
// call uses ⌈G/16⌉ blocks of the stream whatever the group sizes),
//
//	for j in g: e_j = exp(pre[j] − m_g)                 (expRef; 0 below −87)
//	            c_j = c_{j−1} + e_j   (c before the group's first unit = 0)
//	S = c_last;  for j in g: prob[j] = e_j / S
//	t = u_g·S;   k = the first j in g with c_j > t
//	state[j] = 1 if j = k else 0
//
// so exactly one unit of each group is on, unit j with probability prob[j]
// up to float32 rounding, and a unit whose prob is 0 never. u_g is
// (r >> 8)·2⁻²⁴ for the draw r, as everywhere in the package. A group of
// one unit is always on. An input of +Inf takes the group's whole
// probability (shared among the +Inf units); a group of −Inf only is
// uniform; a NaN makes its group's probabilities NaN and its last unit on.
// Every tier gives the same bits. prob may alias pre (exactly); state
// must not overlap either.
func SoftmaxSample(prob, state, pre []float32, groups []int32, s *Stream) {
	need("prob", len(prob), len(pre))
	need("state", len(state), len(pre))
	checkGroups(groups, len(pre))
	if len(pre) == 0 {
		return
	}
	cur.softmaxSample(prob[:len(pre)], state[:len(pre)], pre, groups, s)
}

// Softmax computes SoftmaxSample's probabilities, bit for bit, with no
// draws: for each group g, prob[j] = e_j / Σ_{k∈g} e_k with
// e_j = exp(pre[j] − m_g) as there. groups is checked as there; prob may
// alias pre.
func Softmax(prob, pre []float32, groups []int32) {
	need("prob", len(prob), len(pre))
	checkGroups(groups, len(pre))
	if len(pre) == 0 {
		return
	}
	cur.softmax(prob[:len(pre)], pre, groups)
}
