package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of the updates with momentum and weight decay: every tier against
// the generic reference bit for bit (the engine's models must not change
// with the tier's update), on every length around the unrolls, at offsets,
// between guards, with a and c nil or not, on special values (NaN, ±Inf,
// ±0, negative weights, A′ crossing 0, 1 and γ). TestMomentumHarness shows
// that the comparison catches the likely mistakes of an assembly version:
// a fused multiply-add, products or sums in another order, max/min
// instead of Go's branches.

// momKernels are the two kernels of a tier, or of a variant under test.
type momKernels struct {
	name string
	mom  func(w, a, c, g, v []float32, p Step) float32
	ncg  func(w, ap, a, c, g, v []float32, p Step) float32
}

func tierMom(im *impl) momKernels { return momKernels{im.name, im.updateMom, im.updateMomNCG} }

// momSteps are the coefficients the tests use: a run's, large ones (so
// that every product rounds), no momentum or decay, and a negative L1
// (l1·sign(±0) is −0 then).
var momSteps = []Step{
	{LR: 0.1, InvB: 1.0 / 50, Mu: 0.9, L2: 2e-4, L1: 1e-5, LRA: 0.5 / 50, Gamma: 0.5},
	{LR: 3.7, InvB: 0.37, Mu: 0.93, L2: 0.11, L1: 0.013, LRA: 1.3, Gamma: 0.5},
	{LR: 0.05, InvB: 1.0 / 3, Gamma: 0.25},
	{LR: 0.7, InvB: 0.3, Mu: 0.5, L2: 0.3, L1: -0.01, LRA: 0.9, Gamma: 0.75},
}

// momSpecial are the special weights, gradients and velocities mixed in.
var momSpecial = []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
	1e-40, -1e-40, 3e38, -3e38, 1, -1}

// momValues returns n values of f, with about one in div replaced by a
// special value (div = 0: none).
func momValues(r *rand.Rand, n, div int, f func() float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = f()
		if div > 0 && r.IntN(div) == 0 {
			s[i] = momSpecial[r.IntN(len(momSpecial))]
		}
	}
	return s
}

// momInput is one input of the updates.
type momInput struct {
	w, ap, a, g, v []float32
}

// newMomInput draws n elements; special says how often special values
// appear (0: never). A′ sits near 0, 1 and γ often enough that q crosses
// them, and some elements are the cases where Go's branches and max/min
// differ (q = −0).
func newMomInput(r *rand.Rand, n, special int, gamma float32) momInput {
	u := func(lo, hi float32) func() float32 { return func() float32 { return lo + (hi-lo)*r.Float32() } }
	in := momInput{
		w: momValues(r, n, special, u(-1, 1)),
		g: momValues(r, n, special, u(-30, 30)),
		v: momValues(r, n, special, u(-0.2, 0.2)),
	}
	in.ap = momValues(r, n, 0, func() float32 {
		switch r.IntN(6) {
		case 0:
			return u(-0.002, 0.002)()
		case 1:
			return u(0.998, 1.002)()
		case 2:
			return gamma + u(-0.002, 0.002)()
		case 3:
			return []float32{0, float32(math.Copysign(0, -1)), 1, gamma, math.Nextafter32(gamma, 0)}[r.IntN(5)]
		}
		return u(-0.2, 1.2)()
	})
	in.a = momValues(r, n, 0, func() float32 {
		if r.IntN(5) == 0 {
			return r.Float32() // not a mask value: (lr·s)·a rounds
		}
		return b2f(r.IntN(2) == 0)
	})
	for k := range in.w {
		if special > 0 && r.IntN(special) == 0 { // q = −0 + (lrA·0)·(−w) = −0
			in.ap[k], in.g[k] = float32(math.Copysign(0, -1)), 0
			in.w[k] = -float32(math.Abs(float64(in.w[k])))
		}
		if special > 0 && r.IntN(special) == 0 {
			in.ap[k] = float32(math.NaN())
		}
	}
	return in
}

// sameBits reports whether got and want are the same float32, NaNs
// matching NaNs (the payload a NaN takes is not specified).
func sameBits(got, want float32) bool {
	if want != want {
		return got != got
	}
	return math.Float32bits(got) == math.Float32bits(want)
}

