package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Differential tests of the fused parameter updates and of PrefetchW.

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
