package data

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
)

// Binarisation methods for grey-level images.
const (
	// Stochastic sets a pixel of grey level g (0..255) to 1 with probability
	// exactly g/255, independently, from a seeded generator (the paper's
	// method).
	Stochastic = "stochastic"
	// Threshold sets a pixel to 1 when its grey level is ≥ the threshold.
	Threshold = "threshold"
)

// Binarization says how grey levels become 0/1 units. The zero value is
// stochastic binarisation with seed 0.
type Binarization struct {
	Method    string // Stochastic (default when empty) or Threshold
	Seed      uint64 // seed of the stochastic method
	Threshold uint8  // threshold of the Threshold method; 0 means 128
}

func (b Binarization) method() string {
	if b.Method == "" {
		return Stochastic
	}
	return b.Method
}

// Binarize replaces every grey level in pix (0..255) by 0 or 1, in place,
// and returns a description of what it did for Set.Source.
//
// The stochastic method draws from math/rand/v2's PCG seeded with
// (b.Seed, stream); stream tells apart several sets binarised with the same
// seed (Load uses 1 for MNIST training images, 2 for test images). A pixel of
// level g is 1 when u < g for u uniform on {0, …, 254}, so P(1) = g/255
// exactly. Levels 0 and 255 are decided without a draw. u comes from 16 bits x
// of a 64-bit PCG output (four per output, low bits first) by Lemire's
// multiply-shift: u = ⌊255·x / 2¹⁶⌋, rejecting x = 0 (the one value with
// (255·x mod 2¹⁶) < 2¹⁶ mod 255 = 1), which leaves each u with exactly 257 of
// the remaining 65535 values of x. Same seed, stream and pixels give the
// same bits on every platform.
func Binarize(pix []uint8, b Binarization, stream uint64) (string, error) {
	switch b.method() {
	case Stochastic:
		binarizeStochastic(pix, rand.NewPCG(b.Seed, stream))
		return fmt.Sprintf("binarised stochastically, P(1) = pixel/255, PCG seed %d stream %d", b.Seed, stream), nil
	case Threshold:
		t := b.Threshold
		if t == 0 {
			t = 128
		}
		for i, p := range pix {
			if p >= t {
				pix[i] = 1
			} else {
				pix[i] = 0
			}
		}
		return fmt.Sprintf("binarised by threshold, 1 when pixel ≥ %d", t), nil
	}
	return "", fmt.Errorf("data: unknown binarisation method %q (want %q or %q)", b.Method, Stochastic, Threshold)
}

func binarizeStochastic(pix []uint8, src *rand.PCG) {
	var buf uint64
	left := 0
	for i, p := range pix {
		switch p {
		case 0:
			continue
		case 255:
			pix[i] = 1
			continue
		}
		var u uint32
		for {
			if left == 0 {
				buf = src.Uint64()
				left = 4
			}
			x := uint32(buf & 0xffff)
			buf >>= 16
			left--
			if x != 0 {
				u = (x * 255) >> 16
				break
			}
		}
		if u < uint32(p) {
			pix[i] = 1
		} else {
			pix[i] = 0
		}
	}
}

// ReadMNIST reads an IDX image file (N items of any shape, grey levels
// 0..255) and, if labelsPath is not empty, its IDX label file, and returns
// the binarised set. stream is passed to [Binarize].
func ReadMNIST(imagesPath, labelsPath string, b Binarization, stream uint64) (*Set, error) {
	s, shape, err := readImages(imagesPath)
	if err != nil {
		return nil, err
	}
	desc, err := Binarize(s.X, b, stream)
	if err != nil {
		return nil, err
	}
	s.Source = fmt.Sprintf("IDX %s (%s); %s", imagesPath, shape, desc)
	if err := readImageLabels(s, imagesPath, labelsPath); err != nil {
		return nil, err
	}
	return s, nil
}

// readGrey reads an IDX image file and its labels (if labelsPath is not
// empty) like ReadMNIST, but leaves the grey levels in X, unbinarised: the
// set is not valid until makeReal turns them into real values.
func readGrey(imagesPath, labelsPath string) (*Set, error) {
	s, shape, err := readImages(imagesPath)
	if err != nil {
		return nil, err
	}
	s.Source = fmt.Sprintf("IDX %s (%s)", imagesPath, shape)
	if err := readImageLabels(s, imagesPath, labelsPath); err != nil {
		return nil, err
	}
	return s, nil
}

// readImages reads an IDX image file into a set whose X holds the grey
// levels, and returns the shape in words (e.g. "60000×28×28").
func readImages(imagesPath string) (*Set, string, error) {
	img, err := ReadIDXFile(imagesPath)
	if err != nil {
		return nil, "", err
	}
	if len(img.Dims) < 2 {
		return nil, "", fmt.Errorf("%s: IDX dimensions %v: want images (at least 2 dimensions); is this a labels file?", imagesPath, img.Dims)
	}
	s := &Set{Name: filepath.Base(imagesPath), N: img.Dims[0], D: img.ItemSize(), X: img.Data}
	shape := ""
	for i, d := range img.Dims {
		if i > 0 {
			shape += "×"
		}
		shape += strconv.Itoa(d)
	}
	return s, shape, nil
}

// readImageLabels reads the labels of s from labelsPath, if not empty.
func readImageLabels(s *Set, imagesPath, labelsPath string) error {
	if labelsPath == "" {
		return nil
	}
	lx, err := ReadIDXFile(labelsPath)
	if err != nil {
		return err
	}
	labels, nc, names, err := IDXLabels(lx, labelsPath)
	if err != nil {
		return err
	}
	if len(labels) != s.N {
		return fmt.Errorf("%s: %d labels, but %s has %d images", labelsPath, len(labels), imagesPath, s.N)
	}
	s.Labels, s.NumClasses, s.ClassNames = labels, nc, names
	s.Source += "; labels " + labelsPath
	return nil
}
