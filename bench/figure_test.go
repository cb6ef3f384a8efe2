package bench

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestWriteScalingFigure draws made-up SET sizes and checks that the
// result is a PNG of the stated size with something drawn on it.
func TestWriteScalingFigure(t *testing.T) {
	var pts []ScalePoint
	for _, h := range SETSizes {
		size := 12 * float64(784+h)
		pts = append(pts, ScalePoint{Hidden: h, Size: size, Seconds: 2e-5 * math.Pow(size, 1.08)})
	}
	var b bytes.Buffer
	if err := WriteScalingFigure(&b, pts); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	wantW, wantH := int(ScalingFigureWidth/vg.Inch*ScalingFigureDPI), int(ScalingFigureHeight/vg.Inch*ScalingFigureDPI)
	if r := img.Bounds(); r.Dx() != wantW || r.Dy() != wantH {
		t.Errorf("figure is %d × %d pixels, want %d × %d", r.Dx(), r.Dy(), wantW, wantH)
	}
	// Not blank: more than a few distinct colours (axes, text, lines).
	colours := map[uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			colours[cr>>8<<16|cg>>8<<8|cb>>8] = true
		}
	}
	if len(colours) < 5 {
		t.Errorf("%d colours: a blank figure?", len(colours))
	}
	if err := WriteScalingFigure(&b, pts[:1]); err == nil {
		t.Error("a figure of one size drawn without error")
	}
}

// TestLogTicks: 1, 2 and 5 times the powers of ten are labelled, or every
// multiple on an axis with fewer than three of those.
func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) (l []string, n int) {
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				l = append(l, tk.Label)
			}
			n++
		}
		return l, n
	}
	if l, n := labels(0.7, 60); strings.Join(l, " ") != "1 2 5 10 20 50" || n != 3+9+6 {
		t.Errorf("0.7…60: labels %v of %d ticks", l, n)
	}
	if l, n := labels(12000, 45000); strings.Join(l, " ") != "20000 30000 40000" || n != 3 {
		t.Errorf("12000…45000: labels %v of %d ticks", l, n)
	}
}
