package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/experiment"
)

// TestGaussianRunEndToEnd: ncgbench trains Gaussian visible units on a
// real-valued CSV file standardised per column, records the scaling (the
// columns' means and deviations, computed here by hand) in config.json,
// reports an exact NLL (4 hidden units), and eval of the run gives the
// same NLL; binary units on real data are refused as bad usage. sample
// draws the run: a grid of the layout's size, the same for the same seed,
// and with no steps the data's rows (black 0, white 10, the file's range).
func TestGaussianRunEndToEnd(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,b,c\n")
	col := [3][]float64{}
	for i := 0; i < 40; i++ {
		v := []float64{float64(i % 5), float64((i * 7) % 11), float64(i%2) * 3}
		for j := range v {
			col[j] = append(col[j], v[j])
		}
		fmt.Fprintf(&b, "%g,%g,%g\n", v[0], v[1], v[2])
	}
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"train", "-data", "x.csv", "-real", "standardise", "-visible", "gaussian", "-method", "dense", "-hidden", "4", "-epochs", "3", "-out", "g", "-quiet", "-json"}
	out, errb, code := ncgbench(t, dir, args...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	var res []experiment.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 1 || math.IsNaN(res[0].Final.NLL) {
		t.Fatalf("train -json: %v, %s", err, out)
	}
	meta, err := experiment.RunDir(filepath.Join(dir, "g")).Meta()
	if err != nil || meta.Scaling == nil || len(meta.Scaling.Offset) != 3 {
		t.Fatalf("config.json's scaling: %+v, %v", meta.Scaling, err)
	}
	var logSD float64
	for j, c := range col {
		var mean, sq float64
		for _, v := range c {
			mean += v
		}
		mean /= float64(len(c))
		for _, v := range c {
			sq += (v - mean) * (v - mean)
		}
		sd := math.Sqrt(sq / float64(len(c)))
		logSD += math.Log(sd)
		if math.Abs(meta.Scaling.Offset[j]-mean) > 1e-9 || math.Abs(meta.Scaling.Scale[j]-sd) > 1e-9 {
			t.Errorf("column %d: scaling %v, %v; want mean %v, deviation %v", j, meta.Scaling.Offset[j], meta.Scaling.Scale[j], mean, sd)
		}
	}
	out, errb, code = ncgbench(t, dir, "eval", "-model", "g", "-json")
	var ev struct {
		NLL      *float64
		NLLInput *float64 `json:"nll_input"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &ev) != nil || ev.NLL == nil || math.Abs(*ev.NLL-res[0].Final.NLL) > 1e-9 {
		t.Errorf("eval of the run: exit %d, %s%s; want the run's NLL %v", code, out, errb, res[0].Final.NLL)
	}
	// The density of the unscaled rows: v = (x − mean)/sd per column, so
	// −log p(x) = −log p(v) + Σ log sd.
	if ev.NLL != nil && (ev.NLLInput == nil || math.Abs(*ev.NLLInput-(*ev.NLL+logSD)) > 1e-9) {
		t.Errorf("eval's NLL in the input scale %v, want %v + %v", ev.NLLInput, *ev.NLL, logSD)
	}
	// Real-valued data for binary units, and the other way round: bad
	// usage, naming the flag.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-data", "x.csv", "-method", "dense", "-hidden", "4", "-epochs", "1", "-out", "b", "-quiet"}, "-visible gaussian"},
		{[]string{"train", "-data", "bas", "-real", "unit", "-epochs", "1", "-out", "b", "-quiet"}, "-real unit"},
		{[]string{"train", "-data", "bas", "-visible", "gaussian", "-epochs", "1", "-out", "b", "-quiet"}, "-visible gaussian"},
		{[]string{"eval", "-model", "g", "-data", "bas", "-real", "unit"}, "-real unit"},
	} {
		if _, errb, code := ncgbench(t, dir, c.args...); code != 2 || !strings.Contains(errb, c.want) {
			t.Errorf("%v: exit %d, %s; want 2 naming %s", c.args, code, errb, c.want)
		}
	}
	sampleGaussianRun(t, dir, "g")
}

// sampleGaussianRun samples run (trained on TestGaussianRunEndToEnd's rows
// of 3 units i%5, 7i%11 and 3(i%2), 4 hidden units).
func sampleGaussianRun(t *testing.T, dir, run string) {
	t.Helper()
	sample := func(out string, extra ...string) {
		t.Helper()
		args := append([]string{"sample", "-model", run, "-n", "5", "-out", out}, extra...)
		if stdout, errb, code := ncgbench(t, dir, args...); code != 0 || !strings.Contains(stdout, "in the input scale, black 0, white 10") {
			t.Fatalf("%v: exit %d: %s%s", args, code, stdout, errb)
		}
	}
	sample("a.png", "-steps", "30", "-seed", "3", "-masks", "m.png")
	sample("b.png", "-steps", "30", "-seed", "3")
	sample("c.png", "-steps", "30", "-seed", "4")
	// Tiles of one row of 3 units, 8 pixels a unit, stacked with 2-pixel
	// gaps: a grid of 28×52 (5 tiles); masks and weights of the 4 hidden
	// units side by side, 2·28 + 6 by 42. Captions make the images at
	// least 360 wide.
	for _, tc := range []struct {
		file string
		w, h int
	}{{"a.png", 28, 52}, {"m.png", 62, 42}} {
		img := decodePNG(t, filepath.Join(dir, tc.file))
		b := img.Bounds()
		r, g, bl, _ := img.At(tc.w-1, tc.h-1).RGBA()
		r2, g2, bl2, _ := img.At(tc.w-1, tc.h).RGBA()
		if b.Dx() != 360 || b.Dy() <= tc.h || r>>8 != 70 || g>>8 != 100 || bl>>8 != 160 || r2>>8 == 70 && g2>>8 == 100 && bl2>>8 == 160 {
			t.Errorf("%s is %v: want a %d×%d grid at the top left, captioned below", tc.file, b.Size(), tc.w, tc.h)
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a.png"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.png"))
	c, _ := os.ReadFile(filepath.Join(dir, "c.png"))
	if string(a) != string(b) || string(a) == string(c) {
		t.Error("samples differ for one seed, or agree for two")
	}
	sample("d.png", "-steps", "0")
	img := decodePNG(t, filepath.Join(dir, "d.png"))
	for i := range 5 {
		for j, v := range []float64{float64(i % 5), float64((i * 7) % 11), float64(i%2) * 3} {
			x, y := 2+j*8+4, 2+i*10+4
			got, _, _, _ := img.At(x, y).RGBA()
			// 255·v/10 is k + ½ for odd v: either neighbour.
			if want := 255 * v / 10; math.Abs(float64(got>>8)-want) > 0.5 {
				t.Errorf("no steps: row %d unit %d: grey %d, want %.1f (the row's value %g)", i, j, got>>8, want, v)
			}
		}
	}
}

// TestExactLimitOfGaussianUnits: exact log Z of Gaussian visible units
// sums over the 2^H hidden states whatever the number of visible units,
// so with 2 visible and 26 hidden units (2^26 states, past the 2^25
// allowed) -exact is refused before training, with exit 2 and no run
// directory, by train and by eval; and eval without -likelihood takes AIS
// for such a model (2^26 states are past the 2^20 of the automatic
// choice), so AIS's flags apply.
func TestExactLimitOfGaussianUnits(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("0.5,-1\n-0.5,1\n1,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gauss := []string{"-data", "x.csv", "-visible", "gaussian", "-hidden", "26", "-epochs", "1", "-quiet"}
	_, errb, code := ncgbench(t, dir, append([]string{"train", "-exact", "-out", "refused"}, gauss...)...)
	want := "likelihood exact: exact log Z of 2 gaussian visible and 26 hidden units sums over 2^26 states; the limit is 2^25; use ais"
	if code != 2 || !strings.Contains(errb, want) {
		t.Errorf("train -exact: exit %d, %q; want exit 2 saying %q", code, errb, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "refused")); err == nil {
		t.Error("train -exact left a run directory")
	}
	if _, errb, code := ncgbench(t, dir, append([]string{"train", "-likelihood", "none", "-out", "g"}, gauss...)...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	_, errb, code = ncgbench(t, dir, "eval", "-model", "g", "-exact", "-quiet")
	if code != 2 || !strings.Contains(errb, "-likelihood exact: exact log Z of 2 gaussian visible and 26 hidden units sums over 2^26 states") {
		t.Errorf("eval -exact: exit %d, %q; want exit 2 naming the limit", code, errb)
	}
	out, errb, code := ncgbench(t, dir, "eval", "-model", "g", "-ais-runs", "4", "-ais-betas", "50", "-quiet", "-json")
	if code != 0 || !strings.Contains(out, `"likelihood": "ais"`) {
		t.Errorf("eval -ais-runs 4 without -likelihood: exit %d, %s %s; want AIS", code, out, errb)
	}
}

// TestEvalRefusesAnotherScaling: eval of a run trained on data scaled to
// [0, 1] refuses -real binary and -real standardise (whose NLL would be
// meaningless: millions of nats) with exit 2 naming -real, and takes the
// run's own; a binary model given real-valued data, of as many columns as
// it has units, is refused naming the unit types. For data used as read,
// the NLL in the input scale is the NLL itself.
func TestEvalRefusesAnotherScaling(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("5,-1\n-0.5,1\n1,0\n2,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.libsvm"), []byte("0 1:1\n1 2:1\n0 1:1 2:1\n1 1:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-data", "x.csv", "-real", "unit", "-visible", "gaussian", "-out", "g"},
		{"-data", "b.libsvm", "-out", "bin"},
		{"-data", "x.csv", "-visible", "gaussian", "-out", "raw"},
	} {
		args = append([]string{"train", "-hidden", "2", "-epochs", "1", "-likelihood", "none", "-quiet"}, args...)
		if _, errb, code := ncgbench(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb)
		}
	}
	for _, c := range []struct {
		args []string
		want string // "" succeeds
	}{
		{[]string{"-model", "g", "-real", "binary"}, "-real binary: the run in g was trained with -real unit"},
		{[]string{"-model", "g", "-real", "standardise"}, "-real standardise: the run in g was trained with -real unit"},
		{[]string{"-model", "g", "-real", "bogus"}, "-real: "},
		{[]string{"-model", "g", "-real", "unit"}, ""},
		{[]string{"-model", "bin", "-data", "x.csv"}, "-data x.csv: x.csv is real-valued; binary units need binary rows"},
	} {
		_, errb, code := ncgbench(t, dir, append([]string{"eval", "-quiet"}, c.args...)...)
		switch {
		case c.want == "" && code != 0:
			t.Errorf("eval %v: exit %d: %s", c.args, code, errb)
		case c.want != "" && (code != 2 || !strings.Contains(errb, c.want)):
			t.Errorf("eval %v: exit %d, %q; want exit 2 saying %q", c.args, code, errb, c.want)
		}
	}
	out, errb, code := ncgbench(t, dir, "eval", "-model", "raw", "-json")
	var ev struct {
		NLL      *float64 `json:"nll"`
		NLLInput *float64 `json:"nll_input"`
	}
	if err := json.Unmarshal([]byte(out), &ev); code != 0 || err != nil || ev.NLL == nil || ev.NLLInput == nil || *ev.NLLInput != *ev.NLL {
		t.Errorf("eval of a run on data as read: exit %d, %v, %s%s; want nll_input = nll", code, err, out, errb)
	}
}
