package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func TestSample(t *testing.T) {
	dir := t.TempDir()
	if _, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-epochs", "50", "-seed", "1", "-out", "run", "-quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	sample := func(out string, extra ...string) {
		t.Helper()
		args := append([]string{"sample", "-model", "run", "-n", "9", "-steps", "20", "-out", out}, extra...)
		if stdout, errb, code := ncgbench(t, dir, args...); code != 0 || !strings.Contains(stdout, out) {
			t.Fatalf("%v: exit %d: %s%s", args, code, stdout, errb)
		}
	}
	sample("a.png", "-seed", "7", "-masks", "m.png")
	sample("b.png", "-seed", "7")
	sample("c.png", "-seed", "8")
	// 4×4 bars and stripes: 3×3 tiles of 4×4 units, 8 pixels a unit, 2-pixel
	// gaps: a grid of 104×104 at the top left; masks and weights side by side,
	// 214×104. Below each grid a caption, black on white.
	for _, tc := range []struct {
		file string
		w, h int
	}{{"a.png", 104, 104}, {"m.png", 2*104 + 3*2, 104}} {
		img := decodePNG(t, filepath.Join(dir, tc.file))
		b := img.Bounds()
		if r, g, bl, _ := img.At(tc.w-1, tc.h-1).RGBA(); b.Dx() < tc.w || r>>8 != 70 || g>>8 != 100 || bl>>8 != 160 {
			t.Errorf("%s is %v with (%d, %d) not the grid's gap colour: want a %d×%d grid at the top left", tc.file, b.Size(), tc.w-1, tc.h-1, tc.w, tc.h)
		}
		black, white := 0, 0
		for y := tc.h; y < b.Max.Y; y++ {
			for x := 0; x < b.Max.X; x++ {
				switch r, g, bl, _ := img.At(x, y).RGBA(); {
				case r == 0 && g == 0 && bl == 0:
					black++
				case r == 0xffff && g == 0xffff && bl == 0xffff:
					white++
				}
			}
		}
		if black < 100 || white < black {
			t.Errorf("%s: %d black and %d white pixels below the grid, want a caption", tc.file, black, white)
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a.png"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.png"))
	c, _ := os.ReadFile(filepath.Join(dir, "c.png"))
	if !bytes.Equal(a, b) {
		t.Error("the same seed gave different samples")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds gave the same samples")
	}
	// A bare model.npz with -data; without -data it is a usage error.
	if _, errb, code := ncgbench(t, dir, "sample", "-model", "run/model.npz", "-data", "bas", "-n", "4", "-steps", "5", "-out", "d.png"); code != 0 {
		t.Errorf("model.npz -data bas: exit %d: %s", code, errb)
	}
	os.Rename(filepath.Join(dir, "run", "model.npz"), filepath.Join(dir, "model.npz"))
	if _, errb, code := ncgbench(t, dir, "sample", "-model", "model.npz", "-n", "4"); code != 2 || !strings.Contains(errb, "-data") {
		t.Errorf("model.npz alone: exit %d: %s", code, errb)
	}
	if _, errb, code := ncgbench(t, dir, "sample"); code != 2 || !strings.Contains(errb, "-model") {
		t.Errorf("no -model: exit %d: %s", code, errb)
	}
}
