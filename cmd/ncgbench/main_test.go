package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/internal/datatest"
)

// End-to-end tests run the built binary, as a user does.

var binary string

// buildTags are the build tags the command is built with: those that choose
// the kernels of this test binary (tags_purego_test.go).
var buildTags string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ncgbench-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "ncgbench")
	if out, err := exec.Command("go", "build", "-tags", buildTags, "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ncgbench runs the binary in dir and returns stdout, stderr and the exit code.
func ncgbench(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestTrainDemo(t *testing.T) {
	dir := t.TempDir()
	out, errb, code := ncgbench(t, dir, "train", "-epochs", "400", "-quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"runs/bas-ncg-seed1: ncg on bas", "runs/bas-dense-seed1: dense on bas", "NLL"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"config.json", "metrics.csv", "checkpoint", "model.npz", "result.json"} {
		if _, err := os.Stat(filepath.Join(dir, "runs/bas-ncg-seed1", f)); err != nil {
			t.Errorf("run directory lacks %s", f)
		}
	}
	// Again: the finished runs are reported, not retrained.
	out2, _, _ := ncgbench(t, dir, "train", "-epochs", "400", "-quiet")
	if !strings.Contains(out2, "finished earlier") {
		t.Errorf("a second run retrained:\n%s", out2)
	}
}

// TestTrainDemoOut: the demo's two runs go into -out side by side (one
// run directory cannot hold both: the second failed as "another
// configuration").
func TestTrainDemoOut(t *testing.T) {
	dir := t.TempDir()
	out, errb, code := ncgbench(t, dir, "train", "-epochs", "20", "-quiet", "-out", "pair")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, run := range []string{"bas-ncg-seed1", "bas-dense-seed1"} {
		if !strings.Contains(out, filepath.Join("pair", run)+":") {
			t.Errorf("output lacks %s:\n%s", run, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "pair", run, "result.json")); err != nil {
			t.Errorf("%s: %v", run, err)
		}
	}
	// One method given: one run, in -out itself.
	if _, errb, code := ncgbench(t, dir, "train", "-epochs", "20", "-quiet", "-method", "dense", "-out", "one"); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if _, err := os.Stat(filepath.Join(dir, "one", "result.json")); err != nil {
		t.Error(err)
	}
}

// TestTrainRecordsCompressedRows: config.json says whether the engine
// trained on compressed rows (SET at 7% here) or on the dense matrices.
func TestTrainRecordsCompressedRows(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"-method", "set", "-hidden", "200", "-epsilon", "1"}, true},
		{[]string{"-method", "set", "-hidden", "10", "-epsilon", "2"}, false}, // 33% dense
		{[]string{"-method", "ncg"}, false},
	} {
		args := append([]string{"train", "-data", "bas", "-epochs", "2", "-quiet", "-likelihood", "none", "-out", "r"}, c.args...)
		os.RemoveAll(filepath.Join(dir, "r"))
		if _, errb, code := ncgbench(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "r", "config.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			Meta struct {
				Compressed *bool `json:"compressed_rows"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(raw, &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.Meta.Compressed == nil || *cfg.Meta.Compressed != c.want {
			t.Errorf("%v: compressed_rows = %v, want %v", c.args, cfg.Meta.Compressed, c.want)
		}
	}
}

// TestTrainRecordsTestSplit: with the full LIBSVM file beside the paper's
// training split, a Connect-4 run tests on the paper's 51,557 test rows and
// config.json says so.
func TestTrainRecordsTestSplit(t *testing.T) {
	shared := datatest.Dir(t)
	datatest.File(t, "connect-4/connect-4")
	datatest.File(t, "connect-4/connect-4-train.data")
	dir := t.TempDir()
	args := []string{"train", "-data", "connect-4", "-data-dir", shared, "-method", "dense", "-hidden", "5",
		"-epochs", "1", "-quiet", "-out", "r"}
	if _, errb, code := ncgbench(t, dir, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "r", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Meta struct {
			Test string `json:"test_data_source"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cfg.Meta.Test, "the 51557 rows of ") || !strings.Contains(cfg.Meta.Test, "(the paper's test split)") {
		t.Errorf("test_data_source = %q", cfg.Meta.Test)
	}
}

func TestTrainJSON(t *testing.T) {
	dir := t.TempDir()
	out, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-method", "ncg", "-epochs", "200", "-json", "-quiet", "-out", "r")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var results []struct {
		Dir   string
		Final map[string]*float64 `json:"final"`
	}
	// An array of one run, as the demo prints an array of two.
	if err := json.Unmarshal([]byte(out), &results); err != nil || len(results) != 1 {
		t.Fatalf("stdout is not a JSON array of one result: %v\n%s", err, out)
	}
	res := results[0]
	nll := res.Final["nll"]
	// 4×4 bars and stripes has 30 patterns: no model does better than
	// ln 30 = 3.40. A model that has learnt nothing (uniform over the 2¹⁶
	// images) has 16·ln 2 = 11.09, and the initial random weights 11.8 here.
	// Trained 200 epochs, seeds 1–5 gave 9.19–9.57 (10 epochs: 10.95, 100:
	// 9.94), so 10 is a bound only real training meets.
	if nll == nil {
		t.Fatalf("no final nll in %s", out)
	}
	if *nll < math.Log(30) || *nll > 10 {
		t.Errorf("final nll %.3f, want a value in [ln 30, 10] (untrained: 16·ln 2 = 11.09)", *nll)
	}
}

