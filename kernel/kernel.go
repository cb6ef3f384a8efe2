// Package kernel holds the float32 inner loops of RBM training and evaluation:
// block matrix products (dense and binary-state forms), sigmoid and softplus,
// Bernoulli sampling from per-chain random streams, sparse gradient
// accumulation and the fused parameter updates.
//
// Every kernel has a pure-Go reference (generic.go, always compiled) and, where
// the CPU allows, an assembly version: AVX2+FMA and AVX-512 on amd64, NEON on
// arm64. The tier is chosen from CPU features when the package initialises;
// the environment variable NCG_KERNEL=generic|avx2|avx512|neon forces one
// ([Init] reports a value it could not honour), the tests and benchmarks of
// this module switch tiers through internal/kerneltier, and the build tags
// purego or noasm build the pure-Go code only.
//
// Layout conventions: matrices are row-major float32 with no padding, except
// where a function takes a row stride (SumRows, AffineBinaryStride; PadStride
// gives the stride the binary-state product reads fastest). A block
// of nc chains is an nc×n matrix, one chain per row. Binary states are float32
// 0 or 1. The functions here check lengths and panic on a programming error
// (a slice too short for the stated shape), like the standard library's copy
// helpers; they never see user input directly. Assembly trusts the lengths.
//
// This package must not allocate in the functions called per minibatch and
// must not keep state besides the chosen tier and the settings of its test
// hooks (hooks.go).
package kernel

import (
	"fmt"
	"math"
	"unsafe"
)

func need(what string, have, want int) {
	if have < want {
		panic(fmt.Sprintf("kernel: %s has length %d, need %d", what, have, want))
	}
}

// Affine computes the dense block product
//
//	for c < nc, o < nout: out[c*nout+o] = bias[o] + Σ_{j<nin} in[c*nin+j] * m[j*nout+o]
//
// m is nin×nout row-major (one row per input unit). With m = Cᵀ (X×H) this is
// the hidden pre-activation b + Cx of each chain; with m = C (H×X) the
// visible pre-activation d + Cᵀh. A nil bias means zero.
func Affine(out, bias, in, m []float32, nc, nin, nout int) {
	if nc <= 0 || nout <= 0 {
		return
	}
	need("out", len(out), nc*nout)
	need("in", len(in), nc*nin)
	need("m", len(m), nin*nout)
	if bias != nil {
		need("bias", len(bias), nout)
	}
	cur.affine(out[:nc*nout], bias, in[:nc*nin], m[:nin*nout], nc, nin, nout)
}

// SumRows adds the rows of m named by idx to out:
//
//	for o < n: out[o] += Σ_{j ∈ idx} m[j*stride+o]
//
// It is the binary-state product: when a chain's state is 0/1, its product
// with m is the sum of the rows where the state is 1. idx entries must be
// valid rows (checked).
func SumRows(out, m []float32, stride int, idx []int32, n int) {
	if n <= 0 {
		return
	}
	need("out", len(out), n)
	checkRows("m", m, stride, idx, n)
	cur.sumRows(out[:n], m, stride, idx, n)
}

// SumRowsBatch is SumRows for nc chains at once: for every chain c < nc it
// adds the rows of m named by idx[c*nin : c*nin+counts[c]] to
// out[c*nout : (c+1)*nout], with row j at m[j*ldm : j*ldm+nout]. Each
// chain's rows are added in the order listed, so the result is the same as
// nc calls of SumRows; on tiers with blocked row sums (AVX-512, AVX2,
// generic) the chains share column tiles and row blocks of m from cache
// instead of each reading its rows from memory. Every list must be strictly
// increasing and name rows of m (both checked). ldm = PadStride(nout) and a
// 64-byte aligned m (Aligned) read fastest.
func SumRowsBatch(out, m []float32, ldm, nc, nin, nout int, idx, counts []int32) {
	if nc <= 0 || nin <= 0 || nout <= 0 {
		return
	}
	l := rowSums{out, idx, counts}
	checkBatch(m, ldm, nc, nin, nout, l, [3]string{"out", "idx", "counts"})
	sumBatch(m, ldm, nc, nin, nout, l, rowSums{})
}