// momBuf is a guarded copy of s at offset off.
type momBuf struct {
	s     []float32
	check func(string)
}

func momCopy(t testing.TB, s []float32, off int) momBuf {
	b, check := padded(t, rand.New(rand.NewPCG(0, 0)), len(s), off, uni(0, 0))
	copy(b, s)
	return momBuf{b, check}
}

// momDiff runs k and ref on in with step p (a and c nil as nilA, nilC; for
// NCG neither) and describes the first difference, or returns "".
func momDiff(t testing.TB, k, ref momKernels, in momInput, p Step, off int, ncg, nilA, nilC bool) string {
	n := len(in.w)
	type run struct {
		w, ap, a, c, g, v momBuf
		r                 float32
	}
	do := func(f momKernels, off int) run {
		var x run
		x.w, x.ap, x.a = momCopy(t, in.w, off), momCopy(t, in.ap, off), momCopy(t, in.a, off)
		x.c, x.g, x.v = momCopy(t, make([]float32, n), off), momCopy(t, in.g, off), momCopy(t, in.v, off)
		if ncg {
			x.r = f.ncg(x.w.s, x.ap.s, x.a.s, x.c.s, x.g.s, x.v.s, p)
			return x
		}
		a, c := x.a.s, x.c.s
		if nilA {
			a = nil
		}
		if nilC {
			c = nil
		}
		x.r = f.mom(x.w.s, a, c, x.g.s, x.v.s, p)
		return x
	}
	got, want := do(k, off), do(ref, 0)
	for _, b := range []momBuf{got.w, got.ap, got.a, got.c, got.g, got.v} {
		b.check(k.name)
	}
	if (got.r == 0) != (want.r == 0) {
		return fmt.Sprintf("finite %v, want %v", got.r == 0, want.r == 0)
	}
	for _, o := range []struct {
		name      string
		got, want []float32
	}{{"w", got.w.s, want.w.s}, {"v", got.v.s, want.v.s}, {"g", got.g.s, want.g.s}, {"c", got.c.s, want.c.s},
		{"ap", got.ap.s, want.ap.s}, {"a", got.a.s, want.a.s}} {
		for i := range o.want {
			if !sameBits(o.got[i], o.want[i]) {
				return fmt.Sprintf("%s[%d] = %g (%#x), want %g (%#x); w %g ap %g a %g g %g v %g",
					o.name, i, o.got[i], math.Float32bits(o.got[i]), o.want[i], math.Float32bits(o.want[i]),
					in.w[i], in.ap[i], in.a[i], in.g[i], in.v[i])
			}
		}
	}
	return ""
}

// momModes are the forms of a call: NCG, then UpdateMomentum with a and c
// present or nil.
var momModes = []struct {
	name            string
	ncg, nilA, nilC bool
}{{"ncg", true, false, false}, {"masked", false, false, false}, {"masked c=nil", false, false, true},
	{"dense", false, true, false}, {"dense c=nil", false, true, true}}

// momCheck compares k with the generic kernels on every length, offset,
// step and mode, and returns the first difference.
func momCheck(t testing.TB, k momKernels, lens []int) error {
	ref := tierMom(generic)
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range lens {
		for pi, p := range momSteps {
			special := []int{0, 7}[(n+pi)%2]
			in := newMomInput(r, n, special, p.Gamma)
			for _, m := range momModes {
				if d := momDiff(t, k, ref, in, p, (n+pi)%4, m.ncg, m.nilA, m.nilC); d != "" {
					return fmt.Errorf("%s %s n=%d step %d: %s", k.name, m.name, n, pi, d)
				}
			}
		}
	}
	return nil
}

func TestUpdateMomentumTiers(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		if err := momCheck(t, tierMom(im), lengths()); err != nil {
			t.Error(err)
		}
	})
}

