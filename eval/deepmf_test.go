package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
)

// bruteMFCheck compares the mean-field bound of every row with log p(v) −
// KL(q ‖ p(h | v)) computed by brute force over every hidden state, for
// the q the result returns, and checks that it lies below log p(v).
func bruteMFCheck(t *testing.T, name string, d *DBM, rows *data.Set, logZ float64, res *MeanFieldResult) {
	t.Helper()
	sizes := stackSizes(d.Layers)
	for r := 0; r < rows.N; r++ {
		v := rowFloat64(rows, r)
		var lj []float64
		var states [][][]float64
		forEachHidden(sizes, func(h [][]float64) {
			lj = append(lj, bruteDBMLogJoint(d, v, h))
			states = append(states, h)
		})
		lpv := logSumExp(lj) // log Σ_h exp(−E(v, h))
		logp := lpv - logZ
		var kl float64
		for s, h := range states {
			lq := 0.0
			for l := 1; l < len(sizes); l++ {
				mu := res.Means[l-1][r*sizes[l] : (r+1)*sizes[l]]
				for i, m := range mu {
					p := float64(m)
					if h[l][i] == 0 {
						p = 1 - p
					}
					lq += math.Log(p)
				}
			}
			if !math.IsInf(lq, -1) {
				kl += math.Exp(lq) * (lq - (lj[s] - lpv))
			}
		}
		want := logp - kl
		got := res.LogP[r]
		if math.Abs(got-want) > 2e-5*math.Max(1, math.Abs(want)) {
			t.Errorf("%s row %d: bound %.8f, log p(v) − KL(q‖p) = %.8f (log p %.6f, KL %.6f)", name, r, got, want, logp, kl)
		}
		if got > logp+1e-6 {
			t.Errorf("%s row %d: bound %.8f above log p(v) = %.8f", name, r, got, logp)
		}
	}
}

// The bound of every row is log p(v) − KL(q ‖ p(h | v)) for the q it
// returns, so a wrong energy, entropy or log Z term fails, and it lies
// below log p(v); binary, categorical and Gaussian visible units, 2 and 3
// RBMs.
func TestDBMMeanFieldBruteForce(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		sizes []int
		vis   unit.Type
	}{
		{"binary 6-4-3", []int{6, 4, 3}, unit.Binary},
		{"binary 5-3-4-3", []int{5, 3, 4, 3}, unit.Binary},
		{"categorical 5-4-3", []int{5, 4, 3}, unit.Categorical},
		{"gaussian 3-4-3", []int{3, 4, 3}, unit.Gaussian},
	} {
		d := &DBM{Layers: randomStack(c.sizes, 1, 7)}
		var rows *data.Set
		var logZ float64
		switch c.vis {
		case unit.Binary:
			rows, logZ = allBinaryRows(c.sizes[0]), bruteDBMJoint(d, nil)
		case unit.Categorical:
			d.Layers[0].Visible, d.Layers[0].Groups = unit.Categorical, data.Groups{0, 3, 5}
			x, n := oneHotStates(d.Layers[0].Groups)
			rows = binRows(x, n, 5)
			rows.Groups = data.Groups{0, 3, 5}
			logZ = bruteDBMJoint(d, nil)
		case unit.Gaussian:
			m := d.Layers[0]
			m.Visible, m.Sigma = unit.Gaussian, []float32{0.7, 1.2, 1}
			rng := rand.New(rand.NewPCG(3, 3))
			v := make([]float32, 20*3)
			for k := range v {
				v[k] = float32(rng.NormFloat64())
			}
			rows, logZ = realRows(v, 20, 3), bruteGaussDBMLogZ(d)
		}
		for _, it := range []int{0, 1, 6} {
			res, err := DBMMeanField(ctx, d, rows, logZ, MeanFieldConfig{Iterations: it, Means: true})
			if err != nil {
				t.Fatal(err)
			}
			bruteMFCheck(t, c.name, d, rows, logZ, res)
			if res.Mean != mean(res.LogP) {
				t.Errorf("%s: Mean %v, mean of the rows %v", c.name, res.Mean, mean(res.LogP))
			}
		}
	}
}