// FlipRowsBatch is FlipRows for nc chains at once: for every chain c < nc
// it adds to out[c*nout : (c+1)*nout] the rows of m named by
// on[c*nin : c*nin+non[c]] and subtracts the sum of those named by
// off[c*nin : c*nin+noff[c]], summed in tmp[c*nout : (c+1)*nout] (scratch,
// nc*nout floats). Each chain's result is that of FlipRows bit for bit; on
// tiers with blocked row sums the two lists of all chains share one pass
// over m. The lists are checked as SumRowsBatch checks its own.
func FlipRowsBatch(out, tmp, m []float32, ldm, nc, nin, nout int, on, non, off, noff []int32) {
	if nc <= 0 || nin <= 0 || nout <= 0 {
		return
	}
	a, b := rowSums{out, on, non}, rowSums{tmp, off, noff}
	checkBatch(m, ldm, nc, nin, nout, a, [3]string{"out", "on", "non"})
	checkBatch(m, ldm, nc, nin, nout, b, [3]string{"tmp", "off", "noff"})
	for c := 0; c < nc; c++ {
		if noff[c] > 0 {
			clear(tmp[c*nout : (c+1)*nout])
		}
	}
	sumBatch(m, ldm, nc, nin, nout, a, b)
	for c := 0; c < nc; c++ {
		if noff[c] > 0 {
			cur.axpy(out[c*nout:(c+1)*nout], -1, tmp[c*nout:(c+1)*nout])
		}
	}
}

// checkBatch checks the lengths and lists of a batch of row sums (nc, nin,
// nout > 0), whose out, idx and counts the caller calls names: every list
// strictly increasing and naming rows of m.
func checkBatch(m []float32, ldm, nc, nin, nout int, l rowSums, names [3]string) {
	need(names[0], len(l.out), nc*nout)
	need(names[1], len(l.idx), nc*nin)
	need(names[2], len(l.counts), nc)
	if ldm < nout {
		panic(fmt.Sprintf("kernel: m stride %d < row length %d", ldm, nout))
	}
	for c := 0; c < nc; c++ {
		k := int(l.counts[c])
		if k < 0 || k > nin {
			panic(fmt.Sprintf("kernel: %s: chain %d count %d outside [0, %d]", names[2], c, k, nin))
		}
		if k == 0 {
			continue
		}
		// Increasing, so the first and the last bound them all.
		ids := l.idx[c*nin : c*nin+k]
		for i := 1; i < len(ids); i++ {
			if ids[i] <= ids[i-1] {
				panic(fmt.Sprintf("kernel: %s: chain %d rows not increasing (%d after %d)", names[1], c, ids[i], ids[i-1]))
			}
		}
		if ids[0] < 0 || int(ids[k-1])*ldm+nout > len(m) {
			panic(fmt.Sprintf("kernel: %s: m rows %d…%d out of range (len %d, stride %d)", names[1], ids[0], ids[k-1], len(m), ldm))
		}
	}
}

// sumBatch sums the checked lists a and (unless zero) b: blocked on tiers
// that have it, else chain by chain with sumRows.
func sumBatch(m []float32, ldm, nc, nin, nout int, a, b rowSums) {
	if cur.sumRowsBlocked != nil {
		cur.sumRowsBlocked(m, ldm, nc, nin, nout, a, b)
		return
	}
	for _, l := range [2]rowSums{a, b} {
		if l.counts == nil {
			continue
		}
		for c := 0; c < nc; c++ {
			if l.counts[c] > 0 {
				cur.sumRows(l.out[c*nout:(c+1)*nout], m, ldm, l.idx[c*nin:c*nin+int(l.counts[c])], nout)
			}
		}
	}
}