// TestUpdateMomentumSpecial: every special weight against every special
// gradient and velocity, one element each, at each position of a vector.
func TestUpdateMomentumSpecial(t *testing.T) {
	ref := tierMom(generic)
	forEachTier(t, asmOnly, func(im *impl) {
		k := tierMom(im)
		for _, n := range []int{1, 4, 8, 16, 17} {
			for _, w0 := range momSpecial {
				for _, g0 := range momSpecial {
					for pi, p := range momSteps {
						in := newMomInput(rand.New(rand.NewPCG(uint64(n), 5)), n, 0, p.Gamma)
						j := (pi * 5) % n
						in.w[j], in.g[j], in.v[(j+1)%n] = w0, g0, g0
						for _, m := range momModes {
							if d := momDiff(t, k, ref, in, p, 1, m.ncg, m.nilA, m.nilC); d != "" {
								t.Fatalf("%s %s n=%d w=%g g=%g step %d: %s", im.name, m.name, n, w0, g0, pi, d)
							}
						}
					}
				}
			}
		}
	})
}

// TestMomentumHarness: variants of the generic kernels with the mistakes
// an assembly version could make must fail momCheck, or the test above
// could not catch them.
func TestMomentumHarness(t *testing.T) {
	f32 := func(x float64) float32 { return float32(x) }
	fma := func(x, y, z float32) float32 { return f32(math.FMA(float64(x), float64(y), float64(z))) }
	variant := func(name string, step func(p Step, w0, g, v, a float32) (float32, float32), clip func(q float32) float32) momKernels {
		mom := func(w, a, c, g, v []float32, p Step) float32 {
			var bad float32
			for k, w0 := range w {
				ak := float32(1)
				if a != nil {
					ak = a[k]
				}
				nw, nv := step(p, w0, g[k], v[k], ak)
				w[k], v[k], g[k] = nw, nv, 0
				if c != nil {
					c[k] = nw * ak
				}
				bad = finiteCheck(bad, nw)
			}
			return bad
		}
		ncg := func(w, ap, a, c, g, v []float32, p Step) float32 {
			var bad float32
			for k, w0 := range w {
				gk := g[k]
				nw, nv := step(p, w0, gk, v[k], a[k])
				q := clip(ap[k] + float32(float32(p.LRA*gk)*w0))
				na := b2f(q >= p.Gamma)
				w[k], v[k], ap[k], a[k], c[k], g[k] = nw, nv, q, na, nw*na, 0
				bad = finiteCheck(bad, nw)
			}
			return bad
		}
		return momKernels{name, mom, ncg}
	}
	goClip := func(q float32) float32 {
		if q < 0 {
			q = 0
		}
		if q > 1 {
			q = 1
		}
		return q
	}
	right := func(p Step, w0, g, v, a float32) (float32, float32) { return p.step(w0, g, v, a) }
	lens := []int{1, 7, 8, 9, 16, 17, 33, 100, 257}
	if err := momCheck(t, variant("generic again", right, goClip), lens); err != nil {
		t.Fatalf("the harness rejects the reference itself: %v", err)
	}
	for _, v := range []momKernels{
		variant("fma in w", func(p Step, w0, g, v, a float32) (float32, float32) {
			s := float32(g*p.InvB) - float32(p.L2*w0) - float32(p.L1*sign(w0)) + float32(p.Mu*v)
			return fma(float32(p.LR*s), a, w0), s * a
		}, goClip),
		variant("fma in s", func(p Step, w0, g, v, a float32) (float32, float32) {
			s := fma(p.Mu, v, float32(g*p.InvB)-float32(p.L2*w0)-float32(p.L1*sign(w0)))
			return w0 + float32(float32(p.LR*s)*a), s * a
		}, goClip),
		variant("lr·(s·a)", func(p Step, w0, g, v, a float32) (float32, float32) {
			s := float32(g*p.InvB) - float32(p.L2*w0) - float32(p.L1*sign(w0)) + float32(p.Mu*v)
			return w0 + float32(p.LR*float32(s*a)), s * a
		}, goClip),
		variant("momentum first", func(p Step, w0, g, v, a float32) (float32, float32) {
			s := float32(p.Mu*v) + float32(g*p.InvB) - float32(p.L2*w0) - float32(p.L1*sign(w0))
			return w0 + float32(float32(p.LR*s)*a), s * a
		}, goClip),
		variant("decay summed first", func(p Step, w0, g, v, a float32) (float32, float32) {
			s := float32(g*p.InvB) - (float32(p.L2*w0) + float32(p.L1*sign(w0))) + float32(p.Mu*v)
			return w0 + float32(float32(p.LR*s)*a), s * a
		}, goClip),
		variant("sign(−0) = −1", func(p Step, w0, g, v, a float32) (float32, float32) {
			sg := sign(w0)
			if w0 == 0 && math.Signbit(float64(w0)) {
				sg = -1
			}
			s := float32(g*p.InvB) - float32(p.L2*w0) - float32(p.L1*sg) + float32(p.Mu*v)
			return w0 + float32(float32(p.LR*s)*a), s * a
		}, goClip),
		variant("a as a select", func(p Step, w0, g, v, a float32) (float32, float32) {
			s := float32(g*p.InvB) - float32(p.L2*w0) - float32(p.L1*sign(w0)) + float32(p.Mu*v)
			if a == 0 {
				return w0, 0
			}
			return w0 + float32(float32(p.LR*s)*a), s * a
		}, goClip),
		variant("math.Max/Min clip", right, func(q float32) float32 {
			return f32(math.Min(math.Max(float64(q), 0), 1))
		}),
		variant("NaN clipped to 0", right, func(q float32) float32 {
			if !(q >= 0) {
				q = 0
			}
			return min(q, 1)
		}),
	} {
		if momCheck(t, v, lens) == nil {
			t.Errorf("momCheck passes the wrong kernel %q", v.name)
		}
	}
}

