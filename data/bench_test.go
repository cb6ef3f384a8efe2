package data

import (
	"bytes"
	"os"
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

// BenchmarkReadOneHot reads the shared connect-4 files from memory as the
// set, every row checked against its 42 groups, and as plain binary files
// (the LIBSVM file under another name, the split file with another Name).
func BenchmarkReadOneHot(b *testing.B) {
	full, err := os.ReadFile(datatest.File(b, "connect-4/connect-4"))
	if err != nil {
		b.Fatal(err)
	}
	split, err := os.ReadFile(datatest.File(b, "connect-4/connect-4-train.data"))
	if err != nil {
		b.Fatal(err)
	}
	plainSplit := bytes.Replace(split, []byte("Name: CONNECT-4"), []byte("Name: PLAIN"), 1)
	for _, c := range []struct {
		name string
		read func() (*Set, error)
		size int
	}{
		{"libsvm/groups", func() (*Set, error) { return ReadLIBSVM(bytes.NewReader(full), "connect-4", 126) }, len(full)},
		{"libsvm/plain", func() (*Set, error) { return ReadLIBSVM(bytes.NewReader(full), "plain", 126) }, len(full)},
		{"split/groups", func() (*Set, error) { s, _, err := ReadSplit(bytes.NewReader(split), "s"); return s, err }, len(split)},
		{"split/plain", func() (*Set, error) { s, _, err := ReadSplit(bytes.NewReader(plainSplit), "s"); return s, err }, len(split)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(c.size))
			for b.Loop() {
				if _, err := c.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
