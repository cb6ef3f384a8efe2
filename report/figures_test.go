package report

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
)

// setRows replaces a fake run's metrics by one row per epoch from each(e).
func setRows(t *testing.T, dir string, epochs int, each func(e int, m *experiment.Metrics)) {
	t.Helper()
	nan := math.NaN()
	rows := make([]experiment.Metrics, epochs)
	for i := range rows {
		m := experiment.Metrics{Epoch: i + 1, Seconds: 0.5, NLL: nan, LogZ: nan, LogZLo: nan, LogZHi: nan,
			TrainAcc: nan, TestAcc: nan, Recon: 0.1, Density: 0.5, DegreeMin: 2, DegreeMean: 8, DegreeMax: 14}
		each(i+1, &m)
		rows[i] = m
	}
	if err := experiment.WriteMetrics(filepath.Join(dir, "metrics.csv"), rows); err != nil {
		t.Fatal(err)
	}
}

// majorLabels returns the labelled ticks of an axis over its range.
func majorLabels(a *plot.Axis) (vals []float64, labels []string) {
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Label != "" {
			vals, labels = append(vals, tk.Value), append(labels, tk.Label)
		}
	}
	return vals, labels
}

// checkTickLabels: the labels are distinct and each reads as its tick's
// value to within a tenth of the step between ticks.
func checkTickLabels(t *testing.T, what string, vals []float64, labels []string) {
	t.Helper()
	if len(labels) < 2 {
		t.Errorf("%s: %d labelled ticks %q, want at least 2", what, len(labels), labels)
		return
	}
	step := math.Inf(1)
	for i := 1; i < len(vals); i++ {
		step = math.Min(step, vals[i]-vals[i-1])
	}
	seen := map[string]bool{}
	for i, l := range labels {
		if seen[l] {
			t.Errorf("%s: labels %q repeat %q", what, labels, l)
		}
		seen[l] = true
		v, err := strconv.ParseFloat(l, 64)
		if err != nil || math.Abs(v-vals[i]) > step/10 {
			t.Errorf("%s: label %q of the tick at %v (step %v)", what, l, vals[i], step)
		}
	}
}

// TestTickLabelsDistinct: over a narrow range gonum/plot's default labels
// all read alike ("11", "11", "11" for 10.975, 11, 11.025); the figures'
// labels have the digits to tell the ticks apart.
func TestTickLabelsDistinct(t *testing.T) {
	for _, r := range [][2]float64{{10.96, 11.04}, {10.99, 11.01}, {5.1, 5.2}, {100.001, 100.004},
		{0.8734, 0.8973}, {0, 2000}, {-3, 3}, {1e30, 1.00001e30}, {1e-9, 3e-9}} {
		p := newPlot("", "x", "y")
		p.Y.Min, p.Y.Max = r[0], r[1]
		vals, labels := majorLabels(&p.Y)
		checkTickLabels(t, fmt.Sprint(r), vals, labels)
	}
	// Two bars-and-stripes seeds whose NLLs differ by 0.06 around 11.
	root := t.TempDir()
	for s := 1; s <= 2; s++ {
		dir := filepath.Join(root, fmt.Sprint(s))
		fakeRun(t, dir, testSpec(engine.NCG, uint64(s)), 0, 0.5, true)
		setRows(t, dir, 4, func(e int, m *experiment.Metrics) {
			if e%2 == 0 {
				m.NLL = 11 + 0.02*float64(s) - 0.01*float64(e)/2
			}
		})
	}
	fig, err := Curves(groupsOf(t, root))
	if err != nil {
		t.Fatal(err)
	}
	render(t, fig)
	vals, labels := majorLabels(&fig.Panels[0].Y)
	checkTickLabels(t, "NLL axis", vals, labels)
}

// markers returns the glyph boxes of a panel's markers (square boxes
// centred on their point, as scatter glyphs are) and the other boxes
// (text labels).
func markers(p *plot.Plot) (marks, other []plot.GlyphBox) {
	for _, b := range p.GlyphBoxes(p) {
		s := b.Size()
		if s.X == s.Y && b.Min.X == -s.X/2 && b.Min.Y == -s.Y/2 {
			marks = append(marks, b)
		} else {
			other = append(other, b)
		}
	}
	return marks, other
}

