package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/experiment"
)

// helpTable parses the "Defaults per data set" table of a command's -h
// output: data set → flag → value.
func helpTable(t *testing.T, help string) map[string]map[string]string {
	t.Helper()
	_, after, ok := strings.Cut(help, "Defaults per data set")
	if !ok {
		t.Fatalf("help has no table of per-data-set defaults:\n%s", help)
	}
	lines := strings.Split(after, "\n")
	var header []string
	table := map[string]map[string]string{}
	for _, line := range lines {
		if !strings.HasPrefix(line, "  ") {
			continue
		}
		// "a file" is the one row name with a space.
		fields := strings.Fields(strings.Replace(line, "a file", "a-file", 1))
		if header == nil {
			header = fields[2:] // "data set" is two words
			continue
		}
		if len(fields) != len(header)+1 {
			t.Fatalf("row %q has %d values for %d flags", line, len(fields)-1, len(header))
		}
		row := map[string]string{}
		for k, h := range header {
			row[strings.TrimPrefix(h, "-")] = fields[k+1]
		}
		table[fields[0]] = row
	}
	return table
}

// TestHelpShowsDefaultsPerDataSet: train -h and sweep -h give each
// per-data-set flag's default for every data set, the table agrees with the
// paper's settings (the paper's section 5, typed in here), and with what a
// run of that data set really gets (the sweep's dry run prints the Spec);
// the flag lines do not claim MNIST's values for every data set.
func TestHelpShowsDefaultsPerDataSet(t *testing.T) {
	// The paper's settings; v is half the visible units (line density 0.5).
	paper := map[string]map[string]string{
		"mnist":     {"hidden": "500", "batch": "50", "lr": "0.1", "lr-conn": "0.5", "classify": "false", "v": "392"},
		"mushrooms": {"hidden": "100", "batch": "10", "lr": "0.01", "lr-conn": "0.05", "classify": "true", "v": "56"},
		"connect-4": {"hidden": "100", "batch": "10", "lr": "0.01", "lr-conn": "0.05", "classify": "true", "v": "63"},
		"bas":       {"v": "8"},
	}
	for _, cmd := range []string{"train", "sweep"} {
		out, errb, code := runCmd(cmd, "-h")
		if code != 0 {
			t.Fatalf("%s -h: exit %d", cmd, code)
		}
		help := out + errb
		for _, entry := range regexp.MustCompile(`(?m)^  -`).Split(help, -1) {
			name, _, _ := strings.Cut(entry, " ")
			name, _, _ = strings.Cut(name, "\n")
			if st, ok := experiment.Lookup(name); ok && st.PerData != nil && regexp.MustCompile(`\(default [0-9]`).MatchString(entry) {
				t.Errorf("%s -h: -%s still claims one default for every data set: %q", cmd, name, entry)
			}
		}
		table := helpTable(t, help)
		for set, want := range paper {
			for flag, v := range want {
				if got := table[set][flag]; got != v {
					t.Errorf("%s -h: %s -%s = %q, the paper's setting is %s", cmd, set, flag, got, v)
				}
			}
		}
		if len(table) != 5 {
			t.Errorf("%s -h: table has %d rows, want the 4 data sets and a file", cmd, len(table))
		}
		// What a line run of each data set gets without flags.
		for set, row := range table {
			data := set
			if set == "a-file" {
				// 784 units, as MNIST's: wide enough for the default -v.
				data = filepath.Join(t.TempDir(), "file.libsvm")
				if err := os.WriteFile(data, []byte("1 1:1 784:1\n0 2:1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// An NCG run and a line run: -lr-conn matters to the first alone,
			// -v to the second.
			sout, serr, code := runCmd("sweep", "-data", data, "-method", "ncg,line", "-dry-run", "-json", "-out", t.TempDir())
			if code != 0 {
				t.Fatalf("sweep -data %s -dry-run: exit %d: %s", data, code, serr)
			}
			var points []experiment.Point
			if err := json.Unmarshal([]byte(sout), &points); err != nil || len(points) != 2 {
				t.Fatalf("sweep -data %s -dry-run -json: %v, %d runs:\n%s", data, err, len(points), sout)
			}
			s := points[0].Spec
			e := s.Engine
			got := map[string]string{"hidden": fmt.Sprint(e.Hidden), "batch": fmt.Sprint(e.Batch),
				"lr": fmt.Sprint(e.LR), "lr-conn": fmt.Sprint(e.LRConn), "epochs": fmt.Sprint(e.Epochs),
				"eval-every": fmt.Sprint(s.EvalEvery), "classify": fmt.Sprint(s.Classify), "v": fmt.Sprint(points[1].Spec.Engine.LineWidth)}
			if len(row) != len(got) {
				t.Errorf("%s -h: %d flags in the table, the test knows %d", cmd, len(row), len(got))
			}
			for flag, v := range row {
				if got[flag] != v {
					t.Errorf("%s -h says %s -%s defaults to %s; a run gets %s", cmd, set, flag, v, got[flag])
				}
			}
		}
	}
}
