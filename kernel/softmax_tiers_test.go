package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Differential tests of categorical sampling: every assembly tier this CPU
// runs, and the tiers' Go driver on the generic kernels (softmaxSampleVia,
// which every machine and build runs), give softmaxSampleGeneric's and
// softmaxGeneric's bits and leave the stream where it does, on every
// length of lengths() split into groups of several patterns, inputs with
// ties, −Inf, +Inf, NaN and values below −87, outputs at offsets 0–3
// between guards, and in place. The two row-wide kernels of each tier are
// held to the generic ones on their own too.

// softmaxTiers returns the assembly tiers this CPU and build run and the
// Go driver on the generic kernels (named "generic-via").
func softmaxTiers() []*impl {
	var ts []*impl
	for _, im := range available {
		if im != generic {
			ts = append(ts, im)
		}
	}
	via := *generic
	via.name = "generic-via"
	via.softmaxSample = softmaxSampleVia(&via)
	via.softmax = softmaxVia(&via)
	return append(ts, &via)
}

// softmaxPartitions returns the group sizes of n units in several
// patterns: groups of 3 (Connect-4, the last one shorter), of 1–12 units
// (Mushrooms), of 1–2, of 1, one group, and of 1–40.
func softmaxPartitions(r *rand.Rand, n int) [][]int {
	random := func(lo, hi int) []int {
		var s []int
		for left := n; left > 0; {
			k := min(lo+r.IntN(hi-lo+1), left)
			s = append(s, k)
			left -= k
		}
		return s
	}
	if n == 0 {
		return [][]int{nil}
	}
	return [][]int{random(3, 3), random(1, 12), random(1, 2), random(1, 1), {n}, random(1, 40)}
}

// softmaxFill sets pre to values in [−6, 6) with, one in ten, a special
// one: a tie with the previous unit, ±0, −Inf, a value far below the rest
// or near −87 below them, and more rarely +Inf or NaN.
func softmaxFill(r *rand.Rand, pre []float32) {
	for i := range pre {
		pre[i] = 12*r.Float32() - 6
		if r.IntN(10) != 0 {
			continue
		}
		switch r.IntN(14) {
		case 0, 1, 2:
			if i > 0 {
				pre[i] = pre[i-1]
			}
		case 12:
			pre[i] = 0
		case 13:
			pre[i] = float32(math.Copysign(0, -1))
		case 3, 4:
			pre[i] = float32(math.Inf(-1))
		case 5, 6:
			pre[i] = -1e30
		case 7, 8, 9:
			pre[i] = -81 - 2*r.Float32()*4
		case 10:
			pre[i] = float32(math.Inf(1))
		case 11:
			pre[i] = float32(math.NaN())
		}
	}
}

// firstDiff returns the first index where got and want differ in their
// float32 bits, and whether they hold the same bits.
func firstDiff(got, want []float32) (int, bool) {
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return i, false
		}
	}
	return -1, true
}

func TestSoftmaxTiers(t *testing.T) {
	for _, im := range softmaxTiers() {
		r := rand.New(rand.NewPCG(31, 32))
		for _, n := range lengths() {
			for _, sizes := range softmaxPartitions(r, n) {
				pre, _ := padded(t, r, n, n%4, uni(0, 0))
				softmaxFill(r, pre)
				checkSoftmaxTier(t, r, im, pre, groupsOf(sizes), NewStream(uint64(n), 33), (n+1)%4, (n+2)%4)
			}
		}
	}
}

// checkSoftmaxTier runs the reference's and tier im's SoftmaxSample and
// Softmax on pre from stream s0 (outputs at offsets offP and offS in
// guarded buffers that start with garbage) and requires the same bits,
// the same stream state after, and the same bits in place (prob = pre).
func checkSoftmaxTier(t testing.TB, r *rand.Rand, im *impl, pre []float32, groups []int32, s0 Stream, offP, offS int) {
	t.Helper()
	n := len(pre)
	fail := func(what string, i int, got, want []float32) {
		t.Helper()
		g := 0
		for int(groups[g+1]) <= i {
			g++
		}
		t.Fatalf("%s %s n=%d: [%d] = %g (%#x), want %g (%#x); group %d = pre%v",
			im.name, what, n, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]),
			g, pre[groups[g]:groups[g+1]])
	}
	s1, s2, s3 := s0, s0, s0
	wantP, wantS := make([]float32, n), make([]float32, n)
	if n > 0 {
		softmaxSampleGeneric(wantP, wantS, pre, groups, &s1)
	}
	gotP, checkP := padded(t, r, n, offP, uni(-9, 9))
	gotS, checkS := padded(t, r, n, offS, uni(-9, 9))
	if n > 0 {
		im.softmaxSample(gotP, gotS, pre, groups, &s2)
	}
	checkP(im.name + " softmaxSample prob")
	checkS(im.name + " softmaxSample state")
	if s1 != s2 {
		t.Fatalf("%s softmaxSample n=%d, %d groups: stream state differs from the reference's", im.name, n, len(groups)-1)
	}
	if i, ok := firstDiff(gotP, wantP); !ok {
		fail("softmaxSample prob", i, gotP, wantP)
	}
	if i, ok := firstDiff(gotS, wantS); !ok {
		fail("softmaxSample state", i, gotS, wantS)
	}
	if n == 0 {
		return
	}
	in := clone(pre)
	im.softmaxSample(in, gotS, in, groups, &s3)
	if i, ok := firstDiff(in, wantP); !ok {
		fail("softmaxSample in place prob", i, in, wantP)
	}
	if i, ok := firstDiff(gotS, wantS); !ok {
		fail("softmaxSample in place state", i, gotS, wantS)
	}
	softmaxGeneric(wantP, pre, groups)
	got, check := padded(t, r, n, offS, uni(-9, 9))
	im.softmax(got, pre, groups)
	check(im.name + " softmax")
	if i, ok := firstDiff(got, wantP); !ok {
		fail("softmax", i, got, wantP)
	}
	in = clone(pre)
	im.softmax(in, in, groups)
	if i, ok := firstDiff(in, wantP); !ok {
		fail("softmax in place", i, in, wantP)
	}
}

