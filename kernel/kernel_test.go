package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Differential tests: every tier this CPU supports against the generic
// reference, at many lengths (0 to beyond four times the widest unroll),
// slice offsets 0–3, with guard values around every output.

func TestMain(m *testing.M) {
	if err := Init(); err != nil {
		fmt.Println(err) // TestEnvVarChoice reads this line
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "kernel: tier %s, available %v\n", Tier(), Tiers())
	os.Exit(m.Run())
}

// optionalKernel names the impl fields a tier may leave nil: the NEON tier
// has no blocked row sums and runs the binary-state product with its own
// sumRows, chain by chain (the same sums in the same order), and no gather
// instruction for GatherSum (its generic loop is what assembly would do).
var optionalKernel = map[string]bool{"sumRowsBlocked": true, "gatherSum": true}

// tierSet is the tiers a test runs on.
type tierSet int

const (
	// asmOnly: the assembly tiers this CPU and build run; the test skips
	// where there are none (the generic code is then the only tier).
	asmOnly tierSet = iota
	// withGeneric: the assembly tiers, then generic.
	withGeneric
)

// forEachTier is the harness of the tier tests: it runs f on every tier of
// set that this CPU and build run, whatever NCG_KERNEL says, with that
// tier in use, so f may call the tier's kernels directly (im.affine) or
// through the exported functions, which dispatch to the tier in use. The
// tests hold each tier to the generic functions (affineGeneric, …), which
// no tier setting changes. The tier in use before is restored after each
// call of f, also when f fails the test.
func forEachTier(t testing.TB, set tierSet, f func(im *impl)) {
	var ts []*impl
	for _, im := range available {
		if im != generic {
			ts = append(ts, im)
		}
	}
	if len(ts) == 0 && set == asmOnly {
		t.Skip("no assembly tier on this CPU/build: the generic code is the only tier")
	}
	if set == withGeneric {
		ts = append(ts, generic)
	}
	for _, im := range ts {
		func() {
			prev := cur
			cur = im
			defer func() { cur = prev }()
			f(im)
		}()
	}
}

// lengths covers every tail up to and beyond four times the widest unroll
// (64 floats = 4 ZMM registers).
func lengths() []int {
	var ls []int
	for n := 0; n <= 300; n++ {
		ls = append(ls, n)
	}
	return append(ls, 500, 511, 512, 513, 784, 1023, 1025)
}

const guard = float32(-12345.5)

// padded returns a slice of length n at offset off inside a guarded buffer,
// and a check function that fails if anything outside was written.
func padded(t testing.TB, r *rand.Rand, n, off int, fill func(*rand.Rand) float32) ([]float32, func(string)) {
	buf := make([]float32, n+off+8)
	for i := range buf {
		buf[i] = guard
	}
	s := buf[off : off+n : off+n]
	for i := range s {
		s[i] = fill(r)
	}
	return s, func(what string) {
		t.Helper()
		for i := 0; i < off; i++ {
			if buf[i] != guard {
				t.Fatalf("%s: wrote before the slice at offset %d", what, i-off)
			}
		}
		for i := off + n; i < len(buf); i++ {
			if buf[i] != guard {
				t.Fatalf("%s: wrote past the end at %d (len %d)", what, i-off, n)
			}
		}
	}
}

func uni(lo, hi float32) func(*rand.Rand) float32 {
	return func(r *rand.Rand) float32 { return lo + (hi-lo)*r.Float32() }
}

func bits01(p float64) func(*rand.Rand) float32 {
	return func(r *rand.Rand) float32 { return b2f(r.Float64() < p) }
}

func near(got, want, tol float32) bool {
	if math.IsNaN(float64(want)) {
		return math.IsNaN(float64(got))
	}
	if math.IsInf(float64(want), 0) {
		return got == want
	}
	return float32(math.Abs(float64(got-want))) <= tol
}

