package engine

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ncg-rbm/ncg/unit"
)

// TestGibbsSamplesTheModel: Gibbs's chains sample a small model's
// distribution, enumerated in float64 (χ² at a false-alarm rate of 10⁻³
// over 3000 chains of 40 steps), for binary units (2⁶ states) and
// categorical ones (the 3·2·3 one-hot states), and the returned means are
// the conditional means given the last hidden states: in [0, 1], summing
// to 1 in each group of a categorical model. A chain that drew its
// visible units from the wrong conditional (per unit instead of per
// group, or from the probabilities of the previous step) fails.
func TestGibbsSamplesTheModel(t *testing.T) {
	const h, n, steps = 3, 3000, 40
	for _, u := range []unit.Type{unit.Binary, unit.Categorical} {
		var d *Data
		if u == unit.Categorical {
			d = categoricalData(21, 30, []int{3, 2, 3}, 0)
		} else {
			d = randomData(21, 30, 6, 0)
		}
		cfg := smallConfig(Dense)
		cfg.Hidden, cfg.Visible = h, u
		tr, err := New(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		m := tr.Model()
		x := m.X
		weights := []float32{3, -3, 2.5, 3, -2, -3, 3, 2.5, 2, -3, 3, -3, 2, 2.5, -3, -3, 3, 3, 2, -2, 1, -1, 3, -3}
		copy(m.W, weights[:x*h])
		for i := range m.HiddenBias {
			m.HiddenBias[i] = -float32(i%2) - 1
		}
		for j := range m.VisibleBias {
			m.VisibleBias[j] = float32(j%3) - 1
		}
		m.refreshC()
		v := make([]float32, n*x)
		for c := 0; c < n; c++ {
			for j := 0; j < d.D; j++ {
				v[c*x+j] = float32(d.X[(c%d.N)*d.D+j])
			}
		}
		means, err := Gibbs(context.Background(), m, v, n, steps, 5)
		if err != nil {
			t.Fatal(err)
		}
		// Enumerate the states: every binary vector, or every one-hot one.
		var states [][]float64
		for s := 0; s < 1<<x; s++ {
			st := make([]float64, x)
			ok := true
			for j := range st {
				st[j] = float64(s >> j & 1)
			}
			if u == unit.Categorical {
				for k := 0; k < m.Groups.Len(); k++ {
					on := 0.0
					for _, b := range st[m.Groups[k]:m.Groups[k+1]] {
						on += b
					}
					ok = ok && on == 1
				}
			}
			if ok {
				states = append(states, st)
			}
		}
		p := make([]float64, len(states))
		counts := make([]float64, len(states))
		var z float64
		for k, st := range states {
			lp := 0.0
			for j := 0; j < x; j++ {
				lp += float64(m.VisibleBias[j]) * st[j]
			}
			for i := 0; i < h; i++ {
				a := float64(m.HiddenBias[i])
				for j := 0; j < x; j++ {
					a += float64(m.c[j*h+i]) * st[j]
				}
				lp += math.Log1p(math.Exp(a))
			}
			p[k] = math.Exp(lp)
			z += p[k]
		}
	chains:
		for c := 0; c < n; c++ {
			for k, st := range states {
				same := true
				for j := range st {
					same = same && float64(v[c*x+j]) == st[j]
				}
				if same {
					counts[k]++
					continue chains
				}
			}
			t.Fatalf("%s: chain %d ended in %v, not a state of the model", u.Name(), c, v[c*x:(c+1)*x])
		}
		chi2, cells := chiSquare(counts, p, z, n)
		limit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(1 - 1e-3)
		if chi2 > limit {
			t.Errorf("%s: Gibbs's chains do not sample the model: χ² = %.1f > %.1f (%d cells)", u.Name(), chi2, limit, cells)
		}
		for c := 0; c < n; c++ {
			if u == unit.Categorical {
				for k := 0; k < m.Groups.Len(); k++ {
					var s float64
					for _, q := range means[c*x+m.Groups[k] : c*x+m.Groups[k+1]] {
						s += float64(q)
					}
					if math.Abs(s-1) > 1e-6 {
						t.Fatalf("categorical: chain %d's means of group %d sum to %v", c, k, s)
					}
				}
			}
			for _, q := range means[c*x : (c+1)*x] {
				if !(q >= 0 && q <= 1) {
					t.Fatalf("%s: a mean %v outside [0, 1]", u.Name(), q)
				}
			}
		}
		tr.Close()
	}
}

// TestGibbsGaussianMoments: a Gaussian model with one hidden unit is a
// mixture of two Gaussians, v ~ N(d + Cᵀh, σ²) with P(h = 1) =
// σ(c + ½Σ((b+C)²−b²)/σ²) worked out from the exact marginal; the
// chains' mean and variance of each visible unit match the mixture's
// within 5 standard errors, so a chain that ignored σ, or drew v from the
// wrong hidden state, fails.
func TestGibbsGaussianMoments(t *testing.T) {
	const n, steps = 4000, 30
	d := gaussData(3, 20, 3)
	cfg := gaussConfig(Dense, true)
	cfg.Hidden = 1
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	m := tr.Model()
	copy(m.W, []float32{1.5, -1, 0.5})
	copy(m.VisibleBias, []float32{0.2, 0.5, -0.3})
	copy(m.LogVar, []float32{-0.5, 0.3, 0})
	m.HiddenBias[0] = -0.4
	m.refreshC()
	m.refreshSigma(nil, 0, 3)
	// log p*(h) = c·h + Σ_j ((b_j + C_j h)² − b_j²)/(2σ_j²)
	var a float64 = float64(m.HiddenBias[0])
	for j := 0; j < 3; j++ {
		b, c, s := float64(m.VisibleBias[j]), float64(m.c[j]), float64(m.Sigma[j])
		a += ((b+c)*(b+c) - b*b) / (2 * s * s)
	}
	p1 := 1 / (1 + math.Exp(-a))
	v := make([]float32, n*3)
	if _, err := Gibbs(context.Background(), m, v, n, steps, 9); err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 3; j++ {
		b, c, s := float64(m.VisibleBias[j]), float64(m.c[j]), float64(m.Sigma[j])
		mean := b + p1*c
		variance := s*s + p1*(1-p1)*c*c
		var sum, sq float64
		for k := 0; k < n; k++ {
			sum += float64(v[k*3+j])
		}
		got := sum / n
		for k := 0; k < n; k++ {
			e := float64(v[k*3+j]) - got
			sq += e * e
		}
		gotVar := sq / (n - 1)
		if se := math.Sqrt(variance / n); math.Abs(got-mean) > 5*se {
			t.Errorf("unit %d: mean %.4f, want %.4f ± %.4f", j, got, mean, 5*se)
		}
		// The variance's standard error, √(2/n)·σ², ignoring the excess kurtosis of the mixture (small here).
		if se := math.Sqrt(2.0/n) * variance; math.Abs(gotVar-variance) > 6*se {
			t.Errorf("unit %d: variance %.4f, want %.4f ± %.4f", j, gotVar, variance, 6*se)
		}
	}
}
