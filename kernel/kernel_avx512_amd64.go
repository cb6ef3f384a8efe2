//go:build !purego && !noasm && gc

package kernel

import (
	"fmt"
	"math"
	"runtime/debug"
)

// avx512Kernels is the AVX-512 tier (kernel_avx512_amd64.s). kernel_amd64.go
// registers it only on CPUs with AVX512F+DQ+BW+VL and only if
// selfCheckAVX512 passes.
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
	addRows:          addRowsAVX512,
	axpy:             axpyAVX512,
	updateNCG:        updateNCGAVX512,
	updateMasked:     updateMaskedAVX512,
	updateDense:      updateDenseAVX512,
	// The AVX2 transpose (8×8 blocks of shuffles): a gather per 16 rows of
	// a source column runs at under a third of its speed on the engine's
	// bands of 16 rows of C. The tier's CPUs all have AVX2 (checked at
	// registration).
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

// addRowsAVX512 adds a·v to each named row with one axpy call per row.
func addRowsAVX512(g []float32, n int, idx []int32, a float32, v []float32) {
	if n <= 0 {
		return
	}
	_ = v[n-1]
	for _, j := range idx {
		avx512Axpy(&g[int(j)*n : int(j)*n+n][0], a, &v[0], n)
	}
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
	tile, rows := min(BinaryTile, blockTile), blockRows(nin)
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

// selfCheckAVX512 runs every AVX-512 kernel on small fixed inputs (lengths
// that exercise full vectors and masked tails) and compares it with the
// generic kernel at the tolerances of the tests; the tier is registered
// only when this passes, so a CPU or emulator that runs the instructions
// differently falls back to AVX2. It runs in microseconds; a memory fault inside a kernel is
// turned into an error (debug.SetPanicOnFault), and every output slice
// sits between guard zones that must stay untouched.
func selfCheckAVX512() error { return tierSelfCheck(avx512Kernels) }

// tierSelfCheck checks tier t against the generic kernels (see selfCheckAVX512).
// It takes the tier as an argument so that the check itself can be tested
// on any machine.
func tierSelfCheck(t *impl) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s self-check: panic: %v", t.name, r)
		}
	}()
	sc := &tierChecker{name: t.name, seed: 0x9e3779b9}
	for _, n := range []int{1, 15, 16, 17, 33, 100} {
		sc.elementwise(t, n)
		sc.sampling(t, n)
		sc.rows(t, n)
		sc.updates(t, n)
		if sc.err != nil {
			return sc.err
		}
	}
	if sc.affine(t); sc.err != nil {
		return sc.err
	}
	sc.transpose(t)
	return sc.err
}

// tierChecker holds the state of one self-check: a deterministic generator
// and the first failure.
type tierChecker struct {
	name string
	seed uint32
	err  error
}

// selfCheckGuard is the value of the guard zones around outputs.
const selfCheckGuard = float32(-12345.5)

// selfCheckPad is how many guard floats sit on each side of an output: more
// than one vector, so that a stray full-vector write lands in the guard.
const selfCheckPad = 32

func (sc *tierChecker) fail(format string, args ...any) {
	if sc.err == nil {
		sc.err = fmt.Errorf("%s self-check: "+format, append([]any{sc.name}, args...)...)
	}
}

// rnd returns a uniform float32 in [0, 1) (xorshift32).
func (sc *tierChecker) rnd() float32 {
	x := sc.seed
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	sc.seed = x
	return float32(x>>8) / (1 << 24)
}

func (sc *tierChecker) fill(s []float32, lo, hi float32) []float32 {
	for i := range s {
		s[i] = lo + (hi-lo)*sc.rnd()
	}
	return s
}

// guarded returns a slice of length n inside a buffer whose guard zones the
// returned check function verifies.
func (sc *tierChecker) guarded(n int) ([]float32, func(what string)) {
	buf := make([]float32, n+2*selfCheckPad)
	for i := range buf {
		buf[i] = selfCheckGuard
	}
	s := buf[selfCheckPad : selfCheckPad+n : selfCheckPad+n]
	return s, func(what string) {
		for i, v := range buf {
			if (i < selfCheckPad || i >= selfCheckPad+n) && v != selfCheckGuard {
				sc.fail("%s n=%d: wrote outside the slice at %d", what, n, i-selfCheckPad)
				return
			}
		}
	}
}

