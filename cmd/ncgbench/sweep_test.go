package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/experiment"
)

var sweepArgs = []string{"sweep", "-data", "bas", "-method", "ncg,dense", "-seed", "1-3", "-epochs", "50", "-quiet"}

// finals reads the final metrics of every run under dir, by run name.
func finals(t *testing.T, dir string) map[string]map[string]*float64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]*float64{}
	for _, e := range ents {
		if !e.IsDir() { // the sweep's lock files
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "result.json"))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		var r struct {
			Final map[string]*float64 `json:"final"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		delete(r.Final, "seconds") // timings differ
		out[e.Name()] = r.Final
	}
	return out
}

func TestSweepShards(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"0/3", "1/3", "2/3"} {
		_, errb, code := ncgbench(t, dir, append(sweepArgs, "-out", "sharded", "-shard", s)...)
		if code != 0 {
			t.Fatalf("-shard %s: exit %d: %s", s, code, errb)
		}
	}
	out, errb, code := ncgbench(t, dir, append(sweepArgs, "-out", "whole", "-json")...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, errb)
	}
	var entries []struct {
		Index  int
		Name   string
		Status string
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("-json: %v\n%s", err, out)
	}
	wantNames := []string{"bas-ncg-seed1", "bas-ncg-seed2", "bas-ncg-seed3", "bas-dense-seed1", "bas-dense-seed2", "bas-dense-seed3"}
	if len(entries) != len(wantNames) {
		t.Fatalf("%d entries, want %d", len(entries), len(wantNames))
	}
	for i, e := range entries {
		if e.Index != i || e.Name != wantNames[i] || e.Status != "trained" {
			t.Errorf("entry %d: %+v, want %s trained", i, e, wantNames[i])
		}
	}
	a, b := finals(t, filepath.Join(dir, "sharded")), finals(t, filepath.Join(dir, "whole"))
	if len(a) != 6 || !reflect.DeepEqual(a, b) {
		t.Errorf("sharded and unsharded sweeps differ:\n%v\n%v", a, b)
	}

	// Reported, the sharded sweep gives the same table (timings and
	// directory names aside).
	reportOf := func(sub string) []map[string]any {
		t.Helper()
		out, errb, code := ncgbench(t, dir, "report", "-json", "-out", "rep-"+sub, sub)
		if code != 0 {
			t.Fatalf("report %s: exit %d: %s", sub, code, errb)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("report -json: %v\n%s", err, out)
		}
		for _, r := range rows {
			delete(r, "seconds_per_epoch")
			delete(r, "dirs")
		}
		return rows
	}
	if ra, rb := reportOf("sharded"), reportOf("whole"); len(ra) != 2 || !reflect.DeepEqual(ra, rb) {
		t.Errorf("reports of the sharded and unsharded sweeps differ:\n%v\n%v", ra, rb)
	}

	// Again: every run is skipped.
	out, _, code = ncgbench(t, dir, append(sweepArgs, "-out", "whole")...)
	if code != 0 || strings.Count(out, "skipped") != 6 || strings.Contains(out, "trained") {
		t.Errorf("rerun: exit %d, want 6 skipped runs:\n%s", code, out)
	}
}

// dryRunNames lists the runs a dry run selects.
func dryRunNames(t *testing.T, dir string, env []string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(binary, append(append([]string{}, sweepArgs...), append(args, "-dry-run", "-json")...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v %v: %v", env, args, err)
	}
	var pts []struct{ Name string }
	if err := json.Unmarshal(out, &pts); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pts {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

func TestSweepShardEnv(t *testing.T) {
	dir := t.TempDir()
	for i, s := range []string{"0/3", "1/3", "2/3"} {
		want := dryRunNames(t, dir, nil, "-shard", s)
		if len(want) != 2 {
			t.Errorf("-shard %s: %v, want 2 runs", s, want)
		}
		id := string(rune('0' + i))
		slurm := dryRunNames(t, dir, []string{"SLURM_ARRAY_TASK_ID=" + id, "SLURM_ARRAY_TASK_COUNT=3"})
		if !reflect.DeepEqual(slurm, want) {
			t.Errorf("SLURM task %d: %v, want %v", i, slurm, want)
		}
		slurm1 := dryRunNames(t, dir, []string{"SLURM_ARRAY_TASK_ID=" + string(rune('1'+i)), "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=3"})
		if !reflect.DeepEqual(slurm1, want) {
			t.Errorf("SLURM task %d of 1-3: %v, want %v", i+1, slurm1, want)
		}
		k8s := dryRunNames(t, dir, []string{"JOB_COMPLETION_INDEX=" + id}, "-shards", "3")
		if !reflect.DeepEqual(k8s, want) {
			t.Errorf("JOB_COMPLETION_INDEX %d: %v, want %v", i, k8s, want)
		}
	}
	// Set but empty (a job script's export of an unset variable): refused,
	// not the whole sweep in every task.
	for _, env := range []string{"SLURM_ARRAY_TASK_ID=", "JOB_COMPLETION_INDEX="} {
		cmd := exec.Command(binary, append(append([]string{}, sweepArgs...), "-shards", "3", "-dry-run")...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), env+`"" is not an integer`) {
			t.Errorf("%s: %v, %s; want exit 2 naming the variable", env, err, out)
		}
	}
}

func TestSweepGridFile(t *testing.T) {
	dir := t.TempDir()
	grid := `{"data": "bas", "method": ["ncg", "dense"], "p": [0.25, 0.5], "seed": "1-2", "epochs": 50}`
	if err := os.WriteFile(filepath.Join(dir, "grid.json"), []byte(grid), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errb, code := ncgbench(t, dir, "sweep", "-grid", "grid.json", "-dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	// p varies for NCG only; dense runs are not repeated per p.
	for _, want := range []string{"6 runs", "bas-ncg-p0.25-seed1", "bas-ncg-p0.5-seed2", "bas-dense-seed2"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"frobnicate": 1}`), 0o644)
	_, errb, code = ncgbench(t, dir, "sweep", "-grid", "bad.json", "-dry-run")
	if code != 2 || !strings.Contains(errb, "bad.json") {
		t.Errorf("bad grid file: exit %d: %s", code, errb)
	}
	for _, args := range [][]string{
		{"sweep", "-shard", "3/3"},
		{"sweep", "-seed", "5-2"},
		{"sweep", "-p", "0.5,x"},
		{"sweep", "-method", "ncg,sparse"},
		{"sweep", "-parallel", "0"},
		{"sweep", "-shards", "4"},
	} {
		_, errb, code := ncgbench(t, dir, append(args, "-dry-run")...)
		if code != 2 || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, want 2 and one line:\n%s", args, code, errb)
		}
	}
}

