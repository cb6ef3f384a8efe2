//go:build !purego && !noasm && gc

package kernel

// avx2Kernels is the AVX2+FMA3 tier (kernel_amd64.s). Every kernel is in
// assembly; the wrappers below only split work into tiles or rows and do
// the edges that are cheaper in Go than in more assembly.
var avx2Kernels = &impl{
	name:             "avx2",
	affine:           affineAVX2,
	sumRows:          sumRowsAVX2Wrap,
	sumRowsBlocked:   sumRowsBlockedAVX2,
	indices:          indicesAVX2,
	sigmoid:          sigmoidAVX2,
	softplus:         softplusAVX2,
	bernoulli:        bernoulliAVX2,
	sigmoidBernoulli: sigmoidBernoulliAVX2,
	axpy:             axpyAVX2,
	updateNCG:        updateNCGAVX2,
	updateMasked:     updateMaskedAVX2,
	updateDense:      updateDenseAVX2Wrap,
	transpose:        transposeAVX2Wrap,
	taylorSums:       taylorSumsAVXWrap,
}

// affineKBlock bounds the rows of m one call of the register tile covers
// (the panel of m it streams is affineKBlock rows × 24 columns). Whole
// panels (784 rows at the MNIST shapes) with software prefetch beat blocks
// of 128–256 rows that keep the panel in L1 (82–86 against 62–73 GFLOP/s on
// Zen 3); the bound only keeps a huge nin from pushing the panel out of L2.
const affineKBlock = 1024

// affinePF is how many rows of m ahead the tile prefetches (PREFETCHT0 of
// the row's three cache lines). The first chain group of a panel reads m
// from L3 at a 4·nout-byte stride that the hardware prefetchers follow
// late; 16 rows ahead (≈100 cycles) makes the c8 shape about 30% faster. Prefetches past the end of m are harmless (they never fault).
const affinePF = 16

// affineAVX2 is the dense product. Out rows start as the bias; then, per
// block of input rows, per 24-column panel of m, every group of four chains
// runs the register tile over the panel (the panel is read from memory once
// and from L2 by the other groups). A last group of fewer than four chains
// repeats its last chain in the spare slots: the tile loads all its rows
// before storing any, so the repeated stores write the same values.
// Columns past the last full panel go through the masked 4×16 tile.
func affineAVX2(out, bias, in, m []float32, nc, nin, nout int) {
	startRows(out, bias, nc, nout)
	if nin == 0 {
		return
	}
	for k0 := 0; k0 < nin; k0 += affineKBlock {
		kb := min(affineKBlock, nin-k0)
		for o := 0; o < nout; {
			w := nout - o
			if w >= 24 {
				w = 24
			} else if w > 16 {
				w = 16
			}
			for c := 0; c < nc; c += 4 {
				c1, c2, c3 := min(c+1, nc-1), min(c+2, nc-1), min(c+3, nc-1)
				o0, o1, o2, o3 := &out[c*nout+o], &out[c1*nout+o], &out[c2*nout+o], &out[c3*nout+o]
				i0, i1, i2, i3 := &in[c*nin+k0], &in[c1*nin+k0], &in[c2*nin+k0], &in[c3*nin+k0]
				mp := &m[k0*nout+o]
				if w == 24 {
					affine4x24AVX2(o0, o1, o2, o3, i0, i1, i2, i3, mp, nout, kb, affinePF)
				} else {
					affine4x16MaskAVX2(o0, o1, o2, o3, i0, i1, i2, i3, mp, nout, kb, w)
				}
			}
			o += w
		}
	}
}

// affine4x24AVX2 computes, for r < 4 and o < 24,
//
//	or[o] += Σ_{j<nin} ir[j] * m[j*ldm+o]
//
// for the four chains (or, ir) = (o0, i0) … (o3, i3); nin ≥ 1. It
// prefetches row j+pfd of m while it works on row j.
//
//go:noescape
func affine4x24AVX2(o0, o1, o2, o3, i0, i1, i2, i3, m *float32, ldm, nin, pfd int)

// affine4x16MaskAVX2 is affine4x24AVX2 for o < w ≤ 16 columns, touching no
// memory at or past column w.
//
//go:noescape
func affine4x16MaskAVX2(o0, o1, o2, o3, i0, i1, i2, i3, m *float32, ldm, nin, w int)

// sumRowsBlockedAVX2 is sumRowsBlockedGeneric with 64-column tiles (the
// 16 YMM registers hold one chain's 64 sums and leave room for nothing
// more), each full tile's row blocks in sumRowsBlockAVX2 calls; a last
// partial tile is summed chain by chain with sumRowsAVX2, which adds the
// same rows in the same order. Its callers checked that m holds nin rows
// of ldm floats and that counts came from idx.
func sumRowsBlockedAVX2(out, m []float32, ldm, nc, nin, nout int, idx, counts []int32) {
	if !blockedArgs(out, m, ldm, nc, nin, nout, idx, counts) {
		return
	}
	const tile = 64
	var cursors [blockChains]int32
	rows := blockRows(nin)
	full := nout / tile * tile
	for g := 0; g < nc; g += blockChains {
		gn := min(blockChains, nc-g)
		for t0 := 0; t0 < full; t0 += tile {
			clear(cursors[:gn])
			for r0 := 0; r0 < nin; r0 += rows {
				sumRowsBlockAVX2(&out[g*nout+t0], nout, &m[t0], ldm, &idx[g*nin], nin, &counts[g], &cursors[0], min(r0+rows, nin), gn)
			}
		}
	}
	if full < nout {
		for c := 0; c < nc; c++ {
			if counts[c] > 0 {
				sumRowsAVX2(out[c*nout+full:(c+1)*nout], m[full:], ldm, idx[c*nin:c*nin+int(counts[c])])
			}
		}
	}
}