// within reports whether got is want to within tol (NaN matches NaN, an
// infinity only itself).
func selfCheckWithin(got, want, tol float32) bool {
	if want != want {
		return got != got
	}
	if math.IsInf(float64(want), 0) {
		return got == want
	}
	return float32(math.Abs(float64(got-want))) <= tol
}

func (sc *tierChecker) compare(what string, n int, got, want []float32, tol func(want float32) float32) {
	for i := range want {
		if !selfCheckWithin(got[i], want[i], tol(want[i])) {
			sc.fail("%s n=%d: [%d] = %g, want %g", what, n, i, got[i], want[i])
			return
		}
	}
}

func selfCheckExact(float32) float32 { return 0 }

func selfCheckSigmoidTol(want float32) float32 { return 1e-6*want + 3e-45 }

func selfCheckSoftplusTol(want float32) float32 { return 1e-6 * max(1, want) }

// selfCheckSpecials are inputs every element-wise kernel must get right.
var selfCheckSpecials = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 17, -17, 87.5, -87.5, 88, -88, 88.5, -88.5,
	1e6, -1e6, float32(math.Inf(1)), float32(math.Inf(-1)), 1e-30, -3.4e38}

func (sc *tierChecker) elementwise(t *impl, n int) {
	src := sc.fill(make([]float32, n), -30, 30)
	for i := 0; i < n; i += 3 {
		src[i] = selfCheckSpecials[(i/3)%len(selfCheckSpecials)]
	}
	want := make([]float32, n)

	got, check := sc.guarded(n)
	t.sigmoid(got, src)
	check("sigmoid")
	sigmoidGeneric(want, src)
	sc.compare("sigmoid", n, got, want, selfCheckSigmoidTol)
	inPlace := append([]float32(nil), src...)
	t.sigmoid(inPlace, inPlace)
	sc.compare("sigmoid in place", n, inPlace, want, selfCheckSigmoidTol)

	t.softplus(got, src)
	check("softplus")
	softplusGeneric(want, src)
	sc.compare("softplus", n, got, want, selfCheckSoftplusTol)

	// indices, at three densities.
	for _, p := range []float32{0.1, 0.5, 1} {
		s := make([]float32, n)
		for i := range s {
			s[i] = b2f(sc.rnd() < p)
		}
		wantIdx := make([]int32, n)
		k := indicesGeneric(wantIdx, s)
		buf := make([]int32, n+2*selfCheckPad)
		for i := range buf {
			buf[i] = -7
		}
		gotIdx := buf[selfCheckPad : selfCheckPad+n : selfCheckPad+n]
		if g := t.indices(gotIdx, s); g != k {
			sc.fail("indices n=%d p=%g: count %d, want %d", n, p, g, k)
			return
		}
		for i := 0; i < k; i++ {
			if gotIdx[i] != wantIdx[i] {
				sc.fail("indices n=%d p=%g: idx[%d] = %d, want %d", n, p, i, gotIdx[i], wantIdx[i])
				return
			}
		}
		for i, v := range buf {
			if (i < selfCheckPad || i >= selfCheckPad+n) && v != -7 {
				sc.fail("indices n=%d p=%g: wrote at %d (count %d, len %d)", n, p, i-selfCheckPad, k, n)
				return
			}
		}
		// changes: s against a state with about a quarter of it flipped.
		ref := make([]float32, n)
		for i := range ref {
			ref[i] = s[i]
			if sc.rnd() < 0.25 {
				ref[i] = 1 - s[i]
			}
		}
		wantRef := append([]float32(nil), ref...)
		var want, got [3][]int32
		for l := range want {
			want[l] = make([]int32, n)
			got[l] = make([]int32, n+selfCheckPad)
			for i := range got[l] {
				got[l][i] = -7
			}
		}
		wo, wn, wf := changesGeneric(want[0], want[1], want[2], wantRef, s)
		o, on, off := t.changes(got[0][:n], got[1][:n], got[2][:n], ref, s)
		if o != wo || on != wn || off != wf {
			sc.fail("changes n=%d p=%g: counts %d %d %d, want %d %d %d", n, p, o, on, off, wo, wn, wf)
			return
		}
		for l, c := range []int{wo, wn, wf} {
			for i, v := range got[l] {
				if (i < c && v != want[l][i]) || (i >= c && i >= n && v != -7) {
					sc.fail("changes n=%d p=%g: list %d wrong at %d", n, p, l, i)
					return
				}
			}
		}
		for i := range ref {
			if ref[i] != s[i] {
				sc.fail("changes n=%d p=%g: ref[%d] not set to s", n, p, i)
				return
			}
		}
	}
}

