package main

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// gaussianModel is a model file written by hand in ExportNPZ's layout: X
// visible units (all data units), H hidden, C[i][j] joining hidden i and
// visible j, hidden biases b, visible biases d and every unit's σ.
type gaussianModel struct {
	c        [][]float64 // H×X
	b, d     []float32
	sigma    float64
	gaussian bool
}

func (g gaussianModel) write(t *testing.T, path string) {
	t.Helper()
	h, x := len(g.c), len(g.d)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := npz.NewWriter(f)
	c := mat.NewDense(h, x, nil)
	for i, row := range g.c {
		for j, v := range row {
			c.Set(i, j, v)
		}
	}
	items := []struct {
		name string
		v    any
	}{{"shape", []int64{int64(x), int64(x), int64(h)}}, {"C", c}, {"b", g.b}, {"d", g.d}}
	if g.gaussian {
		sigma, logVar := make([]float32, x), make([]float32, x)
		for j := range sigma {
			sigma[j], logVar[j] = float32(g.sigma), float32(2*math.Log(g.sigma))
		}
		items = append(items, struct {
			name string
			v    any
		}{"sigma", sigma}, struct {
			name string
			v    any
		}{"log_var", logVar})
	}
	for _, it := range items {
		if err := w.Write(it.name, it.v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// sampleCSV is a 2×2-unit data file: column j of row i is sampleRows[i][j].
// Its smallest value is −2 and its largest 8, the grey scale of the images.
var sampleRows = [][]float64{{4, 8, 2, 6}, {0, 2, -2, 1}, {1, 5, 0, 3}, {3, 4, 1, 2}}

func writeSampleCSV(t *testing.T, path string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,c,d\n")
	for _, r := range sampleRows {
		fmt.Fprintf(&b, "%g,%g,%g,%g\n", r[0], r[1], r[2], r[3])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// greyAt returns the grey level of unit j of tile c in a grid of square
// tiles of side units, 8 pixels a unit (the automatic scale of 2×2 tiles),
// 2-pixel gaps, cols tiles a row: the pixel at the unit's centre.
func greyAt(t *testing.T, img image.Image, side, cols, c, j int) uint8 {
	t.Helper()
	const scale, gap = 8, 2
	x := gap + (c%cols)*(side*scale+gap) + (j%side)*scale + scale/2
	y := gap + (c/cols)*(side*scale+gap) + (j/side)*scale + scale/2
	r, g, b, _ := img.At(x, y).RGBA()
	if r != g || g != b {
		t.Fatalf("tile %d unit %d at (%d, %d) is not grey: %d %d %d", c, j, x, y, r>>8, g>>8, b>>8)
	}
	return uint8(r >> 8)
}

// level is the grey level of an input value v on the scale black lo,
// white hi, clipped.
func level(v, lo, hi float64) uint8 {
	return uint8(math.Round(255 * math.Min(1, math.Max(0, (v-lo)/(hi-lo)))))
}

// TestSampleGaussianMeansInInputScale: a Gaussian model with C = 0 (the
// hidden units change nothing) has visible means d whatever the chain: each
// tile shows d mapped back through the standardisation of the data file
// (its columns' means and deviations, computed here), on the grey scale of
// the file's values −2 (black) to 8 (white), clipped: d = 3 in the second
// column is beyond 8, d = −3 in the third below −2. With σ = 0.7 the
// noisy samples would look different from the means.
func TestSampleGaussianMeansInInputScale(t *testing.T) {
	dir := t.TempDir()
	writeSampleCSV(t, filepath.Join(dir, "x.csv"))
	d := []float32{0.5, 3, -3, -0.2}
	gaussianModel{c: [][]float64{{0, 0, 0, 0}}, b: []float32{0}, d: d, sigma: 0.7, gaussian: true}.write(t, filepath.Join(dir, "a.npz"))
	if _, errb, code := ncgbench(t, dir, "sample", "-model", "a.npz", "-data", "x.csv", "-real", "standardise",
		"-n", "2", "-steps", "3", "-seed", "5", "-out", "a.png"); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, errb)
	}
	var want [4]uint8
	for j := range want {
		var mean, ss float64
		for _, r := range sampleRows {
			mean += r[j] / float64(len(sampleRows))
		}
		for _, r := range sampleRows {
			ss += (r[j] - mean) * (r[j] - mean)
		}
		sd := math.Sqrt(ss / float64(len(sampleRows)))
		want[j] = level(float64(d[j])*sd+mean, -2, 8)
	}
	if want != [4]uint8{122, 255, 0, 118} { // the arithmetic above, worked by hand
		t.Fatalf("expected levels %v", want)
	}
	img := decodePNG(t, filepath.Join(dir, "a.png"))
	for c := range 2 {
		for j, w := range want {
			if got := greyAt(t, img, 2, 2, c, j); got != w {
				t.Errorf("tile %d unit %d: grey %d, want %d", c, j, got, w)
			}
		}
	}
}

// TestSampleGaussianUsesSigma: one hidden unit joined to every visible
// unit by C = 1, hidden bias −30, σ = 0.01, data scaled to [0, 1] per
// column. Step 1: the chains started at rows of positive values have
// b + C(v/σ²) ≥ 1.65·10⁴ − 30, so h = 1; the one at the row of zeros has
// −30, so h = 0 (ignoring σ, every chain would have at most 4 − 30 and
// h = 0). Its v then lies within 5.46σ of d, whose sum 0.25 keeps
// b + C(v/σ²) above 0 at step 2 (a draw with σ = 1 would not), so every
// chain ends with h = 1 and shows d + 1, mapped back by the columns'
// minimum and range.
func TestSampleGaussianUsesSigma(t *testing.T) {
	dir := t.TempDir()
	writeSampleCSV(t, filepath.Join(dir, "x.csv"))
	d := []float32{0.3, 0.3, -0.1, -0.25}
	gaussianModel{c: [][]float64{{1, 1, 1, 1}}, b: []float32{-30}, d: d, sigma: 0.01, gaussian: true}.write(t, filepath.Join(dir, "b.npz"))
	const n = 32
	if _, errb, code := ncgbench(t, dir, "sample", "-model", "b.npz", "-data", "x.csv", "-real", "unit",
		"-n", fmt.Sprint(n), "-steps", "2", "-out", "b.png"); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, errb)
	}
	var want [4]uint8
	for j := range want {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range sampleRows {
			lo, hi = math.Min(lo, r[j]), math.Max(hi, r[j])
		}
		want[j] = level((float64(d[j])+1)*(hi-lo)+lo, -2, 8)
	}
	if want != [4]uint8{184, 255, 92, 172} {
		t.Fatalf("expected levels %v", want)
	}
	img := decodePNG(t, filepath.Join(dir, "b.png"))
	for c := range n {
		for j, w := range want {
			if got := greyAt(t, img, 2, 6, c, j); got != w {
				t.Errorf("tile %d (from row %d) unit %d: grey %d, want %d", c, c%len(sampleRows), j, got, w)
			}
		}
	}
}

// TestSampleGaussianStartImages: with no steps a tile shows its start
// image, and mapped back through either scaling, grey levels 0…255 of an
// IDX file come back as themselves. What cannot work is refused with exit
// status 2 naming the flag: binary data for a Gaussian model (an IDX file
// without -real, a binary data set), -real for a binary model, an unknown
// -real.
func TestSampleGaussianStartImages(t *testing.T) {
	dir := t.TempDir()
	imgs := [][4]uint8{{0, 255, 17, 200}, {30, 60, 90, 120}, {255, 0, 128, 64}, {5, 250, 100, 180}}
	idx := []byte{0, 0, 8, 3, 0, 0, 0, byte(len(imgs)), 0, 0, 0, 2, 0, 0, 0, 2}
	for _, im := range imgs {
		idx = append(idx, im[:]...)
	}
	if err := os.WriteFile(filepath.Join(dir, "g-images-idx3-ubyte"), idx, 0o644); err != nil {
		t.Fatal(err)
	}
	gaussianModel{c: [][]float64{{0.5, -0.5, 1, 0}}, b: []float32{0}, d: []float32{0, 0, 0, 0}, sigma: 1, gaussian: true}.write(t, filepath.Join(dir, "g.npz"))
	for _, mode := range []string{"unit", "standardise"} {
		out := mode + ".png"
		if _, errb, code := ncgbench(t, dir, "sample", "-model", "g.npz", "-data", "g-images-idx3-ubyte", "-real", mode,
			"-n", "4", "-steps", "0", "-out", out); code != 0 {
			t.Fatalf("-real %s: exit %d: %s", mode, code, errb)
		}
		img := decodePNG(t, filepath.Join(dir, out))
		for c, im := range imgs {
			for j, w := range im {
				if got := greyAt(t, img, 2, 2, c, j); got != w {
					t.Errorf("-real %s: tile %d unit %d: grey %d, want the image's %d", mode, c, j, got, w)
				}
			}
		}
	}
	gaussianModel{c: [][]float64{{0, 0, 0, 0}}, b: []float32{0}, d: []float32{0, 0, 0, 0}}.write(t, filepath.Join(dir, "bin.npz"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", "g.npz", "-data", "g-images-idx3-ubyte"}, "-real"},
		{[]string{"-model", "g.npz", "-data", "bas"}, "-data bas: g.npz: bas4x4-test is binary"},
		{[]string{"-model", "bin.npz", "-data", "g-images-idx3-ubyte", "-real", "unit"}, "-real: bin.npz has binary visible units"},
		{[]string{"-model", "g.npz", "-data", "g-images-idx3-ubyte", "-real", "grey"}, "-real"},
	} {
		args := append([]string{"sample", "-n", "4", "-out", "r.png"}, tc.args...)
		if _, errb, code := ncgbench(t, dir, args...); code != 2 || !strings.Contains(errb, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 naming %q", tc.args, code, errb, tc.want)
		}
	}
}
