package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Checkpoints: resuming is bit-identical, and damaged files are refused.

func TestResumeIsBitIdentical(t *testing.T) {
	d := randomData(6, 95, 30, 2)
	for _, cfg := range append([]Config{smallConfig(NCG), smallConfig(SET), smallConfig(Dense)}, sparseConfigs()[0]) {
		method := cfg.Method
		for _, pcd := range []bool{false, true} {
			cfg.Epochs, cfg.Sampler = 3, pcdSampler(pcd)
			checkResume(t, cfg, d, fmt.Sprintf("%s pcd=%v", method, pcd))
		}
	}
}

// TestResumedEpochRecord checks that an epoch interrupted and resumed from a
// checkpoint reports the uninterrupted run's reconstruction error (the
// checkpoint carries the epoch's partial sum), and that a checkpoint
// without that sum (written before it existed) reports the mean over the
// minibatches the resumed run trained, not their sum over the whole epoch.
func TestResumedEpochRecord(t *testing.T) {
	d := randomData(6, 95, 30, 2)
	cfg := smallConfig(NCG)
	cfg.Epochs = 3
	records := func(tr *Trainer, ctx context.Context, ckpt string) ([]Record, error) {
		var recs []Record
		err := tr.Train(ctx, Options{Checkpoint: ckpt, OnEpoch: func(r Record) error { recs = append(recs, r); return nil }})
		return recs, err
	}
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	want, err := records(tr, context.Background(), "")
	if err != nil || len(want) != 3 {
		t.Fatalf("%d records, %v", len(want), err)
	}
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "run.ckpt")
	tr, _ = New(cfg, d)
	ctx, cancel := context.WithCancel(context.Background())
	batches := 0
	tr.afterBatch = func() { // stop after minibatch 4 of epoch 2
		if batches++; batches == 14 {
			cancel()
		}
	}
	first, err := records(tr, ctx, ckpt)
	if !errors.Is(err, context.Canceled) || len(first) != 1 {
		t.Fatalf("interrupted run: %d records, %v", len(first), err)
	}
	saved, _ := os.ReadFile(ckpt)
	tr2, err := Resume(ckpt, d, 2)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := records(tr2, context.Background(), ckpt)
	if err != nil || len(rest) != 2 {
		t.Fatalf("resumed run: %d records, %v", len(rest), err)
	}
	for i, r := range append(first, rest...) {
		if r.Epoch != want[i].Epoch || r.ReconError != want[i].ReconError || !(r.Seconds > 0) {
			t.Errorf("epoch %d: resumed record %+v, uninterrupted %+v", i+1, r, want[i])
		}
	}

	// The same checkpoint without epoch_recon, as older builds wrote it.
	hdr, rest2, partial := splitCheckpoint(t, saved)
	if partial == nil {
		t.Fatal("the checkpoint carries no epoch_recon")
	}
	delete(hdr, "epoch_recon")
	old := filepath.Join(dir, "old.ckpt")
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, frameCheckpoint(h, rest2), 0o644); err != nil {
		t.Fatal(err)
	}
	tr3, err := Resume(old, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := records(tr3, context.Background(), "")
	if err != nil || len(recs) != 2 {
		t.Fatalf("resumed from an old checkpoint: %d records, %v", len(recs), err)
	}
	// Minibatches 5–10 of epoch 2 (rows 40–94): the epoch's sum less the
	// first four minibatches' (the checkpoint's epoch_recon), over their rows.
	n, done := d.N, 4*cfg.Batch
	wantOld := (want[1].ReconError*float64(n*d.D) - *partial) / float64((n-done)*d.D)
	if got := recs[0].ReconError; math.Abs(got-wantOld) > 1e-9*wantOld {
		t.Errorf("old checkpoint: epoch 2 reconstruction error %v, want %v (uninterrupted %v)", got, wantOld, want[1].ReconError)
	}
	if recs[1].ReconError != want[2].ReconError {
		t.Errorf("old checkpoint: epoch 3 reconstruction error %v, want %v", recs[1].ReconError, want[2].ReconError)
	}
}

// splitCheckpoint returns a checkpoint's header as JSON fields, the bytes
// after it (without the checksum), and the header's epoch_recon.
func splitCheckpoint(t *testing.T, b []byte) (map[string]json.RawMessage, []byte, *float64) {
	t.Helper()
	body := b[:len(b)-sha256.Size]
	n := binary.LittleEndian.Uint32(body[len(ckptMagic)+4:])
	start := len(ckptMagic) + 8
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(body[start:start+int(n)], &hdr); err != nil {
		t.Fatal(err)
	}
	var partial *float64
	if raw, ok := hdr["epoch_recon"]; ok {
		partial = new(float64)
		if err := json.Unmarshal(raw, partial); err != nil {
			t.Fatal(err)
		}
	}
	return hdr, body[start+int(n):], partial
}

func TestCorruptCheckpoint(t *testing.T) {
	d := randomData(6, 30, 12, 0)
	tr, err := New(smallConfig(NCG), d)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.ckpt")
	if err := tr.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	cases := map[string][]byte{
		"truncated": good[:len(good)/2],
		"flipped":   append(append([]byte(nil), good[:100]...), append([]byte{good[100] ^ 1}, good[101:]...)...),
		"empty":     {},
		"not ours":  []byte("hello world, this is not a checkpoint at all, but long enough"),
	}
	for name, b := range cases {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, b, 0o644)
		if _, err := Resume(p, d, 1); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s checkpoint: error %v, want one naming the file", name, err)
		}
	}
	other := randomData(7, 31, 12, 0)
	if _, err := Resume(path, other, 1); err == nil {
		t.Error("a checkpoint was resumed on data of another shape")
	}
	// The temporary file of the atomic write is gone.
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("checkpoint dir holds %d files, want 1", len(ents))
	}
}
