package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
)

// randomCategoricalModel returns a categorical model whose groups have the
// given sizes, weights ~ N(0, scale²) and biases ~ N(0, 1/4).
func randomCategoricalModel(sizes []int, H int, scale float64, seed uint64) *Model {
	g := data.Groups{0}
	for _, k := range sizes {
		g = append(g, g[len(g)-1]+k)
	}
	m := randomModel(g[len(g)-1], H, scale, seed)
	m.Visible, m.Groups = unit.Categorical, g
	return m
}

// oneHotStates returns every visible state of a categorical model: one
// unit on in each group, as rows (Π_g K_g of them, row-major).
func oneHotStates(g data.Groups) (x []uint8, n int) {
	X := g[len(g)-1]
	idx := make([]int, g.Len()) // the unit on in each group, relative
	for {
		row := make([]uint8, X)
		for k, i := range idx {
			row[g[k]+i] = 1
		}
		x = append(x, row...)
		n++
		k := 0
		for ; k < len(idx); k++ {
			if idx[k]++; idx[k] < g.Size(k) {
				break
			}
			idx[k] = 0
		}
		if k == len(idx) {
			return x, n
		}
	}
}

// bruteCategoricalLogZ sums exp(dᵀx + bᵀh + xᵀCh) over every one-hot x
// and every hidden state, in float64 (bruteEnergy is the binary −E, the
// same function of a one-hot x).
func bruteCategoricalLogZ(m *Model) float64 {
	x, n := oneHotStates(m.Groups)
	var terms []float64
	for r := 0; r < n; r++ {
		xs := 0
		for j, v := range x[r*m.X : (r+1)*m.X] {
			xs |= int(v) << j
		}
		for hs := 0; hs < 1<<m.H; hs++ {
			terms = append(terms, bruteEnergy(m, xs, hs))
		}
	}
	return logSumExp(terms)
}

// TestCategoricalExactLogZBruteForce: ExactLogZ of categorical models
// (groups of one to four units, several chunks of 4096 hidden states with
// refreshes) equals the sum over every one-hot visible configuration and
// every hidden state to 1e-12 relative, bit-identically for any number of
// workers.
func TestCategoricalExactLogZBruteForce(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		sizes []int
		H     int
		scale float64
	}{{[]int{3, 2, 4}, 5, 1}, {[]int{2, 2, 2, 2}, 7, 1.5}, {[]int{1, 3}, 4, 0.8}, {[]int{3, 2}, 14, 0.7}, {[]int{4}, 1, 2}} {
		for seed := uint64(1); seed <= 2; seed++ {
			m := randomCategoricalModel(c.sizes, c.H, c.scale, seed)
			want := bruteCategoricalLogZ(m)
			ref, err := ExactLogZ(ctx, m, 1)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(ref-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("groups %v H=%d seed %d: log Z = %.15f, brute force %.15f", c.sizes, c.H, seed, ref, want)
			}
			for _, w := range []int{2, 3} {
				if got, _ := ExactLogZ(ctx, m, w); math.Float64bits(got) != math.Float64bits(ref) {
					t.Errorf("groups %v H=%d seed %d: workers %d: %v, workers 1: %v", c.sizes, c.H, seed, w, got, ref)
				}
			}
		}
	}
	big := randomCategoricalModel([]int{2, 3}, 26, 0.1, 1)
	if _, err := ExactLogZ(ctx, big, 1); err == nil || !strings.Contains(err.Error(), "2^26") {
		t.Errorf("26 hidden units: %v", err)
	}
}

// TestCategoricalFreeEnergies: F(x) of every one-hot row is
// −log Σ_h exp(−E(x, h)) from the energy, the probabilities
// exp(−F(x) − log Z) of the one-hot rows sum to 1, and the exact NLL is
// mean F + log Z.
func TestCategoricalFreeEnergies(t *testing.T) {
	ctx := context.Background()
	m := randomCategoricalModel([]int{3, 2, 4, 1}, 6, 1, 3)
	x, n := oneHotStates(m.Groups)
	rows := categoricalRows(m, x, n)
	f, err := FreeEnergies(ctx, m, rows, 2)
	if err != nil {
		t.Fatal(err)
	}
	lz, err := ExactLogZ(ctx, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	var nll, psum float64
	for r := 0; r < n; r++ {
		want := bruteFreeEnergy(m, x[r*m.X:(r+1)*m.X])
		if math.Abs(f[r]-want) > 1e-5*math.Max(1, math.Abs(want)) {
			t.Errorf("row %d: F = %.7f, want %.7f", r, f[r], want)
		}
		nll += (want + lz) / float64(n)
		psum += math.Exp(-want - lz)
	}
	if math.Abs(psum-1) > 1e-9 {
		t.Errorf("the one-hot rows' probabilities sum to %.12f", psum)
	}
	got, err := ExactNLL(ctx, m, rows, 3)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-nll) > 1e-5 {
		t.Errorf("ExactNLL = %.7f, want %.7f", got, nll)
	}
}

