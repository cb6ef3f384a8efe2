package eval

import (
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/internal/datatest"
)

// readIDXImages reads a gzipped IDX3 image file: n images of rows×cols bytes.
func readIDXImages(path string) (pix []uint8, n, size int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	var hdr [16]byte
	if _, err := io.ReadFull(zr, hdr[:]); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: header: %w", path, err)
	}
	if m := binary.BigEndian.Uint32(hdr[:]); m != 0x00000803 {
		return nil, 0, 0, fmt.Errorf("%s: magic 0x%08x, want 0x00000803", path, m)
	}
	n = int(binary.BigEndian.Uint32(hdr[4:]))
	size = int(binary.BigEndian.Uint32(hdr[8:])) * int(binary.BigEndian.Uint32(hdr[12:]))
	pix = make([]uint8, n*size)
	if _, err := io.ReadFull(zr, pix); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: pixels: %w", path, err)
	}
	return pix, n, size, nil
}

// binarise draws each pixel as a 1 with probability pixel/255 (fixed seed).
func binarise(pix []uint8, seed uint64) []uint8 {
	rng := rand.New(rand.NewPCG(seed, 0x6d6e697374))
	out := make([]uint8, len(pix))
	for k, p := range pix {
		if rng.Float64()*255 < float64(p) {
			out[k] = 1
		}
	}
	return out
}

type mnistSet struct {
	x    []uint8
	n, X int
}

var (
	mnistOnce             sync.Once
	mnistTrain, mnistTest mnistSet
	mnistErr              error
)

// loadMNIST returns the stochastically binarised training and test images
// (seeds 1 and 2), or skips.
func loadMNIST(tb testing.TB) (train, test mnistSet) {
	tb.Helper()
	trp := datatest.File(tb, "mnist/train-images-idx3-ubyte.gz")
	tep := datatest.File(tb, "mnist/t10k-images-idx3-ubyte.gz")
	mnistOnce.Do(func() {
		pix, n, size, err := readIDXImages(trp)
		if err != nil {
			mnistErr = err
			return
		}
		mnistTrain = mnistSet{binarise(pix, 1), n, size}
		pix, n, size, err = readIDXImages(tep)
		if err != nil {
			mnistErr = err
			return
		}
		mnistTest = mnistSet{binarise(pix, 2), n, size}
	})
	if mnistErr != nil {
		tb.Fatal(mnistErr)
	}
	return mnistTrain, mnistTest
}

func loadCD25(tb testing.TB) *Model {
	tb.Helper()
	m, err := LoadMATModel(datatest.File(tb, "reference/mnistvh_CD25.mat"))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// randomModel returns a model with weights ~ N(0, scale²) and biases ~ N(0, 1/4).
func randomModel(X, H int, scale float64, seed uint64) *Model {
	rng := rand.New(rand.NewPCG(seed, 99))
	m := &Model{H: H, X: X, C: make([]float32, X*H), HiddenBias: make([]float32, H), VisibleBias: make([]float32, X)}
	for k := range m.C {
		m.C[k] = float32(rng.NormFloat64() * scale)
	}
	for k := range m.HiddenBias {
		m.HiddenBias[k] = float32(rng.NormFloat64() * 0.5)
	}
	for k := range m.VisibleBias {
		m.VisibleBias[k] = float32(rng.NormFloat64() * 0.5)
	}
	return m
}

// binRows returns n binary rows of d units (row-major in x) as a set.
func binRows(x []uint8, n, d int) *data.Set {
	return &data.Set{Name: "rows", N: n, D: d, X: x}
}

// realRows returns n real-valued rows of d units (row-major in v) as a set.
func realRows(v []float32, n, d int) *data.Set {
	return &data.Set{Name: "rows", N: n, D: d, Real: v}
}

// labelledRows returns n binary rows of d units with their labels (in
// [0, classes)) as a set.
func labelledRows(x []uint8, n, d int, labels []int, classes int) *data.Set {
	s := binRows(x, n, d)
	s.Labels, s.NumClasses = make([]int32, n), classes
	for r, y := range labels {
		s.Labels[r] = int32(y)
	}
	return s
}
