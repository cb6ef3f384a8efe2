package report

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/unit"
)

// TestGaussianRunsMarked: binary and Gaussian runs of one data set are
// told apart. Gaussian groups carry the data's scaling beside the data
// set's name and "gaussian" and their σ in the model; their NLL (here
// negative, as a density's can be) is marked § with the note that it is a
// density; CSV and JSON give the visible units and scaling; the curves
// have a panel per data label, whose axes say what is drawn: the NLL of
// the Gaussian runs as a negative log density, below zero, and, without
// an NLL, the reconstruction error as the squared error of the means.
func TestGaussianRunsMarked(t *testing.T) {
	root := t.TempDir()
	spec := func(seed uint64, real data.RealMode, learn bool) experiment.Spec {
		s := testSpec(engine.Dense, seed)
		s.Data, s.Real = "mnist", real
		if real != "" {
			s.Engine.Visible, s.Engine.LearnSigma = unit.Gaussian, learn
		}
		return s
	}
	fakeRun(t, filepath.Join(root, "binary"), spec(1, "", false), 80, 1, true)
	fakeRun(t, filepath.Join(root, "unit-1"), spec(1, data.RealUnit, false), -300, 1, true) // final NLL −297.5
	fakeRun(t, filepath.Join(root, "unit-2"), spec(2, data.RealUnit, false), -298, 1, true) // −295.5
	std := filepath.Join(root, "std")
	fakeRun(t, std, spec(1, data.RealStandardise, true), 0, 1, true)
	setTestAcc(t, std, math.NaN()) // no NLL measured
	r, err := experiment.RunDir(std).Result()
	if err != nil {
		t.Fatal(err)
	}
	r.Final.NLL = math.NaN()
	writeJSONFile(t, filepath.Join(std, "result.json"), r)
	groups := groupsOf(t, root)
	var names []string
	for _, g := range groups {
		names = append(names, g.Name)
	}
	want := []string{"mnist dense", "mnist (standardise) dense gaussian learned σ", "mnist (unit) dense gaussian σ=1"}
	if strings.Join(names, "; ") != strings.Join(want, "; ") {
		t.Fatalf("groups %q, want %q", names, want)
	}
	if g := groups[2]; !g.Continuous() || groups[0].Continuous() || g.NLL.N != 2 || math.Abs(g.NLL.Mean+296.5) > 1e-9 {
		t.Errorf("Gaussian group: gaussian %v (binary %v), NLL %+v; want −296.5 over 2", g.Continuous(), groups[0].Continuous(), g.NLL)
	}

	var md bytes.Buffer
	if err := WriteMarkdown(&md, groups); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| mnist | dense | 4 | 1 | 82.50 |",
		"| mnist (unit) | dense gaussian σ=1 | 4 | 2 | -296.50 ± 1.41 § |",
		"| mnist (standardise) | dense gaussian learned σ | 4 | 1 | — |",
		"§ Gaussian visible units: the NLL is a negative log density",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var cb bytes.Buffer
	if err := WriteCSV(&cb, groups); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][3]string{{"binary", "", "82.5"}, {"gaussian", "standardise", ""}, {"gaussian", "unit", "-296.5"}} {
		if row := csvRow(t, cb.String(), i+1); row["visible"] != want[0] || row["real"] != want[1] || row["nll_mean"] != want[2] || row["data"] != "mnist" {
			t.Errorf("CSV row %d: data %q, visible %q, real %q, NLL %q; want mnist, %q", i+1, row["data"], row["visible"], row["real"], row["nll_mean"], want)
		}
	}
	b, err := json.Marshal(Table(groups))
	if err != nil || !strings.Contains(string(b), `"visible":"gaussian","real":"unit"`) || !strings.Contains(string(b), `"visible":"binary","dirs"`) {
		t.Errorf("JSON: %v\n%s", err, b)
	}

	fig, err := Curves(groups)
	if err != nil {
		t.Fatal(err)
	}
	render(t, fig)
	if len(fig.Panels) != 3 {
		t.Fatalf("%d panels, want one per data label", len(fig.Panels))
	}
	for i, want := range []struct{ title, y string }{
		{"mnist", "NLL (nats)"},
		{"mnist (standardise)", "reconstruction error: squared error of the means"},
		{"mnist (unit)", "NLL: −log density (nats)"},
	} {
		p := fig.Panels[i]
		if lines := strings.Split(p.Title.Text, "\n"); lines[len(lines)-1] != want.title || p.Y.Label.Text != want.y {
			t.Errorf("panel %d: title %q, y axis %q; want %q, %q", i, p.Title.Text, p.Y.Label.Text, want.title, want.y)
		}
	}
	// The unit runs' mean NLL: −294 at epoch 2, −296.5 at epoch 4.
	if y := fig.Panels[2].Y; y.Min > -296.5 || y.Max < -294 || y.Max >= 0 {
		t.Errorf("Gaussian NLL axis [%v, %v], want around −296.5 … −294, below 0", y.Min, y.Max)
	}
}
