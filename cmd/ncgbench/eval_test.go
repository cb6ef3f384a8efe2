package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	AccuracyExact                *float64 `json:"accuracy_exact"`
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
	if r.Accuracy != nil || r.AccuracyExact != nil {
		t.Errorf("accuracy without labels: %v %v", r.Accuracy, r.AccuracyExact)
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
	for _, args := range [][]string{
		{"eval"},
		{"eval", "-model", "r", "-nonsense"},
		{"eval", "-model", "r", "-ais-runs", "0"},
		{"eval", "-model", "r", "-likelihood", "maybe"},
		{"eval", "-model", "r/model.npz"}, // a file needs -data
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
		{[]string{"-model", "missing.npz", "-data", "bas"}, "missing.npz"},
		{[]string{"-model", "empty"}, "empty"},
		{[]string{"-model", "r/model.npz", "-data", "no/such/data.txt"}, "no/such/data.txt"},
		{[]string{"-model", "r/model.npz", "-data", "bas", "-classify"}, "model.npz"},
	} {
		_, errb, code := ncgbench(t, dir, append([]string{"eval", "-quiet"}, c.args...)...)
		if code != 1 || !strings.Contains(errb, c.file) || strings.Contains(errb, "goroutine ") {
			t.Errorf("%v: exit %d, want 1 and a message naming %s:\n%s", c.args, code, c.file, errb)
		}
	}
}
