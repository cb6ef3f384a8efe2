package kernel

import "math"

// The tiers' SoftmaxSample and Softmax: softmax.go's operations, in its
// order, arranged so that what costs runs on whole rows in vector code.
// A tier supplies two element-wise kernels over the row, softmaxExp (the
// exponential) and softmaxFinish (the division and the states); the steps
// that are sequential within a group (its maximum, the running sums and
// the choice of the unit) are the Go loops below, shared by every tier,
// so their order is the same everywhere by construction:
//
//  1. softmaxShift: per group, prob[j] = d_j = pre[j] − m (0 where
//     pre[j] = m);
//  2. softmaxExp over the row: prob[j] = e_j = expRef(d_j);
//  3. softmaxPick: per group, the running sums c_j in state, t = u·S, the
//     unit k = the number of j with c_j ≤ t (the c_j do not decrease, so
//     that is the first j with c_j > t), then state[j] = S, −S at k (a
//     group whose S is NaN is divided here instead, its states ±1, since
//     |NaN| would lose the sign of the NaN that softmax.go's division
//     keeps);
//  4. softmaxFinish over the row: prob[j] = e_j / |state[j]|, state[j] =
//     1 where its sign bit is set, else 0.

// softmaxExpGeneric is the generic softmaxExp: dst[i] = expRef(src[i]) for
// src[i] ≤ 0, −Inf or NaN (the tiers agree on nothing else); dst may be
// src.
func softmaxExpGeneric(dst, src []float32) {
	for i, x := range src {
		dst[i] = expRef(x)
	}
}

// softmaxFinishGeneric is the generic softmaxFinish: for i < len(prob),
// prob[i] /= |state[i]|; state[i] = 1 if state[i]'s sign bit is set, else
// 0.
func softmaxFinishGeneric(prob, state []float32) {
	state = state[:len(prob)]
	for i, v := range state {
		b := math.Float32bits(v)
		prob[i] /= math.Float32frombits(b &^ signBit)
		state[i] = float32(b >> 31)
	}
}

const signBit = 1 << 31

// softmaxShift is step 1: per group, prob[j] = pre[j] − m_g, 0 where
// pre[j] = m_g. prob may be pre. Without branches on the data where it
// can: for a finite m, pre[j] − m is ±0 exactly where pre[j] = m, and
// expRef(±0) = 1 either way; a small group's maximum is builtin max, NaN
// if the group holds a NaN, when groupMax (which skips NaNs) takes over.
// The maximum does not depend on the order of the units (up to the sign
// of a zero m, which changes no exponential).
func softmaxShift(prob, pre []float32, groups []int32) {
	prob = prob[:len(pre)]
	lo := int(groups[0])
	for _, end := range groups[1:] {
		hi := int(end)
		x := pre[lo:hi:hi]
		// A small group's maximum by comparisons from its first unit: a
		// NaN there stays (and takes the NaN path below), a NaN later is
		// skipped as groupMax skips it; its d is NaN either way. (Go's
		// max, which orders NaN and signed zeros, costs several times
		// more.)
		m := x[0]
		switch len(x) {
		case 1:
		case 2:
			if x[1] > m {
				m = x[1]
			}
		case 3:
			if x[1] > m {
				m = x[1]
			}
			if x[2] > m {
				m = x[2]
			}
		default:
			if len(x) < 8 {
				for _, v := range x[1:] {
					if v > m {
						m = v
					}
				}
			} else {
				m = groupMax(x)
			}
		}
		d := prob[lo:hi:hi]
		lo = hi
		if m-m != 0 { // NaN, or m = ±Inf: softmax.go's loop
			softmaxExpShift(d, x)
			continue
		}
		for j, v := range x {
			d[j] = v - m
		}
	}
}

// softmaxPick is step 3 on the exponentials e (one draw of s a group).
func softmaxPick(e, state []float32, groups []int32, s *Stream) {
	var blk [Lanes]uint32
	state = state[:len(e)]
	lo := int(groups[0])
	for g, end := range groups[1:] {
		if g%Lanes == 0 {
			s.next(&blk)
		}
		hi := int(end)
		ev, st := e[lo:hi:hi], state[lo:hi:hi]
		lo = hi
		if len(ev) == 3 { // the running sums in registers (Connect-4's cells)
			c0 := ev[0]
			c1 := c0 + ev[1]
			c := c1 + ev[2]
			if c == c {
				t := float32(uniform(blk[g%Lanes]) * c)
				k := 0 // the number of c_j ≤ t (at most 2: c > t)
				if !(c0 > t) {
					k++
				}
				if !(c1 > t) {
					k++
				}
				st[0], st[1], st[2] = c, c, c
				st[k] = -c
				continue
			}
		}
		var c float32
		for j, v := range ev {
			c += v
			st[j] = c
		}
		if c != c {
			// A NaN: |state| would drop the NaN's sign, so the group is
			// divided here and finishes as e_j/1, its last unit on.
			for j := range ev {
				ev[j] /= c
				st[j] = 1
			}
			st[len(st)-1] = -1
			continue
		}
		t := float32(uniform(blk[g%Lanes]) * c)
		k := 0
		for j, cj := range st {
			if !(cj > t) {
				k++
			}
			st[j] = c
		}
		k = min(k, len(st)-1)
		st[k] = -c
	}
}

