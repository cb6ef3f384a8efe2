package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
)

// trainRun trains a small NCG model on bars and stripes in dir/r and
// returns its final NLL from result.json.
func trainRun(t *testing.T, dir string) float64 {
	t.Helper()
	_, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-method", "ncg", "-epochs", "100", "-quiet", "-out", "r")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Final struct{ NLL float64 } `json:"final"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return res.Final.NLL
}

type evalJSON struct {
	Model, Data, Set, Likelihood string
	Rows                         int
	LogZ                         *float64 `json:"log_z"`
	LogZLo                       *float64 `json:"log_z_lo"`
	LogZHi                       *float64 `json:"log_z_hi"`
	NLL                          *float64 `json:"nll"`
	Accuracy                     *float64 `json:"accuracy"`
	AccuracyFreeEnergy           *float64 `json:"accuracy_free_energy"`
	Seconds                      *float64 `json:"seconds"`
	Seed                         *uint64  `json:"seed"`
	Runs                         *int     `json:"runs"`
	Intervals                    *int     `json:"intervals"`
	RaiseNLL                     *float64 `json:"raise_nll"`
	RaiseRows                    int      `json:"raise_rows"`
	RaiseChains                  int      `json:"raise_chains"`
	RaiseRowsNLL                 *float64 `json:"raise_rows_nll"`
	RaiseGap                     *float64 `json:"raise_gap"`
	RaiseGapSE                   *float64 `json:"raise_gap_se"`
}

// TestEvalRAISE: -raise on an exactly evaluated model gives an NLL within
// a few standard errors of the exact one on the same rows, and the fields.
func TestEvalRAISE(t *testing.T) {
	dir := t.TempDir()
	trainRun(t, dir)
	r := evalRun(t, dir, "-model", "r", "-exact", "-raise", "20", "-raise-chains", "4", "-ais-betas", "3000")
	if r.RaiseNLL == nil || r.RaiseRowsNLL == nil || r.RaiseGap == nil || r.RaiseGapSE == nil || r.RaiseRows != 20 || r.RaiseChains != 4 {
		t.Fatalf("RAISE fields: %+v", r)
	}
	if math.Abs(*r.RaiseNLL-*r.RaiseRowsNLL-*r.RaiseGap) > 1e-9 {
		t.Errorf("gap %v is not RAISE %v − exact %v", *r.RaiseGap, *r.RaiseNLL, *r.RaiseRowsNLL)
	}
	if math.Abs(*r.RaiseGap) > 0.1+4**r.RaiseGapSE {
		t.Errorf("RAISE NLL %v vs exact %v on the same rows (gap ± %v)", *r.RaiseNLL, *r.RaiseRowsNLL, *r.RaiseGapSE)
	}
	out, _, code := ncgbench(t, dir, "eval", "-model", "r", "-quiet", "-raise", "5")
	if code != 0 || !strings.Contains(out, "RAISE NLL") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
	if _, errb, code := ncgbench(t, dir, "eval", "-model", "r", "-raise", "-1"); code != 2 || !strings.Contains(errb, "-raise") {
		t.Errorf("-raise -1: exit %d: %s", code, errb)
	}
}

func evalRun(t *testing.T, dir string, args ...string) evalJSON {
	t.Helper()
	out, errb, code := ncgbench(t, dir, append([]string{"eval", "-json", "-quiet"}, args...)...)
	if code != 0 {
		t.Fatalf("eval %v: exit %d: %s", args, code, errb)
	}
	var r evalJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("eval %v: not one JSON object: %v\n%s", args, err, out)
	}
	return r
}