// TestUpdateMomentumLengths: the exported functions check their slices.
func TestUpdateMomentumLengths(t *testing.T) {
	s := func(n int) []float32 { return make([]float32, n) }
	p := momSteps[0]
	for name, f := range map[string]func(){
		"mom g":  func() { UpdateMomentum(s(4), nil, nil, s(3), s(4), p) },
		"mom v":  func() { UpdateMomentum(s(4), nil, nil, s(4), s(3), p) },
		"mom a":  func() { UpdateMomentum(s(4), s(3), nil, s(4), s(4), p) },
		"mom c":  func() { UpdateMomentum(s(4), nil, s(3), s(4), s(4), p) },
		"ncg ap": func() { UpdateMomentumNCG(s(4), s(3), s(4), s(4), s(4), s(4), p) },
		"ncg v":  func() { UpdateMomentumNCG(s(4), s(4), s(4), s(4), s(4), s(3), p) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	if !UpdateMomentum(nil, nil, nil, nil, nil, p) || !UpdateMomentumNCG(nil, nil, nil, nil, nil, nil, p) {
		t.Error("an empty update reports a non-finite weight")
	}
}

// FuzzTiersMomentum: both momentum updates on every assembly tier against
// the generic kernels, on weights and gradients the fuzzer writes (bytes to
// values, some special), bit for bit.
func FuzzTiersMomentum(f *testing.F) {
	f.Add(uint64(1), []byte{1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19})
	f.Add(uint64(2), []byte{0, 8, 16, 24, 32, 200, 0, 8, 16, 24, 32, 200, 0, 8, 16, 24, 32})
	f.Fuzz(func(t *testing.T, seed uint64, b []byte) {
		n := len(b) / 2
		ref := tierMom(generic)
		forEachTier(t, asmOnly, func(im *impl) {
			r := rand.New(rand.NewPCG(seed, 6))
			p := momSteps[int(seed%uint64(len(momSteps)))]
			in := newMomInput(r, n, 0, p.Gamma)
			for i := 0; i < n; i++ {
				in.w[i], in.g[i] = fuzzValue(r, b[2*i]), 20*fuzzValue(r, b[2*i+1])
			}
			for _, m := range momModes {
				if d := momDiff(t, tierMom(im), ref, in, p, int(seed%4), m.ncg, m.nilA, m.nilC); d != "" {
					t.Fatalf("%s %s n=%d: %s", im.name, m.name, n, d)
				}
			}
		})
	})
}
