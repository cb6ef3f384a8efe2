package eval

// Tests that pin AIS's definition (Salakhutdinov & Murray 2008) with
// expected values derived here: a float64 transcription of one AIS run,
// the production schedule's intervals, the production base rate, and the
// CI rule that a missing reference file fails rather than skips.

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ncg-rbm/ncg/internal/datatest"
	"github.com/ncg-rbm/ncg/kernel"
)

// referenceAISRun is one AIS run as the definition states it, in float64
// loops, drawing the same uniforms as AIS (run id's stream, one uniform per
// unit of each sampled layer, in blocks of kernel.Lanes):
//
//	x ~ p_A; for k = 1..K: log w += log p*_{β_k}(x) − log p*_{β_{k−1}}(x);
//	then, for k < K, h ~ σ(β_k(b + Cx)) and x ~ σ((1−β_k)d_A + β_k(d + Cᵀh)),
//
// with log p*_β(x) = (1−β)xᵀd_A + βxᵀd + Σ_i softplus(β(b_i + C_i·x)).
func referenceAISRun(m *Model, betas []float64, dA []float32, seed, id uint64) float64 {
	X, H := m.X, m.H
	st := kernel.NewStream(seed, id)
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	sample := func(p []float64) []float64 {
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
	logp := func(beta float64, x []float64) float64 {
		var v float64
		for j := 0; j < X; j++ {
			v += x[j] * ((1-beta)*float64(dA[j]) + beta*float64(m.VisibleBias[j]))
		}
		for i := 0; i < H; i++ {
			a := float64(m.HiddenBias[i])
			for j := 0; j < X; j++ {
				a += float64(m.C[j*H+i]) * x[j]
			}
			v += softplus64(beta * a)
		}
		return v
	}
	p := make([]float64, X)
	for j := range p {
		p[j] = sig(float64(dA[j]))
	}
	x := sample(p)
	var logw float64
	K := len(betas) - 1
	for k := 1; k <= K; k++ {
		logw += logp(betas[k], x) - logp(betas[k-1], x)
		if k == K {
			break
		}
		ph := make([]float64, H)
		for i := range ph {
			a := float64(m.HiddenBias[i])
			for j := 0; j < X; j++ {
				a += float64(m.C[j*H+i]) * x[j]
			}
			ph[i] = sig(betas[k] * a)
		}
		h := sample(ph)
		for j := range p {
			a := float64(m.VisibleBias[j])
			for i := 0; i < H; i++ {
				a += float64(m.C[j*H+i]) * h[i]
			}
			p[j] = sig((1-betas[k])*float64(dA[j]) + betas[k]*a)
		}
		x = sample(p)
	}
	return logw
}

// TestAISMatchesDefinition: every run's log weight equals the float64
// transcription's (same uniforms), on schedules with unequal steps (so
// that a transition at a neighbouring β changes the chain), coarse enough
// for the two-softplus path and fine enough for the series. The tolerance,
// 1e-4, covers the float32 products and softplus of AIS (observed: a few
// 1e-6).
func TestAISMatchesDefinition(t *testing.T) {
	coarse, err := PiecewiseSchedule([]float64{0, 0.3, 0.8, 1}, []int{20, 90, 40})
	if err != nil {
		t.Fatal(err)
	}
	fine := UniformSchedule(1500)
	for _, c := range []struct {
		X, H  int
		betas []float64
	}{{13, 9, coarse}, {30, 20, coarse}, {21, 11, fine}} {
		m := randomModel(c.X, c.H, 0.6, uint64(c.X))
		dA := make([]float32, c.X)
		for j := range dA {
			dA[j] = float32(j%5)*0.4 - 1
		}
		const runs, seed = 5, 3
		res, err := AIS(context.Background(), m, AISConfig{Runs: runs, Betas: c.betas, Seed: seed, BaseBias: dA})
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for r := 0; r < runs; r++ {
			want := referenceAISRun(m, c.betas, dA, seed, uint64(r))
			got := res.LogWeights[r]
			worst = math.Max(worst, math.Abs(got-want))
			if math.Abs(got-want) > 1e-4 {
				t.Errorf("X=%d H=%d, %d intervals, run %d: log weight %.6f, definition %.6f", c.X, c.H, len(c.betas)-1, r, got, want)
			}
		}
		t.Logf("X=%d H=%d, %d intervals: largest |log weight − definition| %.2g", c.X, c.H, len(c.betas)-1, worst)
	}
}

// TestAISProductionSchedule: AIS with no schedule given runs the published
// one, β from 0 to 1 in steps of 1e-3 to 0.5, 1e-4 to 0.9 and 1e-5 to 1:
// 0.5/1e-3 + 0.4/1e-4 + 0.1/1e-5 intervals. On a model with C = 0 and
// d = d_A every run's log weight telescopes to Σ_i softplus(b_i) − H·ln 2
// whatever the chain does, provided every interval up to β = 1 is counted,
// so log Ẑ is log Z = Σ_j softplus(d_j) + Σ_i softplus(b_i). With b_i = 100
// a schedule that stops one interval short (at 1 − 1e-5) is low by
// H·100·1e-5 = 0.02.
func TestAISProductionSchedule(t *testing.T) {
	steps := []struct{ from, to, step float64 }{{0, 0.5, 1e-3}, {0.5, 0.9, 1e-4}, {0.9, 1, 1e-5}}
	want := 0
	for _, s := range steps {
		want += int(math.Round((s.to - s.from) / s.step))
	}
	b := DefaultSchedule()
	if len(b)-1 != want || b[0] != 0 || b[len(b)-1] != 1 {
		t.Fatalf("default schedule: %d intervals from %v to %v, want %d from 0 to 1", len(b)-1, b[0], b[len(b)-1], want)
	}
	for k := 1; k < len(b); k++ {
		for _, s := range steps {
			if b[k-1] >= s.from && b[k] <= s.to+1e-12 {
				if d := b[k] - b[k-1]; math.Abs(d-s.step) > 1e-12 {
					t.Fatalf("interval %d: step %v, want %v", k, d, s.step)
				}
			}
		}
	}

	const X, H = 6, 20
	m := &Model{X: X, H: H, C: make([]float32, X*H), HiddenBias: make([]float32, H), VisibleBias: make([]float32, X)}
	logZ := 0.0
	for i := range m.HiddenBias {
		m.HiddenBias[i] = 100
		logZ += softplus64(100)
	}
	for j := range m.VisibleBias {
		m.VisibleBias[j] = float32(j)*0.5 - 1.2
		logZ += softplus64(float64(m.VisibleBias[j]))
	}
	res, err := AIS(context.Background(), m, AISConfig{Runs: 3, Seed: 1, BaseBias: m.VisibleBias})
	if err != nil {
		t.Fatal(err)
	}
	if res.Intervals != want {
		t.Errorf("AIS reports %d intervals, want %d", res.Intervals, want)
	}
	t.Logf("log Ẑ − log Z = %.2g", res.LogZ-logZ)
	if math.Abs(res.LogZ-logZ) > 1e-4 {
		t.Errorf("log Ẑ = %.5f, exact log Z = %.5f (an interval short of β = 1 is 0.02 low)", res.LogZ, logZ)
	}
}

// TestDataBaseRate: the production base rate adds 0.025 ones and 0.025
// zeros per training row to each unit's count: with 40 rows, one of each,
// so p_j = (count_j + 1)/42.
func TestDataBaseRate(t *testing.T) {
	const n, X = 40, 3
	x := make([]uint8, n*X)
	counts := []int{0, 13, 40}
	for j, c := range counts {
		for r := 0; r < c; r++ {
			x[r*X+j] = 1
		}
	}
	d, err := DataBaseRate(x, n, X)
	if err != nil {
		t.Fatal(err)
	}
	for j, c := range counts {
		p := (float64(c) + 1) / 42
		if want := math.Log(p / (1 - p)); math.Abs(float64(d[j])-want) > 1e-6 {
			t.Errorf("unit %d (count %d of %d): base bias %.6f, want logit(%d/42) = %.6f", j, c, n, d[j], c+1, want)
		}
	}
}

// fakeTB records what a data helper did with a test.
type fakeTB struct{ skipped, failed string }

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Skipf(format string, args ...any)  { f.skipped = fmt.Sprintf(format, args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

// TestMissingReferenceFailsInCI: the tests that read reference/ (the CD-25
// model) or MNIST skip when the file is missing on a developer's machine
// but fail when CI=true and NCG_REQUIRE_DATA=1.
func TestMissingReferenceFailsInCI(t *testing.T) {
	dir := t.TempDir() // a data directory without reference/
	if err := os.Mkdir(filepath.Join(dir, "mnist"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NCG_DATA", dir)
	t.Setenv("CI", "")
	t.Setenv("NCG_REQUIRE_DATA", "")
	var tb fakeTB
	datatest.File(&tb, "reference/mnistvh_CD25.mat")
	if tb.skipped == "" || tb.failed != "" {
		t.Errorf("outside CI: skipped %q, failed %q; want a skip", tb.skipped, tb.failed)
	}
	t.Setenv("CI", "true")
	t.Setenv("NCG_REQUIRE_DATA", "1")
	tb = fakeTB{}
	datatest.File(&tb, "reference/mnistvh_CD25.mat")
	if tb.failed == "" || tb.skipped != "" {
		t.Errorf("CI=true NCG_REQUIRE_DATA=1: skipped %q, failed %q; want a failure", tb.skipped, tb.failed)
	}
}