// TestSoftmaxExpTiers holds each tier's softmaxExp to expRef bit for bit
// on every 1021st float32 of [−88, 0] (and the first 1,000 past −87
// either way), ±0, −Inf and NaNs, in rows of every length of lengths() at
// offsets 0–3 between guards, and in place.
func TestSoftmaxExpTiers(t *testing.T) {
	var xs []float32
	for b := uint32(0x80000000); b <= 0xc2b00000; b += 1021 {
		xs = append(xs, math.Float32frombits(b))
	}
	for d := uint32(0); d < 1000; d++ {
		xs = append(xs, math.Float32frombits(math.Float32bits(expFloor)+d), math.Float32frombits(math.Float32bits(expFloor)-d))
	}
	nan := float32(math.NaN())
	xs = append(xs, 0, float32(math.Inf(-1)), nan, -nan, math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001))
	for _, im := range softmaxTiers() {
		r := rand.New(rand.NewPCG(35, 36))
		ls := lengths()
		for at, k := 0, 0; at < len(xs); k++ {
			n := ls[k%len(ls)]
			src := xs[at:min(at+n, len(xs))]
			at += len(src)
			n = len(src)
			got, check := padded(t, r, n, k%4, uni(-9, 9))
			im.softmaxExp(got, src)
			check(im.name + " softmaxExp")
			in := clone(src)
			im.softmaxExp(in, in)
			for i, x := range src {
				want := math.Float32bits(expRef(x))
				if math.Float32bits(got[i]) != want || math.Float32bits(in[i]) != want {
					t.Fatalf("%s softmaxExp(%g) = %#x (in place %#x), want %#x", im.name, x, math.Float32bits(got[i]), math.Float32bits(in[i]), want)
				}
			}
		}
	}
}

// TestSoftmaxFinishTiers holds each tier's softmaxFinish to the generic
// one bit for bit: states of either sign (the sign marks the unit on),
// including ±0, ±NaN and large sums, probabilities including 0 and NaN.
func TestSoftmaxFinishTiers(t *testing.T) {
	nan := float32(math.NaN())
	for _, im := range softmaxTiers() {
		r := rand.New(rand.NewPCG(37, 38))
		for _, n := range lengths() {
			prob, _ := padded(t, r, n, n%4, uni(0, 1))
			state, _ := padded(t, r, n, (n+1)%4, uni(1, 500))
			for i := range state {
				if r.IntN(3) == 0 {
					state[i] = -state[i]
				}
				switch r.IntN(40) {
				case 0:
					prob[i] = 0
				case 1:
					prob[i] = nan
				case 2:
					state[i] = nan
				case 3:
					state[i] = -nan
				case 4:
					state[i] = float32(math.Copysign(0, -1))
				}
			}
			wantP, wantS := clone(prob), clone(state)
			softmaxFinishGeneric(wantP, wantS)
			gotP, checkP := padded(t, r, n, (n+2)%4, uni(0, 0))
			gotS, checkS := padded(t, r, n, (n+3)%4, uni(0, 0))
			copy(gotP, prob)
			copy(gotS, state)
			im.softmaxFinish(gotP, gotS)
			checkP(im.name + " softmaxFinish prob")
			checkS(im.name + " softmaxFinish state")
			if i, ok := firstDiff(gotP, wantP); !ok {
				t.Fatalf("%s softmaxFinish n=%d: prob[%d] = %#x, want %#x (prob %g, state %g)", im.name, n, i, math.Float32bits(gotP[i]), math.Float32bits(wantP[i]), prob[i], state[i])
			}
			if i, ok := firstDiff(gotS, wantS); !ok {
				t.Fatalf("%s softmaxFinish n=%d: state[%d] = %g, want %g (state %g)", im.name, n, i, gotS[i], wantS[i], state[i])
			}
		}
	}
}

