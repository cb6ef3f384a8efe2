package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
)

func testSpec(method engine.Method, seed uint64) experiment.Spec {
	c := engine.DefaultConfig()
	c.Method, c.Hidden, c.Epochs, c.Seed = method, 16, 4, seed
	return experiment.Spec{Data: "bas", Engine: c, EvalEvery: 2, AISRuns: 100, AISIntervals: 14500}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeRun writes a run directory: metrics with NLL nll+10/epoch on even
// epochs (NaN elsewhere), density dens, and result.json when finished.
func fakeRun(t *testing.T, dir string, spec experiment.Spec, nll, dens float64, finished bool) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeJSONFile(t, filepath.Join(dir, "config.json"), map[string]any{"spec": spec, "meta": experiment.Meta{Version: "test"}})
	nan := math.NaN()
	var rows []experiment.Metrics
	for e := 1; e <= spec.Engine.Epochs; e++ {
		m := experiment.Metrics{Epoch: e, Seconds: 0.5, NLL: nan, LogZ: nan, LogZLo: nan, LogZHi: nan, TrainAcc: nan, TestAcc: nan,
			Density: dens, DegreeMin: 2, DegreeMean: 8, DegreeMax: 14, Recon: 0.1}
		if e%2 == 0 {
			m.NLL = nll + 10/float64(e)
			m.LogZ, m.LogZLo, m.LogZHi = 100, 99, 101
		}
		rows = append(rows, m)
	}
	if err := experiment.WriteMetrics(filepath.Join(dir, "metrics.csv"), rows); err != nil {
		t.Fatal(err)
	}
	if finished {
		writeJSONFile(t, filepath.Join(dir, "result.json"), experiment.Result{Spec: spec, Dir: dir, Final: rows[len(rows)-1],
			InitDensity: 0.5, TotalSeconds: 2})
	}
}

func TestStat(t *testing.T) {
	s := NewStat([]float64{1, 2, 3, 4, math.NaN()})
	if s.N != 4 || s.Mean != 2.5 || math.Abs(s.SD-math.Sqrt(5.0/3)) > 1e-12 {
		t.Errorf("NewStat = %+v, want mean 2.5, sd %v, n 4", s, math.Sqrt(5.0/3))
	}
	if s := NewStat([]float64{7}); s.N != 1 || s.Mean != 7 || !math.IsNaN(s.SD) {
		t.Errorf("one value: %+v", s)
	}
	if q := Quantile([]float64{4, 1, 3, 2}, 0.25); q != 1.75 {
		t.Errorf("Quantile 0.25 = %v, want 1.75", q)
	}
}