func checkRows(what string, m []float32, stride int, idx []int32, n int) {
	if stride < n {
		panic(fmt.Sprintf("kernel: %s stride %d < row length %d", what, stride, n))
	}
	// Row j fits iff 0 ≤ j ≤ last: one unsigned compare a row (a negative
	// j is a huge uint). With m shorter than one row, none fits.
	if len(idx) == 0 {
		return
	}
	if len(m) < n {
		panic(fmt.Sprintf("kernel: %s row %d out of range (len %d, stride %d)", what, idx[0], len(m), stride))
	}
	last := uint((len(m) - n) / max(stride, 1))
	for _, j := range idx {
		if uint(int(j)) > last {
			panic(fmt.Sprintf("kernel: %s row %d out of range (len %d, stride %d)", what, j, len(m), stride))
		}
	}
}

// Indices writes the positions of the non-zero entries of s, in increasing
// order, to idx and returns how many there are. idx must be at least len(s)
// long; the assembly tiers may overwrite idx[count:len(s)] (never past it).
func Indices(idx []int32, s []float32) int {
	need("idx", len(idx), len(s))
	if len(s) == 0 {
		return 0
	}
	return cur.indices(idx, s)
}

// Sigmoid sets dst[i] = 1/(1+exp(-src[i])). dst may alias src exactly.
//
// Accuracy: relative error ≤ 1e-6 against the float64 value for
// src ≥ -88; below -88 the result is 0 (the true value is < 6.1e-39, below
// float32's smallest normal number). σ(+Inf) = 1, σ(-Inf) = 0. The result is
// exactly 1 from about 17 upwards, as rounding to float32 demands.
func Sigmoid(dst, src []float32) {
	need("dst", len(dst), len(src))
	if len(src) == 0 {
		return
	}
	cur.sigmoid(dst[:len(src)], src)
}

// Softplus sets dst[i] = log(1+exp(src[i])), computed stably as
// max(x,0) + log1p(exp(-|x|)). Accuracy: absolute error ≤ 1e-6·max(1,|result|).
// softplus(+Inf) = +Inf, softplus(-Inf) = 0.
func Softplus(dst, src []float32) {
	need("dst", len(dst), len(src))
	if len(src) == 0 {
		return
	}
	cur.softplus(dst[:len(src)], src)
}

// Bernoulli draws binary states: dst[i] = 1 if u_i < p[i] else 0, with u_i the
// i-th uniform of the stream (see Stream for how draws are laid out).
func Bernoulli(dst, p []float32, s *Stream) {
	need("dst", len(dst), len(p))
	if len(p) == 0 {
		return
	}
	cur.bernoulli(dst[:len(p)], p, s)
}

// SigmoidBernoulli computes prob[i] = σ(pre[i]) (as Sigmoid) and draws
// state[i] = 1 if u_i < prob[i] else 0, in one pass. prob may alias pre.
func SigmoidBernoulli(prob, state, pre []float32, s *Stream) {
	need("prob", len(prob), len(pre))
	need("state", len(state), len(pre))
	if len(pre) == 0 {
		return
	}
	cur.sigmoidBernoulli(prob[:len(pre)], state[:len(pre)], pre, s)
}

// Axpy sets y[i] += a·x[i].
func Axpy(y []float32, a float32, x []float32) {
	need("y", len(y), len(x))
	if len(x) == 0 {
		return
	}
	cur.axpy(y[:len(x)], a, x)
}

// UpdateNCG applies the fused NCG step (docs/algorithm.md, "One minibatch") to every element k, in one
// pass, and clears the gradient for the next minibatch:
//
//	w0 := w[k]
//	w[k]  = w0 + alpha*g[k]*a[k]                  (inactive weights are frozen)
//	ap[k] = min(max(ap[k] + alphaA*g[k]*w0, 0), 1)
//	a[k]  = 1 if ap[k] >= gamma else 0
//	c[k]  = w[k]*a[k]
//	g[k]  = 0
//
// g holds the minibatch's summed gradient, so alpha and alphaA are the
// learning rates divided by the batch size. It reports false if any new
// weight is NaN or ±Inf (which a NaN or Inf in g or w causes).
func UpdateNCG(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) (finite bool) {
	n := len(w)
	need("ap", len(ap), n)
	need("a", len(a), n)
	need("c", len(c), n)
	need("g", len(g), n)
	if n == 0 {
		return true
	}
	return cur.updateNCG(w, ap[:n], a[:n], c[:n], g[:n], alpha, alphaA, gamma) == 0
}