// TestCategoricalAgainstBinary: the same parameters as a binary model put
// mass on every binary vector, as a categorical model on the one-hot ones
// only: Z_binary − Z_categorical is the binary model's mass off the one-hot
// vectors (by enumeration), and every one-hot row has the same free
// energy under both, so the categorical NLL of one-hot rows is the binary
// one less log(Z_binary/Z_categorical) > 0.
func TestCategoricalAgainstBinary(t *testing.T) {
	ctx := context.Background()
	m := randomCategoricalModel([]int{3, 2, 3}, 5, 1, 4)
	b := *m
	b.Visible, b.Groups = unit.Binary, nil
	zc, err := ExactLogZ(ctx, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	zb, err := ExactLogZ(ctx, &b, 1)
	if err != nil {
		t.Fatal(err)
	}
	var off []float64 // −F of the binary model at every vector that is not one-hot
	oneHot := func(xs int) bool {
		for k := 0; k < m.Groups.Len(); k++ {
			on := 0
			for j := m.Groups[k]; j < m.Groups[k+1]; j++ {
				on += xs >> j & 1
			}
			if on != 1 {
				return false
			}
		}
		return true
	}
	row := make([]uint8, m.X)
	for xs := 0; xs < 1<<m.X; xs++ {
		if oneHot(xs) {
			continue
		}
		for j := range row {
			row[j] = uint8(xs >> j & 1)
		}
		off = append(off, -bruteFreeEnergy(m, row))
	}
	// log(Z_b − Z_c) = log Z_b + log(1 − exp(log Z_c − log Z_b)).
	if got, want := zb+math.Log1p(-math.Exp(zc-zb)), logSumExp(off); math.Abs(got-want) > 1e-4 {
		t.Errorf("log(Z_binary − Z_categorical) = %.6f, the binary mass off the one-hot vectors %.6f", got, want)
	}
	x, n := oneHotStates(m.Groups)
	nc, err := AverageNLL(ctx, m, zc, categoricalRows(m, x, n), 1)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := AverageNLL(ctx, &b, zb, binRows(x, n, m.X), 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs((nb-nc)-(zb-zc)) > 1e-9 || !(zb > zc) {
		t.Errorf("NLL binary %.6f, categorical %.6f: differ by %.9f, want log Z_b − log Z_c = %.9f > 0", nb, nc, nb-nc, zb-zc)
	}
}

// categoricalRows is the n rows x of a categorical model as a set with the
// model's groups.
func categoricalRows(m *Model, x []uint8, n int) *data.Set {
	s := binRows(x, n, m.X)
	s.Groups = m.Groups
	return s
}

// randomOneHot draws n one-hot rows of the groups, unit k of group g with
// probability proportional to k+1.
func randomOneHot(g data.Groups, n int, seed uint64) []uint8 {
	rng := rand.New(rand.NewPCG(seed, 21))
	X := g[len(g)-1]
	x := make([]uint8, n*X)
	for r := 0; r < n; r++ {
		for k := 0; k < g.Len(); k++ {
			K := g.Size(k)
			u := rng.IntN(K * (K + 1) / 2)
			i := 0
			for c := 1; u >= c; c++ {
				u -= c
				i++
			}
			x[r*X+g[k]+i] = 1
		}
	}
	return x
}

// TestCategoricalRefuses: a categorical model needs groups covering its
// visible units, no Sigma, and rows of its groups with one unit on in each.
func TestCategoricalRefuses(t *testing.T) {
	ctx := context.Background()
	m := randomCategoricalModel([]int{3, 2}, 4, 1, 1)
	for _, c := range []struct {
		edit func(*Model)
		want string
	}{
		{func(m *Model) { m.Groups = nil }, "needs its Groups"},
		{func(m *Model) { m.Groups = data.Groups{0, 3, 4} }, "groups cover 4 units"},
		{func(m *Model) { m.Sigma = []float32{1, 1, 1, 1, 1} }, "Sigma but categorical"},
		{func(m *Model) { m.Visible = unit.Binary }, "Groups but binary"},
	} {
		bad := *m
		c.edit(&bad)
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error about %q, got %v", c.want, err)
		}
	}
	good := []uint8{0, 1, 0, 1, 0, 1, 0, 0, 0, 1}
	for _, c := range []struct {
		rows *data.Set
		want string
	}{
		{binRows(good, 2, 5), "categorical groups"},
		{&data.Set{Name: "rows", N: 2, D: 5, X: []uint8{0, 1, 0, 1, 0, 1, 1, 0, 0, 1}, Groups: m.Groups}, "row 1, group 0"},
		{&data.Set{Name: "rows", N: 2, D: 5, X: good, Groups: data.Groups{0, 2, 5}}, "not the model's"},
		{&data.Set{Name: "rows", N: 1, D: 5, Real: []float32{0, 1, 0, 1, 0}}, "binary rows"},
	} {
		if _, err := FreeEnergies(ctx, m, c.rows, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("rows %+v: %v, want an error about %q", c.rows, err, c.want)
		}
	}
	// Label units must be the last group.
	labelled := &data.Set{Name: "rows", N: 2, D: 3, X: []uint8{0, 1, 0, 1, 0, 0}, Groups: data.Groups{0, 3}, Labels: []int32{0, 1}, NumClasses: 2}
	if _, err := ClassifyPaper(ctx, m, labelled, 1); err != nil {
		t.Errorf("2 label units, the last group: %v", err)
	}
	m3 := randomCategoricalModel([]int{2, 3}, 4, 1, 1)
	if _, err := ClassifyPaper(ctx, m3, labelled, 1); err == nil || !strings.Contains(err.Error(), "last group is units 2…4") {
		t.Errorf("2 label units, a last group of 3: %v", err)
	}
}

// TestCategoricalFitBase: the base model of categorical units is the log
// of each unit's frequency in its group, with 0.025·N added to every
// count: for 40 rows, one, so p = (count + 1)/(40 + K).
func TestCategoricalFitBase(t *testing.T) {
	m := randomCategoricalModel([]int{3, 2}, 2, 1, 1)
	const n = 40
	x := make([]uint8, n*5)
	counts := []int{0, 13, 27, 40, 0}
	for r := 0; r < n; r++ {
		switch {
		case r < 13:
			x[r*5+1] = 1
		default:
			x[r*5+2] = 1
		}
		x[r*5+3] = 1
	}
	d, err := FitBase(m, categoricalRows(m, x, n))
	if err != nil {
		t.Fatal(err)
	}
	for j, c := range counts {
		K := 3.0
		if j >= 3 {
			K = 2
		}
		if want := math.Log((float64(c) + 1) / (n + K)); math.Abs(float64(d[j])-want) > 1e-6 {
			t.Errorf("unit %d (count %d of %d): base %.6f, want log((count+1)/(40+%v)) = %.6f", j, c, n, d[j], K, want)
		}
	}
}

// TestCategoricalClassifyBruteForce compares both rules with float64
// computations from their definitions on every one-hot data vector of
// random categorical models whose label units are the last group: the
// free-energy rule is argmin F(x, y) over the one-hot labels, the paper's
// rule the largest label score with the label units at 0.5.
func TestCategoricalClassifyBruteForce(t *testing.T) {
	const L, H = 3, 5
	for seed := uint64(1); seed <= 4; seed++ {
		m := randomCategoricalModel([]int{3, 2, 2, L}, H, 1.5, seed)
		dg := m.Groups[:len(m.Groups)-1]
		D := dg[len(dg)-1]
		x, n := oneHotStates(dg)
		labels := make([]int, n)
		for r := range labels {
			labels[r] = r % L
		}
		rows := labelledRows(x, n, D, labels, L)
		rows.Groups = dg
		paper, err := ClassifyPaper(context.Background(), m, rows, 3)
		if err != nil {
			t.Fatal(err)
		}
		free, err := ClassifyFreeEnergy(context.Background(), m, rows, 2)
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < n; r++ {
			row := x[r*D : (r+1)*D]
			full := make([]uint8, D+L)
			copy(full, row)
			var negF, score [L]float64
			for y := 0; y < L; y++ {
				clear(full[D:])
				full[D+y] = 1
				negF[y] = -bruteFreeEnergy(m, full)
				score[y] = float64(m.VisibleBias[D+y])
			}
			for i := 0; i < H; i++ {
				a := float64(m.HiddenBias[i])
				for j := 0; j < D; j++ {
					a += float64(row[j]) * float64(m.C[j*H+i])
				}
				for y := 0; y < L; y++ {
					a += 0.5 * float64(m.C[(D+y)*H+i])
				}
				hi := 1 / (1 + math.Exp(-a))
				for y := 0; y < L; y++ {
					score[y] += float64(m.C[(D+y)*H+i]) * hi
				}
			}
			if p := free.Pred[r]; negF[p] < maxOf(negF[:])-1e-5 {
				t.Errorf("seed %d row %d: free-energy rule picked %d, −F = %v", seed, r, p, negF)
			}
			if p := paper.Pred[r]; score[p] < maxOf(score[:])-1e-5 {
				t.Errorf("seed %d row %d: paper rule picked %d, scores %v", seed, r, p, score)
			}
		}
	}
}

// TestEvaluateCategoricalExact: the automatic choice for a categorical
// model enumerates its hidden layer whatever X is; on a small model log Z
// and the NLL are the brute-force ones, and with label units (the last
// group) the joint NLL is that of the rows with their one-hot labels.
func TestEvaluateCategoricalExact(t *testing.T) {
	for _, c := range []struct {
		X, H int
		want Likelihood
	}{{784, 20, LikelihoodExact}, {784, 21, LikelihoodAIS}, {5, 30, LikelihoodAIS}} {
		g := &Model{X: c.X, H: c.H, Visible: unit.Categorical}
		if got := LikelihoodAuto.ResolveModel(g, 0); got != c.want {
			t.Errorf("categorical %d×%d: %q, want %q", c.X, c.H, got, c.want)
		}
	}
	ctx := context.Background()
	m := randomCategoricalModel([]int{3, 2, 4}, 6, 1, 5)
	dg := m.Groups[:3]
	const n = 30
	x := randomOneHot(m.Groups, n, 1)
	train := &data.Set{Name: "train", N: n, D: 5, X: make([]uint8, n*5), Groups: dg, Labels: make([]int32, n), NumClasses: 4}
	for r := 0; r < n; r++ {
		copy(train.X[r*5:(r+1)*5], x[r*9:r*9+5])
		for y := 0; y < 4; y++ {
			if x[r*9+5+y] == 1 {
				train.Labels[r] = int32(y)
			}
		}
	}
	wantZ := bruteCategoricalLogZ(m)
	var want float64
	for r := 0; r < n; r++ {
		want += (bruteFreeEnergy(m, x[r*9:(r+1)*9]) + wantZ) / n
	}
	got, err := Evaluate(ctx, m, Sets{Train: train}, Plan{Likelihood: LikelihoodExact, LabelUnits: 4, Accuracy: PaperRule | FreeEnergyRule, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.LogZ-wantZ) > 1e-12*math.Abs(wantZ) || math.Abs(got.NLL-want) > 1e-5 || math.IsNaN(got.Accuracy) || math.IsNaN(got.AccuracyFreeEnergy) {
		t.Errorf("log Z %.12f (brute force %.12f), joint NLL %.7f (want %.7f), accuracies %v %v", got.LogZ, wantZ, got.NLL, want, got.Accuracy, got.AccuracyFreeEnergy)
	}
	// Without label units: the rows of all three groups.
	all := categoricalRows(m, x, n)
	got, err = Evaluate(ctx, m, Sets{Train: all}, Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Likelihood != LikelihoodExact || math.Abs(got.NLL-want) > 1e-5 {
		t.Errorf("%s: NLL %.7f, want exact %.7f", got.Likelihood, got.NLL, want)
	}
	// The plan's label units must be the model's last group.
	three := &data.Set{Name: "train", N: 1, D: 6, X: []uint8{1, 0, 0, 1, 0, 0}, Groups: data.Groups{0, 3, 6}, Labels: []int32{0}, NumClasses: 3}
	if _, err := Evaluate(ctx, m, Sets{Train: three}, Plan{Likelihood: LikelihoodExact, LabelUnits: 3}); err == nil || !strings.Contains(err.Error(), "last group is units 5…8") {
		t.Errorf("3 label units of a last group of 4: %v", err)
	}
}
