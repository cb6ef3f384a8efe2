package eval

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// referenceNormals draws n standard normals from st as gaussians does:
// Box–Muller on pairs of Uint32 draws, (a + ½)·2⁻³² and (b + ½)·2⁻³².
func referenceNormals(st *kernel.Stream, n int) []float64 {
	u := make([]uint32, 2*((n+1)/2))
	st.Uint32s(u)
	z := make([]float64, n)
	for i := range z {
		p := i &^ 1
		r := math.Sqrt(-2 * math.Log((float64(u[p])+0.5)/4294967296))
		th := 2 * math.Pi * (float64(u[p+1]) + 0.5) / 4294967296
		if i%2 == 0 {
			z[i] = r * math.Cos(th)
		} else {
			z[i] = r * math.Sin(th)
		}
	}
	return z
}

// referenceHiddenRun is one run of AIS of the hidden marginal as its
// definition states it, in float64 loops, for any unit type, drawing the
// same numbers as AIS from run id's stream:
//
//	h ~ σ(b_A); for k = 1..K: log w += log f_{β_k}(h) − log f_{β_{k−1}}(h);
//	then, for k < K, x from the visible conditional at β_k given h, and
//	h ~ σ((1−β_k)b_A + β_k a(x)),
//
// with log f_β(h) = (1−β)b_Aᵀh + βbᵀh + G_β(v), v = d + Cᵀh (Gaussian:
// μ = b + Ch), and G_β = Σ_j softplus(β v_j) (binary), Σ_g logsumexp(β v_g)
// (categorical) or β·Σ_i (μ_i² − b_i²)/(2σ_i²) (Gaussian); the visible
// conditional σ(β v) (one uniform per unit), softmax(β v_g) (one uniform
// per group, the first unit whose cumulative probability exceeds it) or
// N(μ, σ²/β) (normals as gaussians draws them); a(x) = c + C·x, x/σ² for
// Gaussian units. It returns log w.
func referenceHiddenRun(m *Model, betas []float64, bA []float32, seed, id uint64) float64 {
	X, H := m.X, m.H
	st := kernel.NewStream(seed, id)
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	bern := func(p []float64) []float64 {
		u := make([]float32, len(p))
		st.Uniforms(u)
		s := make([]float64, len(p))
		for k := range p {
			if float64(u[k]) < p[k] {
				s[k] = 1
			}
		}
		return s
	}
	vis := func(h []float64) []float64 {
		v := make([]float64, X)
		for j := range v {
			v[j] = float64(m.VisibleBias[j])
			for i := 0; i < H; i++ {
				v[j] += float64(m.C[j*H+i]) * h[i]
			}
		}
		return v
	}
	logf := func(beta float64, h []float64) float64 {
		var lf float64
		for i := range h {
			lf += h[i] * ((1-beta)*float64(bA[i]) + beta*float64(m.HiddenBias[i]))
		}
		v := vis(h)
		switch m.Visible {
		case unit.Binary:
			for _, x := range v {
				lf += softplus64(beta * x)
			}
		case unit.Categorical:
			g := m.Groups
			for k := 0; k < g.Len(); k++ {
				z := make([]float64, g.Size(k))
				for j := range z {
					z[j] = beta * v[g[k]+j]
				}
				lf += logSumExp(z)
			}
		case unit.Gaussian:
			for j, mu := range v {
				b := float64(m.VisibleBias[j])
				lf += beta * (mu*mu - b*b) / (2 * m.sigma(j) * m.sigma(j))
			}
		}
		return lf
	}
	draw := func(beta float64, h []float64) []float64 {
		v := vis(h)
		x := make([]float64, X)
		switch m.Visible {
		case unit.Binary:
			p := make([]float64, X)
			for j := range p {
				p[j] = sig(beta * v[j])
			}
			x = bern(p)
		case unit.Categorical:
			g := m.Groups
			u := make([]float32, g.Len())
			st.Uniforms(u)
			for k := 0; k < g.Len(); k++ {
				z := make([]float64, g.Size(k))
				for j := range z {
					z[j] = beta * v[g[k]+j]
				}
				c, on := 0.0, len(z)-1
				for j, pj := range softmax64(z) {
					if c += pj; c > float64(u[k]) {
						on = j
						break
					}
				}
				x[g[k]+on] = 1
			}
		case unit.Gaussian:
			for j, z := range referenceNormals(&st, X) {
				x[j] = v[j] + m.sigma(j)/math.Sqrt(beta)*z
			}
		}
		return x
	}
	p := make([]float64, H)
	for i := range p {
		p[i] = sig(float64(bA[i]))
	}
	h := bern(p)
	var logw float64
	K := len(betas) - 1
	for k := 1; k <= K; k++ {
		b := float64(float32(betas[k])) // AIS's schedule is float32
		logw += logf(b, h) - logf(float64(float32(betas[k-1])), h)
		if k == K {
			break
		}
		x := draw(b, h)
		for i := range p {
			a := float64(m.HiddenBias[i])
			for j := 0; j < X; j++ {
				s2 := 1.0
				if m.Visible == unit.Gaussian {
					s2 = m.sigma(j) * m.sigma(j)
				}
				a += float64(m.C[j*H+i]) * x[j] / s2
			}
			p[i] = sig((1-b)*float64(bA[i]) + b*a)
		}
		h = bern(p)
	}
	return logw
}

