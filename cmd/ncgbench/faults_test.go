package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The fault-injection test kills a training run and a sweep with SIGKILL
// at random moments, resumes each time, and checks that the final models
// are bit-identical to those of uninterrupted runs and that no temporary
// file is left. It checkpoints after every epoch, so many kills land in
// the middle of a checkpoint, metrics or model write.
//
// NCG_FAULT_KILLS sets the number of kills of each (default 6, 3 with
// -short); NCG_FAULT_SEED the random moments (default: from the clock, and
// logged). For a longer run:
//
//	NCG_FAULT_KILLS=300 go test -run TestFaultInjection -timeout 2h -v ./cmd/ncgbench/

// tempFile matches the temporary files of atomic writes.
var tempFile = regexp.MustCompile(`^\..+\.tmp[0-9]+$`)

func faultKills(t *testing.T) int {
	if s := os.Getenv("NCG_FAULT_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			t.Fatalf("NCG_FAULT_KILLS=%q: want a count", s)
		}
		return n
	}
	if testing.Short() {
		return 3
	}
	return 6
}

func faultRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("NCG_FAULT_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("NCG_FAULT_SEED=%q: %v", s, err)
		}
	}
	t.Logf("NCG_FAULT_SEED=%d", seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// temps lists the temporary files under dir.
func temps(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && tempFile.MatchString(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// killUntilDone runs args in dir and kills it after a random time, up to
// the given number of times (each kill followed by a fresh start that
// resumes), then lets it finish. The times are uniform in [0, 2·span/kills),
// so the kills spread over a run that takes span uninterrupted. It returns
// the kills made and, per file, how many kills left its temporary file
// behind (kills in the middle of writing it).
func killUntilDone(t *testing.T, dir string, args []string, kills int, span time.Duration, rng *rand.Rand) (made int, midWrite map[string]int) {
	midWrite = map[string]int{}
	t.Helper()
	window := 2 * int64(span) / int64(max(kills, 1))
	for {
		cmd := exec.Command(binary, args...)
		cmd.Dir = dir
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		kill := time.After(5 * time.Minute)
		if made < kills {
			kill = time.After(time.Duration(rng.Int64N(window)))
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("after %d kills: %v\n%s", made, err, errb.String())
			}
			return made, midWrite
		case <-kill:
			if made >= kills {
				cmd.Process.Kill()
				t.Fatalf("after %d kills: no end within 5 minutes\n%s", made, errb.String())
			}
			cmd.Process.Kill()
			<-done
			made++
			for _, p := range temps(dir) {
				name := strings.TrimPrefix(filepath.Base(p), ".")
				midWrite[name[:strings.LastIndex(name, ".tmp")]]++
			}
		}
	}
}

// sameFile fails the test unless the two files have the same bytes.
func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s and %s differ", a, b)
	}
}

func TestFaultInjection(t *testing.T) {
	kills, rng := faultKills(t), faultRand(t)
	dir := t.TempDir()
	train := func(out string) []string {
		return []string{"train", "-data", "bas", "-epochs", "150", "-eval-every", "50", "-checkpoint-every", "0", "-out", out, "-quiet"}
	}
	sweep := func(out string) []string {
		return []string{"sweep", "-data", "bas", "-epochs", "60", "-method", "ncg,dense", "-seed", "1,2", "-parallel", "2",
			"-checkpoint-every", "0", "-out", out, "-quiet"}
	}
	// The uninterrupted runs, timed: the kills fall within their span.
	span := func(args []string) time.Duration {
		start := time.Now()
		if _, errb, code := ncgbench(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb)
		}
		return time.Since(start) + 100*time.Millisecond
	}
	trainSpan, sweepSpan := span(train("ref")), span(sweep("sweep-ref"))
	t.Logf("uninterrupted: train %v, sweep %v", trainSpan, sweepSpan)

	made, mid := killUntilDone(t, dir, train("killed"), kills, trainSpan, rng)
	t.Logf("train: %d kills; kills in the middle of writing each file: %v", made, mid)
	sameFile(t, filepath.Join(dir, "ref", "model.npz"), filepath.Join(dir, "killed", "model.npz"))
	sameFile(t, filepath.Join(dir, "ref", "checkpoint"), filepath.Join(dir, "killed", "checkpoint"))

	made, mid = killUntilDone(t, dir, sweep("sweep-killed"), kills, sweepSpan, rng)
	t.Logf("sweep: %d kills; kills in the middle of writing each file: %v", made, mid)
	runs, err := os.ReadDir(filepath.Join(dir, "sweep-ref"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range runs {
		if r.IsDir() {
			n++
			sameFile(t, filepath.Join(dir, "sweep-ref", r.Name(), "model.npz"), filepath.Join(dir, "sweep-killed", r.Name(), "model.npz"))
		}
	}
	if n != 4 {
		t.Errorf("%d runs in the sweep, want 4", n)
	}
	if left := temps(dir); len(left) > 0 {
		t.Errorf("temporary files left: %s", strings.Join(left, " "))
	}
}