// TestSweepOrder: -order seed runs every setting's first seed before any
// second seed, names the same runs as grid order, and its shards split them.
func TestSweepOrder(t *testing.T) {
	dir := t.TempDir()
	list := func(args ...string) []string {
		t.Helper()
		out, errb, code := ncgbench(t, dir, append([]string{"sweep", "-data", "bas", "-method", "ncg,dense", "-seed", "3,1", "-dry-run", "-json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb)
		}
		var pts []struct {
			Index int
			Name  string
		}
		if err := json.Unmarshal([]byte(out), &pts); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		var names []string
		for i, p := range pts {
			if args == nil || len(args) == 2 { // unsharded: indices count up
				if p.Index != i {
					t.Errorf("%v: entry %d has index %d", args, i, p.Index)
				}
			}
			names = append(names, p.Name)
		}
		return names
	}
	grid := []string{"bas-ncg-seed3", "bas-ncg-seed1", "bas-dense-seed3", "bas-dense-seed1"}
	bySeed := []string{"bas-ncg-seed3", "bas-dense-seed3", "bas-ncg-seed1", "bas-dense-seed1"}
	if got := list(); !reflect.DeepEqual(got, grid) {
		t.Errorf("default order %v, want %v", got, grid)
	}
	if got := list("-order", "grid"); !reflect.DeepEqual(got, grid) {
		t.Errorf("-order grid %v, want %v", got, grid)
	}
	if got := list("-order", "seed"); !reflect.DeepEqual(got, bySeed) {
		t.Errorf("-order seed %v, want %v", got, bySeed)
	}
	s0, s1 := list("-order", "seed", "-shard", "0/2"), list("-order", "seed", "-shard", "1/2")
	if want0, want1 := []string{bySeed[0], bySeed[2]}, []string{bySeed[1], bySeed[3]}; !reflect.DeepEqual(s0, want0) || !reflect.DeepEqual(s1, want1) {
		t.Errorf("-order seed shards %v and %v, want %v and %v", s0, s1, want0, want1)
	}
	if _, errb, code := ncgbench(t, dir, "sweep", "-order", "seeds", "-dry-run"); code != 2 || !strings.Contains(errb, "-order") {
		t.Errorf("-order seeds: exit %d, want 2 and an error naming -order:\n%s", code, errb)
	}
}

// TestSweepAxisPerMethod: a list flag of an NCG-only setting is an axis of
// the NCG runs alone; the other methods' runs keep the data set's default
// (bars-and-stripes' lr-conn 0.25, from the help table) and the axis
// leaves their names alone, and a setting given once applies to every run.
func TestSweepAxisPerMethod(t *testing.T) {
	out, errb, code := ncgbench(t, t.TempDir(), "sweep", "-data", "bas", "-method", "ncg,dense", "-lr-conn", "0.1,0.2", "-k", "3", "-dry-run", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var pts []experiment.Point
	if err := json.Unmarshal([]byte(out), &pts); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []struct {
		name   string
		lrConn float64
	}{{"bas-ncg-lrc0.1-seed1", 0.1}, {"bas-ncg-lrc0.2-seed1", 0.2}, {"bas-dense-seed1", 0}} // dense does not use it
	if len(pts) != len(want) {
		t.Fatalf("%d runs, want %d:\n%s", len(pts), len(want), out)
	}
	for i, w := range want {
		e := pts[i].Spec.Engine
		if pts[i].Name != w.name || e.LRConn != w.lrConn || e.K != 3 {
			t.Errorf("run %d: %s with lr-conn %v, k %d; want %s with %v, k 3", i, pts[i].Name, e.LRConn, e.K, w.name, w.lrConn)
		}
	}
}
