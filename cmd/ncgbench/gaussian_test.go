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
// same NLL; binary units on real data, and sample of the Gaussian model,
// are refused as bad usage.
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
		if math.Abs(meta.Scaling.Offset[j]-mean) > 1e-9 || math.Abs(meta.Scaling.Scale[j]-sd) > 1e-9 {
			t.Errorf("column %d: scaling %v, %v; want mean %v, deviation %v", j, meta.Scaling.Offset[j], meta.Scaling.Scale[j], mean, sd)
		}
	}
	out, errb, code = ncgbench(t, dir, "eval", "-model", "g", "-json")
	var ev struct{ NLL *float64 }
	if code != 0 || json.Unmarshal([]byte(out), &ev) != nil || ev.NLL == nil || math.Abs(*ev.NLL-res[0].Final.NLL) > 1e-9 {
		t.Errorf("eval of the run: exit %d, %s%s; want the run's NLL %v", code, out, errb, res[0].Final.NLL)
	}
	for _, c := range [][]string{
		{"train", "-data", "x.csv", "-method", "dense", "-hidden", "4", "-epochs", "1", "-out", "b", "-quiet"},
		{"sample", "-model", "g", "-out", "s.png"},
	} {
		if _, errb, code := ncgbench(t, dir, c...); code != 2 {
			t.Errorf("%v: exit %d, %s; want 2", c, code, errb)
		}
	}
}
