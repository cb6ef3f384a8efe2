package kernel

import (
	"fmt"
	"math"
)

// The pure-Go reference kernels. They are always compiled, are the oracle of
// the tests, and are what the purego/noasm builds and CPUs without a
// supported vector unit run. Each is the plain loop of the exported
// function's documentation.

func affineGeneric(out, bias, in, m []float32, nc, nin, nout int) {
	startRows(out, bias, nc, nout)
	for c := 0; c < nc; c++ {
		o := out[c*nout : (c+1)*nout]
		x := in[c*nin : (c+1)*nin]
		for j, v := range x {
			if v == 0 {
				continue // exact: 0·m adds nothing (m is finite)
			}
			row := m[j*nout : (j+1)*nout]
			for k := range o {
				o[k] += v * row[k]
			}
		}
	}
}

func sumRowsGeneric(out, m []float32, stride int, idx []int32, n int) {
	for _, j := range idx {
		row := m[int(j)*stride : int(j)*stride+n]
		for k := range out[:n] {
			out[k] += row[k]
		}
	}
}

func indicesGeneric(idx []int32, s []float32) int {
	n := 0
	for i, v := range s {
		if v != 0 {
			idx[n] = int32(i)
			n++
		}
	}
	return n
}

func changesGeneric(idx, on, off []int32, ref, s []float32) (ones, non, noff int) {
	for i, v := range s {
		switch r := ref[i]; {
		case v != 0 && r == 0:
			on[non] = int32(i)
			non++
		case v == 0 && r != 0:
			off[noff] = int32(i)
			noff++
		}
		if v != 0 {
			idx[ones] = int32(i)
			ones++
		}
		ref[i] = v
	}
	return ones, non, noff
}

func sigmoidGeneric(dst, src []float32) {
	for i, x := range src {
		dst[i] = sigmoidRef(x)
	}
}

func softplusGeneric(dst, src []float32) {
	for i, x := range src {
		dst[i] = softplusRef(x)
	}
}

func bernoulliGeneric(dst, p []float32, s *Stream) {
	var blk [Lanes]uint32
	for i := 0; i < len(p); i += Lanes {
		s.next(&blk)
		for l := 0; l < Lanes && i+l < len(p); l++ {
			dst[i+l] = b2f(uniform(blk[l]) < p[i+l])
		}
	}
}

func sigmoidBernoulliGeneric(prob, state, pre []float32, s *Stream) {
	var blk [Lanes]uint32
	for i := 0; i < len(pre); i += Lanes {
		s.next(&blk)
		for l := 0; l < Lanes && i+l < len(pre); l++ {
			p := sigmoidRef(pre[i+l])
			prob[i+l] = p
			state[i+l] = b2f(uniform(blk[l]) < p)
		}
	}
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

func axpyGeneric(y []float32, a float32, x []float32) {
	for i, v := range x {
		y[i] += a * v
	}
}

// finiteCheck folds w·0 into acc: acc stays 0 while every w is finite and
// becomes NaN at the first NaN or ±Inf. The assembly does the same per lane.
func finiteCheck(acc, w float32) float32 { return acc + w*0 }

func updateNCGGeneric(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32 {
	var bad float32
	for k := range w {
		w0, gk := w[k], g[k]
		nw := w0 + alpha*gk*a[k]
		p := ap[k] + alphaA*gk*w0
		p = float32(math.Min(math.Max(float64(p), 0), 1))
		var na float32
		if p >= gamma {
			na = 1
		}
		w[k], ap[k], a[k], c[k], g[k] = nw, p, na, nw*na, 0
		bad = finiteCheck(bad, nw)
	}
	return bad
}

func updateMaskedGeneric(w, a, c, g []float32, alpha float32) float32 {
	var bad float32
	for k := range w {
		nw := w[k] + alpha*g[k]*a[k]
		w[k], c[k], g[k] = nw, nw*a[k], 0
		bad = finiteCheck(bad, nw)
	}
	return bad
}

func updateDenseGeneric(w, c, g []float32, alpha float32) float32 {
	var bad float32
	for k := range w {
		nw := w[k] + alpha*g[k]
		w[k], g[k] = nw, 0
		bad = finiteCheck(bad, nw)
	}
	if c != nil {
		copy(c, w)
	}
	return bad
}

// step is one weight's update with momentum and decay (UpdateMomentum):
// the new weight and velocity from the weight w0, its summed gradient g,
// velocity v and mask a. Every product is rounded to float32 on its own
// (the conversions forbid fused multiply-adds) and the sums run left to
// right: the assembly tiers repeat these operations in this order.
func (p Step) step(w0, g, v, a float32) (nw, nv float32) {
	s := float32(g*p.InvB) - float32(p.L2*w0) - float32(p.L1*sign(w0)) + float32(p.Mu*v)
	return w0 + float32(float32(p.LR*s)*a), s * a
}

// sign is −1, 0 or 1 (0 for ±0 and NaN).
func sign(x float32) float32 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// updateMomGeneric is UpdateMomentum: a nil a is all ones, a nil c is not
// written.
func updateMomGeneric(w, a, c, g, v []float32, p Step) float32 {
	var bad float32
	v, g = v[:len(w)], g[:len(w)]
	for k, w0 := range w {
		ak := float32(1)
		if a != nil {
			ak = a[k]
		}
		nw, nv := p.step(w0, g[k], v[k], ak)
		w[k], v[k], g[k] = nw, nv, 0
		if c != nil {
			c[k] = nw * ak
		}
		bad = finiteCheck(bad, nw)
	}
	return bad
}

// updateMomNCGGeneric is UpdateMomentumNCG.
func updateMomNCGGeneric(w, ap, a, c, g, v []float32, p Step) float32 {
	n := len(w)
	ap, a, c, g, v = ap[:n], a[:n], c[:n], g[:n], v[:n]
	var bad float32
	for k, w0 := range w {
		gk := g[k]
		nw, nv := p.step(w0, gk, v[k], a[k])
		q := ap[k] + float32(float32(p.LRA*gk)*w0)
		if q < 0 { // a NaN q stays NaN, and gives a = 0
			q = 0
		}
		if q > 1 {
			q = 1
		}
		na := b2f(q >= p.Gamma)
		w[k], v[k], ap[k], a[k], c[k], g[k] = nw, nv, q, na, nw*na, 0
		bad = finiteCheck(bad, nw)
	}
	return bad
}

// prefetchWGeneric does nothing: Go has no prefetch, and a hint may be
// ignored.
func prefetchWGeneric(s []float32, n, stride int) {}

func transposeGeneric(dst, src []float32, rows, cols, ldd, lds int) {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			dst[j*ldd+i] = src[i*lds+j]
		}
	}
}