// softmaxSampleRows is SoftmaxSample for the groups of groups (which
// need not start at unit 0) in the four steps above, tier t's row-wide
// kernels running over the groups' units.
func softmaxSampleRows(t *impl, prob, state, pre []float32, groups []int32, s *Stream) {
	lo, hi := groups[0], groups[len(groups)-1]
	softmaxShift(prob, pre, groups)
	t.softmaxExp(prob[lo:hi], prob[lo:hi])
	softmaxPick(prob, state, groups, s)
	t.softmaxFinish(prob[lo:hi], state[lo:hi])
}

// softmaxRows is Softmax for the groups of groups as softmaxSampleRows
// does it, less the draws: with no state to hold the sums, each group's
// division is a Go loop.
func softmaxRows(t *impl, prob, pre []float32, groups []int32) {
	lo, hi := groups[0], groups[len(groups)-1]
	softmaxShift(prob, pre, groups)
	t.softmaxExp(prob[lo:hi], prob[lo:hi])
	for g := 0; g+1 < len(groups); g++ {
		p := prob[groups[g]:groups[g+1]]
		var sum float32
		for _, e := range p {
			sum += e
		}
		for j := range p {
			p[j] /= sum
		}
	}
}

// softmaxSampleVia builds SoftmaxSample from tier t's softmaxExp and
// softmaxFinish; it gives softmaxSampleGeneric's bits.
func softmaxSampleVia(t *impl) func(prob, state, pre []float32, groups []int32, s *Stream) {
	return func(prob, state, pre []float32, groups []int32, s *Stream) {
		softmaxSampleRows(t, prob, state, pre, groups, s)
	}
}

// softmaxVia builds Softmax from tier t's softmaxExp; it gives
// softmaxGeneric's bits.
func softmaxVia(t *impl) func(prob, pre []float32, groups []int32) {
	return func(prob, pre []float32, groups []int32) {
		softmaxRows(t, prob, pre, groups)
	}
}

// softmaxLanesMin is the fewest groups the block kernels take in a block:
// a last block of fewer groups goes through the Go loops of
// softmaxSampleRows, which are faster than passes over so few lanes.
const softmaxLanesMin = 4

// softmaxKernelEnd is where the block kernels' share of the groups g …
// G−1 ends: at G, or before a last block of fewer than softmaxLanesMin
// groups.
func softmaxKernelEnd(g, G int) int {
	if r := (G - g) % Lanes; r < softmaxLanesMin {
		return G - r
	}
	return G
}

// softmaxSampleBlocked builds SoftmaxSample from tier t's
// softmaxSampleBlocks, which takes the groups 16 at a time (a block of
// the stream each) while their groups are small enough, and returns at a
// block that holds a larger group: that block (its 16 groups and its
// block of the stream) goes through softmaxSampleRows, and the blocks
// after it back to softmaxSampleBlocks. A last block of fewer than
// softmaxLanesMin groups goes through softmaxSampleRows too.
func softmaxSampleBlocked(t *impl) func(prob, state, pre []float32, groups []int32, s *Stream) {
	return func(prob, state, pre []float32, groups []int32, s *Stream) {
		G := len(groups) - 1
		for g := 0; g < G; {
			if end := softmaxKernelEnd(g, G); end > g {
				g += t.softmaxSampleBlocks(prob, state, pre, groups[g:end+1], s)
			}
			if g < G {
				end := min(g+Lanes, G)
				softmaxSampleRows(t, prob, state, pre, groups[g:end+1], s)
				g = end
			}
		}
	}
}

// softmaxBlocked builds Softmax from tier t's softmaxBlocks as
// softmaxSampleBlocked does SoftmaxSample.
func softmaxBlocked(t *impl) func(prob, pre []float32, groups []int32) {
	return func(prob, pre []float32, groups []int32) {
		G := len(groups) - 1
		for g := 0; g < G; {
			if end := softmaxKernelEnd(g, G); end > g {
				g += t.softmaxBlocks(prob, pre, groups[g:end+1])
			}
			if g < G {
				end := min(g+Lanes, G)
				softmaxRows(t, prob, pre, groups[g:end+1])
				g = end
			}
		}
	}
}