func (sc *tierChecker) sampling(t *impl, n int) {
	p := sc.fill(make([]float32, n), 0, 1)
	p[0] = 1
	if n > 1 {
		p[n-1] = 0
	}
	s1 := NewStream(uint64(n), 1)
	s2 := s1
	want := make([]float32, n)
	bernoulliGeneric(want, p, &s1)
	got, check := sc.guarded(n)
	t.bernoulli(got, p, &s2)
	check("bernoulli")
	if s1 != s2 {
		sc.fail("bernoulli n=%d: stream state differs", n)
		return
	}
	sc.compare("bernoulli", n, got, want, selfCheckExact)

	pre := sc.fill(make([]float32, n), -8, 8)
	pre[0] = -100
	s1 = NewStream(uint64(n), 2)
	s2, s3 := s1, s1
	u := make([]float32, n)
	s3.Uniforms(u)
	wantP, wantS := make([]float32, n), make([]float32, n)
	sigmoidBernoulliGeneric(wantP, wantS, pre, &s1)
	gotP, checkP := sc.guarded(n)
	gotS, checkS := sc.guarded(n)
	t.sigmoidBernoulli(gotP, gotS, pre, &s2)
	checkP("sigmoidBernoulli prob")
	checkS("sigmoidBernoulli state")
	if s1 != s2 {
		sc.fail("sigmoidBernoulli n=%d: stream state differs", n)
		return
	}
	sc.compare("sigmoidBernoulli prob", n, gotP, wantP, selfCheckSigmoidTol)
	for i := range wantS {
		if math.Abs(float64(u[i]-wantP[i])) > 1e-6 && gotS[i] != wantS[i] {
			sc.fail("sigmoidBernoulli n=%d: state[%d] = %g, want %g", n, i, gotS[i], wantS[i])
			return
		}
	}
}

func (sc *tierChecker) rows(t *impl, n int) {
	// sumRows over 5 rows of stride n+3, with a repeated row.
	const nrows = 5
	stride := n + 3
	m := sc.fill(make([]float32, nrows*stride), -1, 1)
	idx := []int32{0, 3, 3, 4, 1}
	out, check := sc.guarded(n)
	sc.fill(out, -1, 1)
	want := append([]float32(nil), out...)
	sumRowsGeneric(want, m, stride, idx, n)
	t.sumRows(out, m, stride, idx, n)
	check("sumRows")
	sc.compare("sumRows", n, out, want, func(float32) float32 { return 1e-5 * (nrows + 1) })
	sc.blocked(t, n)

	// addRows into a guarded nrows×n matrix, and axpy.
	g, checkG := sc.guarded(nrows * n)
	sc.fill(g, -1, 1)
	wantG := append([]float32(nil), g...)
	v := sc.fill(make([]float32, n), 0, 1)
	addRowsGeneric(wantG, n, idx, -0.75, v)
	t.addRows(g, n, idx, -0.75, v)
	checkG("addRows")
	sc.compare("addRows", n, g, wantG, func(float32) float32 { return 1e-5 * (nrows + 1) })

	y, checkY := sc.guarded(n)
	sc.fill(y, -1, 1)
	wantY := append([]float32(nil), y...)
	axpyGeneric(wantY, 1.25, v)
	t.axpy(y, 1.25, v)
	checkY("axpy")
	sc.compare("axpy", n, y, wantY, func(float32) float32 { return 1e-6 })
}