// UpdateMasked is the update of a model with a fixed mask (line, random, SET
// between rewirings):
//
//	w[k] += alpha*g[k]*a[k]; c[k] = w[k]*a[k]; g[k] = 0
//
// It reports false if any new weight is not finite.
func UpdateMasked(w, a, c, g []float32, alpha float32) (finite bool) {
	n := len(w)
	need("a", len(a), n)
	need("c", len(c), n)
	need("g", len(g), n)
	if n == 0 {
		return true
	}
	return cur.updateMasked(w, a[:n], c[:n], g[:n], alpha) == 0
}

// UpdateDense is the update of a dense model, and of biases (c = nil):
//
//	w[k] += alpha*g[k]; c[k] = w[k] (if c != nil); g[k] = 0
//
// It reports false if any new weight is not finite.
func UpdateDense(w, c, g []float32, alpha float32) (finite bool) {
	n := len(w)
	if c != nil {
		need("c", len(c), n)
		c = c[:n]
	}
	need("g", len(g), n)
	if n == 0 {
		return true
	}
	return cur.updateDense(w, c, g[:n], alpha) == 0
}

// Step holds the coefficients of the update with momentum and weight decay
// (UpdateMomentum, UpdateMomentumNCG).
type Step struct {
	LR    float32 // α: the learning rate of the weights
	InvB  float32 // 1/B: g holds the minibatch's summed gradient
	Mu    float32 // μ: the momentum (0: none)
	L2    float32 // L2 weight decay (0: none)
	L1    float32 // L1 weight decay (0: none)
	LRA   float32 // NCG: α_A/B, the rate of the connection strengths
	Gamma float32 // NCG: γ, the threshold of a connection
}

// UpdateMomentum is the update with momentum and weight decay of a row of
// W, or of a bias vector, with mask a (nil: all ones). For every k, in
// float32 with every product rounded on its own (no fused multiply-add, on
// every tier) and the sums taken left to right:
//
//	w0 := w[k]
//	s  := g[k]·InvB − L2·w0 − L1·sign(w0) + Mu·v[k]   the step, before the mask
//	w[k] = w0 + (LR·s)·a[k]                           an absent weight stays
//	v[k] = s·a[k]                                     and keeps no velocity
//	c[k] = w[k]·a[k] (c nil: not written), g[k] = 0
//
// sign(x) is −1, 0 or 1 (0 for ±0 and NaN). Every tier gives the generic
// code's bits. With Mu = L2 = L1 = 0 this is the plain step computed
// unfused, which can differ in the last bit from UpdateMasked on the tiers
// that fuse that one. It reports false if any new weight is NaN or ±Inf.
// LRA and Gamma are not used.
func UpdateMomentum(w, a, c, g, v []float32, p Step) (finite bool) {
	n := len(w)
	if a != nil {
		need("a", len(a), n)
		a = a[:n]
	}
	if c != nil {
		need("c", len(c), n)
		c = c[:n]
	}
	need("g", len(g), n)
	need("v", len(v), n)
	if n == 0 {
		return true
	}
	return cur.updateMom(w, a, c, g[:n], v[:n], p) == 0
}

// UpdateMomentumNCG is UpdateMomentum for NCG, whose connection strengths
// ap follow the summed gradient and the weight before the step, and set
// the mask after it. For every k, with s, w[k] and v[k] as in
// UpdateMomentum (from the mask a[k] before the step):
//
//	q := ap[k] + (LRA·g[k])·w0;  if q < 0 { q = 0 };  if q > 1 { q = 1 }
//	ap[k] = q;  a[k] = 1 if q >= Gamma else 0;  c[k] = w[k]·a[k]
//
// A NaN q stays NaN and gives a[k] = 0. It reports false if any new weight
// is NaN or ±Inf.
func UpdateMomentumNCG(w, ap, a, c, g, v []float32, p Step) (finite bool) {
	n := len(w)
	need("ap", len(ap), n)
	need("a", len(a), n)
	need("c", len(c), n)
	need("g", len(g), n)
	need("v", len(v), n)
	if n == 0 {
		return true
	}
	return cur.updateMomNCG(w, ap[:n], a[:n], c[:n], g[:n], v[:n], p) == 0
}

