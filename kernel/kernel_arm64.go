//go:build !purego && !noasm && gc

package kernel

// archTiers returns the NEON tier: NEON is mandatory on arm64, so there is
// no feature gate.
func archTiers() []*impl { return []*impl{neonKernels} }

// neonKernels is the NEON tier (kernel_arm64.s). Every kernel is assembly;
// the wrappers below only split the work into the shapes the assembly takes.
// The names follow the other tiers: <op>NEON is the impl's op, with slice
// arguments; an assembly function that takes only part of the op's work is
// named for that part (affine4NEON: four chains; bernoulliBlocksNEON,
// sigmoidBernoulliBlocksNEON, transposeBlocksNEON: whole blocks, the
// wrapper <op>NEON doing the rest).
var neonKernels = &impl{
	name:             "neon",
	affine:           affineNEON,
	sumRows:          sumRowsNEON,
	indices:          indicesNEON,
	sigmoid:          sigmoidNEON,
	softplus:         softplusNEON,
	bernoulli:        bernoulliNEON,
	sigmoidBernoulli: sigmoidBernoulliNEON,
	gaussian:         gaussianNEON,
	softmaxExp:       softmaxExpNEON,
	softmaxFinish:    softmaxFinishNEON,
	axpy:             axpyNEON,
	updateNCG:        updateNCGNEON,
	updateMasked:     updateMaskedNEON,
	updateDense:      updateDenseNEON,
	updateMom:        updateMomNEONWrap,
	updateMomNCG:     updateMomNCGNEONWrap,
	transpose:        transposeNEON,
	taylorSums:       taylorSumsNEON,
	prefetchW:        prefetchWNEON,
	sparseAffine:     sparseAffineNEON,
	dotRows:          dotRowsNEON,
	// gatherSum: the generic kernel. NEON has no gather; an assembly loop
	// of scalar loads would do what the compiled Go loop does.
}

// affineNEON runs the product in blocks of four chains, which share every
// load of m. When nc is not a multiple of four and at least four, the last
// block overlaps the one before: the kernel writes bias + in·m rather than
// accumulating, so recomputing a chain is harmless.
func affineNEON(out, bias, in, m []float32, nc, nin, nout int) {
	if nc < 4 {
		for c := 0; c < nc; c++ {
			affine1NEON(out[c*nout:], bias, in[c*nin:], m, nin, nout)
		}
		return
	}
	for c := 0; ; c += 4 {
		if c+4 > nc {
			c = nc - 4
		}
		affine4NEON(out[c*nout:], bias, in[c*nin:], m, nin, nout)
		if c+4 == nc {
			return
		}
	}
}

// affine4NEON computes four chains (bias == nil means zero):
//
//	for c < 4, o < nout: out[c*nout+o] = bias[o] + Σ_{j<nin} in[c*nin+j] * m[j*nout+o]
//
//go:noescape
func affine4NEON(out, bias, in, m []float32, nin, nout int)

// affine1NEON computes one chain (bias == nil means zero):
//
//	for o < nout: out[o] = bias[o] + Σ_{j<nin} in[j] * m[j*nout+o]
//
//go:noescape
func affine1NEON(out, bias, in, m []float32, nin, nout int)

// sumRowsNEON adds rows of m, in column chunks of 32 kept in registers:
//
//	for _, j := range idx { for o < n: out[o] += m[j*stride+o] }
//
//go:noescape
func sumRowsNEON(out, m []float32, stride int, idx []int32, n int)

// indicesNEON lists the non-zero entries of s (-0 counts as zero, NaN not):
//
//	k := 0; for i, v := range s { if v != 0 { idx[k] = int32(i); k++ } }; return k
//
//go:noescape
func indicesNEON(idx []int32, s []float32) int

// sigmoidNEON computes dst[i] = 1/(1+exp(-src[i])), 0 for src[i] < -88;
// dst may alias src.
//
//go:noescape
func sigmoidNEON(dst, src []float32)

// softplusNEON computes dst[i] = max(x, 0) + log1p(exp(-|x|)), x = src[i];
// dst may alias src.
//
//go:noescape
func softplusNEON(dst, src []float32)

// bernoulliNEON draws whole blocks in assembly and the last partial block
// through a zero-padded copy, so the stream advances by ⌈n/16⌉ blocks.
func bernoulliNEON(dst, p []float32, s *Stream) {
	n := len(p) &^ (Lanes - 1)
	if n > 0 {
		bernoulliBlocksNEON(dst[:n], p[:n], s)
	}
	if n < len(p) {
		var pb, db [Lanes]float32
		copy(pb[:], p[n:])
		bernoulliBlocksNEON(db[:], pb[:], s)
		copy(dst[n:], db[:])
	}
}

