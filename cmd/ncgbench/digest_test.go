package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataChangedUnderARun: once a data file changes (other rows of the
// same shape), eval of a run trained on it and a sweep shard whose other
// shard trained on it are refused with exit 2 naming the flag and the
// file; eval of the run on another file is the user's choice, and runs.
func TestDataChangedUnderARun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, rows string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first, other := "0.5,-1\n-0.5,1\n1,0\n2,2\n", "0.5,-1\n-0.5,1\n1,0\n2,3\n"
	write("x.csv", first)
	write("y.csv", other)
	gauss := []string{"-data", "x.csv", "-visible", "gaussian", "-method", "dense", "-hidden", "2", "-epochs", "2", "-quiet"}
	if _, errb, code := ncgbench(t, dir, append([]string{"train", "-out", "r"}, gauss...)...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	if _, errb, code := ncgbench(t, dir, append([]string{"sweep", "-seed", "1,2", "-shard", "0/2", "-out", "s"}, gauss...)...); code != 0 {
		t.Fatalf("sweep shard 0/2: exit %d: %s", code, errb)
	}
	write("x.csv", other)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-model", "r", "-quiet"}, "-data x.csv: the rows differ from those the run in r trained on"},
		{append([]string{"sweep", "-seed", "1,2", "-shard", "1/2", "-out", "s"}, gauss...), "-data x.csv: the rows differ from those the run in " + filepath.Join("s", "x-dense-seed1") + " trained on"},
	} {
		_, errb, code := ncgbench(t, dir, c.args...)
		if code != 2 || !strings.Contains(errb, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", c.args, code, errb, c.want)
		}
	}
	if _, errb, code := ncgbench(t, dir, "eval", "-model", "r", "-data", "y.csv", "-quiet"); code != 0 {
		t.Errorf("eval of the run on another file: exit %d: %s", code, errb)
	}
	write("x.csv", first)
	if _, errb, code := ncgbench(t, dir, "eval", "-model", "r", "-quiet"); code != 0 {
		t.Errorf("eval with the run's own data back: exit %d: %s", code, errb)
	}
}
