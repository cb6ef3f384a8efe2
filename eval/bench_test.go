package eval

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/internal/kerneltier"
	"github.com/ncg-rbm/ncg/kernel"
)

func benchAIS(b *testing.B, betas []float64, runs int) {
	m := loadCD25(b)
	train, _ := loadMNIST(b)
	dA, err := DataBaseRate(train.x, train.n, train.X)
	if err != nil {
		b.Fatal(err)
	}
	for _, tier := range kernel.Tiers() {
		b.Run(tier, func(b *testing.B) {
			restore, err := kerneltier.Use(tier)
			if err != nil {
				b.Fatal(err)
			}
			defer restore()
			for b.Loop() {
				t0, c0 := time.Now(), cpuTime()
				res, err := AIS(context.Background(), m, AISConfig{Runs: runs, Betas: betas, BaseBias: dA})
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: %d runs × %d intervals in %.2fs (process CPU %.2fs): log Z = %.3f [%.3f, %.3f]", tier, runs, res.Intervals, time.Since(t0).Seconds(), (cpuTime() - c0).Seconds(), res.LogZ, res.LogZLo, res.LogZHi)
			}
		})
	}
}

// BenchmarkAISMNIST runs the full default schedule with 100 runs on the
// CD-25 model (skipped with -short).
func BenchmarkAISMNIST(b *testing.B) {
	if testing.Short() {
		b.Skip("full AIS schedule skipped with -short")
	}
	benchAIS(b, DefaultSchedule(), DefaultRuns)
}

// BenchmarkAISMNISTShort: a tenth of the work: the default schedule's
// shape with 1450 intervals (50, 400 and 1000 steps per segment), 100 runs.
func BenchmarkAISMNISTShort(b *testing.B) {
	betas, _ := PiecewiseSchedule([]float64{0, 0.5, 0.9, 1}, []int{50, 400, 1000})
	benchAIS(b, betas, DefaultRuns)
}

// cpuTime is the process's user+system CPU time: a measure less disturbed
// than wall time when other jobs share the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGaussAISMNISTShape: Gaussian AIS on a random 784×500 model
// (weights ~ N(0, 0.01²), σ = 1), 16 runs of the 1450-interval schedule of
// BenchmarkAISMNISTShort, on every tier: the cost per run-interval of the
// Gaussian path (a dense product per interval) beside the binary one.
func BenchmarkGaussAISMNISTShape(b *testing.B) {
	m := randomGaussModel(784, 500, 0.01, true, 1)
	betas, _ := PiecewiseSchedule([]float64{0, 0.5, 0.9, 1}, []int{50, 400, 1000})
	const runs = 16
	for _, tier := range kernel.Tiers() {
		b.Run(tier, func(b *testing.B) {
			restore, err := kerneltier.Use(tier)
			if err != nil {
				b.Fatal(err)
			}
			defer restore()
			for b.Loop() {
				t0, c0 := time.Now(), cpuTime()
				res, err := AIS(context.Background(), m, AISConfig{Runs: runs, Betas: betas})
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: %d runs × %d intervals in %.2fs (process CPU %.2fs): log Z = %.3f [%.3f, %.3f]", tier, runs, res.Intervals, time.Since(t0).Seconds(), (cpuTime() - c0).Seconds(), res.LogZ, res.LogZLo, res.LogZHi)
			}
		})
	}
}