func TestAffine(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, nc := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16} {
			for _, nout := range []int{1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 65, 100, 129} {
				for _, nin := range []int{0, 1, 2, 5, 13} {
					off := (nc + nout + nin) % 4
					in, _ := padded(t, r, nc*nin, off, bits01(0.5))
					for i := range in {
						if r.IntN(3) == 0 {
							in[i] = r.Float32()
						}
					}
					m, _ := padded(t, r, nin*nout, off, uni(-1, 1))
					bias, _ := padded(t, r, nout, off, uni(-1, 1))
					want := make([]float32, nc*nout)
					affineGeneric(want, bias, in, m, nc, nin, nout)
					for _, b := range [][]float32{bias, nil} {
						if b == nil {
							affineGeneric(want, nil, in, m, nc, nin, nout)
						}
						got, check := padded(t, r, nc*nout, off, uni(-9, 9))
						im.affine(got, b, in, m, nc, nin, nout)
						check(im.name + " affine")
						for i := range want {
							if !near(got[i], want[i], 1e-5*float32(nin+1)) {
								t.Fatalf("%s affine nc=%d nin=%d nout=%d bias=%v: out[%d] = %g, want %g", im.name, nc, nin, nout, b != nil, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	})
}

func TestSumRows(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, n := range lengths() {
			off := n % 4
			stride := n + r.IntN(5)
			rows := 1 + r.IntN(40)
			m, _ := padded(t, r, rows*stride, 0, uni(-1, 1))
			idx := make([]int32, r.IntN(rows+1))
			for i := range idx {
				idx[i] = int32(r.IntN(rows))
			}
			if n > 0 && rows*stride < (rows-1)*stride+n {
				continue
			}
			checkSumRows(t, r, im, m, stride, idx, n, off)
		}
	})
}

// checkSumRows adds the rows idx of m (n columns, stride apart) to a
// non-zero output at offset off in a guarded buffer, with the reference
// and with a tier, and compares the two.
func checkSumRows(t testing.TB, r *rand.Rand, im *impl, m []float32, stride int, idx []int32, n, off int) {
	t.Helper()
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(i%7) - 3
	}
	got, check := padded(t, r, n, off, uni(0, 0))
	copy(got, want)
	sumRowsGeneric(want, m, stride, idx, n)
	im.sumRows(got, m, stride, idx, n)
	check(im.name + " sumRows")
	for i := range want {
		if !near(got[i], want[i], 1e-5*float32(len(idx)+1)) {
			t.Fatalf("%s sumRows n=%d stride=%d rows=%v: out[%d] = %g, want %g", im.name, n, stride, idx, i, got[i], want[i])
		}
	}
}

// TestChanges: the lists and counts of every tier equal the reference's,
// ref ends equal to s, and nothing is written outside the slices.
func TestChanges(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(25, 26))
		for _, n := range lengths() {
			for _, p := range []float64{0, 0.13, 0.5, 1} {
				for _, pflip := range []float64{0, 0.1, 0.5, 1} {
					s, checkS := padded(t, r, n, n%4, bits01(p))
					ref, checkRef := padded(t, r, n, (n+1)%4, bits01(0))
					for i := range ref {
						ref[i] = s[i]
						if r.Float64() < pflip {
							ref[i] = 1 - s[i]
						}
					}
					wantRef := append([]float32(nil), ref...)
					var want [3][]int32
					for k := range want {
						want[k] = make([]int32, n)
					}
					wo, wn, wf := changesGeneric(want[0], want[1], want[2], wantRef, s)
					var got [3][]int32
					for k := range got {
						got[k] = make([]int32, n+4)
						for i := range got[k] {
							got[k][i] = -7
						}
					}
					o, on, off := im.changes(got[0][:n], got[1][:n], got[2][:n], ref, s)
					checkChanges(t, fmt.Sprintf("%s changes n=%d p=%g flip=%g", im.name, n, p, pflip), got, want, [3]int{o, on, off}, [3]int{wo, wn, wf}, ref, s)
					checkS(im.name + " changes s")
					checkRef(im.name + " changes ref")
				}
			}
		}
	})
}

// checkChanges compares a tier's Changes (lists got, of length n+4 filled
// with −7 beyond n, and counts) with the reference's, and checks that ref
// has become s.
func checkChanges(t testing.TB, what string, got, want [3][]int32, counts, wantCounts [3]int, ref, s []float32) {
	t.Helper()
	if counts != wantCounts {
		t.Fatalf("%s: counts %v, want %v", what, counts, wantCounts)
	}
	n := len(s)
	for k, c := range wantCounts {
		for i := 0; i < c; i++ {
			if got[k][i] != want[k][i] {
				t.Fatalf("%s: list %d [%d] = %d, want %d", what, k, i, got[k][i], want[k][i])
			}
		}
		for i := n; i < len(got[k]); i++ {
			if got[k][i] != -7 {
				t.Fatalf("%s: list %d written past its end", what, k)
			}
		}
	}
	for i := range ref {
		if ref[i] != s[i] {
			t.Fatalf("%s: ref[%d] = %g, want s = %g", what, i, ref[i], s[i])
		}
	}
}

func TestIndices(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, n := range lengths() {
			for _, p := range []float64{0, 0.13, 0.5, 1} {
				s, _ := padded(t, r, n, n%4, bits01(p))
				want := make([]int32, n)
				got := make([]int32, n+4)
				for i := range got {
					got[i] = -7
				}
				k := indicesGeneric(want, s)
				if g := im.indices(got[:n], s); g != k {
					t.Fatalf("%s indices n=%d p=%g: count %d, want %d", im.name, n, p, g, k)
				}
				for i := 0; i < k; i++ {
					if got[i] != want[i] {
						t.Fatalf("%s indices n=%d: idx[%d] = %d, want %d", im.name, n, i, got[i], want[i])
					}
				}
				for i := n; i < len(got); i++ {
					if got[i] != -7 {
						t.Fatalf("%s indices n=%d: wrote past the end", im.name, n)
					}
				}
			}
		}
	})
}

// specialInputs are the values every element-wise kernel must handle.
var specialInputs = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 17, -17, 20, -20, 80, -80, 87, -87, 87.5, -87.5, 88, -88, 88.5, -88.5, 89, -89, 100, -100, 1e6, -1e6,
	float32(math.Inf(1)), float32(math.Inf(-1)), 1e-30, -1e-30, 3.4e38, -3.4e38, float32(math.NaN())}

// TestElementwise holds every tier's element-wise kernels (the table
// elementwiseKernels) to their scalar definitions on every length, with
// special values mixed in, writing between guards and in place.
func TestElementwise(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		for _, ek := range elementwiseKernels {
			f := ek.kernel(im)
			r := rand.New(rand.NewPCG(7, 8))
			for _, n := range lengths() {
				src, _ := padded(t, r, n, n%4, uni(-30, 30))
				for i := range src {
					if r.IntN(4) == 0 {
						src[i] = specialInputs[r.IntN(len(specialInputs))]
					}
				}
				got, check := padded(t, r, n, (n+1)%4, uni(0, 0))
				f(got, src)
				check(im.name + " " + ek.name)
				for i, x := range src {
					if want := ek.ref(x); !near(got[i], want, ek.tol(want)) {
						t.Fatalf("%s %s(%g) = %g, want %g (error %g)", im.name, ek.name, x, got[i], want, got[i]-want)
					}
				}
				cp := append([]float32(nil), src...)
				f(cp, cp)
				for i, x := range src {
					if want := ek.ref(x); !near(cp[i], want, ek.tol(want)) {
						t.Fatalf("%s %s in place(%g) = %g, want %g", im.name, ek.name, x, cp[i], want)
					}
				}
			}
		}
	})
}

