package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainingFlagsErrors: a bad sampler, momentum, decay or schedule value
// exits 2 with one line naming the flag, in train and in sweep.
func TestTrainingFlagsErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-sampler", "gibbs"}, `sampler "gibbs" is not one of cd, pcd, pt`},
		{[]string{"-temperatures", "4"}, "-temperatures applies to -sampler pt only"},
		{[]string{"-sampler", "pt", "-temperatures", "1"}, "temperatures = 1"},
		{[]string{"-sampler", "pt", "-min-beta", "1.5"}, "min-beta"},
		{[]string{"-sampler", "pt", "-pcd"}, "-pcd=true and -sampler pt contradict each other"},
		{[]string{"-sampler", "pcd", "-pcd=false"}, "-pcd=false and -sampler pcd contradict each other"},
		{[]string{"-momentum", "1"}, "momentum"},
		{[]string{"-momentum-start", "0.5"}, "momentum-epochs"},
		{[]string{"-l2", "-0.1"}, "l2"},
		{[]string{"-l1", "x"}, "-l1"},
		{[]string{"-lr-schedule", "cosine"}, `lr-schedule "cosine" is not one of constant, linear, step`},
		{[]string{"-lr-final", "0.01"}, "lr-schedule linear"},
		{[]string{"-lr-schedule", "step", "-lr-step-factor", "0.5"}, "lr-step-every"},
	}
	for _, tc := range cases {
		for _, cmd := range []string{"train", "sweep"} {
			args := append([]string{cmd, "-data", "bas", "-epochs", "1", "-quiet", "-out", "o"}, tc.args...)
			_, errb, code := ncgbench(t, dir, args...)
			if code != 2 || !strings.Contains(errb, tc.want) || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
				t.Errorf("%v: exit %d, %q; want exit 2 and one line mentioning %q", args, code, errb, tc.want)
			}
		}
	}
}

// TestTrainingFlagsRecorded: the options reach config.json (and the run),
// unset ones stay out of it, and -sampler pcd is the same configuration
// as -pcd.
func TestTrainingFlagsRecorded(t *testing.T) {
	dir := t.TempDir()
	engineOf := func(out string, args ...string) map[string]any {
		t.Helper()
		_, errb, code := ncgbench(t, dir, append([]string{"train", "-data", "bas", "-method", "dense", "-epochs", "4", "-quiet", "-out", out}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb)
		}
		b, err := os.ReadFile(filepath.Join(dir, out, "config.json"))
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Spec struct {
				Engine map[string]any `json:"engine"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		return c.Spec.Engine
	}
	e := engineOf("pt", "-sampler", "pt", "-k", "1", "-temperatures", "5", "-min-beta", "0.2", "-momentum", "0.9",
		"-momentum-start", "0.5", "-momentum-epochs", "2", "-l2", "0.001", "-l1", "0.0001", "-lr-schedule", "step",
		"-lr-step-every", "2", "-lr-step-factor", "0.5")
	want := map[string]any{"sampler": "pt", "temperatures": 5.0, "min_beta": 0.2, "momentum": 0.9, "momentum_start": 0.5,
		"momentum_epochs": 2.0, "l2": 0.001, "l1": 0.0001, "lr_schedule": "step", "lr_step_every": 2.0, "lr_step_factor": 0.5}
	for k, v := range want {
		if e[k] != v {
			t.Errorf("config.json: %s = %v, want %v", k, e[k], v)
		}
	}
	plain := engineOf("plain", "-lr-schedule", "constant", "-sampler", "cd")
	for k := range want {
		if _, ok := plain[k]; ok {
			t.Errorf("config.json of a default run has %s", k)
		}
	}
	// -sampler pcd, then -pcd in the same directory: one configuration, so
	// the second finds the first finished.
	engineOf("pcd", "-sampler", "pcd")
	out, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-method", "dense", "-epochs", "4", "-quiet", "-out", "pcd", "-pcd")
	if code != 0 || !strings.Contains(out, "finished earlier") {
		t.Errorf("-pcd after -sampler pcd: exit %d, %s%s", code, out, errb)
	}
}

// TestInterruptedRunMessage: Ctrl-C names the checkpoint to resume from
// only when there is one; stopped before its first checkpoint (during
// start-up, say), the run has nothing to resume.
func TestInterruptedRunMessage(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	if err := os.MkdirAll(started, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(started, "config.json"), []byte(`{"spec": {"data": "bas"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	resumes := filepath.Join(dir, "resumes")
	if err := os.MkdirAll(resumes, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"config.json", "checkpoint"} {
		if err := os.WriteFile(filepath.Join(resumes, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(dir, "none"), "before the first checkpoint"},
		{started, "before the first checkpoint"},
		{resumes, "checkpoint in " + resumes + "; run the same command again to resume"},
	} {
		err := interruptedRun(c.dir)
		if !errors.Is(err, errInterrupted) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.dir, err, c.want)
		}
	}
}