func TestEvalTrainedModel(t *testing.T) {
	dir := t.TempDir()
	want := trainRun(t, dir)
	for _, args := range [][]string{
		{"-model", "r", "-exact"},
		{"-model", "r/model.npz", "-data", "bas", "-exact"},
		{"-model", "r/model.npz", "-data", "bas"}, // small: exact by default
	} {
		r := evalRun(t, dir, args...)
		if r.NLL == nil || math.Abs(*r.NLL-want) > 1e-6 {
			t.Errorf("%v: nll %v, want %v (result.json)", args, r.NLL, want)
		}
		if r.Likelihood != "exact" || r.LogZ == nil || *r.LogZLo != *r.LogZ || *r.LogZHi != *r.LogZ || r.Set != "test" || r.Rows != 30 {
			t.Errorf("%v: %+v", args, r)
		}
	}
	// AIS on the same model: close to the exact value, and every field there.
	exact := evalRun(t, dir, "-model", "r", "-exact")
	r := evalRun(t, dir, "-model", "r", "-ais", "-ais-runs", "20", "-ais-betas", "2000", "-ais-seed", "7")
	if r.Likelihood != "ais" || r.LogZ == nil || math.Abs(*r.LogZ-*exact.LogZ) > 0.2 {
		t.Errorf("AIS log Z %v, exact %v", r.LogZ, *exact.LogZ)
	}
	if r.Seed == nil || *r.Seed != 7 || *r.Runs != 20 || *r.Intervals != 2000 || r.Seconds == nil || r.LogZHi == nil {
		t.Errorf("AIS fields: %+v", r)
	}
	if r.Accuracy != nil || r.AccuracyFreeEnergy != nil {
		t.Errorf("accuracy without labels: %v %v", r.Accuracy, r.AccuracyFreeEnergy)
	}
	// Text output.
	out, _, code := ncgbench(t, dir, "eval", "-model", "r", "-quiet")
	if code != 0 || !strings.Contains(out, "log Z") || !strings.Contains(out, "NLL") {
		t.Errorf("text output: exit %d\n%s", code, out)
	}
}

func TestEvalErrors(t *testing.T) {
	dir := t.TempDir()
	trainRun(t, dir)
	os.WriteFile(filepath.Join(dir, "junk.npz"), []byte("not a zip"), 0o644)
	os.WriteFile(filepath.Join(dir, "junk.mat"), []byte("not a mat file"), 0o644)
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	if b, err := os.ReadFile(filepath.Join(dir, "r", "model.npz")); err != nil || os.WriteFile(filepath.Join(dir, "copy.npz"), b, 0o644) != nil {
		t.Fatal("cannot copy the model")
	}
	for _, args := range [][]string{
		{"eval"},
		{"eval", "-model", "r", "-nonsense"},
		{"eval", "-model", "r", "-ais-runs", "0"},
		{"eval", "-model", "r", "-likelihood", "maybe"},
		{"eval", "-model", "copy.npz"}, // a file without a run's config.json beside it needs -data
		{"eval", "-model", "r/model.npz", "-data", "no/such/data.txt"},
		{"eval", "-model", "missing.npz", "-data", "bas"},
		{"eval", "-model", "r", "extra"},
	} {
		_, errb, code := ncgbench(t, dir, args...)
		if code != 2 || strings.Contains(errb, "goroutine ") || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, want 2 and one line:\n%s", args, code, errb)
		}
	}
	for _, c := range []struct {
		args []string
		file string
	}{
		{[]string{"-model", "junk.npz", "-data", "bas"}, "junk.npz"},
		{[]string{"-model", "junk.mat", "-data", "bas"}, "junk.mat"},
		{[]string{"-model", "empty"}, "empty"},
		{[]string{"-model", "r/model.npz", "-data", "bas", "-classify"}, "model.npz"},
	} {
		_, errb, code := ncgbench(t, dir, append([]string{"eval", "-quiet"}, c.args...)...)
		if code != 1 || !strings.Contains(errb, c.file) || strings.Contains(errb, "goroutine ") {
			t.Errorf("%v: exit %d, want 1 and a message naming %s:\n%s", c.args, code, c.file, errb)
		}
	}
}

