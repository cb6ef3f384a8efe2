package kernel

import (
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"
)

// TestTierSelfCheck holds every assembly tier this CPU runs to the generic
// kernels on small inputs with guard zones; the differential tests (run on
// forEachTier) then cover each tier in depth.
func TestTierSelfCheck(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		if err := tierSelfCheck(im); err != nil {
			t.Errorf("%v", err)
		}
	})
}

// TestSelfCheckHarness tests the self-check itself on any machine: it
// passes the generic kernels and catches broken ones (wrong numbers, stray
// writes, a stream not advanced, a missed NaN, a panic).
func TestSelfCheckHarness(t *testing.T) {
	good := func() *impl {
		c := *generic
		c.name = "test"
		c.softmaxSampleBlocks = softmaxBlocksRef(softmaxBlockGroupMax, true)
		c.softmaxBlocks = softmaxBlocksNoDraws(softmaxBlocksRef(softmaxBlockGroupMax, false))
		return &c
	}

	if err := tierSelfCheck(good()); err != nil {
		t.Fatalf("self-check of the generic kernels: %v", err)
	}

	broken := map[string]func(*impl){
		"sigmoid off by 2e-6": func(k *impl) {
			k.sigmoid = func(dst, src []float32) {
				sigmoidGeneric(dst, src)
				for i := range dst {
					dst[i] *= 1 + 2e-6
				}
			}
		},
		"softplus wrong at -Inf": func(k *impl) {
			k.softplus = func(dst, src []float32) {
				softplusGeneric(dst, src)
				for i, x := range src {
					if math.IsInf(float64(x), -1) {
						dst[i] = float32(math.NaN())
					}
				}
			}
		},
		// idx[count:len(s)] is scratch; one past len(s) is the caller's.
		// The self-check's idx sits between guard zones, so this write
		// lands in the guard zone after it.
		"indices writes past the end": func(k *impl) {
			k.indices = func(idx []int32, s []float32) int {
				n := indicesGeneric(idx, s)
				unsafe.Slice(&idx[0], len(idx)+1)[len(idx)] = 99
				return n
			}
		},
		"bernoulli skips the last block": func(k *impl) {
			k.bernoulli = func(dst, p []float32, s *Stream) {
				full := len(p) / Lanes * Lanes
				bernoulliGeneric(dst[:full], p[:full], s)
				clear(dst[full:len(p)])
			}
		},
		"sigmoidBernoulli writes state past the end": func(k *impl) {
			k.sigmoidBernoulli = func(prob, state, pre []float32, s *Stream) {
				sigmoidBernoulliGeneric(prob, state, pre, s)
				// A stray write such as assembly could make: past the
				// slice (into the self-check's guard zone).
				unsafe.Slice(&state[0], len(pre)+1)[len(pre)] = 1
			}
		},
		"softmaxSample takes a draw too many": func(k *impl) {
			k.softmaxSample = func(prob, state, pre []float32, groups []int32, s *Stream) {
				softmaxSampleGeneric(prob, state, pre, groups, s)
				var blk [Lanes]uint32
				s.next(&blk)
			}
		},
		"softmaxSampleBlocks takes a group above its limit": func(k *impl) {
			k.softmaxSampleBlocks = softmaxBlocksRef(maxGroup, true)
		},
		"softmaxBlocks claims the groups it leaves": func(k *impl) {
			ref := softmaxBlocksRef(softmaxBlockGroupMax, false)
			k.softmaxBlocks = func(prob, pre []float32, groups []int32) int {
				ref(prob, nil, pre, groups, nil)
				return len(groups) - 1
			}
		},
		"softmaxExp one ulp high": func(k *impl) {
			k.softmaxExp = func(dst, src []float32) {
				softmaxExpGeneric(dst, src)
				for i, e := range dst {
					dst[i] = math.Nextafter32(e, 2)
				}
			}
		},
		"sumRows ignores the last row": func(k *impl) {
			k.sumRows = func(out, m []float32, stride int, idx []int32, n int) {
				sumRowsGeneric(out, m, stride, idx[:len(idx)-1], n)
			}
		},
		"sumRowsBlocked skips the last chain": func(k *impl) {
			k.sumRowsBlocked = func(m []float32, ldm, nc, nin, nout int, a, b rowSums) {
				sumRowsBlockedGeneric(m, ldm, nc-1, nin, nout, a, b)
			}
		},
		"axpy with the wrong sign": func(k *impl) {
			k.axpy = func(y []float32, a float32, x []float32) { axpyGeneric(y, -a, x) }
		},
		"updateNCG misses NaN": func(k *impl) {
			k.updateNCG = func(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32 {
				updateNCGGeneric(w, ap, a, c, g, alpha, alphaA, gamma)
				return 0
			}
		},
		"updateMasked leaves g": func(k *impl) {
			k.updateMasked = func(w, a, c, g []float32, alpha float32) float32 {
				keep := selfCheckClone(g)
				r := updateMaskedGeneric(w, a, c, g, alpha)
				copy(g, keep)
				return r
			}
		},
		"updateDense ignores c": func(k *impl) {
			k.updateDense = func(w, c, g []float32, alpha float32) float32 {
				return updateDenseGeneric(w, nil, g, alpha)
			}
		},
		"affine ignores the bias": func(k *impl) {
			k.affine = func(out, bias, in, m []float32, nc, nin, nout int) {
				affineGeneric(out, nil, in, m, nc, nin, nout)
			}
		},
		"affine panics": func(k *impl) {
			k.affine = func(out, bias, in, m []float32, nc, nin, nout int) {
				_ = out[len(out)]
			}
		},
		"transpose is a copy": func(k *impl) {
			k.transpose = func(dst, src []float32, rows, cols, ldd, lds int) { copy(dst, src) }
		},
	}
	for name, breakIt := range broken {
		k := good()
		breakIt(k)
		err := tierSelfCheck(k)
		if err == nil {
			t.Errorf("%s: self-check passed", name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "test self-check: ") {
			t.Errorf("%s: error %q lacks the tier name", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}

// tierSelfCheck runs every kernel of tier t on small fixed inputs (lengths
// that exercise full vectors and masked tails) and compares it with the
// generic kernel at the tolerances of the package docs. A memory fault
// inside a kernel is turned into an error (debug.SetPanicOnFault), and
// every output slice sits between guard zones that must stay untouched.
// TestTierSelfCheck runs it on every tier this CPU has; it takes the tier
// as an argument so that TestSelfCheckHarness can show on any machine that
// it catches broken kernels.

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
		sc.gaussian(t, n)
		sc.softmax(t, n)
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

// elementwiseKernels is the table of the element-wise kernels, dst[i] =
// f(src[i]) with dst allowed to be src: the tier's kernel, the scalar
// definition it is held to and the tolerance around it. Both the
// differential test (TestElementwise, every length up to 1,025 between
// guards) and the tier self-check (special values, guard zones, in place)
// read it; a new element-wise kernel is one more line here.
var elementwiseKernels = []struct {
	name   string
	kernel func(*impl) func(dst, src []float32)
	ref    func(x float32) float32
	tol    func(want float32) float32
}{
	{"sigmoid", func(k *impl) func(dst, src []float32) { return k.sigmoid }, sigmoidRef, selfCheckSigmoidTol},
	{"softplus", func(k *impl) func(dst, src []float32) { return k.softplus }, softplusRef, selfCheckSoftplusTol},
}

// selfCheckSpecials are inputs every element-wise kernel must get right.
var selfCheckSpecials = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 17, -17, 87.5, -87.5, 88, -88, 88.5, -88.5,
	1e6, -1e6, float32(math.Inf(1)), float32(math.Inf(-1)), 1e-30, -3.4e38}

func (sc *tierChecker) elementwise(t *impl, n int) {
	src := sc.fill(make([]float32, n), -30, 30)
	for i := 0; i < n; i += 3 {
		src[i] = selfCheckSpecials[(i/3)%len(selfCheckSpecials)]
	}
	want := make([]float32, n)

	for _, ek := range elementwiseKernels {
		f := ek.kernel(t)
		for i, x := range src {
			want[i] = ek.ref(x)
		}
		got, check := sc.guarded(n)
		f(got, src)
		check(ek.name)
		sc.compare(ek.name, n, got, want, ek.tol)
		inPlace := append([]float32(nil), src...)
		f(inPlace, inPlace)
		sc.compare(ek.name+" in place", n, inPlace, want, ek.tol)
	}

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

// gaussian checks GaussianSample's kernel against the generic one, bit for
// bit, with σ = 0 and 1 among the standard deviations.
func (sc *tierChecker) gaussian(t *impl, n int) {
	mean := sc.fill(make([]float32, n), -4, 4)
	sigma := sc.fill(make([]float32, n), 0, 3)
	sigma[0] = 0
	if n > 1 {
		sigma[n-1] = 1
	}
	s1 := NewStream(uint64(n), 3)
	s2 := s1
	want := make([]float32, n)
	gaussianGeneric(want, mean, sigma, &s1)
	got, check := sc.guarded(n)
	t.gaussian(got, mean, sigma, &s2)
	check("gaussian")
	if s1 != s2 {
		sc.fail("gaussian n=%d: stream state differs", n)
		return
	}
	sc.compare("gaussian", n, got, want, selfCheckExact)
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

	// axpy.
	v := sc.fill(make([]float32, n), 0, 1)

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
	defer forceBlockRows(4)()
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
	sumRowsBlockedGeneric(m, ldm, nc, nin, n, rowSums{want, idx, counts}, rowSums{})
	t.sumRowsBlocked(m, ldm, nc, nin, n, rowSums{out, idx, counts}, rowSums{})
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
