package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/internal/datatest"
)

// The reader splits a value printed in exponent form into its mantissa and
// its exponent, shifting the rest of the line and dropping its last value;
// "-0", zeros and ordinary values pass (to 6 digits).
func TestReadBack(t *testing.T) {
	line := []float64{0.5, 1.23456789e-5, -0.25, 0, -3e-7, 2.0000004}
	got, e, err := readBack(line, false)
	want := []float64{0.5, 1.23457, -5, -0.25, 0, -3}
	if err != nil || !reflect.DeepEqual(got, want) || e != 2 {
		t.Errorf("got %v (%d in exponent form, %v), want %v (2)", got, e, err, want)
	}
	got, e, err = readBack(line, true)
	want = []float64{0.5, 1.23457, -0.25, 0, -3, 2}
	if err != nil || !reflect.DeepEqual(got, want) || e != 2 {
		t.Errorf("value only: got %v (%d, %v), want %v (2)", got, e, err, want)
	}
}

// A model whose values all print in fixed form reads back to 6 digits; the
// written file is what ncgbench's loader reads.
func TestRunWritesModel(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "m.npz"), filepath.Join(dir, "read.npz")
	m := engineModel(t, in, 2, 3, []float64{0.25, -1.5, 3, 0, 2e-5, 7}, []float32{0.125, -2}, []float32{1, 0, -1})
	var so, se bytes.Buffer
	if err := run([]string{"-in", in, "-out", out}, &so, &se); err != nil {
		t.Fatal(err, se.String())
	}
	if !strings.Contains(so.String(), "exponent form: 1 weights in 1 of 2 hidden rows") {
		t.Errorf("report:\n%s", so.String())
	}
	r, err := readModel(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.25, -1.5, 3, 0, 2, -5}; !reflect.DeepEqual(r.c, want) {
		t.Errorf("C read back %v, want %v", r.c, want)
	}
	if !reflect.DeepEqual(r.b, m.b) || !reflect.DeepEqual(r.d, m.d) || !reflect.DeepEqual(r.shape, m.shape) {
		t.Errorf("b %v d %v shape %v, want %v %v %v", r.b, r.d, r.shape, m.b, m.d, m.shape)
	}
	for _, args := range [][]string{{}, {"-in"}, {"-in", in, "extra"}} {
		if err := run(args, &so, &se); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	if err := run([]string{"-in", filepath.Join(dir, "none.npz")}, &so, &se); err == nil || errors.Is(err, errUsage) || !strings.Contains(err.Error(), "none.npz") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

// engineModel writes an .npz with the entries of ncgbench's export that the
// hand-off uses (H×X C, b, d, shape) and returns the model.
func engineModel(t *testing.T, path string, H, X int, c []float64, b, d []float32) *model {
	t.Helper()
	m := &model{shape: []int64{int64(X), int64(X), int64(H)}, c: c, b: b, d: d}
	if err := writeModel(path, m); err != nil {
		t.Fatal(err)
	}
	return m
}

// -positive drops every weight that is not above 0 (C > 0 is the mask the
// W > 0 reading gives); with -as-is the model is written without the text
// round trip, so the kept weights keep every bit.
func TestPositiveAsIs(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "m.npz"), filepath.Join(dir, "pos.npz")
	c := []float64{0.25, -1.5, 3.0000002, 0, 2e-5, -7}
	m := engineModel(t, in, 2, 3, c, []float32{0.125, -2}, []float32{1, 0, -1})
	var so, se bytes.Buffer
	if err := run([]string{"-in", in, "-out", out, "-positive", "-as-is"}, &so, &se); err != nil {
		t.Fatal(err, se.String())
	}
	if !strings.Contains(so.String(), "3 weights above 0 kept (density 0.50000)") {
		t.Errorf("report:\n%s", so.String())
	}
	r, err := readModel(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.25, 0, float64(float32(3.0000002)), 0, float64(float32(2e-5)), 0}
	if !reflect.DeepEqual(r.c, want) {
		t.Errorf("C %v, want %v", r.c, want)
	}
	if !reflect.DeepEqual(r.b, m.b) || !reflect.DeepEqual(r.d, m.d) {
		t.Errorf("biases changed: b %v d %v", r.b, r.d)
	}
	if err := run([]string{"-in", in, "-as-is"}, &so, &se); !errors.Is(err, errUsage) {
		t.Errorf("-as-is without -out: %v, want a usage error", err)
	}
}

// -mnist-dir places the exponent-form weights: one on the corner pixel (never
// lit in MNIST), one on the centre pixel (lit in about 40% of the digits).
func TestReportPixels(t *testing.T) {
	f := datatest.File(t, "mnist/train-images-idx3-ubyte.gz")
	dir := filepath.Dir(filepath.Dir(f))
	c := make([]float64, 784)
	c[0], c[14*28+14], c[300] = 3e-5, -2e-6, 0.5
	path := filepath.Join(t.TempDir(), "m.npz")
	engineModel(t, path, 1, 784, c, []float32{0}, make([]float32, 784))
	var so, se bytes.Buffer
	if err := run([]string{"-in", path, "-mnist-dir", dir}, &so, &se); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(so.String(), "their pixels: 1 lit in < 1% of training images, 1 in ≥ 10%") {
		t.Errorf("report:\n%s", so.String())
	}
}