// TaylorSums returns, over x_i = a[i] and q_i = p[i] in float64,
//
//	s1 = Σ x·q,  s2 = Σ t,  s3 = Σ t·x·(1 − 2q),  with t = x²·(q − q²),
//
// and lo ≤ 0 ≤ hi, the least and greatest of 0 and the a[i] (NaNs are
// skipped; the sign of a zero lo or hi is unspecified). These are the sums
// of AIS's third-order Taylor series of softplus differences (eval's
// softplusDiffTaylor). The sums are accumulated in four interleaved
// partial sums (element i of the first len&^3 into sum i mod 4, the rest
// into sum 0), combined as (s_0 + s_1) + (s_2 + s_3), with every product
// rounded before it is added (never fused), so every tier gives the same
// bits. len(p) ≥ len(a).
func TaylorSums(a, p []float32) (s1, s2, s3 float64, lo, hi float32) {
	n := len(a)
	need("p", len(p), n)
	var s [3][4]float64
	var lohi [2][4]float32
	n4 := n &^ 3
	if n4 > 0 {
		cur.taylorSums(a[:n4], p[:n4], &s, &lohi)
	}
	for k := 0; k < 4; k++ {
		lo, hi = min32(lo, lohi[0][k]), max32(hi, lohi[1][k])
	}
	for i := n4; i < n; i++ {
		lo, hi = min32(lo, a[i]), max32(hi, a[i])
		taylorTerm(&s, 0, float64(a[i]), float64(p[i]))
	}
	return (s[0][0] + s[0][1]) + (s[0][2] + s[0][3]),
		(s[1][0] + s[1][1]) + (s[1][2] + s[1][3]),
		(s[2][0] + s[2][1]) + (s[2][2] + s[2][3]), lo, hi
}

// Transpose writes the rows×cols row-major matrix src into dst as cols×rows:
// dst[j*rows+i] = src[i*cols+j].
func Transpose(dst, src []float32, rows, cols int) {
	TransposeStrided(dst, rows, src, cols, rows, cols)
}

// TransposeStrided is Transpose for matrices inside larger ones: row i of
// src starts at src[i*lds] and row j of dst at dst[j*ldd], so
// dst[j*ldd+i] = src[i*lds+j] for i < rows, j < cols; nothing else of dst
// is written. The engine uses it to refresh a band of columns of its
// hidden-major copy of C in place.
func TransposeStrided(dst []float32, ldd int, src []float32, lds int, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if ldd < rows || lds < cols {
		panic(fmt.Sprintf("kernel: transpose strides %d, %d below %d rows, %d columns", ldd, lds, rows, cols))
	}
	need("src", len(src), (rows-1)*lds+cols)
	need("dst", len(dst), (cols-1)*ldd+rows)
	cur.transpose(dst[:(cols-1)*ldd+rows], src[:(rows-1)*lds+cols], rows, cols, ldd, lds)
}

// PrefetchW hints that the cache lines holding s[0], s[stride], …,
// s[(n−1)·stride] are about to be written: the core fetches them, taking
// them from another core's cache if need be, while it goes on with other
// work, instead of stalling on its stores. It changes no value. The amd64
// tiers issue PREFETCHW on CPUs that have it; elsewhere it does nothing.
// The engine uses it for the lines of its copies of C that a worker
// rewrites after the other worker has read them.
func PrefetchW(s []float32, n, stride int) {
	if n <= 0 {
		return
	}
	if stride < 0 {
		panic(fmt.Sprintf("kernel: prefetch stride %d below 0", stride))
	}
	need("s", len(s), (n-1)*stride+1)
	cur.prefetchW(s[:(n-1)*stride+1], n, stride)
}

// sigmoidFloor is the input below which Sigmoid returns exactly 0.
const sigmoidFloor = -88

