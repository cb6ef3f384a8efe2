package eval

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/data"
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

// BenchmarkAISChecksMNISTShort: the checks of BenchmarkAISMNISTShort's
// estimate (CheckAIS: two routes of 25 runs each, the uniform base and the
// hidden marginal) on the CD-25 model, after the estimate itself, on the
// tier in use; it logs the time of each and their ratio, which must stay
// at most 1 for the checks to be on by default (Plan.CheckPlan).
func BenchmarkAISChecksMNISTShort(b *testing.B) {
	m := loadCD25(b)
	train, _ := loadMNIST(b)
	dA, err := DataBaseRate(train.x, train.n, train.X)
	if err != nil {
		b.Fatal(err)
	}
	betas, _ := PiecewiseSchedule([]float64{0, 0.5, 0.9, 1}, []int{50, 400, 1000})
	rows := binRows(train.x, train.n, train.X)
	benchChecks(b, m, rows, AISConfig{Runs: DefaultRuns, Betas: betas, BaseBias: dA})
}

// BenchmarkGaussAISChecksMNISTShape: the same for the Gaussian model of
// BenchmarkGaussAISMNISTShape (64 runs; routes of 16: the hidden marginal
// from free hidden units and from the data's hidden base).
func BenchmarkGaussAISChecksMNISTShape(b *testing.B) {
	m := randomGaussModel(784, 500, 0.01, true, 1)
	betas, _ := PiecewiseSchedule([]float64{0, 0.5, 0.9, 1}, []int{50, 400, 1000})
	v := someRealData(m, 1000, 2)
	rows := realRows(v, 1000, 784)
	base, err := BaseMean(v, 1000, 784)
	if err != nil {
		b.Fatal(err)
	}
	benchChecks(b, m, rows, AISConfig{Runs: 64, Betas: betas, BaseBias: base})
}

func benchChecks(b *testing.B, m *Model, rows *data.Set, cfg AISConfig) {
	for b.Loop() {
		c0 := cpuTime()
		res, err := AIS(context.Background(), m, cfg)
		if err != nil {
			b.Fatal(err)
		}
		c1 := cpuTime()
		ch, err := CheckAIS(context.Background(), m, rows, res, CheckConfig{Reported: cfg})
		if err != nil {
			b.Fatal(err)
		}
		c2 := cpuTime()
		b.Logf("%s, %d runs: estimate %.2f s CPU, checks (%s, %s; %d runs each) %.2f s CPU: ratio %.2f", kernel.Tier(), res.Runs,
			(c1 - c0).Seconds(), ch.Estimates[1].Route, ch.Estimates[2].Route, ch.Estimates[1].Runs, (c2 - c1).Seconds(), float64(c2-c1)/float64(c1-c0))
	}
}

// BenchmarkCategoricalAISChecksConnect4Shape: the same for a random
// categorical model of Connect-4's shape (42 groups of 3, 100 hidden
// units; 100 runs, routes of 25: the uniform base and the hidden marginal).
func BenchmarkCategoricalAISChecksConnect4Shape(b *testing.B) {
	sizes := make([]int, 42)
	for k := range sizes {
		sizes[k] = 3
	}
	m := randomCategoricalModel(sizes, 100, 0.1, 1)
	betas, _ := PiecewiseSchedule([]float64{0, 0.5, 0.9, 1}, []int{50, 400, 1000})
	rows := categoricalRows(m, randomOneHot(m.Groups, 1000, 2), 1000)
	base, err := FitBase(m, rows)
	if err != nil {
		b.Fatal(err)
	}
	benchChecks(b, m, rows, AISConfig{Runs: DefaultRuns, Betas: betas, BaseBias: base})
}
