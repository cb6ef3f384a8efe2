package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCancelInsideLongMinibatch: a minibatch that would never end (10⁹
// Gibbs steps, by CD-k, PT and the SET authors' procedure) is abandoned
// soon after Ctrl-C: Train returns an error wrapping context.Canceled
// with no minibatch done, writes no checkpoint of the half-done state,
// and the trainer then refuses to save or train.
func TestCancelInsideLongMinibatch(t *testing.T) {
	pt := smallConfig(Dense)
	pt.Sampler, pt.Temperatures, pt.MinBeta = ParallelTempering, 3, 0.5
	mocanu := smallConfig(SET)
	mocanu.SETProcedure = Mocanu
	for name, cfg := range map[string]Config{"cd": smallConfig(NCG), "pt": pt, "mocanu": mocanu} {
		t.Run(name, func(t *testing.T) {
			cfg.K = 1_000_000_000
			tr, err := New(cfg, randomData(1, 40, 30, 0))
			if err != nil {
				t.Fatal(err)
			}
			ckpt := filepath.Join(t.TempDir(), "ckpt")
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			batches := 0
			done := make(chan error, 1)
			go func() {
				done <- tr.Train(ctx, Options{Checkpoint: ckpt, OnBatch: func(int, int, int) { batches++ }})
			}()
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Train still running 20 s after its context was cancelled")
			}
			if !errors.Is(err, context.Canceled) || batches != 0 {
				t.Fatalf("Train: %v after %d minibatches; want context.Canceled inside the first", err, batches)
			}
			if _, err := os.Stat(ckpt); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a checkpoint of the abandoned minibatch was written (%v)", err)
			}
			if err := tr.SaveCheckpoint(ckpt); !errors.Is(err, errBroken) {
				t.Errorf("SaveCheckpoint after an abandoned minibatch: %v, want a refusal", err)
			}
			if err := tr.Train(context.Background(), Options{}); !errors.Is(err, errBroken) {
				t.Errorf("Train after an abandoned minibatch: %v, want a refusal", err)
			}
		})
	}
}