// TestSinglePointsDrawnOnTheirEpoch: a run evaluated only at its end (a
// mushrooms run) has one point per series. Each is a visible marker
// exactly on its epoch's tick, with its value written beside it, whether
// the panel has one group or several (not shifted sideways, where it
// would read as another epoch).
func TestSinglePointsDrawnOnTheirEpoch(t *testing.T) {
	for _, accs := range [][]float64{{0.8973}, {0.8973, 0.8734}} {
		root := t.TempDir()
		for k, acc := range accs {
			spec := testSpec([]engine.Method{engine.NCG, engine.Random}[k], 1)
			spec.Classify, spec.Engine.Epochs = true, 2
			dir := filepath.Join(root, fmt.Sprint(k))
			fakeRun(t, dir, spec, 0, 0.5, true)
			setRows(t, dir, 2, func(e int, m *experiment.Metrics) {
				if e == 2 {
					m.TestAcc = acc
				}
			})
		}
		fig, err := Curves(groupsOf(t, root))
		if err != nil {
			t.Fatal(err)
		}
		render(t, fig)
		p := fig.Panels[0]
		vals, labels := majorLabels(&p.X)
		found := false
		for i, v := range vals {
			found = found || (v == 2 && labels[i] == "2")
		}
		if !found {
			t.Errorf("%d groups: x ticks %v %q lack epoch 2", len(accs), vals, labels)
		}
		marks, texts := markers(p)
		if len(marks) != len(accs) || len(texts) < len(accs) {
			t.Fatalf("%d groups: %d markers and %d labels, want one each per group", len(accs), len(marks), len(texts))
		}
		for _, acc := range accs {
			ok := false
			for _, m := range marks {
				ok = ok || (m.X == p.X.Norm(2) && math.Abs(m.Y-p.Y.Norm(acc)) < 1e-9 && m.Size().X >= 2*vg.Points(4))
			}
			if !ok {
				t.Errorf("%d groups: no marker of radius ≥ 4 pt at epoch 2, accuracy %v: %+v", len(accs), acc, marks)
			}
		}
	}
}

// TestRangesPadded: no data lie on the frame: the axes reach past the
// data's extremes on every side (the accuracy axis as far as [0, 1]
// allows), for curves and for the hidden degrees.
func TestRangesPadded(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a")
	spec := testSpec(engine.NCG, 1)
	spec.Engine.Epochs = 10
	fakeRun(t, dir, spec, 0, 0.5, true)
	setRows(t, dir, 10, func(e int, m *experiment.Metrics) {
		m.NLL = 9 - 0.4*float64(e) // 8.6 at epoch 1 to 5 at epoch 10
		m.DegreeMin, m.DegreeMean, m.DegreeMax = 0, 8, 13
	})
	groups := groupsOf(t, root)
	inside := func(what string, a plot.Axis, lo, hi float64) {
		t.Helper()
		if !(a.Min < lo && a.Max > hi) {
			t.Errorf("%s axis [%v, %v] does not reach past the data's [%v, %v]", what, a.Min, a.Max, lo, hi)
		}
	}
	fig, err := Curves(groups)
	if err != nil {
		t.Fatal(err)
	}
	inside("NLL", fig.Panels[0].Y, 5, 8.6)
	inside("epoch", fig.Panels[0].X, 1, 10)
	fig, err = Degrees(groups)
	if err != nil {
		t.Fatal(err)
	}
	inside("degree", fig.Panels[0].Y, 0, 13)
	inside("epoch", fig.Panels[0].X, 1, 10)
}

// TestDegreeEnvelope: over many epochs the degrees are drawn per bin of
// epochs: the mean of the means, the lowest minimum and the highest
// maximum, so that the min and max of jittering degrees do not hatch the
// panel; over few epochs every epoch is kept.
func TestDegreeEnvelope(t *testing.T) {
	var pts []degreePoint
	for e := 1; e <= 2000; e++ {
		pts = append(pts, degreePoint{epoch: float64(e), mean: 8 + float64(e%2), min: 2 + float64(e%2), max: 13 + float64(e%2)})
	}
	bins, per := binDegrees(pts, 200)
	if per != 10 || len(bins) != 200 {
		t.Fatalf("%d bins of %d epochs, want 200 of 10", len(bins), per)
	}
	for i, b := range bins {
		// Bin i holds epochs 10i+1 … 10i+10: five odd, five even.
		if b.epoch != 10*float64(i)+5.5 || b.mean != 8.5 || b.min != 2 || b.max != 14 {
			t.Fatalf("bin %d: %+v, want epoch %v, mean 8.5, min 2, max 14", i, b, 10*float64(i)+5.5)
		}
	}
	few, per := binDegrees(pts[:150], 200)
	if per != 1 || len(few) != 150 || few[7] != pts[7] {
		t.Errorf("150 epochs: %d points of %d epochs", len(few), per)
	}
}
