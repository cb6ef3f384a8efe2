package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
)

// Train NCG on 4×4 bars and stripes and measure the exact likelihood of the
// trained model with package eval.
func Example() {
	bas, err := data.BarsAndStripes(4) // all 30 images, 16 units
	if err != nil {
		panic(err)
	}
	d, err := engine.FromSet(bas, false)
	if err != nil {
		panic(err)
	}
	cfg := engine.DefaultConfig() // NCG with the paper's MNIST settings
	cfg.Hidden, cfg.Batch, cfg.LR, cfg.LRConn, cfg.Epochs = 16, 10, 0.05, 0.25, 1000
	t, err := engine.New(cfg, d) // validates cfg, draws W, A and A′
	if err != nil {
		panic(err)
	}
	defer t.Close()
	var last engine.Record
	err = t.Train(context.Background(), engine.Options{
		OnEpoch: func(r engine.Record) error { last = r; return nil },
	})
	if err != nil {
		panic(err)
	}
	m := t.Model()
	em := m.EvalModel()
	nll, err := eval.ExactNLL(context.Background(), em, bas, 0)
	if err != nil {
		panic(err)
	}
	// The exact values depend on the kernel tier's float rounding; an
	// untrained model is near 16 ln 2 ≈ 11.1 nats, the best possible
	// ln 30 ≈ 3.4.
	fmt.Println("epochs:", last.Epoch)
	fmt.Println("NLL below 8 nats:", nll < 8)
	fmt.Println("connections learned, not all kept:", last.Density > 0.1 && last.Density < 0.9)
	// Output:
	// epochs: 1000
	// NLL below 8 nats: true
	// connections learned, not all kept: true
}

// A run stopped and resumed from its checkpoint ends with the same bits as
// a run that was never stopped.
func ExampleResume() {
	bas, err := data.BarsAndStripes(4)
	if err != nil {
		panic(err)
	}
	d, err := engine.FromSet(bas, false)
	if err != nil {
		panic(err)
	}
	cfg := engine.DefaultConfig()
	cfg.Hidden, cfg.Batch, cfg.LR, cfg.LRConn, cfg.Epochs = 16, 10, 0.05, 0.25, 40
	dir, err := os.MkdirTemp("", "ncg-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ckpt := filepath.Join(dir, "checkpoint")

	// Whole run.
	whole, err := engine.New(cfg, d)
	if err != nil {
		panic(err)
	}
	defer whole.Close()
	if err := whole.Train(context.Background(), engine.Options{}); err != nil {
		panic(err)
	}

	// The same run, cancelled after epoch 15 (as Ctrl-C would), then resumed.
	ctx, cancel := context.WithCancel(context.Background())
	first, err := engine.New(cfg, d)
	if err != nil {
		panic(err)
	}
	err = first.Train(ctx, engine.Options{Checkpoint: ckpt, OnEpoch: func(r engine.Record) error {
		if r.Epoch == 15 {
			cancel()
		}
		return nil
	}})
	first.Close()
	fmt.Println("stopped by the cancellation:", errors.Is(err, context.Canceled))
	resumed, err := engine.Resume(ckpt, d, 0)
	if err != nil {
		panic(err)
	}
	defer resumed.Close()
	fmt.Println("resumed at epoch", resumed.Epoch())
	if err := resumed.Train(context.Background(), engine.Options{}); err != nil {
		panic(err)
	}
	fmt.Println("same bits:", bytes.Equal(bits(whole.Model().W), bits(resumed.Model().W)) &&
		bytes.Equal(bits(whole.Model().AP), bits(resumed.Model().AP)))
	// Output:
	// stopped by the cancellation: true
	// resumed at epoch 15
	// same bits: true
}

// bits returns the IEEE bits of v.
func bits(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}