func TestCollectGroupTable(t *testing.T) {
	root := t.TempDir()
	shard1, shard2 := filepath.Join(root, "shard1"), filepath.Join(root, "shard2")
	// NCG, three seeds over two shards; dense, two seeds; two unfinished
	// NCG runs, one of them stopped by NaN.
	fakeRun(t, filepath.Join(shard1, "ncg-1"), testSpec(engine.NCG, 1), 10, 0.3, true)
	fakeRun(t, filepath.Join(shard1, "ncg-2"), testSpec(engine.NCG, 2), 12, 0.4, true)
	fakeRun(t, filepath.Join(shard2, "nested", "ncg-3"), testSpec(engine.NCG, 3), 14, 0.5, true)
	fakeRun(t, filepath.Join(shard2, "ncg-4"), testSpec(engine.NCG, 4), 99, 0.9, false)
	fakeRun(t, filepath.Join(shard2, "ncg-5"), testSpec(engine.NCG, 5), 99, 0.9, false) // stopped by NaN
	writeJSONFile(t, filepath.Join(shard2, "ncg-5", "failed.json"), experiment.Failure{Epoch: 3, Minibatch: 1, Error: "epoch 3, minibatch 1: W became NaN or Inf"})
	fakeRun(t, filepath.Join(shard1, "dense-1"), testSpec(engine.Dense, 1), 20, 1, true)
	fakeRun(t, filepath.Join(shard2, "dense-2"), testSpec(engine.Dense, 2), 22, 1, true)
	// Another γ: a group of its own.
	g := testSpec(engine.NCG, 1)
	g.Engine.Gamma = 0.3
	fakeRun(t, filepath.Join(shard2, "ncg-gamma"), g, 30, 0.2, true)

	runs, _, err := Collect(context.Background(), shard1, shard2, shard1) // shard1 twice: read once
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 8 {
		t.Fatalf("%d runs, want 8", len(runs))
	}
	groups := GroupRuns(runs)
	if len(groups) != 3 {
		for _, g := range groups {
			t.Log(g.Name)
		}
		t.Fatalf("%d groups, want 3", len(groups))
	}
	// Sorted: dense, then NCG (γ 0.3 before 0.5 by name).
	dense, ncg := groups[0], groups[2]
	if dense.Spec.Engine.Method != engine.Dense || ncg.Model != "NCG p=0.5 γ=0.5" || groups[1].Model != "NCG p=0.5 γ=0.3" {
		t.Fatalf("groups %q, %q, %q", groups[0].Name, groups[1].Name, groups[2].Name)
	}
	if len(ncg.Runs) != 5 || ncg.Finished != 3 || ncg.Failed != 1 {
		t.Errorf("NCG group: %d runs, %d finished, %d failed, want 5, 3, 1", len(ncg.Runs), ncg.Finished, ncg.Failed)
	}
	// Final NLL (epoch 4): 12.5, 14.5, 16.5 → mean 14.5, sd 2.
	if s := ncg.NLL; s.N != 3 || math.Abs(s.Mean-14.5) > 1e-9 || math.Abs(s.SD-2) > 1e-9 {
		t.Errorf("NCG NLL %+v, want 14.5 ± 2 over 3", s)
	}
	if s := ncg.Density; math.Abs(s.Mean-0.4) > 1e-9 || math.Abs(s.SD-0.1) > 1e-9 {
		t.Errorf("NCG density %+v, want 0.4 ± 0.1", s)
	}
	if s := dense.NLL; math.Abs(s.Mean-23.5) > 1e-9 || math.Abs(s.SD-math.Sqrt2) > 1e-9 {
		t.Errorf("dense NLL %+v, want 23.5 ± 1.414", s)
	}
	if ncg.SecondsPerEpoch != 0.5 || ncg.TestAcc.N != 0 {
		t.Errorf("seconds/epoch %v, test acc %+v", ncg.SecondsPerEpoch, ncg.TestAcc)
	}

	var md bytes.Buffer
	if err := WriteMarkdown(&md, groups); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| bas | NCG p=0.5 γ=0.5 | 4 | 3 (+2 unfinished, 1 of them stopped by NaN) | 14.50 ± 2.00 | — | 0.400 ± 0.100 | 0.500 ± 0.000 | 500 ms |",
		"| bas | dense | 4 | 2 | 23.50 ± 1.41 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var cb bytes.Buffer
	if err := WriteCSV(&cb, groups); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cb).ReadAll()
	if err != nil || len(recs) != 4 || len(recs[0]) != len(CSVColumns) {
		t.Fatalf("CSV: %v, %d rows\n%s", err, len(recs), cb.String())
	}
	if recs[3][6] != "14.5" || recs[3][7] != "2" || recs[3][8] != "" {
		t.Errorf("CSV NCG row %v", recs[3])
	}
	b, err := json.Marshal(Table(groups))
	if err != nil || !strings.Contains(string(b), `"nll":{"mean":14.5,"sd":2,"n":3}`) || !strings.Contains(string(b), `"unfinished":2,"failed":1`) || !strings.Contains(string(b), `"test_acc":{"mean":null,"sd":null,"n":0}`) {
		t.Errorf("JSON: %v\n%s", err, b)
	}
}