// TestSigmoidDense sweeps a fine grid for the worst relative error.
func TestSigmoidDense(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		var src []float32
		for x := float32(-90); x <= 30; x += 0.000731 {
			src = append(src, x)
		}
		got := make([]float32, len(src))
		im.sigmoid(got, src)
		worst := 0.0
		for i, x := range src {
			want := float64(sigmoidRef(x))
			if want < 1.2e-38 {
				if math.Abs(float64(got[i])-want) > 3e-45 {
					t.Fatalf("%s sigmoid(%g) = %g, want %g", im.name, x, got[i], want)
				}
				continue
			}
			worst = math.Max(worst, math.Abs(float64(got[i])-want)/want)
		}
		t.Logf("%s sigmoid: worst relative error %.3g over %d points", im.name, worst, len(src))
		if worst > 1e-6 {
			t.Fatalf("%s sigmoid: relative error %g > 1e-6", im.name, worst)
		}
		im.softplus(got, src)
		worst = 0
		for i, x := range src {
			want := float64(softplusRef(x))
			worst = math.Max(worst, math.Abs(float64(got[i])-want)/math.Max(1, want))
		}
		t.Logf("%s softplus: worst error %.3g", im.name, worst)
		if worst > 1e-6 {
			t.Fatalf("%s softplus: error %g > 1e-6", im.name, worst)
		}
	})
}

func TestBernoulli(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, n := range lengths() {
			p, _ := padded(t, r, n, n%4, uni(0, 1))
			for i := range p {
				switch r.IntN(8) {
				case 0:
					p[i] = 0
				case 1:
					p[i] = 1
				}
			}
			got, check := padded(t, r, n, (n+3)%4, uni(0, 0))
			checkBernoulli(t, im, p, NewStream(uint64(n), 77), got, check)
		}
	})
}

// checkBernoulli samples p with the reference and with a tier (into got,
// whose guards check checks) from stream s0 and requires the same states,
// bit for bit, and the same stream state after.
func checkBernoulli(t testing.TB, im *impl, p []float32, s0 Stream, got []float32, check func(string)) {
	t.Helper()
	s1, s2 := s0, s0
	want := make([]float32, len(p))
	bernoulliGeneric(want, p, &s1)
	im.bernoulli(got, p, &s2)
	check(im.name + " bernoulli")
	if s1 != s2 {
		t.Fatalf("%s bernoulli n=%d: stream state differs from the reference's", im.name, len(p))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s bernoulli n=%d: state[%d] = %g, want %g (p %g)", im.name, len(p), i, got[i], want[i], p[i])
		}
	}
}

func TestSigmoidBernoulli(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, n := range lengths() {
			pre, _ := padded(t, r, n, n%4, uni(-8, 8))
			for i := range pre {
				if r.IntN(6) == 0 {
					pre[i] = specialInputs[r.IntN(len(specialInputs))]
				}
			}
			wantP, gotS, _ := checkSigmoidBernoulli(t, r, im, pre, NewStream(uint64(n), 78), (n+1)%4, (n+2)%4)
			// prob aliasing pre.
			cp := append([]float32(nil), pre...)
			s4 := NewStream(uint64(n), 78)
			im.sigmoidBernoulli(cp, gotS, cp, &s4)
			for i := range cp {
				if !near(cp[i], wantP[i], 1e-6*wantP[i]+3e-45) {
					t.Fatalf("%s sigmoidBernoulli in place: prob[%d] = %g, want %g", im.name, i, cp[i], wantP[i])
				}
			}
		}
	})
}

// checkSigmoidBernoulli runs the reference's and a tier's fused sigmoid +
// sampling on pre from stream s0 (outputs at offsets offP and offS in
// guarded buffers) and compares them: the same stream state after,
// probabilities within 1e-6 relative, and sampled bits equal wherever the
// draw is not within 1e-6 of the probability (rounding may decide those).
// It returns the reference's probabilities, the tier's states and the
// states' guard check.
func checkSigmoidBernoulli(t testing.TB, r *rand.Rand, im *impl, pre []float32, s0 Stream, offP, offS int) (wantP, gotS []float32, checkS func(string)) {
	t.Helper()
	n := len(pre)
	u := make([]float32, n)
	su, s1, s2 := s0, s0, s0
	su.Uniforms(u)
	wantP = make([]float32, n)
	wantS := make([]float32, n)
	sigmoidBernoulliGeneric(wantP, wantS, pre, &s1)
	gotP, checkP := padded(t, r, n, offP, uni(0, 0))
	gotS, checkS = padded(t, r, n, offS, uni(0, 0))
	im.sigmoidBernoulli(gotP, gotS, pre, &s2)
	checkP(im.name + " sigmoidBernoulli prob")
	checkS(im.name + " sigmoidBernoulli state")
	if s1 != s2 {
		t.Fatalf("%s sigmoidBernoulli n=%d: stream state differs from the reference's", im.name, n)
	}
	for i := range wantP {
		if !near(gotP[i], wantP[i], 1e-6*wantP[i]+3e-45) {
			t.Fatalf("%s sigmoidBernoulli: prob[%d] = σ(%g) = %g, want %g", im.name, i, pre[i], gotP[i], wantP[i])
		}
		if math.Abs(float64(u[i]-wantP[i])) > 1e-6 && gotS[i] != wantS[i] {
			t.Fatalf("%s sigmoidBernoulli: state[%d] = %g, want %g (u %g, p %g)", im.name, i, gotS[i], wantS[i], u[i], wantP[i])
		}
	}
	return wantP, gotS, checkS
}

