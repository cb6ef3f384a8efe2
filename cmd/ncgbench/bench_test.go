package main

import (
	"context"
	"encoding/json"
	"github.com/ncg-rbm/ncg/bench"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestBenchSigmoidJSON(t *testing.T) {
	out, errb, code := ncgbench(t, t.TempDir(), "bench", "-run", "kernel/sigmoid/", "-json", "-count", "2", "-benchtime", "20ms", "-quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var entries []struct {
		Name  string
		Value float64
		Unit  string
		Goal  string
		Met   *bool
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	if len(entries) == 0 {
		t.Fatal("no entries")
	}
	// The binary's tier (built without this test's build tags).
	ver, _, _ := ncgbench(t, t.TempDir(), "version")
	m := regexp.MustCompile(`kernel tier (\w+)`).FindStringSubmatch(ver)
	if m == nil {
		t.Fatalf("no kernel tier in %q", ver)
	}
	medians := map[string]float64{}
	target := false
	for _, e := range entries {
		switch {
		case e.Name == "target/sigmoid-vs-generic":
			// The sigmoid's target: this run's tier against the generic code.
			target = true
			want := medians["kernel/sigmoid/"+m[1]+"/n32000"] / medians["kernel/sigmoid/generic/n32000"]
			if e.Unit != "×" || e.Goal != "≥ 8 ×" || e.Met == nil || *e.Met != (e.Value >= 8) || math.Abs(e.Value-want) > 1e-9*want {
				t.Errorf("target %+v (met %v), want value %v", e, e.Met != nil && *e.Met, want)
			}
		case strings.HasPrefix(e.Name, "kernel/sigmoid/") && e.Value > 0 && e.Unit == "GB/s" && e.Met == nil:
			medians[e.Name] = e.Value
		default:
			t.Errorf("entry %+v", e)
		}
	}
	if !target {
		t.Error("no target/sigmoid-vs-generic entry")
	}
}

func TestBenchTableAndErrors(t *testing.T) {
	dir := t.TempDir()
	out, errb, code := ncgbench(t, dir, "bench", "-run", "kernel/dense/gonum/.*c8$|exact", "-count", "1", "-benchtime", "10ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"cpu:", "kernel tier:", "kernel/dense/gonum/x784-h500-c8", "GFLOP/s", "exact/logz-2^20"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// No target needs only these cases: no targets section.
	if strings.Contains(out, "targets") {
		t.Errorf("targets without their cases:\n%s", out)
	}
	out, errb, code = ncgbench(t, dir, "bench", "-run", "kernel/(copy|updatencg)/", "-count", "1", "-benchtime", "10ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	re := regexp.MustCompile(`(?m)^  fused NCG update time vs a copy of the same bytes +[0-9.e+-]+ × +goal ≤ 1.5 ×: (not )?met$`)
	if !strings.Contains(out, "\ntargets (from the medians above; kernel tier ") || !re.MatchString(out) {
		t.Errorf("no update-vs-copy target line:\n%s", out)
	}
	// The MNIST cases skip with a note when the data directory is empty.
	_, errb, code = ncgbench(t, dir, "bench", "-run", "epoch/mnist-dense", "-data-dir", dir)
	if code != 0 || !strings.Contains(errb, "skipped") {
		t.Errorf("missing data: exit %d: %s", code, errb)
	}
	for _, args := range [][]string{{"bench", "-run", "("}, {"bench", "-run", "nomatch"}, {"bench", "-count", "-1"}} {
		_, errb, code := ncgbench(t, dir, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, want 2 and one line:\n%s", args, code, errb)
		}
	}
}

// TestBenchMarkdown: -markdown writes the page of this run: the command as
// run, the machine as version prints it, each case's median and the
// targets; a file in a missing directory is a usage error found before
// any benchmark runs.
func TestBenchMarkdown(t *testing.T) {
	dir := t.TempDir()
	out, errb, code := ncgbench(t, dir, "bench", "-run", "kernel/sigmoid/", "-count", "1", "-benchtime", "10ms", "-json", "-markdown", "b.md")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var entries []struct {
		Name  string
		Value float64
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "b.md"))
	if err != nil {
		t.Fatal(err)
	}
	ver, _, _ := ncgbench(t, dir, "version")
	for _, want := range []string{"\n./ncgbench bench -run kernel/sigmoid/ -count 1 -benchtime 10ms -json -markdown b.md\n", ver} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	for _, e := range entries {
		name := "`" + e.Name + "`"
		if strings.HasPrefix(e.Name, "target/") {
			continue
		}
		if !strings.Contains(string(page), "| "+name+" | ") {
			t.Errorf("page lacks a row for %s:\n%s", e.Name, page)
		}
	}
	if !strings.Contains(string(page), "| sigmoid vs the generic Go code | ") {
		t.Errorf("page lacks the sigmoid target:\n%s", page)
	}
	// No SET sizes measured: no scaling figure.
	if _, err := os.Stat(filepath.Join(dir, "b-set-scaling.png")); !os.IsNotExist(err) || strings.Contains(string(page), "set-scaling.png") {
		t.Errorf("a scaling figure without SET cases: %v", err)
	}
	// A section written by hand survives the page's regeneration, once.
	hand := "<!-- written by hand: ncgbench bench -markdown keeps this section -->\n## Reading it\n\nProse.\n<!-- end of the section written by hand -->"
	if err := os.WriteFile(filepath.Join(dir, "b.md"), append(page, "\n"+hand+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errb, code := ncgbench(t, dir, "bench", "-run", "kernel/sigmoid/", "-count", "1", "-benchtime", "10ms", "-markdown", "b.md"); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	again, err := os.ReadFile(filepath.Join(dir, "b.md"))
	if err != nil || strings.Count(string(again), hand) != 1 || !strings.HasPrefix(string(again), "# Benchmarks\n") {
		t.Errorf("the regenerated page does not keep the section written by hand once (%v):\n%s", err, again)
	}
	_, errb, code = ncgbench(t, dir, "bench", "-run", "kernel/sigmoid/", "-markdown", filepath.Join("missing", "b.md"))
	if code != 2 || !strings.Contains(errb, "-markdown") {
		t.Errorf("missing directory: exit %d: %s", code, errb)
	}
}

func TestScalingFigurePath(t *testing.T) {
	for page, want := range map[string]string{
		"docs/benchmarks.md": "docs/benchmarks-set-scaling.png",
		"b":                  "b-set-scaling.png",
		"/tmp/x.y/page.txt":  "/tmp/x.y/page-set-scaling.png",
	} {
		if got := scalingFigurePath(page); got != want {
			t.Errorf("scalingFigurePath(%q) = %q, want %q", page, got, want)
		}
	}
}

// TestPartMedians: each part of a case is reported as <case>/<part>, the
// median of its repetitions.
func TestPartMedians(t *testing.T) {
	reps := [][]bench.Part{
		{{Name: "chains", Unit: "s", Value: 3}, {Name: "chains-idle", Unit: "%", Value: 10}},
		{{Name: "chains", Unit: "s", Value: 1}, {Name: "chains-idle", Unit: "%", Value: 30}},
		{{Name: "chains", Unit: "s", Value: 2}, {Name: "chains-idle", Unit: "%", Value: 20}},
	}
	got := partMedians("epoch/x", reps)
	want := []bench.Result{{Name: "epoch/x/chains", Median: 2, Unit: "s", N: 3}, {Name: "epoch/x/chains-idle", Median: 20, Unit: "%", N: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got := partMedians("epoch/x", nil); got != nil {
		t.Fatalf("no repetitions: got %+v", got)
	}
}

// TestBenchGroupsTakeTurns: the cases of a group run their repetitions in
// turn (A B A B A B), a case outside any group all of its own in a row,
// and a case that is skipped runs no more while the others go on.
func TestBenchGroupsTakeTurns(t *testing.T) {
	var order []string
	c := func(name, group string, count int, fail error) bench.Case {
		return bench.Case{Name: name, Group: group, Count: count, Run: func() (float64, error) {
			order = append(order, name)
			return float64(len(order)), fail
		}}
	}
	cases := []bench.Case{
		c("a", "g", 3, nil), c("b", "g", 2, nil), c("s", "g", 3, &bench.SkipError{Reason: "none"}),
		c("x", "", 2, nil),
		c("c", "h", 2, nil), c("d", "h", 2, nil),
	}
	gs := groups(cases)
	var sizes []int
	for _, g := range gs {
		sizes = append(sizes, len(g))
	}
	if !reflect.DeepEqual(sizes, []int{3, 1, 2}) {
		t.Fatalf("group sizes %v, want [3 1 2]", sizes)
	}
	vals, _, errs := repeat(context.Background(), gs[0], 0)
	if want := []string{"a", "b", "s", "a", "b", "a"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if !reflect.DeepEqual(vals, [][]float64{{1, 4, 6}, {2, 5}, nil}) || errs[0] != nil || !bench.IsSkip(errs[2]) {
		t.Errorf("values %v, errors %v", vals, errs)
	}
	order = nil
	repeat(context.Background(), gs[1], 0)
	repeat(context.Background(), gs[2], 1) // -count 1 overrides
	if want := []string{"x", "x", "c", "d"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	order = nil
	if repeat(ctx, gs[2], 0); len(order) != 0 {
		t.Errorf("ran %v after the context ended", order)
	}
}

// TestBenchCommandNamesNoMachinePath: the command docs/benchmarks.md
// records gives an absolute -data-dir relative to the working directory
// (the repository's root when it is regenerated), in either flag form,
// and leaves other arguments alone.
func TestBenchCommandNamesNoMachinePath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(filepath.Dir(wd), "shared", "data") // beside this directory
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-data-dir", shared, "-markdown", "docs/benchmarks.md"}, "./ncgbench bench -data-dir ../shared/data -markdown docs/benchmarks.md"},
		{[]string{"--data-dir=" + shared}, "./ncgbench bench --data-dir=../shared/data"},
		{[]string{"-data-dir", "rel/dir", "-only", "/abs/not/a/dir"}, "./ncgbench bench -data-dir rel/dir -only /abs/not/a/dir"},
	} {
		if got := commandLine("bench", c.args); got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
}