// TestUnfinishedRowsReportSoFar: a row none of whose runs has finished
// shows the values at the latest epoch every evaluated run has reached.
func TestUnfinishedRowsReportSoFar(t *testing.T) {
	root := t.TempDir()
	a, b := testSpec(engine.SET, 1), testSpec(engine.SET, 2)
	fakeRun(t, filepath.Join(root, "set-1"), a, 40, 0.02, false) // evaluated at 2 and 4
	fakeRun(t, filepath.Join(root, "set-2"), b, 60, 0.03, false)
	ms, err := experiment.ReadMetrics(filepath.Join(root, "set-2", "metrics.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := experiment.WriteMetrics(filepath.Join(root, "set-2", "metrics.csv"), ms[:3]); err != nil { // stopped in epoch 4
		t.Fatal(err)
	}
	fakeRun(t, filepath.Join(root, "dense-1"), testSpec(engine.Dense, 1), 20, 1, true)
	runs, _, err := Collect(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	groups := GroupRuns(runs)
	if len(groups) != 2 || groups[1].Spec.Engine.Method != engine.SET {
		t.Fatalf("%d groups", len(groups))
	}
	set, dense := groups[1], groups[0]
	// At epoch 2: NLL 40 + 5 and 60 + 5.
	if set.SoFar != 2 || set.NLL.N != 2 || set.NLL.Mean != 55 || math.Abs(set.Density.Mean-0.025) > 1e-12 {
		t.Errorf("SET so far: epoch %d, NLL %+v, density %+v; want epoch 2, 55 over 2, 0.025", set.SoFar, set.NLL, set.Density)
	}
	if dense.SoFar != 0 {
		t.Errorf("a finished row has SoFar %d", dense.SoFar)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, groups); err != nil {
		t.Fatal(err)
	}
	if want := "| 0 (+2 unfinished), values at epoch 2 | 55.00 ± 14.14 |"; !strings.Contains(md.String(), want) {
		t.Errorf("Markdown lacks %q:\n%s", want, md.String())
	}
}

func TestNamesShowDifferences(t *testing.T) {
	root := t.TempDir()
	a := testSpec(engine.NCG, 1)
	b := testSpec(engine.NCG, 1)
	b.Engine.LRConn = 0.25
	c := testSpec(engine.Line, 1)
	c.Engine.LineWidth = 8
	d := testSpec(engine.Line, 1)
	d.Engine.LineWidth, d.Engine.Centre = 8, true
	fakeRun(t, filepath.Join(root, "a"), a, 1, 0.5, true)
	fakeRun(t, filepath.Join(root, "b"), b, 1, 0.5, true)
	fakeRun(t, filepath.Join(root, "c"), c, 1, 0.5, true)
	fakeRun(t, filepath.Join(root, "d"), d, 1, 0.5, true)
	runs, _, err := Collect(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range GroupRuns(runs) {
		names = append(names, g.Name)
	}
	want := []string{"bas NCG p=0.5 γ=0.5 α_A=0.25 uncentred", "bas NCG p=0.5 γ=0.5 α_A=0.5 uncentred", "bas line v=8 centred", "bas line v=8 uncentred"}
	if strings.Join(names, "; ") != strings.Join(want, "; ") {
		t.Errorf("names %q, want %q", names, want)
	}
}

// TestGroupsIgnoreEvaluationSchedule: seeds of one configuration evaluated
// on different schedules (or with other worker counts) form one group, and
// the SET authors' procedure is named apart from the engine's SET.
func TestGroupsIgnoreEvaluationSchedule(t *testing.T) {
	root := t.TempDir()
	set := func(seed uint64, evalEvery, workers int, proc engine.SETProcedure) experiment.Spec {
		s := testSpec(engine.SET, seed)
		s.Engine.Epsilon, s.Engine.Zeta, s.Engine.SETProcedure = 11, 0.3, proc
		s.EvalEvery, s.Engine.Workers = evalEvery, workers
		return s
	}
	fakeRun(t, filepath.Join(root, "m1"), set(1, 2, 1, engine.Mocanu), 1, 0.5, true)
	fakeRun(t, filepath.Join(root, "m2"), set(2, 4, 2, engine.Mocanu), 3, 0.5, true)
	fakeRun(t, filepath.Join(root, "s1"), set(1, 2, 1, ""), 1, 0.5, true)
	runs, _, err := Collect(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	groups := GroupRuns(runs)
	var got []string
	for _, g := range groups {
		got = append(got, fmt.Sprintf("%s (%d runs)", g.Name, len(g.Runs)))
	}
	want := []string{"bas SET ε=11 ζ=0.3 (1 runs)", "bas SET ε=11 ζ=0.3 mocanu (2 runs)"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("groups %q, want %q", got, want)
	}
	// The final NLL of both seeds: 1 + 10/4 and 3 + 10/4.
	if g := groups[1]; g.NLL.N != 2 || math.Abs(g.NLL.Mean-4.5) > 1e-12 {
		t.Errorf("mocanu group NLL %+v, want the mean of 3.5 and 5.5 over 2 runs", g.NLL)
	}
}

func TestWriteFigures(t *testing.T) {
	root := t.TempDir()
	fakeRun(t, filepath.Join(root, "runs", "a"), testSpec(engine.NCG, 1), 10, 0.3, true)
	fakeRun(t, filepath.Join(root, "runs", "b"), testSpec(engine.NCG, 2), 11, 0.35, true)
	fakeRun(t, filepath.Join(root, "runs", "c"), testSpec(engine.Dense, 1), 12, 1, true)
	cl := testSpec(engine.NCG, 1)
	cl.Classify = true
	fakeRun(t, filepath.Join(root, "runs", "d"), cl, 0, 0.4, false) // no result: skipped in the scatter
	runs, _, err := Collect(context.Background(), filepath.Join(root, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	files, err := Write(context.Background(), out, GroupRuns(runs), Formats)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 8 {
		t.Errorf("wrote %v, want 8 files", files)
	}
	for _, name := range []string{"curves", "degrees", "density"} {
		f, err := os.Open(filepath.Join(out, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, format, err := image.Decode(f)
		f.Close()
		if err != nil || format != "png" || img.Bounds().Dx() < 300 {
			t.Errorf("%s.png: %v, format %q", name, err, format)
		}
		svg, err := os.ReadFile(filepath.Join(out, name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.TrimSpace(string(svg)); !strings.HasPrefix(s, "<?xml") && !strings.HasPrefix(s, "<svg") {
			t.Errorf("%s.svg starts with %.40q", name, s)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(out, ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestErrors(t *testing.T) {
	root := t.TempDir()
	if _, _, err := Collect(context.Background(), root); err == nil || !strings.Contains(err.Error(), "no run directories") {
		t.Errorf("empty directory: %v", err)
	}
	if _, _, err := Collect(context.Background(), filepath.Join(root, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing directory: %v", err)
	}
	dir := filepath.Join(root, "broken")
	fakeRun(t, dir, testSpec(engine.NCG, 1), 1, 0.5, true)
	path := filepath.Join(dir, "metrics.csv")
	b, _ := os.ReadFile(path)
	lines := strings.Split(string(b), "\n")
	lines[2] = "2,0.5,oops,1,1,1,1,1,1,1,1,1,1"
	os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
	_, _, err := Collect(context.Background(), root)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("broken metrics: %v, want an error naming %s, line 3", err, path)
	}
	if _, err := ParseFormats("md,pdf"); err == nil {
		t.Error("ParseFormats accepted pdf")
	}
}

// TestAISUnboundedMarked: a run whose final AIS estimate has no lower bound
// is counted and its NLL marked in the table, with the explanation.
func TestAISUnboundedMarked(t *testing.T) {
	dir := t.TempDir()
	for seed := uint64(1); seed <= 2; seed++ {
		spec := testSpec(engine.Dense, seed)
		run := filepath.Join(dir, fmt.Sprintf("dense-%d", seed))
		fakeRun(t, run, spec, 20, 1, true)
		if seed == 2 { // rewrite the result with an unbounded AIS
			r, err := experiment.RunDir(run).Result()
			if err != nil {
				t.Fatal(err)
			}
			r.Final.LogZLo = math.Inf(-1)
			writeJSONFile(t, filepath.Join(run, "result.json"), r)
		}
	}
	runs, _, err := Collect(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	groups := GroupRuns(runs)
	if len(groups) != 1 || groups[0].AISUnbounded != 1 {
		t.Fatalf("groups %+v", groups)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, groups); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "† (1 of 2)") || !strings.Contains(md.String(), "no lower bound on log Ẑ") {
		t.Errorf("Markdown does not flag the unbounded AIS:\n%s", md.String())
	}
	var cb bytes.Buffer
	if err := WriteCSV(&cb, groups); err != nil {
		t.Fatal(err)
	}
	if row := csvRow(t, cb.String(), 1); row["nll_ais_unbounded"] != "1" || row["values_at_epoch"] != "" {
		t.Errorf("CSV lacks the count, or has values at an epoch:\n%s", cb.String())
	}
}

// TestVerdictMarked: a run whose final AIS estimate its checks contradicted
// (result.json's checks, read as a run writes them) is counted and its NLL
// marked ‖ in the table, with the explanation, the CSV column and the
// JSON field; a run whose verdict stayed quiet, or that has no checks, is
// not.
func TestVerdictMarked(t *testing.T) {
	dir := t.TempDir()
	for seed := uint64(1); seed <= 3; seed++ {
		spec := testSpec(engine.Dense, seed)
		run := filepath.Join(dir, fmt.Sprintf("dense-%d", seed))
		fakeRun(t, run, spec, 20, 1, true)
		if seed == 1 {
			continue // no checks
		}
		r, err := experiment.RunDir(run).Result()
		if err != nil {
			t.Fatal(err)
		}
		r.Checks = &eval.Checks{Estimates: []eval.Estimate{{Route: eval.RouteData, LogZ: 5, LogZLo: math.Inf(-1), LogZHi: 6, ESS: 9, SE: 0.1, Runs: 100}},
			Verdict: eval.Verdict{Fired: seed == 3, Against: eval.RouteHidden, Disagreement: 12, Reason: "made up"}, Intervals: []int{14500}}
		writeJSONFile(t, filepath.Join(run, "result.json"), r)
	}
	runs, _, err := Collect(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	groups := GroupRuns(runs)
	if len(groups) != 1 || groups[0].VerdictFired != 1 {
		t.Fatalf("groups %+v", groups)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, groups); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "‖ (1 of 3)") || !strings.Contains(md.String(), "checks of the final AIS estimate contradicted it") {
		t.Errorf("Markdown does not flag the verdict:\n%s", md.String())
	}
	var cb bytes.Buffer
	if err := WriteCSV(&cb, groups); err != nil {
		t.Fatal(err)
	}
	if row := csvRow(t, cb.String(), 1); row["nll_verdict_fired"] != "1" {
		t.Errorf("CSV lacks the count:\n%s", cb.String())
	}
	if rows := Table(groups); rows[0].VerdictFired != 1 {
		t.Errorf("JSON row %+v", rows[0])
	}
}

// csvRow returns row i (from 1, after the header) of a CSV table by column.
func csvRow(t *testing.T, table string, i int) map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(table)).ReadAll()
	if err != nil || len(recs) <= i {
		t.Fatalf("CSV: %v, %d rows, want row %d:\n%s", err, len(recs), i, table)
	}
	row := map[string]string{}
	for k, col := range recs[0] {
		row[col] = recs[i][k]
	}
	return row
}

// A diverged run's metrics (NLL 1e30 at every evaluation) still draw:
// before widen, gonum/plot panicked on the NLL axis, which spans nothing.
func TestWriteFiguresHugeValues(t *testing.T) {
	root := t.TempDir()
	fakeRun(t, filepath.Join(root, "runs", "a"), testSpec(engine.NCG, 1), 1e30, 0.3, true)
	runs, _, err := Collect(context.Background(), filepath.Join(root, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Write(context.Background(), filepath.Join(root, "out"), GroupRuns(runs), []string{"png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Error("no files written")
	}
}

// setTestAcc rewrites a fake run's metrics with test accuracy acc at every
// epoch (a classification run).
func setTestAcc(t *testing.T, dir string, acc float64) {
	t.Helper()
	path := filepath.Join(dir, "metrics.csv")
	ms, err := experiment.ReadMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ms {
		ms[i].NLL, ms[i].TestAcc = math.NaN(), acc
	}
	if err := experiment.WriteMetrics(path, ms); err != nil {
		t.Fatal(err)
	}
}

func groupsOf(t *testing.T, dir string) []Group {
	t.Helper()
	runs, _, err := Collect(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return GroupRuns(runs)
}

func render(t *testing.T, fig *Figure) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := fig.WriteTo(&buf, "png"); err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestCurvesOnePanelPerDataSet: runs of two data sets with NLLs two orders
// of magnitude apart get a panel each, so the small one is not flattened.
func TestCurvesOnePanelPerDataSet(t *testing.T) {
	root := t.TempDir()
	small := testSpec(engine.NCG, 1)
	big := testSpec(engine.NCG, 1)
	big.Data = "big"
	fakeRun(t, filepath.Join(root, "small"), small, 3, 0.5, true) // NLL 5.5 and 5.5: 3 + 10/e
	fakeRun(t, filepath.Join(root, "big"), big, 1000, 0.5, true)
	groups := groupsOf(t, root)
	for _, f := range []func([]Group) (*Figure, error){Curves, Degrees} {
		fig, err := f(groups)
		if err != nil {
			t.Fatal(err)
		}
		if len(fig.Panels) != 2 {
			t.Fatalf("%s: %d panels, want one per data set", fig.Name, len(fig.Panels))
		}
		render(t, fig)
		if !strings.Contains(fig.Panels[0].Title.Text, "bas") || !strings.Contains(fig.Panels[1].Title.Text, "big") {
			t.Errorf("%s: panel titles %q, %q do not name the data sets", fig.Name, fig.Panels[0].Title.Text, fig.Panels[1].Title.Text)
		}
	}
	fig, _ := Curves(groups)
	// bas's NLL is 3 + 10/e at epochs 2 and 4 (8 and 5.5): its axis ends far
	// below the other set's 1000.
	if y := fig.Panels[0].Y; y.Max > 100 {
		t.Errorf("bas panel's NLL axis runs to %v", y.Max)
	}
}

// TestAccuracyAxisInUnitInterval: one run, one epoch, accuracy 0.88: the
// axis stays within [0, 1] around the value (gonum/plot alone widens an
// empty span by ±1, to 1.88).
func TestAccuracyAxisInUnitInterval(t *testing.T) {
	root := t.TempDir()
	spec := testSpec(engine.NCG, 1)
	spec.Classify, spec.Engine.Epochs = true, 1
	fakeRun(t, filepath.Join(root, "a"), spec, 0, 0.5, true)
	setTestAcc(t, filepath.Join(root, "a"), 0.88)
	fig, err := Curves(groupsOf(t, root))
	if err != nil {
		t.Fatal(err)
	}
	render(t, fig)
	if len(fig.Panels) != 1 {
		t.Fatalf("%d panels", len(fig.Panels))
	}
	if y := fig.Panels[0].Y; y.Min < 0 || y.Max > 1 || y.Min > 0.88 || y.Max < 0.88 {
		t.Errorf("accuracy axis [%v, %v], want within [0, 1] around 0.88", y.Min, y.Max)
	}
}

// TestCurvesCaption: the caption names the band or bars only when drawn.
func TestCurvesCaption(t *testing.T) {
	for _, tc := range []struct {
		seeds, epochs int
		want, not     string
	}{
		{1, 4, "one run per model", "25–75%"},
		{2, 4, "band 25–75%", "bars"},
		{2, 1, "bars 25–75%", "band"},
	} {
		root := t.TempDir()
		for s := 1; s <= tc.seeds; s++ {
			spec := testSpec(engine.NCG, uint64(s))
			spec.Classify, spec.Engine.Epochs = true, tc.epochs
			dir := filepath.Join(root, fmt.Sprint(s))
			fakeRun(t, dir, spec, 0, 0.5, true)
			setTestAcc(t, dir, 0.5+0.1*float64(s))
		}
		fig, err := Curves(groupsOf(t, root))
		if err != nil {
			t.Fatal(err)
		}
		title := fig.Panels[0].Title.Text
		if !strings.Contains(title, tc.want) || strings.Contains(title, tc.not) {
			t.Errorf("%d runs of %d epochs: caption %q, want %q and no %q", tc.seeds, tc.epochs, title, tc.want, tc.not)
		}
	}
}

// countColour counts the pixels of colour c in the left fraction of img.
func countColour(img image.Image, c color.Color, fraction float64) int {
	r0, g0, b0, _ := c.RGBA()
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Min.X+int(fraction*float64(b.Dx())); x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == r0>>8 && g>>8 == g0>>8 && bl>>8 == b0>>8 {
				n++
			}
		}
	}
	return n
}

// TestDegreesOneEpochDrawn: a run of one epoch has one degree per series,
// which a line cannot show; the figure draws it (a point and a bar) in the
// data area, not only in the legend.
func TestDegreesOneEpochDrawn(t *testing.T) {
	root := t.TempDir()
	spec := testSpec(engine.NCG, 1)
	spec.Engine.Epochs = 1
	fakeRun(t, filepath.Join(root, "a"), spec, 0, 0.5, true)
	fig, err := Degrees(groupsOf(t, root))
	if err != nil {
		t.Fatal(err)
	}
	img := render(t, fig)
	// The point and the bar (degrees 2 to 14 around 8) sit mid-axis at
	// epoch 1; the legend is drawn in a column on the right.
	if n := countColour(img, plotutil.Color(0), 0.7); n < 20 {
		t.Errorf("%d pixels of the group's colour in the data area: nothing drawn", n)
	}
	if title := fig.Panels[0].Title.Text; strings.Contains(title, "dashed") || strings.Contains(title, "averaged") {
		t.Errorf("caption %q names lines or an average that are not drawn", title)
	}
}

// TestLegendOutsideData: a panel whose data fill the whole plotting area
// keeps them visible: no legend text is drawn over them.
func TestLegendOutsideData(t *testing.T) {
	p := newPlot("title", "x", "y")
	fillColour := color.RGBA{R: 255, A: 255}
	poly, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}, {X: 0, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	poly.Color, poly.LineStyle.Width = fillColour, 0
	p.Add(poly)
	p.Legend.Add("a long legend entry that would cover data", poly)
	img := render(t, &Figure{Name: "t", Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight})
	// The red area: from the centre, as far as the red reaches along the
	// middle row and column; then every non-red pixel inside it.
	b := img.Bounds()
	red := func(x, y int) bool {
		r, g, bl, _ := img.At(x, y).RGBA()
		return r>>8 == 255 && g>>8 == 0 && bl>>8 == 0
	}
	cx, cy := b.Min.X+b.Dx()*2/5, b.Min.Y+b.Dy()/2
	if !red(cx, cy) {
		t.Fatalf("pixel (%d, %d) is not in the data area", cx, cy)
	}
	x0, x1, y0, y1 := cx, cx, cy, cy
	for red(x0-1, cy) {
		x0--
	}
	for red(x1+1, cy) {
		x1++
	}
	for red(cx, y0-1) {
		y0--
	}
	for red(cx, y1+1) {
		y1++
	}
	if x1-x0 < b.Dx()/2 || y1-y0 < b.Dy()/2 {
		t.Fatalf("the data area is %d..%d × %d..%d of %v", x0, x1, y0, y1, b)
	}
	covered := 0
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			if !red(x, y) {
				covered++
			}
		}
	}
	if covered > 0 {
		t.Errorf("%d pixels of the data area are covered (by the legend)", covered)
	}
}