func TestAxpy(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, n := range lengths() {
			v, _ := padded(t, r, n, (n+1)%4, uni(0, 1))
			a := float32(r.IntN(3)) - 1 + 0.25
			y, checkY := padded(t, r, n, (n+2)%4, uni(-1, 1))
			wy := append([]float32(nil), y...)
			axpyGeneric(wy, a, v)
			im.axpy(y, a, v)
			checkY(im.name + " axpy")
			for i := range wy {
				if !near(y[i], wy[i], 1e-6) {
					t.Fatalf("%s axpy n=%d: y[%d] = %g, want %g", im.name, n, i, y[i], wy[i])
				}
			}
		}
	})
}

func TestUpdates(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(15, 16))
		const gamma = 0.5
		for _, n := range lengths() {
			off := n % 4
			mk := func(f func(*rand.Rand) float32) ([]float32, func(string)) { return padded(t, r, n, off, f) }
			w, cw := mk(uni(-1, 1))
			ap, cap_ := mk(uni(-0.2, 1.2))
			a, ca := mk(bits01(0.5))
			c, cc := mk(uni(0, 0))
			g, cg := mk(uni(-3, 3))
			for i := range ap { // keep the threshold decision clear of rounding
				if math.Abs(float64(ap[i]-gamma)) < 0.05 {
					ap[i] = gamma + 0.1
				}
			}
			ww, wap, wa, wc, wg := clone(w), clone(ap), clone(a), clone(c), clone(g)
			const alpha, alphaA = 0.002, 0.01
			if b := updateNCGGeneric(ww, wap, wa, wc, wg, alpha, alphaA, gamma); b != 0 {
				t.Fatal("generic updateNCG reports non-finite values")
			}
			if b := im.updateNCG(w, ap, a, c, g, alpha, alphaA, gamma); b != 0 {
				t.Fatalf("%s updateNCG n=%d reports non-finite values (%g)", im.name, n, b)
			}
			for _, chk := range []func(string){cw, cap_, ca, cc, cg} {
				chk(im.name + " updateNCG")
			}
			cmp := func(what string, got, want []float32, tol float32) {
				t.Helper()
				for i := range want {
					if !near(got[i], want[i], tol) {
						t.Fatalf("%s %s n=%d: [%d] = %g, want %g", im.name, what, n, i, got[i], want[i])
					}
				}
			}
			cmp("updateNCG w", w, ww, 1e-6)
			cmp("updateNCG ap", ap, wap, 1e-6)
			cmp("updateNCG a", a, wa, 0)
			cmp("updateNCG c", c, wc, 1e-6)
			cmp("updateNCG g", g, wg, 0)

			copy(g, wg)
			for i := range g {
				g[i] = r.Float32()*6 - 3
			}
			wg = clone(g)
			if im.updateMasked(w, a, c, g, alpha) != 0 || updateMaskedGeneric(ww, wa, wc, wg, alpha) != 0 {
				t.Fatalf("%s updateMasked reports non-finite values", im.name)
			}
			cmp("updateMasked w", w, ww, 1e-6)
			cmp("updateMasked c", c, wc, 1e-6)
			cmp("updateMasked g", g, wg, 0)

			for i := range g {
				g[i] = r.Float32()*6 - 3
			}
			wg = clone(g)
			if im.updateDense(w, c, g, alpha) != 0 || updateDenseGeneric(ww, wc, wg, alpha) != 0 {
				t.Fatalf("%s updateDense reports non-finite values", im.name)
			}
			cmp("updateDense w", w, ww, 1e-6)
			cmp("updateDense c", c, wc, 1e-6)
			for i := range g {
				g[i] = 1
			}
			if im.updateDense(w, nil, g, alpha) != 0 {
				t.Fatalf("%s updateDense(c=nil) reports non-finite values", im.name)
			}
			cw("updateDense nil c")

			// A NaN or Inf anywhere in g must be reported.
			if n > 0 {
				for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
					k := r.IntN(n)
					g[k] = bad
					if im.updateNCG(w, ap, a, c, g, alpha, alphaA, gamma) == 0 {
						t.Fatalf("%s updateNCG n=%d: %g at %d not reported", im.name, n, bad, k)
					}
					g[k] = bad
					if im.updateMasked(w, a, c, g, alpha) == 0 {
						t.Fatalf("%s updateMasked n=%d: %g at %d not reported", im.name, n, bad, k)
					}
					g[k] = bad
					if im.updateDense(w, c, g, alpha) == 0 {
						t.Fatalf("%s updateDense n=%d: %g at %d not reported", im.name, n, bad, k)
					}
					for i := range w { // the NaN went into w; start clean
						w[i], g[i] = r.Float32(), 0
					}
				}
			}
		}
	})
}

func clone(s []float32) []float32 { return append([]float32(nil), s...) }

func TestTranspose(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(17, 18))
		for _, rows := range []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 33, 100} {
			for _, cols := range []int{1, 2, 5, 8, 9, 16, 17, 31, 64, 65} {
				src, _ := padded(t, r, rows*cols, 1, uni(-1, 1))
				want := make([]float32, rows*cols)
				transposeGeneric(want, src, rows, cols, rows, cols)
				got, check := padded(t, r, rows*cols, 2, uni(0, 0))
				im.transpose(got, src, rows, cols, rows, cols)
				check(im.name + " transpose")
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s transpose %d×%d: [%d] = %g, want %g", im.name, rows, cols, i, got[i], want[i])
					}
				}
				// Inside larger matrices: only the rows×cols block moves,
				// the rest of dst keeps its values.
				lds, ldd := cols+3, rows+5
				srcS, _ := padded(t, r, (rows-1)*lds+cols, 1, uni(-1, 1))
				wantS := make([]float32, (cols-1)*ldd+rows)
				for k := range wantS {
					wantS[k] = -7
				}
				gotS, checkS := padded(t, r, len(wantS), 2, uni(-7, -7))
				transposeGeneric(wantS, srcS, rows, cols, ldd, lds)
				im.transpose(gotS, srcS, rows, cols, ldd, lds)
				checkS(im.name + " strided transpose")
				for i := range wantS {
					if gotS[i] != wantS[i] {
						t.Fatalf("%s strided transpose %d×%d (ldd %d, lds %d): [%d] = %g, want %g", im.name, rows, cols, ldd, lds, i, gotS[i], wantS[i])
					}
				}
			}
		}
	})
}

