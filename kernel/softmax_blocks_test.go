package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Tests of the block kernels (softmaxSampleBlocks, softmaxBlocks: one
// group a lane, 16 groups a block) and of the driver that builds
// SoftmaxSample and Softmax on them (softmaxSampleBlocked,
// softmaxBlocked): where a kernel stops, what it leaves alone, and rows
// whose groups go by turns to the kernel and to the Go loops.

// softmaxBlockGroupMax is the largest group the block kernels take (the
// generators' softmaxSteps); TestSoftmaxBlocks pins it.
const softmaxBlockGroupMax = 32

// softmaxBlocksRef is the block kernels' contract in Go: whole blocks of
// 16 groups (the last one as it comes), each by the generic reference
// with one block of the stream, up to the first block holding a group of
// more than limit units; it returns the number of groups done. The
// self-check's harness breaks it, and blockRefTier runs the driver on it.
func softmaxBlocksRef(limit int, sample bool) func(prob, state, pre []float32, groups []int32, s *Stream) int {
	return func(prob, state, pre []float32, groups []int32, s *Stream) int {
		G := len(groups) - 1
		g := 0
		for ; g < G; g += Lanes {
			end := min(g+Lanes, G)
			for k := g; k < end; k++ {
				if groups[k+1]-groups[k] > int32(limit) {
					return g
				}
			}
			lo, hi := groups[g], groups[end]
			sub := make([]int32, end-g+1)
			for k := range sub {
				sub[k] = groups[g+k] - lo
			}
			if sample {
				softmaxSampleGeneric(prob[lo:hi], state[lo:hi], pre[lo:hi], sub, s)
			} else {
				softmaxGeneric(prob[lo:hi], pre[lo:hi], sub)
			}
		}
		return G
	}
}

// softmaxBlocksNoDraws gives softmaxBlocksRef(…, false) softmaxBlocks'
// signature.
func softmaxBlocksNoDraws(f func(prob, state, pre []float32, groups []int32, s *Stream) int) func(prob, pre []float32, groups []int32) int {
	return func(prob, pre []float32, groups []int32) int { return f(prob, nil, pre, groups, nil) }
}

// blockRefTier is the generic row kernels with softmaxBlocksRef as their
// block kernels, SoftmaxSample and Softmax built on them by the driver:
// the driver's test on every machine and build.
func blockRefTier() *impl {
	t := *generic
	t.name = "generic-blocks"
	t.softmaxSampleBlocks = softmaxBlocksRef(softmaxBlockGroupMax, true)
	t.softmaxBlocks = softmaxBlocksNoDraws(softmaxBlocksRef(softmaxBlockGroupMax, false))
	t.softmaxSample = softmaxSampleBlocked(&t)
	t.softmax = softmaxBlocked(&t)
	return &t
}

// softmaxBlockShapes are group sizes around the block kernels' limits: a
// block of the largest groups they take and one of a group one larger,
// at the start, in the middle and at the end of a row, blocks of them by
// turns, and last blocks of 1 to 4 groups.
func softmaxBlockShapes() [][]int {
	big := softmaxBlockGroupMax + 1
	threes := func(k int) []int { return slices.Repeat([]int{3}, k) }
	return [][]int{
		slices.Repeat([]int{softmaxBlockGroupMax}, 17),
		append([]int{big}, threes(20)...),
		slices.Concat(threes(16), []int{5, big, 2}, threes(13), threes(16)),
		slices.Concat(threes(16), threes(15), []int{big}),
		slices.Concat(threes(5), []int{big}, threes(26), []int{1, big}, threes(14), threes(16)),
		threes(17), threes(18), threes(19), threes(20), threes(33),
		{big, 2, 7},
		slices.Concat(threes(16), []int{1, 2, 3, 4}, []int{big}, threes(11)),
	}
}

// TestSoftmaxBlocks holds each tier's block kernels to softmaxBlocksRef
// bit for bit: the number of groups done (the blocks before the first
// with a group above 32 units, counted here from the sizes), the
// probabilities and states of those groups' units, the stream after
// (one block each), and the units of the other groups untouched.
func TestSoftmaxBlocks(t *testing.T) {
	var ts []*impl
	for _, im := range available {
		if im.softmaxSampleBlocks != nil {
			ts = append(ts, im)
		}
	}
	if len(ts) == 0 {
		t.Skip("no tier with block kernels on this CPU/build")
	}
	r := rand.New(rand.NewPCG(41, 42))
	shapes := softmaxBlockShapes()
	for i := 0; i < 20; i++ {
		var sizes []int
		for k := r.IntN(70); k >= 0; k-- {
			sizes = append(sizes, 1+r.IntN(softmaxBlockGroupMax+4))
		}
		shapes = append(shapes, sizes)
	}
	for _, im := range ts {
		for si, sizes := range shapes {
			groups := groupsOf(sizes)
			G, n := len(sizes), int(groups[len(groups)-1])
			want := G
			for g, k := range sizes {
				if k > softmaxBlockGroupMax {
					want = g / Lanes * Lanes
					break
				}
			}
			lo := int(groups[want])
			pre, _ := padded(t, r, n, si%4, uni(0, 0))
			softmaxFill(r, pre)
			s0 := NewStream(uint64(si), 43)
			wantP, wantS := make([]float32, lo), make([]float32, lo)
			s1 := s0
			if lo > 0 {
				softmaxSampleGeneric(wantP, wantS, pre[:lo], groups[:want+1], &s1)
			}
			gotP, checkP := padded(t, r, n, (si+1)%4, uni(-9, 9))
			gotS, checkS := padded(t, r, n, (si+2)%4, uni(-9, 9))
			keepP, keepS := clone(gotP), clone(gotS)
			s2 := s0
			done := im.softmaxSampleBlocks(gotP, gotS, pre, groups, &s2)
			checkP(im.name + " softmaxSampleBlocks prob")
			checkS(im.name + " softmaxSampleBlocks state")
			if done != want {
				t.Fatalf("%s softmaxSampleBlocks sizes %v: %d groups done, want %d", im.name, sizes, done, want)
			}
			if s1 != s2 {
				t.Fatalf("%s softmaxSampleBlocks sizes %v: stream after %d groups differs from the reference's", im.name, sizes, done)
			}
			for _, c := range []struct {
				what            string
				got, want, keep []float32
			}{{"prob", gotP, wantP, keepP}, {"state", gotS, wantS, keepS}} {
				if i, ok := firstDiff(c.got[:lo], c.want); !ok {
					t.Fatalf("%s softmaxSampleBlocks sizes %v: %s[%d] = %g, want %g", im.name, sizes, c.what, i, c.got[i], c.want[i])
				}
				if i, ok := firstDiff(c.got[lo:], c.keep[lo:]); !ok {
					t.Fatalf("%s softmaxSampleBlocks sizes %v: %s[%d] of a group not done was written", im.name, sizes, c.what, lo+i)
				}
			}

			got, check := padded(t, r, n, (si+3)%4, uni(-9, 9))
			keep := clone(got)
			want1 := make([]float32, lo)
			if lo > 0 {
				softmaxGeneric(want1, pre[:lo], groups[:want+1])
			}
			if done := im.softmaxBlocks(got, pre, groups); done != want {
				t.Fatalf("%s softmaxBlocks sizes %v: %d groups done, want %d", im.name, sizes, done, want)
			}
			check(im.name + " softmaxBlocks")
			if i, ok := firstDiff(got[:lo], want1); !ok {
				t.Fatalf("%s softmaxBlocks sizes %v: prob[%d] = %g, want %g", im.name, sizes, i, got[i], want1[i])
			}
			if i, ok := firstDiff(got[lo:], keep[lo:]); !ok {
				t.Fatalf("%s softmaxBlocks sizes %v: prob[%d] of a group not done was written", im.name, sizes, lo+i)
			}
		}
	}
}

// TestSoftmaxBlocked runs SoftmaxSample and Softmax of every tier, and of
// the driver on softmaxBlocksRef, on rows whose blocks go by turns to the
// block kernels and to the Go loops (checkSoftmaxTier: the reference's
// bits, the stream after, in place), with inputs that include NaN, ±Inf
// and ties.
func TestSoftmaxBlocked(t *testing.T) {
	ts := append(softmaxTiers(), blockRefTier())
	for _, im := range ts {
		r := rand.New(rand.NewPCG(44, 45))
		for si, sizes := range softmaxBlockShapes() {
			groups := groupsOf(sizes)
			n := int(groups[len(groups)-1])
			pre, _ := padded(t, r, n, si%4, uni(0, 0))
			softmaxFill(r, pre)
			checkSoftmaxTier(t, r, im, pre, groups, NewStream(uint64(si), 46), (si+1)%4, (si+2)%4)
		}
	}
}

// TestSoftmaxBlockedNaNSign: a group whose inputs hold two NaNs of
// different signs gives every tier the reference's NaNs bit for bit (the
// running sum keeps the first NaN, the division the exponential's own).
func TestSoftmaxBlockedNaNSign(t *testing.T) {
	nan, negNaN := float32(math.NaN()), math.Float32frombits(0xffc00001)
	sizes := slices.Repeat([]int{3}, 20)
	groups := groupsOf(sizes)
	pre := make([]float32, int(groups[len(groups)-1]))
	for i := range pre {
		pre[i] = float32(i%7) - 3
	}
	pre[4], pre[5] = negNaN, nan
	pre[30], pre[32] = nan, negNaN
	r := rand.New(rand.NewPCG(47, 48))
	for _, im := range append(softmaxTiers(), blockRefTier()) {
		checkSoftmaxTier(t, r, im, pre, groups, NewStream(7, 49), 1, 2)
	}
}

// TestGroupsValid holds every tier's groupsValid to the definition of a
// valid partition, computed here in int64: groups[0] = 0, groups[G] = n,
// every group of 1 to 2²⁴ units. The cases put each fault at every lane
// of a vector and in a tail: a group of 0 units or of a negative number,
// one of 2²⁴ + 1 (and of 2²⁴, valid), a wrong end, and steps of 2²⁴
// that pass 2³¹ and wrap to −2³¹ (valid steps in int32 arithmetic).
func TestGroupsValid(t *testing.T) {
	valid := func(groups []int32, n int) bool {
		if len(groups) == 0 || groups[0] != 0 || int64(groups[len(groups)-1]) != int64(n) {
			return false
		}
		for g := 0; g+1 < len(groups); g++ {
			if d := int64(groups[g+1]) - int64(groups[g]); d < 1 || d > 1<<24 {
				return false
			}
		}
		return true
	}
	type tc struct {
		groups []int32
		n      int
	}
	cases := []tc{{nil, 0}, {[]int32{0}, 0}, {[]int32{0}, 1}, {[]int32{1}, 1}, {[]int32{0, 1 << 24}, 1 << 24}, {[]int32{0, 1<<24 + 1}, 1<<24 + 1}}
	wrap := []int32{0}
	for v := int64(1 << 24); len(wrap) < 140; v += 1 << 24 {
		wrap = append(wrap, int32(uint32(v)))
	}
	cases = append(cases, tc{wrap, int(wrap[len(wrap)-1])}, tc{wrap[:128], int(wrap[127])})
	r := rand.New(rand.NewPCG(50, 51))
	for G := 1; G <= 40; G++ {
		for bad := 0; bad < G; bad++ {
			for fault := 0; fault < 5; fault++ {
				sizes := make([]int, G)
				for g := range sizes {
					sizes[g] = 1 + r.IntN(4)
				}
				switch fault {
				case 1:
					sizes[bad] = 0
				case 2:
					sizes[bad] = -1 - r.IntN(3)
				case 3:
					sizes[bad] = 1<<24 + 1
				case 4:
					sizes[bad] = 1 << 24
				}
				groups := groupsOf(sizes)
				n := int(groups[G])
				cases = append(cases, tc{groups, n}, tc{groups, n + 1}, tc{groups, n - 1})
			}
		}
	}
	for _, im := range available {
		for _, c := range cases {
			if got, want := im.groupsValid(c.groups, c.n), valid(c.groups, c.n); got != want {
				t.Fatalf("%s groupsValid(%v, %d) = %v, want %v", im.name, c.groups, c.n, got, want)
			}
		}
	}
}