// softmax is the tier self-check's part for categorical sampling: tier
// t's SoftmaxSample and Softmax against the generic code on groups of 1
// to 5 units with −Inf and a tie among the inputs, and its two row-wide
// kernels on their own (softmaxExp on inputs ≤ 0 with ±0, the floor and
// −Inf; softmaxFinish on sums of either sign), bit for bit between guard
// zones.
func (sc *tierChecker) softmax(t *impl, n int) {
	pre := sc.fill(make([]float32, n), -6, 6)
	pre[0] = float32(math.Inf(-1))
	if n > 2 {
		pre[2] = pre[1]
	}
	groups := []int32{0}
	for k := 1; int(groups[len(groups)-1]) < n; k = k%5 + 1 {
		groups = append(groups, int32(min(int(groups[len(groups)-1])+k, n)))
	}
	s1 := NewStream(uint64(n), 4)
	s2 := s1
	wantP, wantS := make([]float32, n), make([]float32, n)
	softmaxSampleGeneric(wantP, wantS, pre, groups, &s1)
	gotP, checkP := sc.guarded(n)
	gotS, checkS := sc.guarded(n)
	t.softmaxSample(gotP, gotS, pre, groups, &s2)
	checkP("softmaxSample prob")
	checkS("softmaxSample state")
	if s1 != s2 {
		sc.fail("softmaxSample n=%d: stream state differs", n)
		return
	}
	sc.compare("softmaxSample prob", n, gotP, wantP, selfCheckExact)
	sc.compare("softmaxSample state", n, gotS, wantS, selfCheckExact)
	got, check := sc.guarded(n)
	t.softmax(got, pre, groups)
	check("softmax")
	sc.compare("softmax", n, got, wantP, selfCheckExact)
	if t.softmaxSampleBlocks != nil && n == 100 {
		sc.softmaxBlocks(t, pre)
	}

	x := sc.fill(make([]float32, n), -90, 0)
	copy(x, []float32{float32(math.Copysign(0, -1)), 0, expFloor, float32(math.Inf(-1))})
	want := make([]float32, n)
	softmaxExpGeneric(want, x)
	got, check = sc.guarded(n)
	t.softmaxExp(got, x)
	check("softmaxExp")
	sc.compare("softmaxExp", n, got, want, selfCheckExact)

	sums := sc.fill(make([]float32, n), -50, 50)
	wantP = sc.fill(make([]float32, n), 0, 1)
	wantS = selfCheckClone(sums)
	gotP, checkP = sc.guarded(n)
	gotS, checkS = sc.guarded(n)
	copy(gotP, wantP)
	copy(gotS, sums)
	softmaxFinishGeneric(wantP, wantS)
	t.softmaxFinish(gotP, gotS)
	checkP("softmaxFinish prob")
	checkS("softmaxFinish state")
	sc.compare("softmaxFinish prob", n, gotP, wantP, selfCheckExact)
	sc.compare("softmaxFinish state", n, gotS, wantS, selfCheckExact)
}

// softmaxBlocks is the self-check of tier t's block kernels on 100 units:
// 16 groups of 2, one of 33 (more than the kernels take) and 7 of 5.
// Each must do the first 16 groups as the generic code does (with one
// block of the stream), return 16, and leave the other units alone.
func (sc *tierChecker) softmaxBlocks(t *impl, pre []float32) {
	n := len(pre)
	groups := []int32{0}
	for g := 0; g < 24; g++ {
		k := int32([]int{2, 33, 5}[min(g/16, 1)+min(g/17, 1)])
		groups = append(groups, groups[g]+k)
	}
	lo := groups[16]
	s1 := NewStream(uint64(n), 5)
	s2 := s1
	wantP, wantS := make([]float32, lo), make([]float32, lo)
	softmaxSampleGeneric(wantP, wantS, pre[:lo], groups[:17], &s1)
	gotP, checkP := sc.guarded(n)
	gotS, checkS := sc.guarded(n)
	done := t.softmaxSampleBlocks(gotP, gotS, pre, groups, &s2)
	checkP("softmaxSampleBlocks prob")
	checkS("softmaxSampleBlocks state")
	if done != 16 || s1 != s2 {
		sc.fail("softmaxSampleBlocks: %d groups done (want 16), stream the reference's: %v", done, s1 == s2)
		return
	}
	rest := make([]float32, n-int(lo))
	for i := range rest {
		rest[i] = selfCheckGuard
	}
	sc.compare("softmaxSampleBlocks prob", n, gotP, append(wantP, rest...), selfCheckExact)
	sc.compare("softmaxSampleBlocks state", n, gotS, append(wantS, rest...), selfCheckExact)
	got, check := sc.guarded(n)
	softmaxGeneric(wantP, pre[:lo], groups[:17])
	if done := t.softmaxBlocks(got, pre, groups); done != 16 {
		sc.fail("softmaxBlocks: %d groups done, want 16", done)
	}
	check("softmaxBlocks")
	sc.compare("softmaxBlocks", n, got, append(wantP, rest...), selfCheckExact)
}