// val is *p, or NaN for nil (a metric eval left out).
func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// writeBASSplit writes dir/tr.data (the first 20 bars-and-stripes images) and
// dir/te.data (the other 10) in the split format, and returns the images.
func writeBASSplit(t *testing.T, dir string) *data.Set {
	t.Helper()
	all, err := data.BarsAndStripes(4)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, split string, rows []uint8, n int) {
		var b strings.Builder
		fmt.Fprintf(&b, "Name: BAS\nSplit: %s\nNumber of examples: %d\nExample size: 16\n\n", split, n)
		for r := 0; r < n; r++ {
			for j, v := range rows[r*16 : (r+1)*16] {
				if j > 0 {
					b.WriteByte(' ')
				}
				fmt.Fprint(&b, v)
			}
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tr.data", "train set", all.X[:20*16], 20)
	write("te.data", "test set", all.X[20*16:], all.N-20)
	return all
}

// TestEvalUniformBase: -ais-base uniform runs AIS from the uniform base model
// (the same estimate as eval.AIS with no base biases, at the same seed), not
// from the base-rate one, and both land near the exact log Z. The training
// rows are 20 of the 30 bars-and-stripes images, whose marginals are not all
// 1/2 (on all 30 the base-rate model is the uniform one).
func TestEvalUniformBase(t *testing.T) {
	dir := t.TempDir()
	trainRun(t, dir)
	writeBASSplit(t, dir)
	model := []string{"-model", "r/model.npz", "-data", "tr.data", "-test-data", "te.data"}
	exact := evalRun(t, dir, append(model, "-exact")...)
	args := append(model, "-ais", "-ais-runs", "20", "-ais-betas", "2000", "-ais-seed", "3")
	uni := evalRun(t, dir, append(args, "-ais-base", "uniform")...)
	rate := evalRun(t, dir, args...)
	m, err := experiment.ReadModel(filepath.Join(dir, "r", "model.npz"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := eval.AIS(context.Background(), m.EvalModel(), eval.AISConfig{Runs: 20, Betas: eval.UniformSchedule(2000), Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if uni.LogZ == nil || *uni.LogZ != want.LogZ {
		t.Errorf("uniform base: log Z %v, want %v (eval.AIS without base biases)", val(uni.LogZ), want.LogZ)
	}
	if rate.LogZ == nil || *rate.LogZ == want.LogZ {
		t.Errorf("base-rate AIS gave the uniform base's log Z %v", want.LogZ)
	}
	for _, r := range []evalJSON{uni, rate} {
		if math.Abs(*r.LogZ-*exact.LogZ) > 0.3 {
			t.Errorf("AIS log Z %v, exact %v", *r.LogZ, *exact.LogZ)
		}
	}
	if _, errb, code := ncgbench(t, dir, "eval", "-model", "r", "-ais-base", "flat"); code != 2 || !strings.Contains(errb, "-ais-base") {
		t.Errorf("-ais-base flat: exit %d: %s", code, errb)
	}
}

// TestEvalTrainSet: -set train measures the training rows: the NLL is their
// mean free energy, computed here from the model's parameters, plus the exact
// log Z.
func TestEvalTrainSet(t *testing.T) {
	dir := t.TempDir()
	trainRun(t, dir)
	all := writeBASSplit(t, dir)
	em, err := experiment.ReadModel(filepath.Join(dir, "r", "model.npz"))
	if err != nil {
		t.Fatal(err)
	}
	m := em.EvalModel()
	meanF := func(rows []uint8, n int) float64 {
		var s float64
		for r := 0; r < n; r++ {
			x := rows[r*16 : (r+1)*16]
			f := 0.0
			for j, v := range x {
				f -= float64(m.VisibleBias[j]) * float64(v)
			}
			for i := 0; i < m.H; i++ {
				a := float64(m.HiddenBias[i])
				for j, v := range x {
					a += float64(m.C[j*m.H+i]) * float64(v)
				}
				f -= math.Max(a, 0) + math.Log1p(math.Exp(-math.Abs(a)))
			}
			s += f / float64(n)
		}
		return s
	}
	base := []string{"-model", "r/model.npz", "-data", "tr.data", "-test-data", "te.data", "-exact"}
	for _, c := range []struct {
		set  string
		rows []uint8
		n    int
	}{{"train", all.X[:20*16], 20}, {"test", all.X[20*16:], all.N - 20}} {
		r := evalRun(t, dir, append(base, "-set", c.set)...)
		want := meanF(c.rows, c.n) + *r.LogZ
		if r.Set != c.set || r.Rows != c.n || r.NLL == nil || math.Abs(*r.NLL-want) > 1e-4 {
			t.Errorf("-set %s: set %q, %d rows, NLL %v; want %d rows, NLL %v", c.set, r.Set, r.Rows, val(r.NLL), c.n, want)
		}
	}
	if _, errb, code := ncgbench(t, dir, "eval", "-model", "r", "-set", "validation"); code != 2 || !strings.Contains(errb, "-set") {
		t.Errorf("-set validation: exit %d: %s", code, errb)
	}
}