// blocked checks the blocked row sums (if the tier has them) on 3 chains
// of 9 inputs at about half density, in row blocks of 4, with n columns,
// rows n+5 floats apart. The sums add the same
// rows in the same order as the generic code, so they must match exactly.
func (sc *tierChecker) blocked(t *impl, n int) {
	if t.sumRowsBlocked == nil {
		return
	}
	const nc, nin = 3, 9
	defer func(r int) { BinaryBlockRows = r }(BinaryBlockRows)
	BinaryBlockRows = 4
	ldm := n + 5
	m := sc.fill(make([]float32, nin*ldm), -1, 1)
	idx, counts := make([]int32, nc*nin), make([]int32, nc)
	for c := 0; c < nc; c++ {
		for j := 0; j < nin; j++ {
			if sc.rnd() < 0.5 || j == c {
				idx[c*nin+int(counts[c])] = int32(j)
				counts[c]++
			}
		}
	}
	out, check := sc.guarded(nc * n)
	sc.fill(out, -1, 1)
	want := append([]float32(nil), out...)
	sumRowsBlockedGeneric(want, m, ldm, nc, nin, n, idx, counts)
	t.sumRowsBlocked(out, m, ldm, nc, nin, n, idx, counts)
	check("sumRowsBlocked")
	sc.compare("sumRowsBlocked", n, out, want, selfCheckExact)
}

func (sc *tierChecker) updates(t *impl, n int) {
	const gamma, alpha, alphaA = 0.5, 0.002, 0.01
	tol := func(float32) float32 { return 1e-6 }
	type buf struct {
		s     []float32
		check func(string)
	}
	mk := func(lo, hi float32) buf {
		s, check := sc.guarded(n)
		sc.fill(s, lo, hi)
		return buf{s, check}
	}
	w, ap, a, c, g := mk(-1, 1), mk(-0.2, 1.2), mk(0, 1), mk(0, 0), mk(-3, 3)
	for i := range a.s {
		a.s[i] = b2f(a.s[i] < 0.5)
		if math.Abs(float64(ap.s[i]-gamma)) < 0.05 { // keep the threshold clear of rounding
			ap.s[i] = gamma + 0.1
		}
	}
	ww, wap, wa, wc, wg := selfCheckClone(w.s), selfCheckClone(ap.s), selfCheckClone(a.s), selfCheckClone(c.s), selfCheckClone(g.s)
	updateNCGGeneric(ww, wap, wa, wc, wg, alpha, alphaA, gamma)
	if r := t.updateNCG(w.s, ap.s, a.s, c.s, g.s, alpha, alphaA, gamma); r != 0 {
		sc.fail("updateNCG n=%d: reports non-finite weights (%g)", n, r)
	}
	for _, b := range []buf{w, ap, a, c, g} {
		b.check("updateNCG")
	}
	sc.compare("updateNCG w", n, w.s, ww, tol)
	sc.compare("updateNCG ap", n, ap.s, wap, tol)
	sc.compare("updateNCG a", n, a.s, wa, selfCheckExact)
	sc.compare("updateNCG c", n, c.s, wc, tol)
	sc.compare("updateNCG g", n, g.s, wg, selfCheckExact)

	sc.fill(g.s, -3, 3)
	wg = selfCheckClone(g.s)
	if t.updateMasked(w.s, a.s, c.s, g.s, alpha) != 0 {
		sc.fail("updateMasked n=%d: reports non-finite weights", n)
	}
	updateMaskedGeneric(ww, wa, wc, wg, alpha)
	for _, b := range []buf{w, a, c, g} {
		b.check("updateMasked")
	}
	sc.compare("updateMasked w", n, w.s, ww, tol)
	sc.compare("updateMasked c", n, c.s, wc, tol)
	sc.compare("updateMasked g", n, g.s, wg, selfCheckExact)

	sc.fill(g.s, -3, 3)
	wg = selfCheckClone(g.s)
	if t.updateDense(w.s, c.s, g.s, alpha) != 0 {
		sc.fail("updateDense n=%d: reports non-finite weights", n)
	}
	updateDenseGeneric(ww, wc, wg, alpha)
	sc.compare("updateDense w", n, w.s, ww, tol)
	sc.compare("updateDense c", n, c.s, wc, tol)
	sc.compare("updateDense g", n, g.s, wg, selfCheckExact)
	sc.fill(g.s, -3, 3)
	wg = selfCheckClone(g.s)
	if t.updateDense(w.s, nil, g.s, alpha) != 0 {
		sc.fail("updateDense(c=nil) n=%d: reports non-finite weights", n)
	}
	updateDenseGeneric(ww, nil, wg, alpha)
	sc.compare("updateDense(c=nil) w", n, w.s, ww, tol)
	for _, b := range []buf{w, c, g} {
		b.check("updateDense")
	}

	// A non-finite gradient in the last element (the masked tail) must be
	// reported by every update.
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
		g.s[n-1] = bad
		if t.updateNCG(w.s, ap.s, a.s, c.s, g.s, alpha, alphaA, gamma) == 0 {
			sc.fail("updateNCG n=%d: %g not reported", n, bad)
		}
		w.s[n-1], g.s[n-1] = 0, bad
		a.s[n-1] = 1
		if t.updateMasked(w.s, a.s, c.s, g.s, alpha) == 0 {
			sc.fail("updateMasked n=%d: %g not reported", n, bad)
		}
		w.s[n-1], g.s[n-1] = 0, bad
		if t.updateDense(w.s, c.s, g.s, alpha) == 0 {
			sc.fail("updateDense n=%d: %g not reported", n, bad)
		}
		w.s[n-1], g.s[n-1] = 0, 0
	}
}

