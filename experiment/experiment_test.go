package experiment

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
)

// cancelAtEpoch cancels a context at the end of the first epoch.
func cancelAtEpoch(cancel context.CancelFunc) func(Event) {
	var once sync.Once
	return func(e Event) {
		if _, ok := e.(EpochDone); ok {
			once.Do(cancel)
		}
	}
}

// TestResumedRunSaysWhere: a run stopped after its first epoch resumes from
// the checkpoint and its result says from which epoch (total_seconds covers
// only that invocation); its config.json keeps a record of each invocation.
func TestResumedRunSaysWhere(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Hidden, cfg.Epochs, cfg.Batch = 8, 4, 10
	spec := Spec{Data: "bas", Engine: cfg, Likelihood: "none"}
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Run(ctx, spec, dir, Options{Workers: 1, Progress: cancelAtEpoch(cancel)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first invocation: %v, want cancelled", err)
	}
	res, err := Run(context.Background(), spec, dir, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResumedAt < 1 || res.ResumedAt >= cfg.Epochs {
		t.Errorf("resumed_at_epoch = %d, want 1 to %d", res.ResumedAt, cfg.Epochs-1)
	}
	// config.json describes the second invocation and keeps the first's
	// record; a third invocation of the finished run rewrites nothing.
	var c configFile
	if err := readJSON(filepath.Join(dir, "config.json"), &c); err != nil {
		t.Fatal(err)
	}
	if c.Meta.Workers != 3 || c.Meta.FromEpoch != res.ResumedAt || len(c.Meta.Earlier) != 1 {
		t.Fatalf("meta after resuming: workers %d, from epoch %d, %d earlier records; want 3, %d, 1", c.Meta.Workers, c.Meta.FromEpoch, len(c.Meta.Earlier), res.ResumedAt)
	}
	if first := c.Meta.Earlier[0]; first.Workers != 1 || first.FromEpoch != 0 || !first.Started.Before(c.Meta.Started) || first.Earlier != nil {
		t.Errorf("first invocation's record: %+v", first)
	}
	if again, err := Run(context.Background(), spec, dir, Options{Workers: 2}); err != nil || !again.Skipped {
		t.Fatalf("third invocation: skipped %v, error %v; want the finished run returned", again != nil && again.Skipped, err)
	}
	var c3 configFile
	if err := readJSON(filepath.Join(dir, "config.json"), &c3); err != nil {
		t.Fatal(err)
	}
	if c3.Meta.Workers != 3 || len(c3.Meta.Earlier) != 1 {
		t.Errorf("the finished run's config.json changed: workers %d, %d earlier records", c3.Meta.Workers, len(c3.Meta.Earlier))
	}
	fresh, err := Run(context.Background(), spec, filepath.Join(t.TempDir(), "fresh"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ResumedAt != 0 {
		t.Errorf("an uninterrupted run says resumed_at_epoch = %d", fresh.ResumedAt)
	}
}

// TestClockCountsEvaluations: the time left is the minibatches left at the
// training speed plus the evaluations left at the last one's duration, and
// during an evaluation what is left of it; before an evaluation has been
// timed, the evaluations ahead are left out and counted.
func TestClockCountsEvaluations(t *testing.T) {
	spec := Spec{EvalEvery: 5}
	spec.Engine.Epochs = 10
	c := newClock(spec)
	if got, n := c.left(1, 0, -1); got != -1 || n != 0 {
		t.Errorf("before any minibatch: %v left + %d evaluations, want unknown (-1)", got, n)
	}
	c.batches, c.trained, c.training = 4, 8, 8*time.Second // 1 s a minibatch
	if got, n := c.left(2, 4, -1); got != 32*time.Second || n != 2 {
		t.Errorf("with no evaluation timed yet: %v left + %d evaluations, want 32s + 2", got, n)
	}
	if got, n := c.left(5, 4, time.Second); got != 21*time.Second || n != 1 {
		t.Errorf("during the first evaluation: %v left + %d evaluations, want 21s + 1", got, n)
	}
	c.evalTook = 3 * time.Second
	for _, tc := range []struct {
		epoch, done int
		inEval      time.Duration
		want        time.Duration
	}{
		{2, 4, -1, 32*time.Second + 2*3*time.Second},        // epochs 3–10; evaluations after 5 and 10
		{5, 4, -1, 20*time.Second + 2*3*time.Second},        // epoch 5 trained, its evaluation not started
		{5, 4, time.Second, 20*time.Second + 4*time.Second}, // during it: 1 s of it, then epoch 10's
		{10, 4, 2 * time.Second, 2 * time.Second},           // the final evaluation
		{10, 4, -1, 3 * time.Second},                        // trained, final evaluation ahead
	} {
		if got, n := c.left(tc.epoch, tc.done, tc.inEval); got != tc.want || n != 0 {
			t.Errorf("epoch %d, %d minibatches, evaluation %v: %v left, want %v", tc.epoch, tc.done, tc.inEval, got, tc.want)
		}
	}
	// -likelihood none without -classify: the evaluations measure nothing,
	// and none is counted, timed or not.
	spec.Likelihood = eval.LikelihoodNone
	c = newClock(spec)
	c.batches, c.trained, c.training = 4, 8, 8*time.Second
	if got, n := c.left(2, 4, -1); got != 32*time.Second || n != 0 {
		t.Errorf("-likelihood none: %v left + %d evaluations, want 32s and none", got, n)
	}
}

// TestFinalAISProgress: during the final AIS the run reports the AIS's
// progress, moving forward, with a time left once a first evaluation
// has been timed and none at its end; the last epoch's time left counts
// that evaluation.
func TestFinalAISProgress(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Hidden, cfg.Epochs, cfg.Batch = 8, 2, 10
	spec := Spec{Data: "bas", Engine: cfg, EvalEvery: 1, Likelihood: eval.LikelihoodAIS, AISRuns: 4, AISIntervals: 20000}
	var final []Evaluating
	var lastLeft time.Duration = -2
	finished := false
	_, err := Run(context.Background(), spec, filepath.Join(t.TempDir(), "run"), Options{Progress: func(e Event) {
		switch e := e.(type) {
		case Evaluating:
			if e.Epoch == 2 {
				final = append(final, e)
			}
		case EpochDone:
			if e.Metrics.Epoch == 2 {
				lastLeft = e.Left
			}
		case Finished:
			finished = true
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if lastLeft <= 0 || !finished {
		t.Errorf("epoch 2 done with %v left (want > 0: its AIS is ahead); finished: %v", lastLeft, finished)
	}
	var ais []Evaluating
	for _, e := range final {
		if e.Phase == eval.PhaseAIS {
			ais = append(ais, e)
		}
	}
	if len(ais) < 4 || ais[0].Done != 0 || ais[len(ais)-1].Done != 4*20000 {
		t.Fatalf("final AIS reported %d times, from %v to %v", len(ais), ais[0].Progress, ais[len(ais)-1].Progress)
	}
	for k, e := range ais[1:] {
		if e.Done < ais[k].Done || e.Left < 0 {
			t.Errorf("AIS progress %v (%v left) after %v", e.Progress, e.Left, ais[k].Progress)
		}
	}
	if end := ais[len(ais)-1]; end.Left != 0 {
		t.Errorf("AIS done, the run done: %v left, want 0", end.Left)
	}
}

// TestClockHugeEpochs: the time left of a run of as many epochs as an int
// holds is computed at once (the evaluations ahead are counted, not looped
// over, and the time does not overflow), and the count agrees with a
// count epoch by epoch on small runs. With -eval-every 10 and 2^63−1
// epochs, the evaluations after epoch 1 are those after epochs 10, 20, …,
// 9223372036854775800 (922337203685477580 of them) and the last.
func TestClockHugeEpochs(t *testing.T) {
	for _, ev := range []int{0, 1, 3, 5} {
		for epochs := 1; epochs <= 12; epochs++ {
			spec := Spec{EvalEvery: ev}
			spec.Engine.Epochs = epochs
			c := newClock(spec)
			for epoch := 0; epoch <= epochs; epoch++ {
				want := 0
				for e := epoch + 1; e <= epochs; e++ {
					if e == epochs || (ev > 0 && e%ev == 0) {
						want++
					}
				}
				if got := c.dueAfter(epoch); got != want {
					t.Errorf("eval-every %d, %d epochs: %d evaluations after epoch %d, want %d", ev, epochs, got, epoch, want)
				}
			}
		}
	}
	spec := Spec{EvalEvery: 10}
	spec.Engine.Epochs = math.MaxInt
	c := newClock(spec)
	c.batches, c.trained, c.training = 3, 3, 3*time.Second
	done := make(chan struct{})
	go func() {
		defer close(done)
		left, n := c.left(1, 3, -1)
		if left != math.MaxInt64 || n != 922337203685477581 {
			t.Errorf("2^63−1 epochs: %v left + %d evaluations, want the longest duration + 922337203685477581", left, n)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the time left of 2^63−1 epochs is still being computed after 10 s")
	}
}
