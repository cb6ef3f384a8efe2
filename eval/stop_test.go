package eval

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestEvaluationsStopWhenCancelled: AIS, RAISE and exact log Z, each set
// to run for far longer than the test allows, return context.Canceled
// within a second of the cancellation; uncancelled, AIS gives the same
// result on one worker as on two (the checks do not disturb it).
func TestEvaluationsStopWhenCancelled(t *testing.T) {
	m := randomModel(784, 200, 0.1, 1)
	small := randomModel(24, 30, 0.1, 1) // 2^24 states: minutes of exact log Z
	rows := make([]uint8, 784)
	long := UniformSchedule(2_000_000)
	cases := map[string]func(ctx context.Context) error{
		"AIS": func(ctx context.Context) error {
			_, err := AIS(ctx, m, AISConfig{Runs: 4, Betas: long, Workers: 2})
			return err
		},
		"RAISE": func(ctx context.Context) error {
			_, err := RAISE(ctx, m, binRows(rows, 1, 784), RAISEConfig{Chains: 2, Betas: long, Workers: 2})
			return err
		},
		"exact": func(ctx context.Context) error {
			_, err := ExactLogZ(ctx, small, 2)
			return err
		},
	}
	for name, f := range cases {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		err := f(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %v to stop", name, d)
		}
		cancel()
	}
	// Not cancelled: the same result whatever the number of workers.
	want, err := AIS(context.Background(), small, AISConfig{Runs: 3, Betas: UniformSchedule(600), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := AIS(context.Background(), small, AISConfig{Runs: 3, Betas: UniformSchedule(600), Workers: 1})
	if err != nil || got.LogZ != want.LogZ {
		t.Errorf("AIS on 1 worker: %v, %v; on 2: %v", got, err, want.LogZ)
	}
}
