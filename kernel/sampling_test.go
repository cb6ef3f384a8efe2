package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Differential tests of Bernoulli sampling: the same states, bit for bit,
// and the same stream state after, on every tier.

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
