package eval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
)

// dbmAISModels are the small DBMs the AIS tests anneal: 2 and 3 RBMs,
// binary, categorical and Gaussian visible units, weights of size ~1.
func dbmAISModels() []struct {
	name string
	d    *DBM
} {
	var out []struct {
		name string
		d    *DBM
	}
	add := func(name string, layers []*Model) {
		out = append(out, struct {
			name string
			d    *DBM
		}{name, &DBM{Layers: layers}})
	}
	add("binary 8-5-3", randomStack([]int{8, 5, 3}, 0.8, 11))
	add("binary 7-4-5", randomStack([]int{7, 4, 5}, 0.8, 12))
	add("binary 6-4-3-4", randomStack([]int{6, 4, 3, 4}, 0.8, 13))
	add("binary 5-3-5-3", randomStack([]int{5, 3, 5, 3}, 0.8, 14))
	cat := randomStack([]int{7, 4, 4}, 0.8, 15)
	cat[0].Visible, cat[0].Groups = unit.Categorical, data.Groups{0, 3, 7}
	add("categorical 7-4-4", cat)
	g := randomStack([]int{4, 4, 3}, 0.5, 16)
	g[0].Visible, g[0].Sigma = unit.Gaussian, []float32{0.8, 1, 1.2, 0.9}
	add("gaussian 4-4-3", g)
	return out
}

// AIS's error against the exact log Z is what its variance allows: over
// the 6 models, each annealed from a base fitted to rows (FitDBMBase) and
// from zero biases with seeds of its own, Σ (error/SE)² of the 12
// estimates, SE the delta-method standard error, stays below χ²₁₂'s 0.999
// quantile 32.91: a false alarm for 1 set of seeds in 1000 if the errors
// were normal with that scale (measured on 300 fresh sets of seeds: none
// above, mean 12.4 where χ²₁₂'s is 12).
func TestDBMAISVsExact(t *testing.T) {
	ctx := context.Background()
	var chi2 float64
	for k, c := range dbmAISModels() {
		exact, err := DBMExactLogZ(ctx, c.d, 0)
		if err != nil {
			t.Fatal(err)
		}
		rows := dbmTrainRows(c.d, 100, uint64(k))
		base, err := FitDBMBase(ctx, c.d, rows, MeanFieldConfig{Iterations: 5})
		if err != nil {
			t.Fatal(err)
		}
		for b, bs := range [][][]float32{base, nil} {
			seed := uint64(2*k + b)
			res, err := DBMAIS(ctx, c.d, DBMAISConfig{Runs: 100, Betas: UniformSchedule(400), Seed: seed, Base: bs})
			if err != nil {
				t.Fatal(err)
			}
			e := res.LogZ - exact
			chi2 += (e / res.SE) * (e / res.SE)
			t.Logf("%s base %d: log Ẑ %.4f, exact %.4f, error %.4f = %.2f SE, ESS %.0f", c.name, b, res.LogZ, exact, e, e/res.SE, res.ESS)
			if res.Runs != 100 || res.Intervals != 400 || len(res.LogWeights) != 100 || res.Seed != seed {
				t.Errorf("%s: result records runs %d intervals %d weights %d seed %d", c.name, res.Runs, res.Intervals, len(res.LogWeights), res.Seed)
			}
		}
	}
	if chi2 > 32.91 {
		t.Errorf("Σ (error/SE)² = %.1f over 12 estimates exceeds χ²₁₂'s 0.999 quantile 32.91", chi2)
	}
}

// dbmTrainRows returns n rows for a DBM's visible layer: uniform binary
// rows, a random one-hot value per group, or standard normal values.
func dbmTrainRows(d *DBM, n int, seed uint64) *data.Set {
	m := d.Layers[0]
	rng := rand.New(rand.NewPCG(seed, 5))
	switch m.Visible {
	case unit.Gaussian:
		v := make([]float32, n*m.X)
		for k := range v {
			v[k] = float32(rng.NormFloat64())
		}
		return realRows(v, n, m.X)
	case unit.Categorical:
		x := make([]uint8, n*m.X)
		for r := 0; r < n; r++ {
			for k := 0; k < m.Groups.Len(); k++ {
				x[r*m.X+m.Groups[k]+rng.IntN(m.Groups.Size(k))] = 1
			}
		}
		s := binRows(x, n, m.X)
		s.Groups = m.Groups
		return s
	}
	x := make([]uint8, n*m.X)
	for k := range x {
		x[k] = uint8(rng.IntN(2))
	}
	return binRows(x, n, m.X)
}

// With no weights and the base the model's own even biases, every log
// weight telescopes to Σ_{odd l} Σ_i softplus(b^l_i) − n_l·log 2, so log Ẑ
// is the exact log Z: a wrong log Z_A, a missed interval or a wrong odd
// layer's term shows.
func TestDBMAISNoWeights(t *testing.T) {
	ctx := context.Background()
	for _, sizes := range [][]int{{5, 3, 4}, {4, 3, 2, 3, 2}} {
		layers := randomStack(sizes, 0, 3)
		d := &DBM{Layers: layers}
		base := make([][]float32, len(sizes))
		for l := 0; l < len(sizes); l += 2 {
			base[l] = narrow(bruteBias(d, l))
		}
		exact, err := DBMExactLogZ(ctx, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		res, err := DBMAIS(ctx, d, DBMAISConfig{Runs: 5, Betas: UniformSchedule(7), Base: base})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.LogZ-exact) > 1e-5 {
			t.Errorf("%v: log Ẑ = %.7f, exact %.7f", sizes, res.LogZ, exact)
		}
		var want float64
		for l := 1; l < len(sizes); l += 2 {
			for _, b := range bruteBias(d, l) {
				want += softplus64(b) - math.Ln2
			}
		}
		for r, w := range res.LogWeights {
			if math.Abs(w-want) > 1e-5 {
				t.Errorf("%v run %d: log w = %.7f, want %.7f", sizes, r, w, want)
			}
		}
	}
}