func selfCheckClone(s []float32) []float32 { return append([]float32(nil), s...) }

func (sc *tierChecker) affine(t *impl) {
	// 7 chains are a full group of 6 plus a group of 1; 100 outputs are a
	// full tile of 64 plus one with a partial third vector.
	for _, nc := range []int{1, 7} {
		for _, nin := range []int{0, 3} {
			for _, nout := range []int{1, 17, 100} {
				in := sc.fill(make([]float32, nc*nin), 0, 1)
				for i := range in {
					if i%3 == 0 {
						in[i] = 0
					}
				}
				m := sc.fill(make([]float32, nin*nout), -1, 1)
				bias := sc.fill(make([]float32, nout), -1, 1)
				want := make([]float32, nc*nout)
				for _, b := range [][]float32{bias, nil} {
					affineGeneric(want, b, in, m, nc, nin, nout)
					got, check := sc.guarded(nc * nout)
					t.affine(got, b, in, m, nc, nin, nout)
					check("affine")
					sc.compare("affine", nc*nout, got, want, func(float32) float32 { return 1e-5 * float32(nin+1) })
					if sc.err != nil {
						sc.err = fmt.Errorf("%w (nc=%d nin=%d nout=%d bias=%v)", sc.err, nc, nin, nout, b != nil)
						return
					}
				}
			}
		}
	}
}

func (sc *tierChecker) transpose(t *impl) {
	for _, shape := range [][2]int{{1, 16}, {17, 1}, {33, 17}} {
		rows, cols := shape[0], shape[1]
		src := sc.fill(make([]float32, rows*cols), -1, 1)
		want := make([]float32, rows*cols)
		transposeGeneric(want, src, rows, cols, rows, cols)
		got, check := sc.guarded(rows * cols)
		t.transpose(got, src, rows, cols, rows, cols)
		check("transpose")
		sc.compare("transpose", rows*cols, got, want, selfCheckExact)
		if sc.err != nil {
			sc.err = fmt.Errorf("%w (%d×%d)", sc.err, rows, cols)
			return
		}
	}
}

// avx512SumRowsBlock: for c < nc: for the indices j = idx[c*ldi+k],
// cursors[c] ≤ k < counts[c], while j < r1: out[c*ldo+o] += m[j*ldm+o] for
// o < n (n ≤ 128); cursors[c] = the first k not taken.
//
//go:noescape
func avx512SumRowsBlock(out *float32, ldo int, m *float32, ldm int, idx *int32, ldi int, counts, cursors *int32, r1, nc, n int)