// bernoulliBlocksNEON draws len(p)/16 blocks (len(p) a multiple of 16):
//
//	for i := 0; i < len(p); i += 16 { s.next(&blk); for l < 16: dst[i+l] = b2f(uniform(blk[l]) < p[i+l]) }
//
//go:noescape
func bernoulliBlocksNEON(dst, p []float32, s *Stream)

// sigmoidBernoulliNEON is bernoulliNEON's split for the fused kernel.
func sigmoidBernoulliNEON(prob, state, pre []float32, s *Stream) {
	n := len(pre) &^ (Lanes - 1)
	if n > 0 {
		sigmoidBernoulliBlocksNEON(prob[:n], state[:n], pre[:n], s)
	}
	if n < len(pre) {
		var xb, pb, sb [Lanes]float32
		copy(xb[:], pre[n:])
		sigmoidBernoulliBlocksNEON(pb[:], sb[:], xb[:], s)
		copy(prob[n:], pb[:])
		copy(state[n:], sb[:])
	}
}

// sigmoidBernoulliBlocksNEON draws len(pre)/16 blocks (len(pre) a multiple
// of 16); prob may alias pre:
//
//	for i := 0; i < len(pre); i += 16 {
//		s.next(&blk)
//		for l < 16: prob[i+l] = σ(pre[i+l]); state[i+l] = b2f(uniform(blk[l]) < prob[i+l])
//	}
//
//go:noescape
func sigmoidBernoulliBlocksNEON(prob, state, pre []float32, s *Stream)

// gaussianNEON is bernoulliNEON's split for Gaussian sampling.
func gaussianNEON(dst, mean, sigma []float32, s *Stream) {
	n := len(mean) &^ (Lanes - 1)
	if n > 0 {
		gaussianBlocksNEON(dst[:n], mean[:n], sigma[:n], s)
	}
	if n < len(mean) {
		var mb, sb, db [Lanes]float32
		copy(mb[:], mean[n:])
		copy(sb[:], sigma[n:])
		gaussianBlocksNEON(db[:], mb[:], sb[:], s)
		copy(dst[n:], db[:len(mean)-n])
	}
}

// gaussianBlocksNEON draws len(mean)/16 blocks (len(mean) a multiple of
// 16); dst may alias mean or sigma:
//
//	for i := 0; i < len(mean); i += 16 {
//		s.next(&blk)
//		for l < 16: dst[i+l] = mean[i+l] + sigma[i+l]·normalRef(blk[l])
//	}
//
//go:noescape
func gaussianBlocksNEON(dst, mean, sigma []float32, s *Stream)

// softmaxExpNEON computes, for src[i] ≤ 0, −Inf or NaN, with expRef's
// operations in its order, none fused, so with the generic code's bits:
//
//	for i, x := range src { dst[i] = expRef(x) }
//
// dst may be src.
//
//go:noescape
func softmaxExpNEON(dst, src []float32)

// softmaxFinishNEON computes, for len(state) ≥ len(prob):
//
//	for i := range prob { prob[i] /= |state[i]|; state[i] = 1 if state[i]'s sign bit is set else 0 }
//
//go:noescape
func softmaxFinishNEON(prob, state []float32)

// axpyNEON computes, with a fused multiply-add:
//
//	for i, v := range x { y[i] += a * v }
//
//go:noescape
func axpyNEON(y []float32, a float32, x []float32)

