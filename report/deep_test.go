package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
)

// TestDeepGroupsMarkTheirBound: a DBM's runs beside an RBM's make a group
// of their own, named by kind and each matrix's method, of as many epochs
// as their whole training; its NLL, a bound, is marked ≤ in table.md with
// the note saying so, and CSV and JSON say the kind and that the NLL is a
// bound; the RBM's row says neither.
func TestDeepGroupsMarkTheirBound(t *testing.T) {
	root := t.TempDir()
	dbm := func(seed uint64) experiment.Spec {
		s := testSpec(engine.NCG, seed)
		j := engine.DefaultJoint()
		j.Epochs = 3
		s.Deep = experiment.Deep{Kind: engine.DBM, Hidden: []int{8}, Methods: []engine.Method{engine.Dense}, Joint: j}
		return s
	}
	fakeRun(t, filepath.Join(root, "rbm"), testSpec(engine.NCG, 1), 20, 0.5, true)
	fakeRun(t, filepath.Join(root, "dbm-1"), dbm(1), 30, 0.5, true)
	fakeRun(t, filepath.Join(root, "dbm-2"), dbm(2), 32, 0.5, true)
	groups := groupsOf(t, root)
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2", len(groups))
	}
	rbm, deep := groups[0], groups[1]
	if !strings.Contains(deep.Model, "DBM NCG p=0.5 γ=0.5 / dense") || strings.Contains(rbm.Model, "DBM") || !strings.Contains(deep.Model, "H=16,8") {
		t.Errorf("groups %q and %q", rbm.Model, deep.Model)
	}
	if deep.Epochs != 2*4+3 || rbm.Epochs != 4 || !deep.Bound() || rbm.Bound() || len(deep.Runs) != 2 {
		t.Errorf("epochs %d (RBM %d), bound %v (RBM %v), %d runs", deep.Epochs, rbm.Epochs, deep.Bound(), rbm.Bound(), len(deep.Runs))
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, groups); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(md.String(), "\n")
	if !strings.Contains(lines[3], "| ≤ 33.50 ± 1.41 |") || strings.Contains(lines[2], "≤") || !strings.Contains(md.String(), "\n≤ Deep models (DBN, DBM)") {
		t.Errorf("Markdown:\n%s", md.String())
	}
	var cb bytes.Buffer
	if err := WriteCSV(&cb, groups); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][3]string{{"rbm", "false", "ncg"}, {"dbm", "true", "ncg,dense"}} {
		if row := csvRow(t, cb.String(), i+1); row["kind"] != want[0] || row["nll_bound"] != want[1] || row["method"] != want[2] {
			t.Errorf("CSV row %d: kind %q, nll_bound %q, method %q; want %q", i+1, row["kind"], row["nll_bound"], row["method"], want)
		}
	}
	b, err := json.Marshal(Table(groups))
	if err != nil || !strings.Contains(string(b), `"method":"ncg,dense","kind":"dbm","nll_bound":true`) || !strings.Contains(string(b), `"kind":"rbm","nll_bound":false`) {
		t.Errorf("JSON: %v\n%s", err, b)
	}
}