// With one or two intervals AIS is importance sampling from the base
// model (then one Gibbs sweep at β = ½): Ẑ is unbiased whatever the
// schedule only if the runs start from the base model, the weights are
// the ratios of the right marginals and the sweep leaves π_½ invariant.
// 20,000 runs from a base away from uniform; |error/SE| ≤ 4.5 for each of
// 4 estimates. The weights are heavy-tailed, so error/SE is not normal
// (0.5% of fresh estimates exceed 3.29); of 5,000 fresh estimates none
// exceeded 4.
func TestDBMAISShortSchedules(t *testing.T) {
	ctx := context.Background()
	for k, sizes := range [][]int{{5, 3, 4}, {4, 3, 3, 2}} {
		d := &DBM{Layers: randomStack(sizes, 0.7, uint64(40+k))}
		exact, err := DBMExactLogZ(ctx, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		base := make([][]float32, len(sizes))
		for l := 0; l < len(sizes); l += 2 {
			base[l] = make([]float32, sizes[l])
			for i := range base[l] {
				base[l][i] = float32(1 - i%3) // 1, 0, −1, …
			}
		}
		for _, betas := range [][]float64{{0, 1}, {0, 0.5, 1}} {
			res, err := DBMAIS(ctx, d, DBMAISConfig{Runs: 20000, Betas: betas, Seed: uint64(k), Base: base})
			if err != nil {
				t.Fatal(err)
			}
			if z := (res.LogZ - exact) / res.SE; math.Abs(z) > 4.5 {
				t.Errorf("%v, β %v: log Ẑ %.5f ± %.5f, exact %.5f: z = %.2f", sizes, betas, res.LogZ, res.SE, exact, z)
			}
		}
	}
}

// The same bits for any number of workers.
func TestDBMAISDeterminism(t *testing.T) {
	ctx := context.Background()
	for _, c := range dbmAISModels()[2:] {
		cfg := DBMAISConfig{Runs: 13, Betas: UniformSchedule(50), Seed: 9, Workers: 1}
		ref, err := DBMAIS(ctx, c.d, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{2, 3, 0} {
			cfg.Workers = w
			res, err := DBMAIS(ctx, c.d, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for r := range ref.LogWeights {
				if res.LogWeights[r] != ref.LogWeights[r] {
					t.Fatalf("%s workers %d run %d: log w %v, workers 1: %v", c.name, w, r, res.LogWeights[r], ref.LogWeights[r])
				}
			}
		}
		cfg.Seed = 10
		other, _ := DBMAIS(ctx, c.d, cfg)
		if other.LogWeights[0] == ref.LogWeights[0] {
			t.Errorf("%s: another seed gives the same weights", c.name)
		}
	}
}

func TestDBMAISBadInput(t *testing.T) {
	ctx := context.Background()
	d := &DBM{Layers: randomStack([]int{4, 3, 2}, 1, 1)}
	for _, c := range []struct {
		cfg  DBMAISConfig
		want string
	}{
		{DBMAISConfig{Base: [][]float32{nil, nil}}, "base has 2 layers, want 3"},
		{DBMAISConfig{Base: [][]float32{nil, {0, 0, 0}, nil}}, "layer 1: the odd layers are summed out"},
		{DBMAISConfig{Base: [][]float32{nil, nil, {0}}}, "layer 2 has 1 biases, want 2"},
		{DBMAISConfig{Base: [][]float32{nil, nil, {0, float32(math.Inf(1))}}}, "base bias 1 of layer 2"},
		{DBMAISConfig{Base: [][]float32{{0}, nil, nil}}, "base biases have length 1, want X = 4"},
		{DBMAISConfig{Betas: []float64{0, 0.5}}, "must start at 0 and end at 1"},
	} {
		c.cfg.Runs = 2
		_, err := DBMAIS(ctx, d, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := DBMAIS(cctx, d, DBMAISConfig{Runs: 2, Betas: UniformSchedule(600)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

// FitDBMBase: the visible layer's base is FitBase's, each even hidden
// layer's the smoothed base rate of its mean-field means, the odd ones
// none.
func TestFitDBMBase(t *testing.T) {
	ctx := context.Background()
	d := &DBM{Layers: randomStack([]int{6, 4, 5, 3, 2}, 1, 4)}
	rows := dbmTrainRows(d, 300, 1)
	cfg := MeanFieldConfig{Iterations: 3}
	base, err := FitDBMBase(ctx, d, rows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want0, _ := FitBase(d.Layers[0], rows)
	for j, v := range want0 {
		if base[0][j] != v {
			t.Errorf("visible base %d = %v, FitBase %v", j, base[0][j], v)
		}
	}
	cfg.Means = true
	mf, err := DBMMeanField(ctx, d, rows, 0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for l := 1; l < len(base); l++ {
		if l%2 == 1 {
			if base[l] != nil {
				t.Errorf("odd layer %d has a base", l)
			}
			continue
		}
		n := len(mf.Means[l-1]) / rows.N
		for i := 0; i < n; i++ {
			var s float64
			for r := 0; r < rows.N; r++ {
				s += float64(mf.Means[l-1][r*n+i])
			}
			p := (s + 0.025*300) / (300 * 1.05)
			want := math.Log(p / (1 - p))
			if math.Abs(float64(base[l][i])-want) > 1e-5 {
				t.Errorf("layer %d unit %d: base %v, want logit(%.5f) = %v", l, i, base[l][i], p, want)
			}
		}
	}
}