// updateNCGNEON is the fused NCG step; it returns Σ_k w[k]·0 (per lane,
// then across lanes), which is 0 unless a new weight is NaN or ±Inf:
//
//	for k := range w {
//		w0 := w[k]
//		w[k] = w0 + alpha*g[k]*a[k]
//		ap[k] = min(max(ap[k]+alphaA*g[k]*w0, 0), 1)
//		a[k] = b2f(ap[k] >= gamma)
//		c[k] = w[k] * a[k]
//		g[k] = 0
//	}
//
//go:noescape
func updateNCGNEON(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32

// updateMaskedNEON, with the same return value as updateNCGNEON:
//
//	for k := range w { w[k] += alpha * g[k] * a[k]; c[k] = w[k] * a[k]; g[k] = 0 }
//
//go:noescape
func updateMaskedNEON(w, a, c, g []float32, alpha float32) float32

// updateDenseNEON, with the same return value as updateNCGNEON; c may be nil:
//
//	for k := range w { w[k] += alpha * g[k]; if c != nil { c[k] = w[k] }; g[k] = 0 }
//
//go:noescape
func updateDenseNEON(w, c, g []float32, alpha float32) float32

// updateMomNEON is updateMomGeneric (a nil: all ones; c nil: not
// written), with the same operations in the same order (no FMA) and the
// same return value as updateNCGNEON:
//
//	for k := range w {
//		w0 := w[k]
//		s := g[k]*invB - l2*w0 - l1*sign(w0) + mu*v[k]
//		w[k] = w0 + lr*s*a[k]; v[k] = s*a[k]; g[k] = 0
//		if c != nil { c[k] = w[k]*a[k] }
//	}
//
//go:noescape
func updateMomNEON(w, a, c, g, v []float32, lr, invB, mu, l2, l1 float32) float32

// updateMomNCGNEON is updateMomNCGGeneric, with the same operations in the
// same order (no FMA) and the same return value as updateNCGNEON:
//
//	for k := range w {
//		w0, gk := w[k], g[k]
//		s := gk*invB - l2*w0 - l1*sign(w0) + mu*v[k]
//		nw := w0 + lr*s*a[k]; v[k] = s*a[k]
//		q := ap[k] + lrA*gk*w0; if q < 0 { q = 0 }; if q > 1 { q = 1 }
//		ap[k], a[k] = q, b2f(q >= gamma)
//		w[k], c[k], g[k] = nw, nw*a[k], 0
//	}
//
//go:noescape
func updateMomNCGNEON(w, ap, a, c, g, v []float32, lr, invB, mu, l2, l1, lrA, gamma float32) float32

func updateMomNEONWrap(w, a, c, g, v []float32, p Step) float32 {
	return updateMomNEON(w, a, c, g, v, p.LR, p.InvB, p.Mu, p.L2, p.L1)
}

func updateMomNCGNEONWrap(w, ap, a, c, g, v []float32, p Step) float32 {
	return updateMomNCGNEON(w, ap, a, c, g, v, p.LR, p.InvB, p.Mu, p.L2, p.L1, p.LRA, p.Gamma)
}

// transposeNEON moves the 4×4 blocks in assembly and the ragged right and
// bottom edges (fewer than four columns or rows) in Go.
func transposeNEON(dst, src []float32, rows, cols, ldd, lds int) {
	r4, c4 := rows&^3, cols&^3
	if r4 > 0 && c4 > 0 {
		transposeBlocksNEON(dst, src, rows, cols, ldd, lds)
	}
	for i := 0; i < rows; i++ {
		j0 := c4
		if i >= r4 {
			j0 = 0
		}
		for j := j0; j < cols; j++ {
			dst[j*ldd+i] = src[i*lds+j]
		}
	}
}

// transposeBlocksNEON transposes the top-left (rows&^3)×(cols&^3) part of
// the rows×cols matrix src, in 4×4 blocks:
//
//	for i < rows&^3, j < cols&^3: dst[j*ldd+i] = src[i*lds+j]
//
//go:noescape
func transposeBlocksNEON(dst, src []float32, rows, cols, ldd, lds int)

// taylorSumsNEON computes taylorSumsGeneric's partial sums for the first
// n = len(a)&^3 elements (len(p) ≥ len(a)); it returns at once for n = 0.
//
//go:noescape
func taylorSumsNEON(a, p []float32, s *[3][4]float64, lohi *[2][4]float32)

// prefetchWNEON asks for the cache lines holding s[0], s[stride], …,
// s[(n−1)·stride] for writing (PRFM PSTL1KEEP), changing no value.
//
//go:noescape
func prefetchWNEON(s []float32, n, stride int)

// sparseAffineNEON runs the product with two, four or eight quad registers
// a row (8, 16 or 32 lanes).
func sparseAffineNEON(out, bias, in []float32, lanes int, ptr, col []int32, val []float32) {
	switch lanes {
	case 32:
		sparseAffine32NEON(out, bias, in, ptr, col, val)
	case 16:
		sparseAffine16NEON(out, bias, in, ptr, col, val)
	default:
		sparseAffine8NEON(out, bias, in, ptr, col, val)
	}
}

// sparseAffine8NEON, sparseAffine16NEON and sparseAffine32NEON compute,
// for o < len(ptr)−1 and l < 8, 16 or 32 (L),
//
//	out[o*L+l] = bias[o] + Σ_{k=ptr[o]}^{ptr[o+1]−1} float32(val[k]*in[col[k]*L+l])
//
// the terms added in the order of k, bias[o] read as 0 when bias is nil.
//
//go:noescape
func sparseAffine8NEON(out, bias, in []float32, ptr, col []int32, val []float32)

//go:noescape
func sparseAffine16NEON(out, bias, in []float32, ptr, col []int32, val []float32)

//go:noescape
func sparseAffine32NEON(out, bias, in []float32, ptr, col []int32, val []float32)

// dotRowsNEON computes, for k < len(offs), dst[k] = Σ_c a[c]*m[offs[k]+c]
// in 8 interleaved partial sums combined as
// ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)); len(a) is a multiple of 8.
//
//go:noescape
func dotRowsNEON(dst, a, m []float32, offs []int32)
