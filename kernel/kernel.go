// Package kernel holds the float32 inner loops of RBM training and evaluation:
// block matrix products (dense and binary-state forms), sigmoid and softplus,
// Bernoulli, Gaussian and categorical (softmax) sampling from per-chain
// random streams, sparse gradient accumulation and the fused parameter
// updates.
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

// AffineSigmoid is a layer's mean-field step on the dense product:
//
//	for c < nc, o < nout: out[c*ldo+o] = σ(add[c*lda+o] + Σ_{j<nin} in[c*nin+j] * m[j*nout+o])
//
// with the sums Affine computes (from 0, no bias) and σ as Sigmoid, in one
// pass on the tiers with a fused kernel (AVX-512): the same bits as Affine
// into tmp, Axpy(tmp row, 1, add row) and Sigmoid into out's row, which is
// what the other tiers do (tmp, nc·nout floats, is their scratch). out's
// rows lie ldo ≥ nout floats apart, add's lda apart; lda = 0 adds one row
// (a bias) to every chain. Only the first nout floats of each row of out
// are written. next, if not nil, is what the caller reads next (the next
// tile's m): the fused kernel prefetches it into L2 as it goes.
func AffineSigmoid(out []float32, ldo int, add []float32, lda int, in, m, next, tmp []float32, nc, nin, nout int) {
	if nc <= 0 || nout <= 0 {
		return
	}
	if ldo < nout || (lda != 0 && lda < nout) {
		panic(fmt.Sprintf("kernel: AffineSigmoid strides ldo %d, lda %d below nout %d", ldo, lda, nout))
	}
	need("out", len(out), (nc-1)*ldo+nout)
	need("add", len(add), (nc-1)*lda+nout)
	need("in", len(in), nc*nin)
	need("m", len(m), nin*nout)
	need("tmp", len(tmp), nc*nout)
	cur.affineSigmoid(out, ldo, add, lda, in[:nc*nin], m[:nin*nout], next, tmp, nc, nin, nout)
}

// affineSigmoidVia is AffineSigmoid from t's affine, axpy and sigmoid.
func affineSigmoidVia(t *impl) func(out []float32, ldo int, add []float32, lda int, in, m, next, tmp []float32, nc, nin, nout int) {
	return func(out []float32, ldo int, add []float32, lda int, in, m, _, tmp []float32, nc, nin, nout int) {
		t.affine(tmp[:nc*nout], nil, in, m, nc, nin, nout)
		for c := 0; c < nc; c++ {
			p := tmp[c*nout : (c+1)*nout]
			t.axpy(p, 1, add[c*lda:c*lda+nout])
			t.sigmoid(out[c*ldo:c*ldo+nout], p)
		}
	}
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
