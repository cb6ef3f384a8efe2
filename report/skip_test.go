package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
)

// TestCollectSkipsAMalformedRun: one run with a malformed result.json is
// left out and reported (its error names the file); the others are read.
func TestCollectSkipsAMalformedRun(t *testing.T) {
	root := t.TempDir()
	for seed, name := range map[uint64]string{1: "good1", 2: "bad", 3: "good3"} {
		fakeRun(t, filepath.Join(root, name), testSpec(engine.NCG, seed), 2, 0.5, true)
	}
	bad := filepath.Join(root, "bad", "result.json")
	if err := os.WriteFile(bad, []byte(`{"spec": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, skipped, err := Collect(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || filepath.Base(runs[0].Dir) != "good1" || filepath.Base(runs[1].Dir) != "good3" {
		t.Errorf("read %d runs, want good1 and good3", len(runs))
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0].Error(), bad) {
		t.Errorf("skipped %v, want one error naming %s", skipped, bad)
	}
	// Stopped: Collect says so rather than reading on.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Collect(ctx, root); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}
