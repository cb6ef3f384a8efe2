package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/experiment"
)

// tinyDeep are the flags of a small deep model on bas.
func tinyDeep(kind, out string, more ...string) []string {
	args := []string{"train", "-data", "bas", "-model", kind, "-hidden", "10,6", "-method", "ncg,dense", "-epochs", "40", "-quiet", "-out", out}
	if kind == "dbm" {
		args = append(args, "-joint-epochs", "20", "-joint-batch", "10", "-joint-lr", "0.01")
	}
	return append(args, more...)
}

// TestDeepTrainEvalSampleReport: a DBN and a DBM train end to end on bas
// through the command: their run directories hold each RBM's model file
// and stack.json (no model.npz) and a metrics.csv with every phase's
// epochs and their layer; train prints the NLL as a bound; eval reads the
// saved model back to the same log Z and bound, also from its stack.json
// and with AIS, and refuses what a deep model's evaluation does not do;
// sample draws its chains; report marks its NLL a bound.
func TestDeepTrainEvalSampleReport(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		kind, bound string
		rows        int
	}{{"dbn", "the DBN's variational bound", 80}, {"dbm", "the mean-field bound", 100}} {
		dir := filepath.Join(root, c.kind)
		out, errb, code := runCmd(tinyDeep(c.kind, dir, "-json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.kind, code, errb)
		}
		var res []experiment.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 1 || res[0].Final.Epoch != c.rows {
			t.Fatalf("%s: %v %s", c.kind, err, out)
		}
		for _, f := range []string{"model-1.npz", "model-2.npz", "stack.json", "checkpoint", "result.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("%s: %v", c.kind, err)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "model.npz")); err == nil {
			t.Errorf("%s: a deep run wrote model.npz", c.kind)
		}
		rows, err := experiment.RunDir(dir).Metrics()
		if err != nil || len(rows) != c.rows || rows[0].Layer != 1 || rows[40].Layer != 2 || rows[c.rows-1].Layer != map[string]int{"dbn": 2, "dbm": 0}[c.kind] {
			t.Fatalf("%s: %d rows (%v)", c.kind, len(rows), err)
		}
		// train's text, from the finished run.
		out, _, _ = runCmd(tinyDeep(c.kind, dir)...)
		if !strings.Contains(out, "NLL ≤ ") || !strings.Contains(out, c.bound) || !strings.Contains(out, c.kind+" 10,6 ncg,dense on bas") {
			t.Errorf("%s: train printed\n%s", c.kind, out)
		}
		final := res[0].Final
		for _, args := range [][]string{{"-model", dir}, {"-model", filepath.Join(dir, "stack.json"), "-data", "bas"}} {
			out, errb, code := runCmd(append([]string{"eval", "-json"}, args...)...)
			var ev evalResult
			if code != 0 || json.Unmarshal([]byte(out), &ev) != nil {
				t.Fatalf("%s: eval %v: exit %d: %s", c.kind, args, code, errb)
			}
			if string(ev.Kind) != c.kind || !slices.Equal(ev.Sizes, []int{16, 10, 6}) || !ev.NLLBound || ev.Likelihood != "exact" ||
				ev.LogZ == nil || *ev.LogZ != final.LogZ || ev.NLL == nil || *ev.NLL != final.NLL {
				t.Errorf("%s: eval %v: %s, the run's final log Z %v, NLL %v", c.kind, args, out, final.LogZ, final.NLL)
			}
		}
		out, errb, code = runCmd("eval", "-model", dir, "-ais", "-ais-runs", "100", "-ais-betas", "1000")
		if code != 0 || !strings.Contains(out, "NLL ≤ ") || !strings.Contains(out, "an estimate of it with AIS's log Ẑ") {
			t.Errorf("%s: eval -ais: exit %d: %s%s", c.kind, code, out, errb)
		}
		for _, flag := range [][]string{{"-raise", "3"}, {"-bdmc", "2"}, {"-classify"}, {"-checks", "on"}} {
			if _, errb, code := runCmd(append([]string{"eval", "-model", dir}, flag...)...); code != 2 || !strings.Contains(errb, flag[0]+": ") {
				t.Errorf("%s: eval %v: exit %d: %s", c.kind, flag, code, errb)
			}
		}
		png := filepath.Join(root, c.kind+".png")
		out, errb, code = runCmd("sample", "-model", dir, "-n", "4", "-steps", "20", "-out", png, "-masks", filepath.Join(root, c.kind+"-masks.png"))
		if code != 0 || !strings.Contains(out, "fresh chains of the "+strings.ToUpper(c.kind)+" of layers 16-10-6") {
			t.Errorf("%s: sample: exit %d: %s%s", c.kind, code, out, errb)
		}
		if st, err := os.Stat(png); err != nil || st.Size() == 0 {
			t.Errorf("%s: sample wrote no image: %v", c.kind, err)
		}
	}
	out, errb, code := runCmd("report", "-quiet", "-format", "md,csv", "-out", filepath.Join(root, "report"), root)
	if code != 0 {
		t.Fatalf("report: exit %d: %s%s", code, out, errb)
	}
	md, _ := os.ReadFile(filepath.Join(root, "report", "table.md"))
	if strings.Count(string(md), "| ≤ ") != 2 || !strings.Contains(string(md), "DBN NCG p=0.5 γ=0.5 / dense") || !strings.Contains(string(md), "DBM NCG") {
		t.Errorf("table.md:\n%s", md)
	}
}

