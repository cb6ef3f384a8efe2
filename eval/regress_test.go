package eval

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/ncg-rbm/ncg/internal/datatest"
	"github.com/ncg-rbm/ncg/internal/kerneltier"
	"github.com/ncg-rbm/ncg/kernel"
)

var updateRegress = flag.Bool("update-regress", false, "rewrite testdata/regress.json from the code as it stands")

// regressPath holds the figures of binary and Gaussian models recorded on
// each amd64 kernel tier.
const regressPath = "testdata/regress.json"

// figure is one recorded result: its number of values, the first few (to
// read a difference) and an FNV-1a hash of every value's bits.
type figure struct {
	N     int      `json:"n"`
	First []string `json:"first"`
	Hash  string   `json:"hash"`
}

func newFigure(v []float64) figure {
	h := fnv.New64a()
	f := figure{N: len(v)}
	for k, x := range v {
		var b [8]byte
		bits := math.Float64bits(x)
		for i := range b {
			b[i] = byte(bits >> (8 * i))
		}
		h.Write(b[:])
		if k < 4 {
			f.First = append(f.First, strconv.FormatFloat(x, 'g', -1, 64))
		}
	}
	f.Hash = fmt.Sprintf("%016x", h.Sum64())
	return f
}

// figures collects named results in the order they are computed.
type figures struct {
	t     *testing.T
	names []string
	by    map[string]figure
}

func (f *figures) add(name string, v ...float64) {
	f.t.Helper()
	if _, dup := f.by[name]; dup {
		f.t.Fatalf("figure %q recorded twice", name)
	}
	f.names = append(f.names, name)
	f.by[name] = newFigure(v)
}

func (f *figures) addInts(name string, v []int) {
	f.t.Helper()
	x := make([]float64, len(v))
	for k, p := range v {
		x[k] = float64(p)
	}
	f.add(name, x...)
}

func (f *figures) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func aisFigures(r *AISResult) []float64 {
	return append([]float64{r.LogZ, r.LogZLo, r.LogZHi, r.LogZBase, float64(r.Runs), float64(r.Intervals)}, r.LogWeights...)
}

func raiseFigures(r *RAISEResult) []float64 {
	return append([]float64{r.MeanLogP, r.SE, float64(r.Rows), float64(r.Chains), float64(r.Intervals)}, r.LogP...)
}

func metricFigures(m *Metrics) []float64 {
	v := []float64{m.LogZ, m.LogZLo, m.LogZHi, m.NLL, m.Accuracy, m.AccuracyFreeEnergy, m.TrainAccuracy, m.TrainAccuracyFreeEnergy, float64(m.Rows)}
	if m.AIS != nil {
		v = append(v, aisFigures(m.AIS)...)
	}
	if r := m.RAISE; r != nil {
		v = append(v, r.RowsNLL, r.Gap, r.GapSE)
		v = append(v, raiseFigures(r.RAISEResult)...)
	}
	return v
}