// startRows sets each of the nc output rows of length nout to the bias, or
// to zero for a nil bias: the start of every product.
func startRows(out, bias []float32, nc, nout int) {
	for c := 0; c < nc; c++ {
		o := out[c*nout : (c+1)*nout]
		if bias != nil {
			copy(o, bias[:nout])
		} else {
			clear(o)
		}
	}
}

// blockChains is how many chains one pass of the blocked row sums takes:
// their cursors are an array on the stack.
const blockChains = 64

// blockTile is the widest column tile of the blocked row sums (8 ZMM
// accumulators in the AVX-512 kernel).
const blockTile = 128

// blockMinUse is how many rows each chain should add in a row block, on
// average, for the block's loads and stores of the chains' sums and its
// per-chain branches to pay: where the chains add fewer rows (AIS, whose
// runs switch a few dozen of 784 visible units per interval), the blocks
// are made taller than binaryBlockRows, up to one block for all rows; the
// training products, about 100 rows a chain in blocks of 112, keep their
// blocks.
var blockMinUse = 16

// blockRows is the height of the row blocks for nin rows of which the
// chains add used in total, nc chains: at least binaryBlockRows (and at
// least nin·blockMinUse·nc/used), in blocks of equal height (500 rows: 5
// of 100, not 4 of 112 and one of 52), since a short last block costs each
// chain a load, a store and a branch miss for few rows.
func blockRows(nin, used, nc int) int {
	r := max(binaryBlockRows, 1)
	if blockMinUse > 0 && used > 0 {
		r = max(r, nin*blockMinUse*nc/used)
	}
	blocks := (nin + r - 1) / r
	return (nin + blocks - 1) / max(blocks, 1)
}

// rowSums is one list of a blocked row sum: for every chain c, the rows
// idx[c*nin : c*nin+counts[c]] of m (increasing) are added to
// out[c*nout : (c+1)*nout]. The zero rowSums is no list.
type rowSums struct {
	out         []float32
	idx, counts []int32
}

// checkBlocked reports whether a blocked row sum has work, after checking
// (panicking like an index out of range) what the assembly relies on: out,
// m and idx hold their shapes and every count is in [0, nin]. The exported
// callers checked the lengths already; this keeps a wrong call from
// reaching the assembly.
func checkBlocked(m []float32, ldm, nc, nin, nout int, l rowSums) bool {
	if nc <= 0 || nin <= 0 || nout <= 0 {
		return false
	}
	_ = l.out[nc*nout-1]
	_ = m[(nin-1)*ldm+nout-1]
	_ = l.idx[nc*nin-1]
	for _, k := range l.counts[:nc] {
		if k < 0 || int(k) > nin {
			panic(fmt.Sprintf("kernel: count %d outside [0, %d]", k, nin))
		}
	}
	return true
}