// TestDeepBadInput: settings a deep model cannot take exit with status 2
// and one line naming the flag, before anything is written.
func TestDeepBadInput(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", "rbm", "-hidden", "12,8"}, "hidden = 12,8: an RBM has one hidden layer"},
		{[]string{"-method", "ncg,dense"}, "method = ncg,dense: an RBM has one weight matrix"},
		{[]string{"-model", "dbm", "-hidden", "0,8"}, "layer 1: hidden = 0"},
		{[]string{"-model", "dbn", "-hidden", "12,-3"}, "layer 2: hidden = -3"},
		{[]string{"-model", "dbm", "-hidden", "12,8,"}, "-hidden: empty item"},
		{[]string{"-model", "dbm", "-hidden", "1,2,3,4,5,6,7,8,9"}, "-hidden: 9 values, at most 8"},
		{[]string{"-model", "dbm", "-hidden", "12,8", "-method", "ncg,dense,line"}, "method = ncg,dense,line: 3 methods for 2 weight matrices"},
		{[]string{"-model", "dbn", "-hidden", "12,8,4", "-method", "ncg,dense"}, "method = ncg,dense: 2 methods for 3 weight matrices"},
		{[]string{"-model", "dbm", "-method", "ncg,bogus", "-hidden", "4,4"}, `layer 2: method "bogus"`},
		{[]string{"-model", "dbm", "-classify"}, "classify: a deep model is generative"},
		{[]string{"-model", "dbn", "-joint-epochs", "3"}, "-joint-epochs applies to -model dbm only"},
		{[]string{"-model", "dbm", "-joint-batch", "0"}, "joint-batch = 0"},
		{[]string{"-model", "dbm", "-gibbs", "-1"}, "gibbs = -1"},
		{[]string{"-model", "dbm", "-joint-momentum", "1"}, "joint-momentum = 1"},
		{[]string{"-model", "dnn"}, `model "dnn" is not one of rbm, dbn, dbm`},
		{[]string{"-model", "dbm", "-sampler", "pt"}, "layer 1: a DBM's pre-training doubles inputs"},
		{[]string{"-model", "dbm", "-hidden", "12,8", "-method", "line", "-v", "13"}, "layer 2: v = 13: need 1 ≤ v ≤ 12"},
		{[]string{"-model", "dbm", "-likelihood", "exact", "-hidden", "30,30"}, "likelihood exact: exact log Z of the dbm of layers [16 30 30] sums over the 2^30 states"},
		{[]string{"-model", "dbm", "-ais", "-ais-max-betas", "30000"}, "ais-max-betas: it grows the AIS schedule"},
		{[]string{"-model", "dbm", "-visible", "gaussian", "-real", "standardise", "-centre", "-data", "x.csv"}, "centre: a DBM is centred on binary or categorical visible units"},
	} {
		out := filepath.Join(root, "run")
		args := append([]string{"train", "-data", "bas", "-epochs", "2", "-quiet", "-out", out}, c.args...)
		if c.args[len(c.args)-1] == "x.csv" {
			os.WriteFile(filepath.Join(root, "x.csv"), []byte("0.5,1\n0.25,2\n"), 0o644)
			args[len(args)-1] = filepath.Join(root, "x.csv")
		}
		_, errb, code := runCmd(args...)
		if code != 2 || !strings.Contains(errb, c.want) || strings.Count(strings.TrimSpace(errb), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line containing %q", c.args, code, errb, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: the refused run wrote %s", c.args, out)
			os.RemoveAll(out)
		}
	}
}

// TestDeepSweep: a sweep of two stacks, ':' between them, trains two runs
// in two directories named by their layers, each with its own stack; an
// RBM sweep's comma list of sizes is two runs as before; a list of
// layers for an RBM in a sweep is refused naming the run.
func TestDeepSweep(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	_, errb, code := runCmd("sweep", "-data", "bas", "-model", "dbn", "-hidden", "10,6:8", "-epochs", "3", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for name, sizes := range map[string][]int{"bas-dbn-ncg-h10_6-seed1": {16, 10, 6}, "bas-dbn-ncg-h8-seed1": {16, 8}} {
		_, f, err := experiment.ReadStack(filepath.Join(out, name))
		if err != nil || !slices.Equal(f.Sizes, sizes) {
			t.Errorf("%s: %v %+v, want layers %v", name, err, f, sizes)
		}
	}
	dry, errb, code := runCmd("sweep", "-data", "bas", "-hidden", "10,6", "-dry-run", "-json", "-out", out)
	var points []experiment.Point
	if code != 0 || json.Unmarshal([]byte(dry), &points) != nil || len(points) != 2 || points[1].Spec.Engine.Hidden != 6 {
		t.Errorf("an RBM sweep of -hidden 10,6: exit %d: %s%s", code, dry, errb)
	}
	_, errb, code = runCmd("sweep", "-data", "bas", "-model", "rbm,dbm", "-hidden", "10,6", "-dry-run", "-out", out)
	if code != 2 || !strings.Contains(errb, "run bas-ncg-seed1: hidden = 10,6: an RBM has one hidden layer") {
		t.Errorf("an RBM given a stack in a sweep: exit %d: %s", code, errb)
	}
}