// regressionFigures computes the recorded figures on the current tier with
// the given number of workers: exact log Z, free energies, NLL, AIS, RAISE,
// classification and Evaluate, on small seeded binary and Gaussian models
// and, with cd25, on the CD-25 model with a short AIS.
func regressionFigures(t *testing.T, workers int, cd25 bool) *figures {
	ctx := context.Background()
	f := &figures{t: t, by: map[string]figure{}}
	fine, err := PiecewiseSchedule([]float64{0, 0.5, 0.9, 1}, []int{100, 400, 1500})
	f.must(err)
	coarse := UniformSchedule(300)

	// Binary: exact log Z over either layer, with refreshes and several chunks.
	for _, c := range []struct{ X, H int }{{12, 9}, {8, 14}, {30, 16}, {17, 13}} {
		m := randomModel(c.X, c.H, 0.7, uint64(c.X*c.H))
		z, err := ExactLogZ(ctx, m, workers)
		f.must(err)
		f.add(fmt.Sprintf("binary %d×%d exact log Z", c.X, c.H), z)
	}
	// Binary: free energies, NLL, AIS, RAISE.
	b := randomModel(60, 40, 0.3, 3)
	x := someData(b, 300, 4)
	fe, err := FreeEnergies(ctx, b, binRows(x, 300, 60), workers)
	f.must(err)
	f.add("binary free energies", fe...)
	nll, err := AverageNLL(ctx, b, 12.5, binRows(x, 300, 60), workers)
	f.must(err)
	f.add("binary average NLL", nll)
	small := randomModel(11, 7, 0.8, 5)
	xs := someData(small, 50, 6)
	nll, err = ExactNLL(ctx, small, binRows(xs, 50, 11), workers)
	f.must(err)
	f.add("binary exact NLL", nll)
	base, err := DataBaseRate(x, 300, 60)
	f.must(err)
	for name, cfg := range map[string]AISConfig{
		"binary AIS coarse":         {Runs: 7, Betas: coarse, Seed: 2, BaseBias: base},
		"binary AIS fine":           {Runs: 5, Betas: fine, Seed: 3, BaseBias: base},
		"binary AIS uniform base":   {Runs: 6, Betas: coarse, Seed: 4},
		"binary AIS fine, 70 runs":  {Runs: 70, Betas: UniformSchedule(50), Seed: 5, BaseBias: base},
		"binary AIS sparse weights": {Runs: 4, Betas: fine, Seed: 6, BaseBias: make([]float32, 60)},
	} {
		cfg.Workers = workers
		r, err := AIS(ctx, b, cfg)
		f.must(err)
		f.add(name, aisFigures(r)...)
	}
	r, err := RAISE(ctx, b, binRows(x[:3*60], 3, 60), RAISEConfig{Chains: 2, Betas: coarse, Seed: 7, Workers: workers, BaseBias: base})
	f.must(err)
	f.add("binary RAISE", raiseFigures(r)...)
	r, err = RAISE(ctx, b, binRows(x[60:2*60], 1, 60), RAISEConfig{Chains: 3, Betas: fine, Seed: 8, Workers: workers})
	f.must(err)
	f.add("binary RAISE uniform base", raiseFigures(r)...)

	// Binary: classification.
	const D, L = 9, 3
	cm := randomModel(D+L, 6, 1.2, 9)
	cx := someData(cm, 300, 10)[:300*D]
	labels := make([]int, 300)
	for k := range labels {
		labels[k] = (k * 7) % L
	}
	cp, err := ClassifyPaper(ctx, cm, labelledRows(cx, 300, D, labels, L), workers)
	f.must(err)
	f.addInts("classify paper", cp.Pred)
	f.add("classify paper accuracy", cp.Accuracy)
	cf, err := ClassifyFreeEnergy(ctx, cm, labelledRows(cx, 300, D, labels, L), workers)
	f.must(err)
	f.addInts("classify free energy", cf.Pred)
	f.add("classify free energy accuracy", cf.Accuracy)

	// Binary: Evaluate.
	trainSet := set("train", x[:200*60], 200, 60, nil, 0)
	testSet := set("test", x[200*60:], 100, 60, nil, 0)
	ev, err := Evaluate(ctx, b, Sets{Train: trainSet, Test: testSet},
		Plan{Likelihood: LikelihoodAIS, AISRuns: 6, AISIntervals: 250, AISSeed: 11, RAISERows: 3, RAISEChains: 2, Workers: workers})
	f.must(err)
	f.add("binary Evaluate AIS", metricFigures(ev)...)
	ev, err = Evaluate(ctx, small, Sets{Train: set("train", xs, 50, 11, nil, 0)}, Plan{Workers: workers, RAISERows: 2, AISIntervals: 100, UniformBase: true})
	f.must(err)
	f.add("binary Evaluate exact", metricFigures(ev)...)
	lab := make([]int32, 300)
	for k := range lab {
		lab[k] = int32(labels[k])
	}
	ev, err = Evaluate(ctx, cm, Sets{Train: set("train", cx[:200*D], 200, D, lab[:200], L), Test: set("test", cx[200*D:], 100, D, lab[200:], L)},
		Plan{Likelihood: LikelihoodExact, LabelUnits: L, Accuracy: PaperRule | FreeEnergyRule, TrainAccuracy: true, Workers: workers})
	f.must(err)
	f.add("binary Evaluate labelled", metricFigures(ev)...)

	// Gaussian: exact log Z, free energies, NLL.
	for _, c := range []struct {
		X, H int
		unit bool
	}{{10, 9, false}, {3, 16, true}, {25, 13, false}} {
		m := randomGaussModel(c.X, c.H, 0.4, c.unit, uint64(c.X+c.H))
		z, err := ExactLogZ(ctx, m, workers)
		f.must(err)
		f.add(fmt.Sprintf("gaussian %d×%d exact log Z", c.X, c.H), z)
	}
	g := randomGaussModel(37, 23, 0.2, false, 5)
	v := someRealData(g, 300, 6)
	gfe, err := FreeEnergies(ctx, g, realRows(v, 300, 37), workers)
	f.must(err)
	f.add("gaussian free energies", gfe...)
	nll, err = AverageNLL(ctx, g, -3.25, realRows(v, 300, 37), workers)
	f.must(err)
	f.add("gaussian average NLL", nll)
	gs := randomGaussModel(9, 8, 0.5, false, 7)
	vs := someRealData(gs, 40, 8)
	nll, err = ExactNLL(ctx, gs, realRows(vs, 40, 9), workers)
	f.must(err)
	f.add("gaussian exact NLL", nll)
	mA, err := BaseMean(v, 300, 37)
	f.must(err)
	for name, cfg := range map[string]AISConfig{
		"gaussian AIS coarse":       {Runs: 7, Betas: coarse, Seed: 2, BaseBias: mA},
		"gaussian AIS fine":         {Runs: 5, Betas: fine, Seed: 3, BaseBias: mA},
		"gaussian AIS uniform base": {Runs: 9, Betas: coarse, Seed: 4},
	} {
		cfg.Workers = workers
		r, err := AIS(ctx, g, cfg)
		f.must(err)
		f.add(name, aisFigures(r)...)
	}
	r, err = RAISE(ctx, g, realRows(v[:3*37], 3, 37), RAISEConfig{Chains: 2, Betas: coarse, Seed: 7, Workers: workers, BaseBias: mA})
	f.must(err)
	f.add("gaussian RAISE", raiseFigures(r)...)
	gtrain, gtest := realSet("train", v[:200*37], 200, 37), realSet("test", v[200*37:], 100, 37)
	ev, err = Evaluate(ctx, g, Sets{Train: gtrain, Test: gtest},
		Plan{Likelihood: LikelihoodAIS, AISRuns: 6, AISIntervals: 250, AISSeed: 11, RAISERows: 3, RAISEChains: 2, Workers: workers})
	f.must(err)
	f.add("gaussian Evaluate AIS", metricFigures(ev)...)
	gtrain = realSet("train", vs, 40, 9)
	ev, err = Evaluate(ctx, gs, Sets{Train: gtrain}, Plan{Workers: workers, RAISERows: 2, AISIntervals: 100, UniformBase: true})
	f.must(err)
	f.add("gaussian Evaluate exact", metricFigures(ev)...)

	// The CD-25 model: a short AIS from the MNIST base rate, RAISE, and
	// the free energies and NLL of the test images.
	if !cd25 {
		return f
	}
	if _, err := os.Stat(filepath.Join(dataDirOrEmpty(), "reference", "mnistvh_CD25.mat")); err != nil && !datatest.Required() {
		t.Log("CD-25 figures skipped: no data")
		return f
	}
	cd := loadCD25(t)
	train, test := loadMNIST(t)
	dA, err := DataBaseRate(train.x, train.n, train.X)
	f.must(err)
	short, err := PiecewiseSchedule([]float64{0, 0.5, 0.9, 1}, []int{20, 80, 100})
	f.must(err)
	a, err := AIS(ctx, cd, AISConfig{Runs: 9, Betas: short, Seed: 1, BaseBias: dA, Workers: workers})
	f.must(err)
	f.add("CD-25 AIS", aisFigures(a)...)
	nll, err = AverageNLL(ctx, cd, a.LogZ, binRows(test.x, test.n, 784), workers)
	f.must(err)
	f.add("CD-25 test NLL", nll)
	fe, err = FreeEnergies(ctx, cd, binRows(test.x[:500*784], 500, 784), workers)
	f.must(err)
	f.add("CD-25 free energies", fe...)
	r, err = RAISE(ctx, cd, binRows(test.x[:2*784], 2, 784), RAISEConfig{Chains: 1, Betas: UniformSchedule(100), Seed: 2, BaseBias: dA, Workers: workers})
	f.must(err)
	f.add("CD-25 RAISE", raiseFigures(r)...)
	return f
}

