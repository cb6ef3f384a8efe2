package kernel_test

import (
	"testing"

	"github.com/ncg-rbm/ncg/internal/kernelbench"
)

// BenchmarkKernel runs the kernel cases of internal/kernelbench, which
// ncgbench bench runs too: BenchmarkKernel/<kernel>/<tier>/<shape> on the
// MNIST shapes (H = 500, X = 784), one sub-benchmark per tier, plus gonum's
// BLAS as the baseline under the tier names "gonum" (all cores) and
// "gonum-1core" (one core, as our kernels run). Compare tiers as ratios in
// one run; benchstat reads the output directly.
func BenchmarkKernel(b *testing.B) {
	for _, c := range kernelbench.Cases() {
		b.Run(c.Name, func(b *testing.B) {
			restore, err := c.Use()
			if err != nil {
				b.Fatal(err)
			}
			defer restore()
			b.ReportAllocs()
			if c.Unit == kernelbench.Bytes {
				b.SetBytes(int64(c.Work))
			}
			for i := 0; i < b.N; i++ {
				c.Call()
			}
			if c.Unit == kernelbench.Flops {
				b.ReportMetric(c.Work*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			}
		})
	}
}