// sigmoidRef is the float64 definition the kernels are held to.
func sigmoidRef(x float32) float32 {
	if x < sigmoidFloor {
		return 0
	}
	return float32(1 / (1 + math.Exp(-float64(x))))
}

func softplusRef(x float32) float32 {
	v := float64(x)
	if math.IsInf(v, 1) {
		return float32(v)
	}
	return float32(math.Max(v, 0) + math.Log1p(math.Exp(-math.Abs(v))))
}

// Changes compares a binary state s with the state ref a product was
// computed for: it writes the positions of the ones of s to idx, of the
// units switched on (s ≠ 0, ref = 0) to on and of those switched off
// (s = 0, ref ≠ 0) to off, all increasing, sets ref = s, and returns the
// three counts. Each list needs len(s) entries; the assembly tiers may
// overwrite a list's entries past its count (never past len(s)), as
// Indices may. Both Gibbs samplers (engine, AIS) use it to choose between
// a fresh product and FlipRows.
func Changes(idx, on, off []int32, ref, s []float32) (ones, non, noff int) {
	n := len(s)
	need("ref", len(ref), n)
	need("idx", len(idx), n)
	need("on", len(on), n)
	need("off", len(off), n)
	if n == 0 {
		return 0, 0, 0
	}
	return cur.changes(idx[:n], on[:n], off[:n], ref[:n], s)
}

// changesVia builds Changes from a tier's indices and axpy, for tiers
// without their own: the flips are the non-zeros of ref − s (+1 off, −1
// on), listed in on and split in place.
func changesVia(t *impl) func(idx, on, off []int32, ref, s []float32) (int, int, int) {
	return func(idx, on, off []int32, ref, s []float32) (int, int, int) {
		ones := t.indices(idx, s)
		t.axpy(ref, -1, s)
		nf := t.indices(on, ref)
		non, noff := 0, 0
		for _, j := range on[:nf] {
			b := int(s[j]) // branch-free split: 1 = switched on
			on[non] = j    // non ≤ the read position: in place is safe
			off[noff] = j
			non += b
			noff += 1 - b
		}
		copy(ref, s)
		return ones, non, noff
	}
}

// FlipRows brings out (n floats), bias + the sum of the rows of m (row j at
// m[j*stride]) named by the ones of a binary state, up to date after the
// units in on switched on and those in off switched off (as Changes lists
// them): it adds the rows of on and subtracts the sum of the rows of off
// (one subtraction, not one per row). tmp needs n floats.
func FlipRows(out, m []float32, stride int, on, off []int32, tmp []float32, n int) {
	SumRows(out, m, stride, on, n)
	if len(off) > 0 {
		t := tmp[:n]
		clear(t)
		SumRows(t, m, stride, off, n)
		Axpy(out[:n], -1, t)
	}
}

// binaryTile is the column width of the tiles AffineBinary works in: every
// chain of a block sums its rows of one tile of m before the next tile, so
// the tile (nin × binaryTile floats) is read from cache, not memory. The
// blocked row sums (AVX-512) take at most 128 columns a tile.
const binaryTile = 128

// binaryBlockRows bounds the height of the row blocks of the blocked row
// sums (the blocks are made equal, see blockRows): every chain adds its
// rows of one block × tile before the next block, so the block (112 rows ×
// 128 columns = 56 KB, about L1) is read from cache by all the chains that
// use it. On the MNIST shape (BenchmarkKernel/binary13) blocks of 64 to
// 157 rows run within 3% of each other, 112 at or near the best at 8, 16
// and 64 chains.
var binaryBlockRows = 112

// denseThreshold is the fraction of ones above which AffineBinary uses the
// dense product on tiers that sum rows chain by chain (NEON): summing
// rows costs about this much more per one than an FMA pass per input
// (measured by BenchmarkKernel/*/binary vs dense).
var denseThreshold = 0.35

// denseThresholdBlocked is denseThreshold for tiers with blocked row sums
// (AVX-512, AVX2, generic): at 50 chains, X = 500 inputs and H = 784
// outputs the blocked row sums fall to the dense product's speed between
// 55% and 65% ones (BenchmarkKernel/*/binary vs dense).
var denseThresholdBlocked = 0.55

