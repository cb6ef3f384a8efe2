package data

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ncg-rbm/ncg/internal/datatest"
)

// BenchmarkLoadMNIST reads the 60000 training images and labels (gzip) and
// binarises them stochastically. bytes-held is the memory of the result.
func BenchmarkLoadMNIST(b *testing.B) {
	img := datatest.File(b, "mnist/"+MNISTTrainImages)
	lab := filepath.Join(filepath.Dir(img), MNISTTrainLabels)
	var s *Set
	for b.Loop() {
		var err error
		if s, err = ReadMNIST(img, lab, Binarization{Seed: 1}, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Bytes()), "bytes-held")
	runtime.KeepAlive(s)
}

// BenchmarkBinarize measures stochastic binarisation alone, per pixel.
func BenchmarkBinarize(b *testing.B) {
	pix := make([]uint8, 1<<20)
	work := make([]uint8, len(pix))
	for i := range pix {
		pix[i] = uint8(i * 7)
	}
	b.SetBytes(int64(len(pix)))
	for b.Loop() {
		copy(work, pix)
		Binarize(work, Binarization{Seed: 1}, 1)
	}
}
