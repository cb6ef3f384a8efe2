package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ncg-rbm/ncg/data"
)

// annealedMarginal enumerates q(x) = (p_A T_1 ⋯ T_K)(x), the distribution
// of AIS's forward chain after its last transition, for a small model.
func annealedMarginal(m *Model, dA []float32, betas []float64) []float64 {
	X, H := m.X, m.H
	sig := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	bit := func(s, j int) float64 { return float64(s >> j & 1) }
	q := make([]float64, 1<<X)
	for s := range q {
		p := 1.0
		for j := 0; j < X; j++ {
			pj := sig(float64(dA[j]))
			if bit(s, j) == 0 {
				pj = 1 - pj
			}
			p *= pj
		}
		q[s] = p
	}
	for k := 1; k < len(betas); k++ {
		b := betas[k]
		next := make([]float64, len(q))
		for s, ps := range q {
			for hs := 0; hs < 1<<H; hs++ {
				ph := ps
				for i := 0; i < H; i++ {
					a := float64(m.HiddenBias[i])
					for j := 0; j < X; j++ {
						a += bit(s, j) * float64(m.C[j*H+i])
					}
					pi := sig(b * a)
					if bit(hs, i) == 0 {
						pi = 1 - pi
					}
					ph *= pi
				}
				for t := range next {
					pt := ph
					for j := 0; j < X; j++ {
						z := float64(m.VisibleBias[j])
						for i := 0; i < H; i++ {
							z += bit(hs, i) * float64(m.C[j*H+i])
						}
						pj := sig((1-b)*float64(dA[j]) + b*z)
						if bit(t, j) == 0 {
							pj = 1 - pj
						}
						pt *= pj
					}
					next[t] += pt
				}
			}
		}
		q = next
	}
	return q
}

// TestRAISEIsUnbiasedForTheAnnealedModel: the mean of many chains' p̂(x)
// is q(x), the probability that AIS's forward chain ends at x, computed by
// enumeration on a 4×3 model with a 5-interval schedule.
func TestRAISEIsUnbiasedForTheAnnealedModel(t *testing.T) {
	m := randomModel(4, 3, 1.5, 7)
	dA := []float32{0.3, -0.5, 1, -1.2}
	betas := []float64{0, 0.1, 0.3, 0.6, 0.8, 1}
	q := annealedMarginal(m, dA, betas)
	var total float64
	for _, v := range q {
		total += v
	}
	if math.Abs(total-1) > 1e-9 {
		t.Fatalf("annealed marginal sums to %v", total)
	}
	const chains = 40000
	for _, s := range []int{0, 5, 10, 15} {
		row := []uint8{uint8(s & 1), uint8(s >> 1 & 1), uint8(s >> 2 & 1), uint8(s >> 3 & 1)}
		res, err := RAISE(context.Background(), m, binRows(row, 1, 4), RAISEConfig{Chains: chains, Betas: betas, BaseBias: dA, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		// The chains' relative spread is below 1 here, so 40,000 of them
		// give the mean to about 0.5%; allow 3%.
		if got := math.Exp(res.LogP[0]); math.Abs(got/q[s]-1) > 0.03 {
			t.Errorf("x = %04b: mean p̂ = %.5f, q(x) = %.5f", s, got, q[s])
		}
	}
}

// TestRAISEMatchesExactNLL: on a 12×8 model with a fine schedule RAISE's
// NLL is within 0.05 nats of the exact one, and not below it by more than
// its noise (it errs high, AIS low), for any number of workers.
func TestRAISEMatchesExactNLL(t *testing.T) {
	m := randomModel(12, 8, 0.8, 11)
	r := rand.New(rand.NewPCG(5, 5))
	const n = 40
	x := make([]uint8, n*m.X)
	for i := range x {
		x[i] = uint8(r.IntN(2))
	}
	logZ, err := ExactLogZ(context.Background(), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := AverageNLL(context.Background(), m, logZ, binRows(x, n, m.X), 0)
	if err != nil {
		t.Fatal(err)
	}
	betas := UniformSchedule(2000)
	var first *RAISEResult
	for _, w := range []int{1, 3} {
		res, err := RAISE(context.Background(), m, binRows(x, n, m.X), RAISEConfig{Chains: 4, Betas: betas, Seed: 1, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
		} else if res.MeanLogP != first.MeanLogP {
			t.Fatalf("workers %d: mean log p %v, with 1 worker %v", w, res.MeanLogP, first.MeanLogP)
		}
	}
	nll := -first.MeanLogP
	t.Logf("exact NLL %.4f, RAISE %.4f ± %.4f", exact, nll, first.SE)
	if math.Abs(nll-exact) > 0.05 {
		t.Errorf("RAISE NLL %.4f, exact %.4f", nll, exact)
	}
	checkRowsLogP(t, m, logZ, binRows(x, n, m.X), first)
}

// checkRowsLogP checks that RAISE's estimate of every row is that row's:
// within 0.25 nats of its exact log-probability −F(x) − log Z (the rows'
// log-probabilities spread over several nats; observed: at most 0.05
// for binary and categorical units, 0.11 for Gaussian ones).
func checkRowsLogP(t *testing.T, m *Model, logZ float64, rows *data.Set, res *RAISEResult) {
	t.Helper()
	f, err := FreeEnergies(context.Background(), m, rows, 1)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for i, fi := range f {
		d := math.Abs(res.LogP[i] - (-fi - logZ))
		worst = math.Max(worst, d)
		if d > 0.25 {
			t.Errorf("row %d: RAISE log p %.4f, exact %.4f", i, res.LogP[i], -fi-logZ)
		}
	}
	t.Logf("largest |RAISE log p − exact| over the rows: %.3f", worst)
}

func TestRAISEErrors(t *testing.T) {
	m := randomModel(4, 3, 1, 1)
	if _, err := RAISE(context.Background(), m, binRows(nil, 0, 4), RAISEConfig{}); err == nil {
		t.Error("no rows: no error")
	}
	if _, err := RAISE(context.Background(), m, binRows([]uint8{0, 1, 2, 0}, 1, 4), RAISEConfig{}); err == nil {
		t.Error("a value 2: no error")
	}
	if _, err := RAISE(context.Background(), m, binRows([]uint8{0, 1, 1, 0}, 1, 4), RAISEConfig{Betas: []float64{0, 0.5}}); err == nil {
		t.Error("a schedule not ending at 1: no error")
	}
}