// PadStride is the row stride (in floats) at which the binary-state product
// reads rows of n floats fastest: a whole number of 64-byte cache lines, so
// that no load of a row spans two lines (with n = 500, three rows in four
// start mid-line), and an odd number of them, so that a column tile of
// consecutive rows spreads over all of L1's sets (a 2 KB stride, 512
// floats, puts every row of a tile in the same sets). PadStride(500) = 528,
// PadStride(784) = 784. Rows of m should also start 64-byte aligned.
func PadStride(n int) int {
	s := (max(n, 1) + 15) &^ 15
	if s/16%2 == 0 {
		s += 16
	}
	return s
}

// AffineBinary is Affine for binary inputs (every in value 0 or 1). It
// writes each chain's ones to idx (chain c's at idx[c*nin : c*nin+counts[c]],
// increasing) and sums the rows of m they name, in column tiles shared by
// the block; when more than 35% (55% on tiers with blocked row sums) of the
// inputs are ones it uses the dense product instead. idx needs nc*nin entries, counts nc. It returns
// the total number of ones. Callers keep idx and counts for the gradient.
func AffineBinary(out, bias, in, m []float32, nc, nin, nout int, idx, counts []int32) int {
	return AffineBinaryStride(out, bias, in, m, nout, nc, nin, nout, idx, counts)
}

// AffineBinaryStride is AffineBinary with the rows of m ldm ≥ nout floats
// apart (row j at m[j*ldm : j*ldm+nout]), such as PadStride(nout). With
// ldm ≠ nout it always sums rows (the dense product needs ldm = nout); the
// result is the same, every chain's rows being added in increasing order
// into its bias whichever schedule runs.
func AffineBinaryStride(out, bias, in, m []float32, ldm, nc, nin, nout int, idx, counts []int32) int {
	if nc <= 0 {
		return 0
	}
	if ldm < nout {
		panic(fmt.Sprintf("kernel: m stride %d < row length %d", ldm, nout))
	}
	need("out", len(out), nc*nout)
	need("in", len(in), nc*nin)
	if nin > 0 && nout > 0 {
		need("m", len(m), (nin-1)*ldm+nout)
	}
	need("idx", len(idx), nc*nin)
	need("counts", len(counts), nc)
	if bias != nil {
		need("bias", len(bias), nout)
	}
	total := 0
	for c := 0; c < nc; c++ {
		counts[c] = 0
		if nin > 0 {
			counts[c] = int32(cur.indices(idx[c*nin:(c+1)*nin], in[c*nin:(c+1)*nin]))
		}
		total += int(counts[c])
	}
	if nout <= 0 {
		return total
	}
	threshold := denseThreshold
	if cur.sumRowsBlocked != nil {
		threshold = denseThresholdBlocked
	}
	if ldm == nout && float64(total) > threshold*float64(nc*nin) {
		cur.affine(out[:nc*nout], bias, in[:nc*nin], m[:nin*nout], nc, nin, nout)
		return total
	}
	startRows(out, bias, nc, nout)
	if total == 0 {
		return 0
	}
	if cur.sumRowsBlocked != nil {
		cur.sumRowsBlocked(m, ldm, nc, nin, nout, rowSums{out, idx, counts}, rowSums{})
		return total
	}
	for t0 := 0; t0 < nout; t0 += binaryTile {
		tw := min(binaryTile, nout-t0)
		for c := 0; c < nc; c++ {
			if counts[c] == 0 {
				continue
			}
			cur.sumRows(out[c*nout+t0:c*nout+t0+tw], m[t0:], ldm, idx[c*nin:c*nin+int(counts[c])], tw)
		}
	}
	return total
}

// Aligned returns n zero floats starting on a 64-byte boundary (a cache
// line, one ZMM load), for matrices whose rows PadStride spaces out.
func Aligned(n int) []float32 {
	buf := make([]float32, n+15)
	off := int((64 - uintptr(unsafe.Pointer(&buf[0]))%64) % 64 / 4)
	return buf[off : off+n : off+n]
}
