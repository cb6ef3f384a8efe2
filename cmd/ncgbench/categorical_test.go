package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/internal/datatest"
	"github.com/ncg-rbm/ncg/unit"
)

// TestCategoricalRunEndToEnd: a categorical classifier of Mushrooms trains,
// records its units and groups (the label group last) in model.npz,
// evaluates by AIS to the NLL eval gives again, samples and reports as
// categorical; a binary model of the same one-hot rows puts mass off them,
// so its NLL is higher.
func TestCategoricalRunEndToEnd(t *testing.T) {
	shared := datatest.Dir(t)
	datatest.File(t, "mushrooms/mushrooms-train.data")
	dir := t.TempDir()
	common := []string{"train", "-data", "mushrooms", "-data-dir", shared, "-method", "ncg", "-hidden", "20", "-epochs", "3",
		"-likelihood", "ais", "-ais-runs", "20", "-ais-betas", "2000", "-quiet", "-json"}
	nll := map[unit.Type]float64{}
	for _, u := range []unit.Type{unit.Binary, unit.Categorical} {
		run := u.Name()
		out, errb, code := ncgbench(t, dir, append(common, "-visible", u.Name(), "-out", run)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", run, code, errb)
		}
		var res []struct {
			Final struct {
				NLL     float64 `json:"nll"`
				TestAcc float64 `json:"test_acc"`
			} `json:"final"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 1 || math.IsNaN(res[0].Final.NLL) || res[0].Final.TestAcc < 0.8 {
			t.Fatalf("%s: %v %s", run, err, out)
		}
		nll[u] = res[0].Final.NLL
		m, err := engine.ReadNPZ(filepath.Join(dir, run, "model.npz"))
		if err != nil {
			t.Fatal(err)
		}
		if m.Visible != u || (u == unit.Categorical) != (m.Groups != nil) {
			t.Errorf("%s: model.npz holds %q units with groups %v", run, m.Visible.Name(), m.Groups)
		}
		if u == unit.Categorical && (m.Groups.Len() != 22 || m.Groups[21] != 112 || m.Groups[22] != 114) {
			t.Errorf("categorical: groups %v, want mushrooms' 21 and the label group of 2", m.Groups)
		}
		out, errb, code = ncgbench(t, dir, "eval", "-model", run, "-data-dir", shared, "-likelihood", "ais", "-ais-runs", "20", "-ais-betas", "2000", "-json")
		var ev struct{ NLL *float64 }
		if code != 0 || json.Unmarshal([]byte(out), &ev) != nil || ev.NLL == nil || math.Abs(*ev.NLL-nll[u]) > 1e-9 {
			t.Errorf("%s: eval: exit %d, %s%s; want the run's NLL %v", run, code, out, errb, nll[u])
		}
		if _, errb, code := ncgbench(t, dir, "sample", "-model", run, "-data-dir", shared, "-n", "4", "-steps", "5", "-out", run+".png"); code != 0 {
			t.Errorf("%s: sample: exit %d: %s", run, code, errb)
		}
	}
	// The categorical model with two of its groups merged: its groups are
	// not those of the rows it is given, which is bad usage naming them.
	m, err := engine.ReadNPZ(filepath.Join(dir, "categorical", "model.npz"))
	if err != nil {
		t.Fatal(err)
	}
	m.Groups = append(m.Groups[:1:1], m.Groups[2:]...)
	if err := m.ExportNPZ(filepath.Join(dir, "merged.npz")); err != nil {
		t.Fatal(err)
	}
	if _, errb, code := ncgbench(t, dir, "eval", "-model", "merged.npz", "-data", "mushrooms", "-data-dir", shared); code != 2 || !strings.Contains(errb, "are not the model's") {
		t.Errorf("eval of a model with other groups: exit %d, %s; want 2 naming the groups", code, errb)
	}
	if !(nll[unit.Categorical] < nll[unit.Binary]) {
		t.Errorf("categorical NLL %v, binary %v: want the categorical model's lower", nll[unit.Categorical], nll[unit.Binary])
	}
	if _, errb, code := ncgbench(t, dir, "report", "-out", "rep", "binary", "categorical"); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(filepath.Join(dir, "rep", "table.csv"))
	if err != nil || !strings.Contains(string(b), ",categorical,") || !strings.Contains(string(b), ",binary,") {
		t.Errorf("report's table.csv does not name the units: %s %v", b, err)
	}
}

// TestCategoricalColumns: a CSV of integer-coded columns trains
// categorical units with the categories read from the data or stated,
// and what cannot work is bad usage (exit 2) naming the flag, row or
// column.
func TestCategoricalColumns(t *testing.T) {
	dir := t.TempDir()
	rows := "colour,size\n0,2\n1,0\n2,1\n0,0\n1,2\n2,2\n0,1\n1,1\n"
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.csv"), []byte("a,b\n0,1\n3,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"train", "-data", "x.csv", "-method", "dense", "-hidden", "3", "-epochs", "2", "-batch", "4", "-quiet"}
	for _, c := range []struct {
		extra []string
		out   string
	}{{[]string{"-visible", "categorical"}, "read"}, {[]string{"-visible", "categorical", "-categories", "3,3"}, "stated"}} {
		if _, errb, code := ncgbench(t, dir, append(append(base, c.extra...), "-out", c.out)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.extra, code, errb)
		}
		m, err := engine.ReadNPZ(filepath.Join(dir, c.out, "model.npz"))
		if err != nil {
			t.Fatal(err)
		}
		if m.X != 6 || m.Visible != unit.Categorical || len(m.Groups) != 3 || m.Groups[1] != 3 {
			t.Errorf("%v: a model of %d units (%q, groups %v), want two groups of 3", c.extra, m.X, m.Visible.Name(), m.Groups)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-data", "bas", "-visible", "categorical", "-epochs", "1", "-out", "b", "-quiet"}, "no categorical groups"},
		{append(append([]string(nil), base...), "-data", "big.csv", "-visible", "categorical", "-categories", "2", "-out", "c"), "big.csv"},
		{append(append([]string(nil), base...), "-visible", "categorical", "-categories", "two", "-out", "d"), "-categories"},
		{append(append([]string(nil), base...), "-visible", "categorical", "-learn-sigma", "-out", "e"), "learn-sigma"},
	} {
		if _, errb, code := ncgbench(t, dir, c.args...); code != 2 || !strings.Contains(errb, c.want) {
			t.Errorf("%v: exit %d, %s; want 2 naming %q", c.args, code, errb, c.want)
		}
	}
}
