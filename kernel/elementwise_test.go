package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Differential tests of the element-wise kernels and of the Taylor sums.

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