// hiddenTestModels are small models of each unit type.
func hiddenTestModels(seed uint64) []*Model {
	return []*Model{
		randomModel(13, 9, 0.6, seed),
		randomModel(8, 15, 0.6, seed),
		randomCategoricalModel([]int{3, 2, 4, 1, 3}, 10, 0.6, seed),
		randomGaussModel(11, 9, 0.4, false, seed),
	}
}

// TestAISHiddenMatchesDefinition: every run of AIS of the hidden marginal
// has the log weight of the float64 transcription of its definition
// (same draws), for binary, categorical and Gaussian units, on a schedule
// with unequal steps (coarse: the two-softplus path) and a fine one (the
// series), from a base of unequal biases. The tolerance, 1e-4, covers the
// float32 products, softplus and draws (observed: below 2e-5).
func TestAISHiddenMatchesDefinition(t *testing.T) {
	coarse, err := PiecewiseSchedule([]float64{0, 0.3, 0.8, 1}, []int{20, 90, 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, betas := range [][]float64{coarse, UniformSchedule(1500)} {
		for _, m := range hiddenTestModels(3) {
			bA := make([]float32, m.H)
			for i := range bA {
				bA[i] = float32(i%4)*0.5 - 0.8
			}
			const runs, seed = 4, 5
			res, err := AIS(context.Background(), m, AISConfig{Runs: runs, Betas: betas, Seed: seed, BaseBias: bA, Hidden: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Hidden {
				t.Error("result does not say it annealed the hidden marginal")
			}
			var worst float64
			for r := 0; r < runs; r++ {
				want := referenceHiddenRun(m, betas, bA, seed, uint64(r))
				got := res.LogWeights[r]
				worst = math.Max(worst, math.Abs(got-want))
				if math.Abs(got-want) > 1e-4 {
					t.Errorf("%s %d×%d, %d intervals, run %d: log weight %.6f, definition %.6f", m.Visible.Name(), m.X, m.H, len(betas)-1, r, got, want)
				}
			}
			t.Logf("%s %d×%d, %d intervals: largest |log weight − definition| %.2g", m.Visible.Name(), m.X, m.H, len(betas)-1, worst)
		}
	}
}

// TestAISHiddenBase: log Z_A of the hidden base is Σ_i softplus(b_A_i)
// plus the visible layer's constant (binary: X·log 2; categorical:
// Σ_g log K_g; Gaussian: Σ_i ½·log(2πσ_i²)), written out here; and on a
// model with C = 0, hidden biases b_A and visible biases 0, f_β(h) is the
// base's e^{b_Aᵀh} times e^{G_β}, and G_β does not depend on β (binary:
// X·log 2; categorical: Σ_g log K_g; Gaussian: 0), so every log weight is
// 0 and log Ẑ is the exact log Z.
func TestAISHiddenBase(t *testing.T) {
	for _, m := range hiddenTestModels(7) {
		bA := make([]float32, m.H)
		var want float64
		for i := range bA {
			bA[i] = float32(i%3) - 1
			want += math.Log1p(math.Exp(float64(bA[i])))
		}
		switch m.Visible {
		case unit.Binary:
			want += float64(m.X) * math.Ln2
		case unit.Categorical:
			for k := 0; k < m.Groups.Len(); k++ {
				want += math.Log(float64(m.Groups.Size(k)))
			}
		case unit.Gaussian:
			for j := 0; j < m.X; j++ {
				want += 0.5 * math.Log(2*math.Pi*m.sigma(j)*m.sigma(j))
			}
		}
		res, err := AIS(context.Background(), m, AISConfig{Runs: 3, Betas: UniformSchedule(20), BaseBias: bA, Hidden: true})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.LogZBase-want) > 1e-9 {
			t.Errorf("%s: log Z_A = %.12f, want %.12f", m.Visible.Name(), res.LogZBase, want)
		}
		// C = 0, hidden biases b_A, visible biases 0: every f_β is the
		// base's times a constant that G_β alone carries.
		flat := *m
		flat.C = make([]float32, len(m.C))
		flat.HiddenBias = bA
		flat.VisibleBias = make([]float32, m.X)
		exact, err := ExactLogZ(context.Background(), &flat, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err = AIS(context.Background(), &flat, AISConfig{Runs: 3, Betas: UniformSchedule(20), BaseBias: bA, Hidden: true})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.LogZ-exact) > 1e-5 {
			t.Errorf("%s with C = 0: log Ẑ = %.8f, exact %.8f", m.Visible.Name(), res.LogZ, exact)
		}
	}
}

// TestAISHiddenVsExact: on 10 small models of each unit type whose log Z
// is known exactly, AIS of the hidden marginal from free hidden units has
// the error its variance allows, in the statistical style of
// TestAISVsExact: Σ (error/s)² over the 10 models of a type, s the
// delta-method standard error of log Ẑ, stays below χ²₁₀'s 0.999 quantile
// 29.59 (false-alarm rate 0.001 for a fresh set of seeds), and the exact
// value lies inside the ±3σ bounds for at least 9 of the 10. 50 runs ×
// 500 intervals.
func TestAISHiddenVsExact(t *testing.T) {
	for typ := range 4 {
		var chi2 float64
		inside := 0
		var name string
		for seed := uint64(1); seed <= 10; seed++ {
			m := hiddenTestModels(seed)[typ]
			name = fmt.Sprintf("%s %d×%d", m.Visible.Name(), m.X, m.H)
			exact, err := ExactLogZ(context.Background(), m, 0)
			if err != nil {
				t.Fatal(err)
			}
			res, err := AIS(context.Background(), m, AISConfig{Runs: 50, Betas: UniformSchedule(500), Seed: seed, Hidden: true})
			if err != nil {
				t.Fatal(err)
			}
			e := res.LogZ - exact
			se := logMeanExpSE(res.LogWeights)
			chi2 += (e / se) * (e / se)
			if res.LogZLo <= exact && exact <= res.LogZHi {
				inside++
			} else {
				t.Logf("%s seed %d: exact %.4f outside [%.4f, %.4f]", name, seed, exact, res.LogZLo, res.LogZHi)
			}
		}
		t.Logf("%s: Σ(error/s)² = %.1f; exact inside ±3σ for %d/10", name, chi2, inside)
		if chi2 > 29.59 {
			t.Errorf("%s: Σ (error/s)² = %.1f over 10 models exceeds χ²₁₀'s 0.999 quantile 29.59", name, chi2)
		}
		if inside < 9 {
			t.Errorf("%s: exact log Z inside the ±3σ bounds for %d of 10 models, want ≥ 9", name, inside)
		}
	}
}

// TestAISHiddenDeterminism: the same seed gives bit-identical log weights
// for 1, 2 and 3 workers (13 runs: blocks of 13, 7 and 5), for every unit
// type; the stream key moves every run to other draws.
func TestAISHiddenDeterminism(t *testing.T) {
	for _, m := range hiddenTestModels(9) {
		run := func(workers int, key uint64) *AISResult {
			res, err := AIS(context.Background(), m, AISConfig{Runs: 13, Betas: UniformSchedule(300), Seed: 42, Workers: workers, Hidden: true, key: key})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		ref := run(1, 0)
		for _, w := range []int{2, 3} {
			got := run(w, 0)
			for r := range ref.LogWeights {
				if math.Float64bits(got.LogWeights[r]) != math.Float64bits(ref.LogWeights[r]) {
					t.Fatalf("%s, %d workers: run %d log weight %v, 1 worker: %v", m.Visible.Name(), w, r, got.LogWeights[r], ref.LogWeights[r])
				}
			}
		}
		if other := run(2, 5<<40); other.LogWeights[0] == ref.LogWeights[0] {
			t.Errorf("%s: a stream key left run 0's draws as they were", m.Visible.Name())
		}
	}
}

// TestEffectiveSampleSize: (Σw)²/Σw² worked by hand: weights 1, 1, 1, 5
// give 64/28; equal weights give their number; one weight far above the
// others gives 1; huge log weights do not overflow. AIS records it, and
// the standard error of log Ẑ.
func TestEffectiveSampleSize(t *testing.T) {
	for _, c := range []struct {
		lw   []float64
		want float64
	}{
		{[]float64{0, 0, 0, math.Log(5)}, 64.0 / 28},
		{[]float64{-3, -3, -3, -3, -3, -3, -3}, 7},
		{[]float64{0, -800, -900}, 1},
		{[]float64{1000, 1000 + math.Log(3)}, 16.0 / 10},
	} {
		if got := effectiveSampleSize(c.lw); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ESS of log weights %v = %v, want %v", c.lw, got, c.want)
		}
	}
	if got := effectiveSampleSize([]float64{0, math.NaN()}); !math.IsNaN(got) {
		t.Errorf("ESS with a NaN log weight = %v, want NaN", got)
	}
	// AIS records it.
	res, err := AIS(context.Background(), randomModel(10, 6, 0.5, 1), AISConfig{Runs: 9, Betas: UniformSchedule(40)})
	if err != nil {
		t.Fatal(err)
	}
	if want := effectiveSampleSize(res.LogWeights); res.ESS != want || !(res.ESS >= 1 && res.ESS <= 9) {
		t.Errorf("AIS's ESS %v, want %v in [1, 9]", res.ESS, want)
	}
	// And the delta-method standard error of log Ẑ (logMeanExpSE, the
	// test's own).
	if want := logMeanExpSE(res.LogWeights); math.Abs(res.SE-want) > 1e-12*want {
		t.Errorf("AIS's SE %v, want %v", res.SE, want)
	}
	if se := logMeanSE([]float64{3}); !math.IsNaN(se) {
		t.Errorf("SE of one run %v, want NaN", se)
	}
}

// TestLSETaylorMatchesLogSumExp: the series for a categorical model's
// log-sum-exp differences agrees with float64 log-sum-exps: directly, on
// groups of one to five units over inputs from −25 to 25 at steps that
// keep |Δβ|·range within aisTaylorMax (within 1e-9 per group: the series'
// 3.3e-9 bound is far from reached, and the float32 probabilities move the
// moments by about 1e-7 of |v|, times Δβ), with the fallback refused
// beyond; and through AIS of the hidden marginal, whose log weights with
// and without the series differ by rounding only (1e-4).
func TestLSETaylorMatchesLogSumExp(t *testing.T) {
	v := []float32{-25, -3, 0.5, 2, 2.5, 0, 7, 25, -0.25, 1, 4, 1}
	g := data.Groups{0, 1, 3, 6, 8, 12}
	for _, bk := range []float64{0.05, 0.7, 1} {
		for _, db := range []float64{1e-5, 1e-4, 5e-4} {
			p := make([]float32, len(v))
			var want float64
			for k := 0; k < g.Len(); k++ {
				z := make([]float64, g.Size(k))
				for j := range z {
					z[j] = bk * float64(v[g[k]+j])
				}
				for j, q := range softmax64(z) {
					p[g[k]+j] = float32(q)
				}
				want += scaledLogSumExp(v[g[k]:g[k+1]], bk) - scaledLogSumExp(v[g[k]:g[k+1]], bk-db)
			}
			got, ok := lseDiffTaylor(db, v, p, g)
			if !ok {
				t.Fatalf("β %g, Δβ %g: series refused |Δβ|·range ≤ %g", bk, db, db*50)
			}
			if math.Abs(got-want) > 1e-9*float64(g.Len()) {
				t.Errorf("β %g, Δβ %g: series %.12g, log-sum-exps %.12g", bk, db, got, want)
			}
		}
	}
	if _, ok := lseDiffTaylor(0.01, []float32{0, 3}, []float32{0.5, 0.5}, data.Groups{0, 2}); ok {
		t.Error("series accepted |Δβ|·range = 0.03 > aisTaylorMax")
	}
	m := randomCategoricalModel([]int{3, 2, 4, 5}, 12, 0.6, 8)
	for _, k := range []int{30, 3000} {
		cfg := AISConfig{Runs: 5, Betas: UniformSchedule(k), Seed: 3, Hidden: true}
		a, err := AIS(context.Background(), m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		taylorWeights = false
		b, err := AIS(context.Background(), m, cfg)
		taylorWeights = true
		if err != nil {
			t.Fatal(err)
		}
		for r := range a.LogWeights {
			if d := math.Abs(a.LogWeights[r] - b.LogWeights[r]); d > 1e-4 || (k == 30 && d != 0) {
				t.Errorf("%d intervals, run %d: series %.7f, log-sum-exps %.7f", k, r, a.LogWeights[r], b.LogWeights[r])
			}
		}
	}
}
