//go:build !purego && !noasm && gc

package kernel

// avx512Kernels is the AVX-512 tier (kernel_avx512_amd64.s). kernel_amd64.go
// offers it only on CPUs with AVX512F+DQ+BW+VL.
var avx512Kernels = &impl{
	name:             "avx512",
	affine:           affineAVX512,
	sumRows:          sumRowsAVX512,
	sumRowsBlocked:   sumRowsBlockedAVX512,
	indices:          indicesAVX512,
	changes:          changesAVX512,
	sigmoid:          sigmoidAVX512,
	softplus:         softplusAVX512,
	bernoulli:        bernoulliAVX512,
	sigmoidBernoulli: sigmoidBernoulliAVX512,
	axpy:             axpyAVX512,
	updateNCG:        updateNCGAVX512,
	updateMasked:     updateMaskedAVX512,
	updateDense:      updateDenseAVX512,
	// The AVX2 transpose (8×8 blocks of shuffles): a gather per 16 rows of
	// a source column runs at under a third of its speed on the engine's
	// bands of 16 rows of C. The tier's CPUs all have AVX2 (checked by archTiers).
	transpose:  transposeAVX2Wrap,
	taylorSums: taylorSumsAVXWrap,
}

// The stubs. Each computes the scalar loop of its comment; the pointers
// address the first element and n ≥ 1 (the wrappers return early for
// empty input; the assembly also returns at once for n ≤ 0).

// avx512Affine computes k ≤ 6 chains of the dense product:
//
//	for c < k, o < nout: out[c*nout+o] = bias[o] (0 if bias == nil) + Σ_{j<nin} in[c*nin+j] * m[j*nout+o]
//
// in and m are not read when nin == 0.
//
//go:noescape
func avx512Affine(out, bias, in, m *float32, k, nin, nout int)

// avx512SumRows: for i < nidx, o < n: out[o] += m[idx[i]*stride+o].
//
//go:noescape
func avx512SumRows(out, m *float32, stride int, idx *int32, nidx, n int)

// avx512Indices: for i < n: if s[i] != 0 { idx[count] = i; count++ }; returns count.
// It may write garbage to idx[count:n] (never past n).
//
//go:noescape
func avx512Indices(idx *int32, s *float32, n int) int

// avx512Sigmoid: for i < n: dst[i] = sigmoidRef(src[i]). dst may be src.
//
//go:noescape
func avx512Sigmoid(dst, src *float32, n int)

// avx512Softplus: for i < n: dst[i] = softplusRef(src[i]). dst may be src.
//
//go:noescape
func avx512Softplus(dst, src *float32, n int)

// avx512Bernoulli: for each block of 16 (the last one partial):
// s.next(&blk); dst[i] = b2f(uniform(blk[i%16]) < p[i]).
//
//go:noescape
func avx512Bernoulli(dst, p *float32, n int, s *Stream)

// avx512SigmoidBernoulli: prob[i] = sigmoidRef(pre[i]); state[i] =
// b2f(uniform(draw i) < prob[i]), draws as avx512Bernoulli. prob may be pre.
//
//go:noescape
func avx512SigmoidBernoulli(prob, state, pre *float32, n int, s *Stream)

// avx512Axpy: for i < n: y[i] += a * x[i].
//
//go:noescape
func avx512Axpy(y *float32, a float32, x *float32, n int)

// avx512UpdateNCG: for k < n, as updateNCGGeneric:
//
//	w0 := w[k]; nw := w0 + alpha*grad[k]*a[k]
//	p := min(max(ap[k] + alphaA*grad[k]*w0, 0), 1)
//	w[k], ap[k], a[k], c[k], grad[k] = nw, p, b2f(p >= gamma), nw*a[k], 0
//
// It returns 0 if every nw is finite, else NaN.
//
//go:noescape
func avx512UpdateNCG(w, ap, a, c, grad *float32, n int, alpha, alphaA, gamma float32) float32

// avx512UpdateMasked: for k < n: nw := w[k] + alpha*grad[k]*a[k];
// w[k], c[k], grad[k] = nw, nw*a[k], 0. Returns 0 if every nw is finite, else NaN.
//
//go:noescape
func avx512UpdateMasked(w, a, c, grad *float32, n int, alpha float32) float32

// avx512UpdateDense: for k < n: nw := w[k] + alpha*grad[k]; w[k], grad[k] = nw, 0;
// if c != nil { c[k] = nw }. Returns 0 if every nw is finite, else NaN.
//
//go:noescape
func avx512UpdateDense(w, c, grad *float32, n int, alpha float32) float32

// avx512Changes: see Changes.
//
//go:noescape
func avx512Changes(idx, on, off *int32, ref, s *float32, n int) (ones, non, noff int)

// The wrappers: the impl signatures over the stubs. Their callers (the
// exported functions) have checked the lengths; the re-slicing and index
// expressions here keep a wrong call from reaching the assembly.

// avx512AffineChains is how many chains one avx512Affine call takes.
const avx512AffineChains = 6