// TestPrefetchW: a prefetch changes no value and touches nothing outside
// its lines, with a stride of 0, of one float, of a cache line and of a row.
func TestPrefetchW(t *testing.T) {
	forEachTier(t, withGeneric, func(im *impl) {
		r := rand.New(rand.NewPCG(19, 20))
		for _, c := range []struct{ n, stride int }{{1, 0}, {4, 0}, {1, 1}, {7, 1}, {33, 16}, {500, 784}} {
			s, check := padded(t, r, (c.n-1)*c.stride+1, 3, uni(-1, 1))
			want := clone(s)
			im.prefetchW(s, c.n, c.stride)
			check(fmt.Sprintf("%s prefetchW n %d stride %d", im.name, c.n, c.stride))
			for i := range want {
				if math.Float32bits(s[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s prefetchW n %d stride %d changed [%d] from %g to %g", im.name, c.n, c.stride, i, want[i], s[i])
				}
			}
		}
	})
	PrefetchW(nil, 0, 5) // nothing to prefetch: no bounds to check
}

// TestExportedChecks: the exported functions reject short slices and bad
// indices with a panic naming the argument, before any assembly runs.
func TestExportedChecks(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	mustPanic("Affine short m", func() { Affine(make([]float32, 4), nil, make([]float32, 4), make([]float32, 3), 2, 2, 2) })
	mustPanic("SumRows bad row", func() { SumRows(make([]float32, 2), make([]float32, 4), 2, []int32{2}, 2) })
	mustPanic("Sigmoid short dst", func() { Sigmoid(make([]float32, 1), make([]float32, 2)) })
	// SumRowsBatch: 2 chains, 3 rows of 2 floats.
	batch := func(idx, counts []int32) func() {
		return func() { SumRowsBatch(make([]float32, 4), make([]float32, 6), 2, 2, 3, 2, idx, counts) }
	}
	mustPanic("SumRowsBatch bad row", batch([]int32{0, 3, 0, 0, 0, 0}, []int32{2, 0}))
	mustPanic("SumRowsBatch rows not increasing", batch([]int32{0, 0, 0, 2, 1, 0}, []int32{0, 2}))
	mustPanic("SumRowsBatch count past nin", batch(make([]int32, 6), []int32{4, 0}))
	mustPanic("SumRowsBatch short idx", batch(make([]int32, 5), []int32{0, 0}))
	flip := func(off []int32) func() {
		return func() {
			FlipRowsBatch(make([]float32, 4), make([]float32, 4), make([]float32, 6), 2, 2, 3, 2, make([]int32, 6), []int32{0, 0}, off, []int32{1, 1})
		}
	}
	mustPanic("FlipRowsBatch bad off row", flip([]int32{0, 0, 0, 3, 0, 0}))
	mustPanic("FlipRowsBatch short off", flip(make([]int32, 5)))
	mustPanic("PrefetchW past the end", func() { PrefetchW(make([]float32, 32), 3, 16) })
	mustPanic("PrefetchW negative stride", func() { PrefetchW(make([]float32, 32), 2, -1) })
	mustPanic("UpdateNCG short g", func() {
		UpdateNCG(make([]float32, 3), make([]float32, 3), make([]float32, 3), make([]float32, 3), make([]float32, 2), 1, 1, 0.5)
	})
}

func TestUseTier(t *testing.T) {
	before := Tier()
	if _, err := useTier("nonsense"); err == nil {
		t.Error("useTier(nonsense) succeeded")
	}
	if Tier() != before {
		t.Errorf("Tier() = %s after a failed UseTier, want %s", Tier(), before)
	}
	restore, err := useTier("generic")
	if err != nil {
		t.Fatal(err)
	}
	if Tier() != "generic" {
		t.Errorf("Tier() = %s after useTier(generic)", Tier())
	}
	restore()
	if Tier() != before {
		t.Errorf("Tier() = %s after restore, want %s", Tier(), before)
	}
	for _, name := range []string{"avx2", "avx512", "neon"} {
		supported := false
		for _, a := range Tiers() {
			supported = supported || a == name
		}
		restore, err := useTier(name)
		if (err == nil) != supported {
			t.Errorf("useTier(%s) error %v, supported %v", name, err, supported)
		}
		if supported && Tier() != name {
			t.Errorf("Tier() = %s after useTier(%s)", Tier(), name)
		}
		restore()
	}
}

func TestAffineBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, p := range []float64{0, 0.05, 0.13, 0.5, 1} {
		for _, nc := range []int{1, 3, 16} {
			for _, shape := range [][2]int{{1, 1}, {7, 300}, {784, 500}, {500, 784}} {
				nin, nout := shape[0], shape[1]
				in := binarySliceT(r, nc*nin, p)
				m := make([]float32, nin*nout)
				for i := range m {
					m[i] = r.Float32()*2 - 1
				}
				bias := make([]float32, nout)
				for i := range bias {
					bias[i] = r.Float32()
				}
				want := make([]float32, nc*nout)
				affineGeneric(want, bias, in, m, nc, nin, nout)
				// The same m with rows nout, nout+3 and PadStride(nout)
				// floats apart.
				for _, ldm := range []int{nout, nout + 3, PadStride(nout)} {
					pm := make([]float32, nin*ldm)
					for j := 0; j < nin; j++ {
						copy(pm[j*ldm:j*ldm+nout], m[j*nout:(j+1)*nout])
					}
					got := make([]float32, nc*nout)
					idx := make([]int32, nc*nin)
					counts := make([]int32, nc)
					total := AffineBinaryStride(got, bias, in, pm, ldm, nc, nin, nout, idx, counts)
					ones := 0
					for c := 0; c < nc; c++ {
						k := 0
						for j := 0; j < nin; j++ {
							if in[c*nin+j] != 0 {
								if int(counts[c]) <= k || idx[c*nin+k] != int32(j) {
									t.Fatalf("p=%g nc=%d: chain %d's index list is wrong at %d", p, nc, c, k)
								}
								k++
							}
						}
						if k != int(counts[c]) {
							t.Fatalf("chain %d: count %d, want %d", c, counts[c], k)
						}
						ones += k
					}
					if total != ones {
						t.Fatalf("total %d, want %d", total, ones)
					}
					for i := range want {
						if !near(got[i], want[i], 1e-4) {
							t.Fatalf("p=%g nc=%d %v ldm=%d: out[%d] = %g, want %g", p, nc, shape, ldm, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestSumRowsBlocked: a tier's blocked row sums equal the generic ones
// exactly (same rows, same order) for chain groups beyond 64, column tiles
// and row blocks with tails, strided rows, and write nothing outside out.
func TestSumRowsBlocked(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	tested := 0
	forEachTier(t, asmOnly, func(im *impl) {
		if im.sumRowsBlocked == nil {
			return
		}
		tested++
		for _, c := range []struct{ nc, nin, nout int }{
			{1, 1, 1}, {3, 9, 15}, {5, 40, 16}, {2, 33, 17}, {7, 20, 64}, {4, 50, 65},
			{9, 30, 100}, {3, 70, 128}, {2, 70, 129}, {65, 60, 300}, {130, 784, 500}, {8, 500, 784},
		} {
			for _, rows := range []int{1, 7, 96, 1000} {
				for _, p := range []float64{0.02, 0.13, 0.6} {
					unforce := forceBlockRows(rows)
					ldm := PadStride(c.nout) + int(r.IntN(3))
					m := make([]float32, c.nin*ldm)
					for i := range m {
						m[i] = r.Float32()*2 - 1
					}
					in := binarySliceT(r, c.nc*c.nin, p)
					idx, counts := make([]int32, c.nc*c.nin), make([]int32, c.nc)
					for k := 0; k < c.nc; k++ {
						counts[k] = int32(indicesGeneric(idx[k*c.nin:(k+1)*c.nin], in[k*c.nin:(k+1)*c.nin]))
					}
					want := make([]float32, c.nc*c.nout)
					for i := range want {
						want[i] = r.Float32()
					}
					got, check := padded(t, r, len(want), c.nc%4, uni(0, 0))
					copy(got, want)
					sumRowsBlockedGeneric(m, ldm, c.nc, c.nin, c.nout, rowSums{want, idx, counts}, rowSums{})
					im.sumRowsBlocked(m, ldm, c.nc, c.nin, c.nout, rowSums{got, idx, counts}, rowSums{})
					unforce()
					check(fmt.Sprintf("%s sumRowsBlocked %+v", im.name, c))
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%s %+v rows %d p %g: out[%d] = %g, want %g", im.name, c, rows, p, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
	if tested == 0 {
		t.Skip("no tier with blocked row sums on this CPU/build")
	}
}

// TestSumRowsBatch: on every tier, SumRowsBatch equals one SumRows call per
// chain exactly (blocked or not), chains with no rows included, and writes
// nothing outside out.
func TestSumRowsBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	forEachTier(t, withGeneric, func(im *impl) {
		tier := im.name
		for _, c := range []struct{ nc, nin, nout int }{{1, 1, 1}, {3, 9, 15}, {7, 40, 129}, {50, 784, 500}, {50, 500, 784}, {70, 60, 33}} {
			ldm := PadStride(c.nout)
			m := Aligned(c.nin * ldm)
			for i := range m {
				m[i] = r.Float32()*2 - 1
			}
			idx, counts := make([]int32, c.nc*c.nin), make([]int32, c.nc)
			for k := 0; k < c.nc; k++ {
				p := []float64{0, 0.05, 0.13, 0.9}[k%4]
				counts[k] = int32(indicesGeneric(idx[k*c.nin:(k+1)*c.nin], binarySliceT(r, c.nin, p)))
			}
			want, got, check := batchOut(t, r, c.nc*c.nout, c.nc%4)
			for k := 0; k < c.nc; k++ {
				sumRowsGeneric(want[k*c.nout:(k+1)*c.nout], m, ldm, idx[k*c.nin:k*c.nin+int(counts[k])], c.nout)
			}
			SumRowsBatch(got, m, ldm, c.nc, c.nin, c.nout, idx, counts)
			check(fmt.Sprintf("%s SumRowsBatch %+v", tier, c))
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s %+v: out[%d] = %g, want %g", tier, c, i, got[i], want[i])
				}
			}
		}
	})
}

// TestFlipRowsBatch: on every tier, FlipRowsBatch leaves each chain's
// sums as one FlipRows call does, bit for bit, for chains with rows
// switched on, off, both or neither, groups beyond 64 chains and padded
// rows, with the default row blocks and with blocks of 7 rows, and writes
// nothing outside out.
func TestFlipRowsBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	type shape struct{ nc, nin, nout, rows int }
	var shapes []shape
	for _, c := range []shape{{1, 1, 1, 0}, {3, 9, 15, 0}, {7, 40, 129, 0}, {50, 784, 500, 0}, {50, 500, 784, 0}, {70, 60, 33, 0}} {
		shapes = append(shapes, c, shape{c.nc, c.nin, c.nout, 7})
	}
	forEachTier(t, withGeneric, func(im *impl) {
		tier := im.name
		for _, c := range shapes {
			unforce := func() {}
			if c.rows > 0 {
				unforce = forceBlockRows(c.rows)
			}
			ldm := PadStride(c.nout)
			m := Aligned(c.nin * ldm)
			for i := range m {
				m[i] = r.Float32()*2 - 1
			}
			on, off := make([]int32, c.nc*c.nin), make([]int32, c.nc*c.nin)
			non, noff := make([]int32, c.nc), make([]int32, c.nc)
			for k := 0; k < c.nc; k++ {
				// Changes lists the switches between two states.
				old := binarySliceT(r, c.nin, []float64{0, 0.1, 0.5, 0.9}[k%4])
				s := binarySliceT(r, c.nin, []float64{0, 0.2, 0.5, 0.03}[k/4%4])
				_, n1, n2 := changesGeneric(make([]int32, c.nin), on[k*c.nin:(k+1)*c.nin], off[k*c.nin:(k+1)*c.nin], old, s)
				non[k], noff[k] = int32(n1), int32(n2)
			}
			want, got, check := batchOut(t, r, c.nc*c.nout, c.nc%4)
			for k := 0; k < c.nc; k++ {
				FlipRows(want[k*c.nout:(k+1)*c.nout], m, ldm, on[k*c.nin:k*c.nin+int(non[k])], off[k*c.nin:k*c.nin+int(noff[k])], make([]float32, c.nout), c.nout)
			}
			tmp := make([]float32, c.nc*c.nout)
			for i := range tmp {
				tmp[i] = float32(math.NaN()) // scratch: its contents must not matter
			}
			FlipRowsBatch(got, tmp, m, ldm, c.nc, c.nin, c.nout, on, non, off, noff)
			unforce()
			check(fmt.Sprintf("%s FlipRowsBatch %+v", tier, c))
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %+v: out[%d] = %g, want %g", tier, c, i, got[i], want[i])
				}
			}
		}
	})
}

// TestBlockRows: the row blocks are equal, at most binaryBlockRows high
// where the chains add many rows (the training products: 8 chains of about
// 100 of 784 rows in 7 blocks of 112, the down pass's 250 of 500 rows in 5
// of 100), and taller where they add few (AIS: 50 runs switching about 26
// of 784 units, 2 blocks of 392; one block below that).
func TestBlockRows(t *testing.T) {
	for _, c := range []struct{ nin, used, nc, want int }{
		{784, 800, 8, 112}, {500, 2000, 8, 100}, {784, 26 * 50, 50, 392}, {784, 10 * 50, 50, 784},
		{500, 115 * 50, 50, 100}, {784, 0, 8, 112}, {126, 42 * 8, 8, 63}, {1, 1, 1, 1},
	} {
		if got := blockRows(c.nin, c.used, c.nc); got != c.want {
			t.Errorf("blockRows(%d, %d, %d) = %d, want %d", c.nin, c.used, c.nc, got, c.want)
		}
	}
}

// batchOut returns n random sums to start a batch of row sums from: want,
// and the same in got, a guarded slice at offset off whose check fails if
// anything outside it was written.
func batchOut(t *testing.T, r *rand.Rand, n, off int) (want, got []float32, check func(string)) {
	want = make([]float32, n)
	for i := range want {
		want[i] = r.Float32()
	}
	got, check = padded(t, r, n, off, uni(0, 0))
	copy(got, want)
	return want, got, check
}

// forceBlockRows makes the blocked row sums use blocks of at most rows
// rows, whatever the chains use, and returns the function that restores
// the defaults.
func forceBlockRows(rows int) (restore func()) {
	r, u := binaryBlockRows, blockMinUse
	binaryBlockRows, blockMinUse = rows, 0
	return func() { binaryBlockRows, blockMinUse = r, u }
}

// TestTaylorSums: every tier gives the generic bits (sums and the
// magnitudes of lo and hi) for lengths 0 to 300 and beyond, with NaNs and
// signed zeros among the inputs, and the generic sums are the float64 sums
// they stand for (relative 1e-12).
func TestTaylorSums(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	forEachTier(t, asmOnly, func(im *impl) {
		for _, n := range lengths() {
			a, p := make([]float32, n), make([]float32, n+3)
			for i := range a {
				a[i] = float32(r.NormFloat64() * 3)
				p[i] = r.Float32()
				switch r.IntN(40) {
				case 0:
					a[i] = float32(math.NaN())
				case 1:
					a[i] = float32(math.Copysign(0, -1))
				}
			}
			var want, got [3][4]float64
			var wlh, glh [2][4]float32
			n4 := n &^ 3
			taylorSumsGeneric(a[:n4], p[:n4], &want, &wlh)
			if n4 > 0 {
				im.taylorSums(a[:n4], p[:n4], &got, &glh)
			}
			for j := range want {
				for k := range want[j] {
					if math.Float64bits(got[j][k]) != math.Float64bits(want[j][k]) && !(math.IsNaN(got[j][k]) && math.IsNaN(want[j][k])) {
						t.Fatalf("%s n=%d: sum %d lane %d = %v, want %v", im.name, n, j, k, got[j][k], want[j][k])
					}
				}
			}
			for j := range wlh {
				for k := range wlh[j] {
					if math.Abs(float64(glh[j][k])) != math.Abs(float64(wlh[j][k])) {
						t.Fatalf("%s n=%d: lo/hi %d lane %d = %v, want %v", im.name, n, j, k, glh[j][k], wlh[j][k])
					}
				}
			}
		}
	})
	// The generic sums against a direct float64 evaluation, on finite input.
	for _, n := range []int{1, 7, 500} {
		a, p := make([]float32, n), make([]float32, n)
		var w1, w2, w3 float64
		lo, hi := 0.0, 0.0
		for i := range a {
			a[i], p[i] = float32(r.NormFloat64()*3), r.Float32()
			x, q := float64(a[i]), float64(p[i])
			w1 += x * q
			w2 += x * x * q * (1 - q)
			w3 += x * x * x * q * (1 - q) * (1 - 2*q)
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		s1, s2, s3, l, h := TaylorSums(a, p)
		for _, c := range [][2]float64{{s1, w1}, {s2, w2}, {s3, w3}} {
			if math.Abs(c[0]-c[1]) > 1e-12*(1+math.Abs(c[1]))*float64(n) {
				t.Errorf("n=%d: TaylorSums %v, direct %v", n, c[0], c[1])
			}
		}
		if float64(l) != lo || float64(h) != hi {
			t.Errorf("n=%d: lo, hi = %v, %v, want %v, %v", n, l, h, lo, hi)
		}
	}
}

// TestPadStride: whole cache lines, an odd number of them, never shorter.
func TestPadStride(t *testing.T) {
	for n := 0; n < 3000; n++ {
		s := PadStride(n)
		if s < n || s%16 != 0 || s/16%2 != 1 || s > n+32 {
			t.Fatalf("PadStride(%d) = %d", n, s)
		}
	}
	if PadStride(500) != 528 || PadStride(784) != 784 {
		t.Errorf("PadStride(500, 784) = %d, %d, want 528, 784", PadStride(500), PadStride(784))
	}
}

func binarySliceT(r *rand.Rand, n int, p float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = b2f(r.Float64() < p)
	}
	return s
}

// TestEnvVarChoice runs a child test binary with NCG_KERNEL set, as users do.
func TestEnvVarChoice(t *testing.T) {
	if os.Getenv("NCG_KERNEL_CHILD") != "" {
		return
	}
	for _, tc := range []struct{ env, want string }{{"generic", "generic"}, {"bogus", "unknown tier"}, {"neon-or-avx", "unknown tier"}} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestEnvVarChoiceChild$", "-test.v")
		cmd.Env = append(os.Environ(), "NCG_KERNEL="+tc.env, "NCG_KERNEL_CHILD=1")
		out, err := cmd.CombinedOutput()
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			// Under qemu-user without binfmt the binary cannot start itself.
			t.Skipf("cannot run the test binary as a child process: %v", err)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("NCG_KERNEL=%s: output lacks %q:\n%s", tc.env, tc.want, out)
		}
	}
}

func TestEnvVarChoiceChild(t *testing.T) {
	if os.Getenv("NCG_KERNEL_CHILD") == "" {
		t.Skip("run by TestEnvVarChoice")
	}
	// TestMain has already called Init and exited on an error.
	t.Logf("tier in use: %s", Tier())
}

// TestFlipRows: updating a row sum by the flipped units gives the fresh sum
// of the new state (to float32 rounding), with and without padded rows.
func TestFlipRows(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, shape := range [][3]int{{40, 24, 24}, {784, 500, 512}, {500, 784, 784}, {7, 3, 5}} {
		nin, n, stride := shape[0], shape[1], shape[2]
		m := make([]float32, (nin-1)*stride+n)
		for i := range m {
			m[i] = r.Float32()*2 - 1
		}
		fresh := func(s []float32) []float32 {
			out := make([]float32, n)
			for j, v := range s {
				if v != 0 {
					for o := 0; o < n; o++ {
						out[o] += m[j*stride+o]
					}
				}
			}
			return out
		}
		for _, pflip := range []float64{0, 0.05, 0.5, 1} {
			ref := binarySliceT(r, nin, 0.3)
			s := append([]float32(nil), ref...)
			var flip []int32
			for j := range s {
				if r.Float64() < pflip {
					s[j] = 1 - s[j]
					flip = append(flip, int32(j))
				}
			}
			out := fresh(ref)
			idx, on, off := make([]int32, nin), make([]int32, nin), make([]int32, nin)
			_, non, noff := Changes(idx, on, off, append([]float32(nil), ref...), s)
			if non+noff != len(flip) {
				t.Fatalf("%v: Changes found %d+%d flips, want %d", shape, non, noff, len(flip))
			}
			FlipRows(out, m, stride, on[:non], off[:noff], make([]float32, n), n)
			want := fresh(s)
			for o := range want {
				if !near(out[o], want[o], 1e-4) {
					t.Fatalf("%v, %d flips: out[%d] = %g, want %g", shape, len(flip), o, out[o], want[o])
				}
			}
		}
	}
}

// TestCheckRows: checkRows accepts a row j exactly when the row's n
// floats lie inside m (0 ≤ j and j·stride + n ≤ len(m)), over every small
// length, stride, row length and row, negative ones included.
func TestCheckRows(t *testing.T) {
	for lm := 0; lm <= 12; lm++ {
		for n := 1; n <= 4; n++ {
			for stride := n; stride <= 5; stride++ {
				for j := int32(-3); j <= 14; j++ {
					want := j >= 0 && int(j)*stride+n <= lm
					ok := func() (ok bool) {
						defer func() { ok = recover() == nil }()
						checkRows("m", make([]float32, lm), stride, []int32{j}, n)
						return
					}()
					if ok != want {
						t.Errorf("len %d, stride %d, n %d, row %d: accepted %v, want %v", lm, stride, n, j, ok, want)
					}
				}
			}
		}
	}
}