// blockPlan checks the lists a and (unless zero) b of a blocked row sum and
// returns the height of its row blocks; ok is false when there is no work.
func blockPlan(m []float32, ldm, nc, nin, nout int, a, b rowSums) (rows int, ok bool) {
	if !checkBlocked(m, ldm, nc, nin, nout, a) || b.counts != nil && !checkBlocked(m, ldm, nc, nin, nout, b) {
		return 0, false
	}
	used := 0
	for c := 0; c < nc; c++ {
		used += int(a.counts[c])
		if b.counts != nil {
			used += int(b.counts[c])
		}
	}
	return blockRows(nin, used, nc), true
}

// tile returns list l cut to chain group g (gn chains) and column t0; the
// zero rowSums stays zero. The slices are cut once per tile, since a block
// can be a few hundred nanoseconds of work.
func (l rowSums) tile(g, t0, nin, nout, gn int) rowSums {
	if l.counts == nil {
		return l
	}
	return rowSums{l.out[g*nout+t0:], l.idx[g*nin:], l.counts[g : g+gn]}
}

// sumRowsBlockedGeneric adds the row sums of list a, and of list b unless
// b is the zero rowSums: in groups of blockChains chains, column tiles of
// blockTile and row blocks of blockRows, chain by chain within a block,
// list a's chains before list b's, so that the two lists share each block
// of m while it is in cache. Each chain's rows are added in increasing
// order, as by sumRows, so the result does not depend on the blocking or
// on the other list. The assembly tiers run the same loops with their own
// block step, called directly so that the cursors stay on the stack. The
// caller checked that m holds nin rows of ldm floats and that the counts
// came from the lists.
func sumRowsBlockedGeneric(m []float32, ldm, nc, nin, nout int, a, b rowSums) {
	rows, ok := blockPlan(m, ldm, nc, nin, nout, a, b)
	if !ok {
		return
	}
	var ca, cb [blockChains]int32
	for g := 0; g < nc; g += blockChains {
		gn := min(blockChains, nc-g)
		for t0 := 0; t0 < nout; t0 += blockTile {
			tw := min(blockTile, nout-t0)
			clear(ca[:gn])
			clear(cb[:gn])
			ta, tb, mt := a.tile(g, t0, nin, nout, gn), b.tile(g, t0, nin, nout, gn), m[t0:]
			for r0 := 0; r0 < nin; r0 += rows {
				r1 := min(r0+rows, nin)
				sumRowsBlockGeneric(ta.out, nout, mt, ldm, ta.idx, nin, ta.counts, ca[:], r1, gn, tw)
				if tb.counts != nil {
					sumRowsBlockGeneric(tb.out, nout, mt, ldm, tb.idx, nin, tb.counts, cb[:], r1, gn, tw)
				}
			}
		}
	}
}

// sumRowsBlockGeneric is one row block of sumRowsBlockedGeneric: for each
// chain c < nc, it adds the rows idx[c*ldi+k] < r1 from k = cursors[c] on to
// out[c*ldo : c*ldo+n] and moves cursors[c] past them.
func sumRowsBlockGeneric(out []float32, ldo int, m []float32, ldm int, idx []int32, ldi int, counts, cursors []int32, r1, nc, n int) {
	for c := 0; c < nc; c++ {
		ids := idx[c*ldi : c*ldi+int(counts[c])]
		o := out[c*ldo : c*ldo+n]
		k := int(cursors[c])
		for ; k < len(ids) && int(ids[k]) < r1; k++ {
			row := m[int(ids[k])*ldm : int(ids[k])*ldm+n]
			for i := range o {
				o[i] += row[i]
			}
		}
		cursors[c] = int32(k)
	}
}

// taylorTerm adds element (x, q) to lane k of the TaylorSums partial sums.
// The float64 conversions round every product before it is added, so no
// compiler fuses them into an FMA (Go may, across statements too, on arm64
// and with GOAMD64=v3), and the assembly's separate multiplies and adds
// give the same bits.
func taylorTerm(s *[3][4]float64, k int, x, q float64) {
	t := float64(float64(x*x) * (q - float64(q*q)))
	s[0][k] += float64(x * q)
	s[1][k] += t
	s[2][k] += float64(float64(t*x) * (1 - 2*q))
}

// taylorSumsGeneric: the partial sums of TaylorSums (element i into lane
// i mod 4) and the lanes' least and greatest a[i] (lane k over elements
// i ≡ k mod 4, starting from 0). len(a) is a multiple of 4.
func taylorSumsGeneric(a, p []float32, s *[3][4]float64, lohi *[2][4]float32) {
	p = p[:len(a)]
	for i := 0; i+4 <= len(a); i += 4 {
		for k := 0; k < 4; k++ {
			ak := a[i+k]
			lohi[0][k], lohi[1][k] = min32(lohi[0][k], ak), max32(lohi[1][k], ak)
			taylorTerm(s, k, float64(ak), float64(p[i+k]))
		}
	}
}

// min32 and max32 are plain comparisons: a NaN b leaves a.
func min32(a, b float32) float32 {
	if b < a {
		return b
	}
	return a
}

func max32(a, b float32) float32 {
	if b > a {
		return b
	}
	return a
}
