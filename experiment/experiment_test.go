package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
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
// only that invocation).
func TestResumedRunSaysWhere(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Hidden, cfg.Epochs, cfg.Batch = 8, 4, 10
	spec := Spec{Data: "bas", Engine: cfg, Likelihood: "none"}
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Run(ctx, spec, dir, Options{Progress: cancelAtEpoch(cancel)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first invocation: %v, want cancelled", err)
	}
	res, err := Run(context.Background(), spec, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResumedAt < 1 || res.ResumedAt >= cfg.Epochs {
		t.Errorf("resumed_at_epoch = %d, want 1 to %d", res.ResumedAt, cfg.Epochs-1)
	}
	fresh, err := Run(context.Background(), spec, filepath.Join(t.TempDir(), "fresh"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ResumedAt != 0 {
		t.Errorf("an uninterrupted run says resumed_at_epoch = %d", fresh.ResumedAt)
	}
}