// The means are the fixed-point updates written out: the bottom-up pass
// doubles the input from below for every layer but the top; a sweep
// updates the layers in order from the latest values, the top-down input
// included; and each sweep raises the bound (each layer's update is the
// exact maximum of the bound over that layer's means).
func TestDBMMeanFieldUpdates(t *testing.T) {
	ctx := context.Background()
	d := &DBM{Layers: randomStack([]int{6, 4, 3, 2}, 1.5, 3)}
	rows := allBinaryRows(6)
	sizes := stackSizes(d.Layers)
	L := len(d.Layers)
	// input returns layer l's input from the means mu (mu[0] = v), from
	// below times f, and from above if above.
	input := func(mu [][]float64, l int, f float64, above bool) []float64 {
		a := bruteBias(d, l)
		m := d.Layers[l-1]
		for i := range a {
			var s float64
			for j := 0; j < m.X; j++ {
				s += mu[l-1][j] * float64(m.C[j*m.H+i])
			}
			a[i] += f * s
			if above && l < L {
				u := d.Layers[l]
				for k := 0; k < u.H; k++ {
					a[i] += float64(u.C[i*u.H+k]) * mu[l+1][k]
				}
			}
		}
		return a
	}
	got := func(res *MeanFieldResult, r int) [][]float64 {
		mu := [][]float64{rowState(rows, r)}
		for l := 1; l <= L; l++ {
			mu = append(mu, widen(res.Means[l-1][r*sizes[l]:(r+1)*sizes[l]]))
		}
		return mu
	}
	near := func(what string, r, l int, have, want []float64) {
		for i := range want {
			if math.Abs(have[i]-want[i]) > 1e-5 {
				t.Errorf("%s row %d layer %d unit %d: μ = %.7f, want %.7f", what, r, l, i, have[i], want[i])
				return
			}
		}
	}
	up, err := DBMMeanField(ctx, d, rows, 0, MeanFieldConfig{Means: true})
	if err != nil {
		t.Fatal(err)
	}
	one, err := DBMMeanField(ctx, d, rows, 0, MeanFieldConfig{Iterations: 1, Means: true})
	if err != nil {
		t.Fatal(err)
	}
	many, err := DBMMeanField(ctx, d, rows, 0, MeanFieldConfig{Iterations: 200, Tol: 1e-7, Means: true})
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < rows.N; r++ {
		// The bottom-up pass from v, written out.
		mu := [][]float64{rowState(rows, r)}
		for l := 1; l <= L; l++ {
			f := 2.0
			if l == L {
				f = 1
			}
			a := input(mu, l, f, false)
			for i := range a {
				a[i] = sigmoid64(a[i])
			}
			mu = append(mu, a)
		}
		for l := 1; l <= L; l++ {
			near("bottom-up", r, l, got(up, r)[l], mu[l])
		}
		// One sweep from it, in layer order.
		for l := 1; l <= L; l++ {
			a := input(mu, l, 1, true)
			for i := range a {
				a[i] = sigmoid64(a[i])
			}
			mu[l] = a
		}
		for l := 1; l <= L; l++ {
			near("one sweep", r, l, got(one, r)[l], mu[l])
		}
		// At convergence each layer is its own update.
		fix := got(many, r)
		for l := 1; l <= L; l++ {
			a := input(fix, l, 1, true)
			for i := range a {
				a[i] = sigmoid64(a[i])
			}
			near("fixed point", r, l, fix[l], a)
		}
		if many.Sweeps[r] >= 200 || many.Sweeps[r] < 1 {
			t.Errorf("row %d: %d sweeps to converge within 1e-7", r, many.Sweeps[r])
		}
		if one.Sweeps[r] != 1 || up.Sweeps[r] != 0 {
			t.Errorf("row %d: sweeps %d and %d, want 1 and 0", r, one.Sweeps[r], up.Sweeps[r])
		}
		if !(one.LogP[r] >= up.LogP[r]-1e-6 && many.LogP[r] >= one.LogP[r]-1e-6) {
			t.Errorf("row %d: the bound fell over the sweeps: %.7f, %.7f, %.7f", r, up.LogP[r], one.LogP[r], many.LogP[r])
		}
	}
}

// The same bits for any number of workers, rows in several chunks, and a
// row's result is its own: measured alone it is the same, bit for bit,
// however many sweeps the other rows of its chunk take.
func TestDBMMeanFieldWorkers(t *testing.T) {
	d := &DBM{Layers: randomStack([]int{9, 5, 4}, 1, 2)}
	rows := allBinaryRows(9) // 512 rows: 4 chunks
	cfg := MeanFieldConfig{Iterations: 20, Tol: 1e-4, Workers: 1, Means: true}
	ref, err := DBMMeanField(context.Background(), d, rows, 3, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3} {
		cfg.Workers = w
		res, err := DBMMeanField(context.Background(), d, rows, 3, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for r := range ref.LogP {
			if res.LogP[r] != ref.LogP[r] || res.Sweeps[r] != ref.Sweeps[r] {
				t.Fatalf("workers %d row %d: %v (%d sweeps), workers 1: %v (%d)", w, r, res.LogP[r], res.Sweeps[r], ref.LogP[r], ref.Sweeps[r])
			}
		}
	}
	lo, hi := ref.Sweeps[0], ref.Sweeps[0]
	for _, s := range ref.Sweeps {
		lo, hi = min(lo, s), max(hi, s)
	}
	if lo == hi || hi == cfg.Iterations {
		t.Fatalf("every row took %d…%d sweeps: the test needs rows that stop at different sweeps", lo, hi)
	}
	cfg.Workers = 1
	for _, r := range []int{0, 77, 300, 511} {
		one, err := DBMMeanField(context.Background(), d, binRows(rows.X[r*9:(r+1)*9], 1, 9), 3, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if one.LogP[0] != ref.LogP[r] || one.Sweeps[0] != ref.Sweeps[r] {
			t.Errorf("row %d alone: %v (%d sweeps), among the others: %v (%d)", r, one.LogP[0], one.Sweeps[0], ref.LogP[r], ref.Sweeps[r])
		}
	}
}

func TestDBMMeanFieldBadInput(t *testing.T) {
	ctx := context.Background()
	d := &DBM{Layers: randomStack([]int{4, 3, 2}, 1, 1)}
	for _, c := range []struct {
		rows *data.Set
		logZ float64
		cfg  MeanFieldConfig
	}{
		{allBinaryRows(5), 0, MeanFieldConfig{}},
		{allBinaryRows(4), math.NaN(), MeanFieldConfig{}},
		{allBinaryRows(4), 0, MeanFieldConfig{Iterations: -1}},
		{allBinaryRows(4), 0, MeanFieldConfig{Tol: math.NaN()}},
		{realRows(make([]float32, 8), 2, 4), 0, MeanFieldConfig{}},
	} {
		if _, err := DBMMeanField(ctx, d, c.rows, c.logZ, c.cfg); err == nil {
			t.Errorf("rows of %d units, log Z %v, %+v: accepted", c.rows.D, c.logZ, c.cfg)
		}
	}
}