// sumRowsBlockAVX2: for c < nc: for the indices j = idx[c*ldi+k],
// cursors[c] ≤ k < counts[c], while j < r1: out[c*ldo+o] += m[j*ldm+o] for
// o < 64; cursors[c] = the first k not taken.
//
//go:noescape
func sumRowsBlockAVX2(out *float32, ldo int, m *float32, ldm int, idx *int32, ldi int, counts, cursors *int32, r1, nc int)

func sumRowsAVX2Wrap(out, m []float32, stride int, idx []int32, n int) {
	sumRowsAVX2(out[:n], m, stride, idx)
}

// sumRowsAVX2 computes
//
//	for _, j := range idx { for o := range out { out[o] += m[int(j)*stride+o] } }
//
//go:noescape
func sumRowsAVX2(out, m []float32, stride int, idx []int32)

// indicesAVX2 computes
//
//	n := 0
//	for i, v := range s { if v != 0 { idx[n] = int32(i); n++ } }
//	return n
//
// It may write garbage to idx[n:len(s)] (never past len(s)).
//
//go:noescape
func indicesAVX2(idx []int32, s []float32) int

// sigmoidAVX2 computes dst[i] = σ(src[i]) = 1/(1+exp(-src[i])) (0 below
// −88), len(dst) = len(src). Measured worst error against the float64
// definition: relative 1.62e−7 on TestSigmoidDense's grid, 1.57e−7 over
// every 251st float32 (TestAVX2SigmoidSweep); 1.4e−45 absolute (one
// subnormal step) where σ < 1.2e−38; exactly 1 from x ≈ 17; σ(NaN) = NaN.
//
//go:noescape
func sigmoidAVX2(dst, src []float32)

// softplusAVX2 computes dst[i] = max(x,0) + log1p(exp(-|x|)), x = src[i].
// Measured worst error 1.19e−7·max(1, result) (both sweeps).
//
//go:noescape
func softplusAVX2(dst, src []float32)

// bernoulliAVX2 computes, one 16-lane block of s per 16 elements,
//
//	dst[i] = 1 if float32(r_i>>8)*2^-24 < p[i] else 0
//
//go:noescape
func bernoulliAVX2(dst, p []float32, s *Stream)

// sigmoidBernoulliAVX2 computes prob[i] = σ(pre[i]) and
// state[i] = 1 if u_i < prob[i] else 0 (u_i as in bernoulliAVX2).
//
//go:noescape
func sigmoidBernoulliAVX2(prob, state, pre []float32, s *Stream)

// axpyAVX2 computes y[i] += a*x[i] for i < len(x).
//
//go:noescape
func axpyAVX2(y []float32, a float32, x []float32)

// updateNCGAVX2 computes, for k < len(w),
//
//	w0 := w[k]
//	w[k] = w0 + alpha*g[k]*a[k]
//	ap[k] = min(max(ap[k]+alphaA*g[k]*w0, 0), 1)
//	a[k] = 1 if ap[k] >= gamma else 0
//	c[k] = w[k]*a[k]; g[k] = 0
//
// and returns Σ w[k]*0 (0, or NaN if some w[k] is not finite).
//
//go:noescape
func updateNCGAVX2(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32

// updateMaskedAVX2 computes w[k] += alpha*g[k]*a[k]; c[k] = w[k]*a[k];
// g[k] = 0 and returns Σ w[k]*0.
//
//go:noescape
func updateMaskedAVX2(w, a, c, g []float32, alpha float32) float32

func updateDenseAVX2Wrap(w, c, g []float32, alpha float32) float32 {
	if c == nil {
		c = w
	}
	return updateDenseAVX2(w, c, g, alpha)
}

// updateDenseAVX2 computes w[k] += alpha*g[k]; c[k] = w[k]; g[k] = 0 and
// returns Σ w[k]*0. c is never nil (c = w means no copy).
//
//go:noescape
func updateDenseAVX2(w, c, g []float32, alpha float32) float32

func transposeAVX2Wrap(dst, src []float32, rows, cols, ldd, lds int) {
	r8, c8 := rows&^7, cols&^7
	if r8 > 0 && c8 > 0 {
		transposeAVX2(dst, src, rows, cols, ldd, lds)
	}
	for i := 0; i < r8; i++ { // right edge of the blocked rows
		for j := c8; j < cols; j++ {
			dst[j*ldd+i] = src[i*lds+j]
		}
	}
	for i := r8; i < rows; i++ { // bottom rows
		for j := 0; j < cols; j++ {
			dst[j*ldd+i] = src[i*lds+j]
		}
	}
}

// transposeAVX2 computes dst[j*ldd+i] = src[i*lds+j] for i < rows&^7,
// j < cols&^7.
//
//go:noescape
func transposeAVX2(dst, src []float32, rows, cols, ldd, lds int)

// taylorSumsAVX computes taylorSumsGeneric's partial sums for n = len(a), a
// positive multiple of 4 (AVX only; both x86 tiers use it).
//
//go:noescape
func taylorSumsAVX(a, p *float32, n int, s *[3][4]float64, lohi *[2][4]float32)

func taylorSumsAVXWrap(a, p []float32, s *[3][4]float64, lohi *[2][4]float32) {
	if len(a) < 4 {
		return
	}
	_ = p[len(a)-1]
	taylorSumsAVX(&a[0], &p[0], len(a)&^3, s, lohi)
}