func TestBadFlags(t *testing.T) {
	dir := t.TempDir()
	cases := [][]string{
		{"train", "-nonsense"},
		{"train", "-hidden", "0"},
		{"train", "-method", "sparse"},
		{"train", "-gamma", "1.5"},
		{"train", "-k", "x"},
		{"train", "extra-arg"},
		{"frobnicate"},
	}
	for _, args := range cases {
		_, errb, code := ncgbench(t, dir, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if strings.Contains(errb, "goroutine ") || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: want a one-line error, got:\n%s", args, errb)
		}
	}
	// A flag naming a file or directory that does not exist is bad usage
	// too (a file that exists but is damaged exits 1).
	for _, args := range [][]string{
		{"train", "-data", "no/such/file.data", "-quiet"},
		{"train", "-data", "nosuch", "-quiet"},
		{"sweep", "-data", "nosuch", "-quiet"},
		{"sweep", "-grid", "no/such/grid.json", "-quiet"},
		{"eval", "-model", "no/such/model.npz", "-data", "bas"},
		{"sample", "-model", "no/such/model.npz", "-data", "bas"},
		{"report", "no/such/runs"},
	} {
		_, errb, code := ncgbench(t, dir, args...)
		if code != 2 || !strings.Contains(errb, "no") || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line", args, code, errb)
		}
	}
}

// TestJSONErrors: with -json, a command that fails prints one JSON object
// {"error", "exit_code"} on stdout (and its one line on stderr), with the
// exit code it exits with: 2 for bad usage, 1 for other failures.
func TestJSONErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "grid.json"), []byte("{bad"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk.npz"), []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"train", "-data", "nosuch", "-json"}, 2, `data: "nosuch" is neither a known data set`},
		{[]string{"train", "-json", "-epochs", "0"}, 2, "epochs = 0"},
		{[]string{"train", "-nonsense", "-json"}, 2, "flag provided but not defined: -nonsense"},
		{[]string{"sweep", "-grid", "grid.json", "-json"}, 2, "grid.json: not a JSON object"},
		{[]string{"eval", "-model", "junk.npz", "-data", "bas", "--json"}, 1, "junk.npz"},
		{[]string{"report", "-json", "."}, 1, "no run directories"},
		{[]string{"bench", "-json=true", "-run", "nothing-matches"}, 2, "matches no benchmark"},
	} {
		out, errb, code := ncgbench(t, dir, c.args...)
		var e struct {
			Error    string `json:"error"`
			ExitCode *int   `json:"exit_code"`
		}
		if err := json.Unmarshal([]byte(out), &e); err != nil || code != c.code || e.ExitCode == nil || *e.ExitCode != c.code ||
			!strings.Contains(e.Error, c.want) || !strings.Contains(errb, c.want) {
			t.Errorf("%v: exit %d, stdout %q (%v), stderr %q; want exit %d and {\"error\": …%s…, \"exit_code\": %d}",
				c.args, code, out, err, errb, c.code, c.want, c.code)
		}
	}
	// Without -json (or with -json=false), stdout stays empty.
	if out, _, code := ncgbench(t, dir, "train", "-data", "nosuch", "-json=false"); code != 2 || out != "" {
		t.Errorf("-json=false: exit %d, stdout %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	out, _, code := ncgbench(t, t.TempDir(), "version")
	if code != 0 || !strings.Contains(out, "kernel tier") {
		t.Errorf("version: exit %d\n%s", code, out)
	}
	// The CPU line carries the family and model, which tell CPU generations
	// apart where a VM shortens the brand string.
	if !regexp.MustCompile(`(?m)^cpu .*\(family \d+, model \d+`).MatchString(out) {
		t.Errorf("version: no CPU family and model in\n%s", out)
	}
	_, errb, code := ncgbench(t, t.TempDir(), "version")
	_ = errb
	cmd := exec.Command(binary, "version")
	cmd.Env = append(os.Environ(), "NCG_KERNEL=bogus")
	outb, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(outb), "NCG_KERNEL") {
		t.Errorf("NCG_KERNEL=bogus: exit %d, %s", cmd.ProcessState.ExitCode(), outb)
	}
	_ = code
}

func TestInterruptSavesCheckpoint(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binary, "train", "-data", "bas", "-epochs", "1000000", "-likelihood", "none", "-out", "r", "-quiet")
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until training is under way (config.json is written before the first epoch).
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(filepath.Join(dir, "r", "config.json")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("after Ctrl-C: %v (want exit 130); stderr: %s", err, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "r", "checkpoint")); err != nil {
		t.Errorf("no checkpoint after Ctrl-C: %v", err)
	}
	if !strings.Contains(errb.String(), "resume") {
		t.Errorf("the message does not say how to resume: %s", errb.String())
	}
}

func TestProfilesOnEveryCommand(t *testing.T) {
	dir := t.TempDir()
	_, errb, code := ncgbench(t, dir, "version", "-cpuprofile", "cpu.prof", "-memprofile=mem.prof")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, f := range []string{"cpu.prof", "mem.prof"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written", f)
		}
	}
}

// TestEveryCommandHasHelp: "-h" on every command prints its usage and exits
// 0, on every command.
func TestEveryCommandHasHelp(t *testing.T) {
	for name := range commands {
		out, errb, code := runCmd(name, "-h")
		text := out + errb
		if code != 0 || !strings.HasPrefix(text, "Usage") || !strings.Contains(text, "ncgbench "+name) || strings.Count(text, "Usage") != 1 {
			t.Errorf("%s -h: exit %d, output (one usage text expected):\n%s", name, code, text)
		}
		// The flag package calls String on zero flag values while printing
		// defaults, and reports (does not propagate) a panic there.
		if strings.Contains(text, "panic") {
			t.Errorf("%s -h prints a panic:\n%s", name, text)
		}
	}
}
