package main

import (
	"encoding/json"
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportEndToEnd(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"1", "2"} {
		sub := map[string]string{"1": "d/a", "2": "d/b"}[s]
		if _, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-epochs", "50", "-seed", s, "-out", sub, "-quiet"); code != 0 {
			t.Fatalf("train seed %s: exit %d: %s", s, code, errb)
		}
	}
	out, errb, code := ncgbench(t, dir, "report", "-out", "r", "d")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "| data | model |") {
		t.Fatalf("want a Markdown table of one group, got:\n%s", out)
	}
	if row := lines[2]; !strings.HasPrefix(row, "| bas | NCG p=0.5 γ=0.5 | 50 | 2 | ") || !strings.Contains(row, " ± ") {
		t.Errorf("row %q: want bas NCG, 50 epochs, 2 runs, mean ± sd", row)
	}
	for _, f := range []string{"table.md", "table.csv", "curves.png", "curves.svg", "degrees.png", "degrees.svg", "density.png", "density.svg"} {
		if st, err := os.Stat(filepath.Join(dir, "r", f)); err != nil || st.Size() == 0 {
			t.Errorf("report lacks %s: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "r", "table.md"))
	if string(md) != out {
		t.Errorf("table.md differs from stdout:\n%s", md)
	}
	f, err := os.Open(filepath.Join(dir, "r", "curves.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, err := image.Decode(f); err != nil {
		t.Errorf("curves.png: %v", err)
	}

	// Flags after the directories, the same directory twice, JSON out.
	out, errb, code = ncgbench(t, dir, "report", "d", "d/a", "-out", "r2", "-format", "csv", "-json")
	if code != 0 {
		t.Fatalf("report -json: exit %d: %s", code, errb)
	}
	var rows []struct {
		Runs int `json:"runs"`
		NLL  struct {
			Mean *float64 `json:"mean"`
			N    int      `json:"n"`
		} `json:"nll"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].Runs != 2 || rows[0].NLL.N != 2 || rows[0].NLL.Mean == nil {
		t.Errorf("JSON: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "r2", "table.csv")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "r2", "curves.png")); err == nil {
		t.Error("-format csv wrote curves.png")
	}
}

func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report"}, 2, "no directories"},
		{[]string{"report", "-format", "gif", "empty"}, 2, "gif"},
		{[]string{"report", "-bogus", "empty"}, 2, "bogus"},
		{[]string{"report", "empty"}, 1, "no run directories"},
		{[]string{"report", "missing"}, 2, "missing: no such directory"},
	} {
		_, errb, code := ncgbench(t, dir, c.args...)
		if code != c.code || !strings.Contains(errb, c.want) || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit %d and a one-line error with %q", c.args, code, errb, c.code, c.want)
		}
	}
	// A broken metrics.csv: the error names the file and the line.
	run := filepath.Join(dir, "runs", "x")
	os.MkdirAll(run, 0o755)
	os.WriteFile(filepath.Join(run, "config.json"), []byte(`{"spec":{"data":"bas","engine":{"method":"ncg"}}}`), 0o644)
	os.WriteFile(filepath.Join(run, "metrics.csv"), []byte("epoch,seconds\n1,2\n"), 0o644)
	_, errb, code := ncgbench(t, dir, "report", "runs")
	if code != 1 || !strings.Contains(errb, filepath.Join("runs", "x", "metrics.csv")) || !strings.Contains(errb, "line 1") {
		t.Errorf("broken metrics: exit %d, %s", code, errb)
	}
	out, _, code := ncgbench(t, dir, "report", "-h")
	if code != 0 || !strings.Contains(out, "DIR...") {
		t.Errorf("report -h: exit %d\n%s", code, out)
	}
}
