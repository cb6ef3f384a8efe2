package main

import (
	"archive/zip"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// rewriteNPZ copies the model file src to dst with the arrays in change
// (by name, without ".npy") replaced, and the entries named with ".npy" or
// without as noExt says.
func rewriteNPZ(t *testing.T, src, dst string, noExt bool, change map[string]any) {
	t.Helper()
	z, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	w := npz.NewWriter(f)
	for _, e := range z.File {
		name := strings.TrimSuffix(e.Name, ".npy")
		out := name + ".npy"
		if noExt {
			out = name
		}
		v, ok := change[name]
		if !ok {
			rc, err := e.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			r, err := npy.NewReader(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			switch r.Header.Descr.Type {
			case "<f8":
				var m mat.Dense
				err = r.Read(&m)
				v = &m
			case "<f4":
				var s []float32
				err = r.Read(&s)
				v = s
			default:
				var s []int64
				err = r.Read(&s)
				v = s
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write(out, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestDamagedModelRefused: one checked loader reads every command's model:
// eval and sample refuse a model file whose C holds NaN, or whose C is not
// W⊙A, with exit 1 naming the file and the array, and both read a file
// whose entries are named as an older ncgbench named them (W, not W.npy).
// A Gaussian model with σ = 1e-30 (1/σ² past float32) is refused the same
// way.
func TestDamagedModelRefused(t *testing.T) {
	dir := t.TempDir()
	if _, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-hidden", "4", "-epochs", "2", "-out", "run", "-quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	src := filepath.Join(dir, "run", "model.npz")
	m, err := readMatrix(src, "C")
	if err != nil {
		t.Fatal(err)
	}
	nan := mat.DenseCopyOf(m)
	nan.Set(1, 2, math.NaN())
	other := mat.DenseCopyOf(m)
	other.Set(0, 0, m.At(0, 0)+1)
	rewriteNPZ(t, src, filepath.Join(dir, "nan.npz"), false, map[string]any{"C": nan})
	rewriteNPZ(t, src, filepath.Join(dir, "other.npz"), false, map[string]any{"C": other})
	rewriteNPZ(t, src, filepath.Join(dir, "old.npz"), true, nil)
	for _, c := range []struct{ file, want string }{
		{"nan.npz", "nan.npz: C[1, 2] = NaN is not a finite number"},
		{"other.npz", "other.npz: C[0, 0] = "},
	} {
		for _, cmd := range [][]string{
			{"eval", "-model", c.file, "-data", "bas", "-quiet"},
			{"sample", "-model", c.file, "-data", "bas", "-out", "s.png"},
		} {
			_, errb, code := ncgbench(t, dir, cmd...)
			if code != 1 || !strings.Contains(errb, c.want) {
				t.Errorf("%v: exit %d, %q; want exit 1 saying %q", cmd, code, errb, c.want)
			}
		}
	}
	for _, cmd := range [][]string{
		{"eval", "-model", "old.npz", "-data", "bas", "-quiet"},
		{"sample", "-model", "old.npz", "-data", "bas", "-out", "s.png"},
	} {
		if _, errb, code := ncgbench(t, dir, cmd...); code != 0 {
			t.Errorf("%v (entries without .npy): exit %d: %s", cmd, code, errb)
		}
	}
	// A Gaussian model whose σ is 1e-30, log σ² −138.2, as 2 log σ.
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("0.5,-1\n-0.5,1\n1,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errb, code := ncgbench(t, dir, "train", "-data", "x.csv", "-visible", "gaussian", "-hidden", "2", "-epochs", "1", "-out", "g", "-quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	tiny := []float32{1e-30, 1}
	rewriteNPZ(t, filepath.Join(dir, "g", "model.npz"), filepath.Join(dir, "tiny.npz"), false,
		map[string]any{"sigma": tiny, "log_var": []float32{float32(2 * math.Log(float64(tiny[0]))), 0}})
	for _, cmd := range [][]string{
		{"eval", "-model", "tiny.npz", "-data", "x.csv", "-quiet"},
		{"sample", "-model", "tiny.npz", "-data", "x.csv", "-out", "s.png"},
	} {
		_, errb, code := ncgbench(t, dir, cmd...)
		if want := "tiny.npz: sigma[0] = 1e-30, log_var[0] = -138.2: σ² and 1/σ² must be finite float32 numbers"; code != 1 || !strings.Contains(errb, want) {
			t.Errorf("%v: exit %d, %q; want exit 1 saying %q", cmd, code, errb, want)
		}
	}
}

// readMatrix reads the H×X array name of a model file.
func readMatrix(path, name string) (*mat.Dense, error) {
	r, err := npz.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var m mat.Dense
	if err := r.Read(name+".npy", &m); err != nil {
		return nil, err
	}
	return &m, nil
}