// dataDirOrEmpty is the shared data directory, or "" when there is none.
func dataDirOrEmpty() string {
	d, err := datatest.FindDir()
	if err != nil {
		return ""
	}
	return d
}

// TestRegressionFigures: every figure of binary and Gaussian models (exact
// log Z, free energies, NLL, AIS log weights and estimates, RAISE,
// classification, Evaluate's metrics) is bit-identical to the one recorded
// in testdata/regress.json for the kernel tier in use, with 1 and 3
// workers (CI runs the tests under every tier, NCG_KERNEL). The
// table pins the figures as they stand, so that a restructuring of the
// code cannot move a bit unnoticed; a change meant to move them rewrites
// it with -update-regress (and says why in its commit).
// Tiers without a record (arm64's) are skipped.
func TestRegressionFigures(t *testing.T) {
	want := map[string]map[string]figure{}
	if b, err := os.ReadFile(regressPath); err == nil {
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
	} else if !*updateRegress {
		t.Fatal(err)
	}
	// The tier in use (CI runs the tests under each), or every tier to
	// record them.
	tiers := []string{kernel.Tier()}
	if *updateRegress {
		tiers = kernel.Tiers()
	}
	for _, tier := range tiers {
		restore, err := kerneltier.Use(tier)
		if err != nil {
			t.Fatal(err)
		}
		rec, ok := want[tier]
		if !ok && !*updateRegress {
			t.Logf("tier %s: no recorded figures", tier)
			restore()
			continue
		}
		var first *figures
		for _, workers := range []int{1, 3} {
			// The CD-25 figures (the costliest) with 3 workers only.
			got := regressionFigures(t, workers, workers == 3)
			if *updateRegress {
				if workers == 1 {
					first = got
					continue
				}
				for _, name := range first.names {
					if !sameFigure(first.by[name], got.by[name]) {
						t.Errorf("tier %s: %s differs between 1 and 3 workers", tier, name)
					}
				}
				want[tier] = got.by
				continue
			}
			for _, name := range got.names {
				w, ok := rec[name]
				if !ok {
					t.Errorf("tier %s: %s was not recorded", tier, name)
					continue
				}
				if g := got.by[name]; !sameFigure(g, w) {
					t.Errorf("tier %s, %d workers: %s = %d values %v (hash %s), recorded %d values %v (hash %s)",
						tier, workers, name, g.N, g.First, g.Hash, w.N, w.First, w.Hash)
				}
			}
			if len(got.names) < len(rec) {
				missing := 0
				for name := range rec {
					if !slices.Contains(got.names, name) {
						missing++
					}
				}
				if missing > 0 && datatest.Required() && workers == 3 {
					t.Errorf("tier %s: %d recorded figures not computed", tier, missing)
				}
			}
		}
		restore()
	}
	if *updateRegress {
		b, err := json.MarshalIndent(want, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(regressPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sameFigure(a, b figure) bool {
	return a.N == b.N && a.Hash == b.Hash && slices.Equal(a.First, b.First)
}
