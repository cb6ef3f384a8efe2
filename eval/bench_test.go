package eval

import (
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/kernel"
)

func benchAIS(b *testing.B, betas []float64, runs int) {
	m := loadCD25(b)
	train, _ := loadMNIST(b)
	dA, err := BaseRate(train.x, train.n, train.X, 0.025*float64(train.n))
	if err != nil {
		b.Fatal(err)
	}
	for _, tier := range kernel.Tiers() {
		b.Run(tier, func(b *testing.B) {
			restore, err := kernel.UseTier(tier)
			if err != nil {
				b.Fatal(err)
			}
			defer restore()
			for b.Loop() {
				t0 := time.Now()
				res, err := AIS(m, AISConfig{Runs: runs, Betas: betas, BaseBias: dA})
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: %d runs × %d intervals in %.2fs: log Z = %.3f [%.3f, %.3f]", tier, runs, res.Intervals, time.Since(t0).Seconds(), res.LogZ, res.LogZLo, res.LogZHi)
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

// BenchmarkAISMNISTShort: 1/10 of the work (the default schedule's 1450
// highest-β-density... no: a uniform 1450-step schedule, 100 runs).
func BenchmarkAISMNISTShort(b *testing.B) {
	betas, _ := PiecewiseSchedule([]float64{0, 0.5, 0.9, 1}, []int{50, 400, 1000})
	benchAIS(b, betas, DefaultRuns)
}