func affineAVX512(out, bias, in, m []float32, nc, nin, nout int) {
	if nc <= 0 || nout <= 0 {
		return
	}
	_ = out[nc*nout-1]
	var bp, mp *float32
	if bias != nil {
		bp = &bias[:nout][0]
	}
	if nin > 0 {
		_ = in[nc*nin-1]
		mp = &m[:nin*nout][0]
	}
	// Equal groups of at most avx512AffineChains (8 chains: 4 + 4, not
	// 6 + 2): each pass over m costs about the same whatever its chain
	// count, so fewer, fuller passes are faster. A chain's sums do not
	// depend on its group.
	groups := (nc + avx512AffineChains - 1) / avx512AffineChains
	for g, c := 0, 0; g < groups; g++ {
		k := (nc - c) / (groups - g)
		var ip *float32
		if nin > 0 {
			ip = &in[c*nin]
		}
		avx512Affine(&out[c*nout], bp, ip, mp, k, nin, nout)
		c += k
	}
}

func sumRowsAVX512(out, m []float32, stride int, idx []int32, n int) {
	if n <= 0 || len(idx) == 0 {
		return
	}
	avx512SumRows(&out[:n][0], &m[0], stride, &idx[0], len(idx), n)
}

func indicesAVX512(idx []int32, s []float32) int {
	if len(s) == 0 {
		return 0
	}
	return avx512Indices(&idx[:len(s)][0], &s[0], len(s))
}

func sigmoidAVX512(dst, src []float32) {
	if len(src) == 0 {
		return
	}
	avx512Sigmoid(&dst[:len(src)][0], &src[0], len(src))
}

func softplusAVX512(dst, src []float32) {
	if len(src) == 0 {
		return
	}
	avx512Softplus(&dst[:len(src)][0], &src[0], len(src))
}

func bernoulliAVX512(dst, p []float32, s *Stream) {
	if len(p) == 0 {
		return
	}
	avx512Bernoulli(&dst[:len(p)][0], &p[0], len(p), s)
}

func sigmoidBernoulliAVX512(prob, state, pre []float32, s *Stream) {
	if len(pre) == 0 {
		return
	}
	n := len(pre)
	avx512SigmoidBernoulli(&prob[:n][0], &state[:n][0], &pre[0], n, s)
}

func axpyAVX512(y []float32, a float32, x []float32) {
	if len(x) == 0 {
		return
	}
	avx512Axpy(&y[:len(x)][0], a, &x[0], len(x))
}

func updateNCGAVX512(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32 {
	n := len(w)
	if n == 0 {
		return 0
	}
	return avx512UpdateNCG(&w[0], &ap[:n][0], &a[:n][0], &c[:n][0], &g[:n][0], n, alpha, alphaA, gamma)
}

func updateMaskedAVX512(w, a, c, g []float32, alpha float32) float32 {
	n := len(w)
	if n == 0 {
		return 0
	}
	return avx512UpdateMasked(&w[0], &a[:n][0], &c[:n][0], &g[:n][0], n, alpha)
}

func updateDenseAVX512(w, c, g []float32, alpha float32) float32 {
	n := len(w)
	if n == 0 {
		return 0
	}
	var cp *float32
	if c != nil {
		cp = &c[:n][0]
	}
	return avx512UpdateDense(&w[0], cp, &g[:n][0], n, alpha)
}

func changesAVX512(idx, on, off []int32, ref, s []float32) (int, int, int) {
	n := len(s)
	if n == 0 {
		return 0, 0, 0
	}
	_, _, _, _ = idx[n-1], on[n-1], off[n-1], ref[n-1]
	return avx512Changes(&idx[0], &on[0], &off[0], &ref[0], &s[0], n)
}

// sumRowsBlockedAVX512 is sumRowsBlockedGeneric with each row block in one
// avx512SumRowsBlock call (the same loops; the cursors stay on this stack,
// which the noescape stub keeps off the heap). Its callers checked that m
// holds nin rows of ldm floats and that counts came from idx.
func sumRowsBlockedAVX512(out, m []float32, ldm, nc, nin, nout int, idx, counts []int32) {
	if !blockedArgs(out, m, ldm, nc, nin, nout, idx, counts) {
		return
	}
	var cursors [blockChains]int32
	tile, rows := min(binaryTile, blockTile), blockRows(nin)
	for g := 0; g < nc; g += blockChains {
		gn := min(blockChains, nc-g)
		for t0 := 0; t0 < nout; t0 += tile {
			tw := min(tile, nout-t0)
			clear(cursors[:gn])
			for r0 := 0; r0 < nin; r0 += rows {
				avx512SumRowsBlock(&out[g*nout+t0], nout, &m[t0], ldm, &idx[g*nin], nin, &counts[g], &cursors[0], min(r0+rows, nin), gn, tw)
			}
		}
	}
}

// avx512SumRowsBlock: for c < nc: for the indices j = idx[c*ldi+k],
// cursors[c] ≤ k < counts[c], while j < r1: out[c*ldo+o] += m[j*ldm+o] for
// o < n (n ≤ 128); cursors[c] = the first k not taken.
//
//go:noescape
func avx512SumRowsBlock(out *float32, ldo int, m *float32, ldm int, idx *int32, ldi int, counts, cursors *int32, r1, nc, n int)
