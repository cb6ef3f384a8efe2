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
	// 4×4 bars and stripes: 3×3 tiles of 4×4 units, 8 pixels a unit, 2-pixel gaps.
	if b := decodePNG(t, filepath.Join(dir, "a.png")).Bounds(); b.Dx() != 3*32+4*2 || b.Dy() != 3*32+4*2 {
		t.Errorf("samples are %v, want 104×104", b.Size())
	}
	// Masks and weights side by side.
	if b := decodePNG(t, filepath.Join(dir, "m.png")).Bounds(); b.Dx() != 2*104+3*2 || b.Dy() != 104 {
		t.Errorf("masks are %v, want 214×104", b.Size())
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
