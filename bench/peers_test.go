package bench

import (
	"slices"
	"testing"
)

// TestPeerEnv: the peers run without OpenBLAS's core type and L2 size
// settings and with as many threads as asked, the rest of the
// environment kept.
func TestPeerEnv(t *testing.T) {
	got := peerEnv([]string{"HOME=/root", "OPENBLAS_CORETYPE=Haswell", "OPENBLAS_L2_SIZE=1", "OPENBLAS_NUM_THREADS=8", "OPENBLAS_VERBOSE=2"}, 2)
	want := []string{"HOME=/root", "OPENBLAS_VERBOSE=2", "OPENBLAS_NUM_THREADS=2"}
	if !slices.Equal(got, want) {
		t.Errorf("peerEnv = %q, want %q", got, want)
	}
}

// TestPeerSeconds reads the seconds the peer scripts print last.
func TestPeerSeconds(t *testing.T) {
	for _, c := range []struct {
		out  string
		want float64
	}{
		{"numpy 1.24.2, one MNIST NCG epoch: 11.78 s\n", 11.78},
		{"numpy 1.24.2, one MNIST Gaussian-Bernoulli NCG epoch: 9 s", 9},
	} {
		if got, err := peerSeconds(c.out); err != nil || got != c.want {
			t.Errorf("peerSeconds(%q) = %v, %v; want %v", c.out, got, err, c.want)
		}
	}
	for _, out := range []string{"", "Traceback (most recent call last):\n", "epoch: 12.5 ms\n"} {
		if got, err := peerSeconds(out); err == nil {
			t.Errorf("peerSeconds(%q) = %v, want an error", out, got)
		}
	}
}

// TestPeerSkipsAway: outside the repository's root (here, the package's
// directory) a peer case is skipped, not failed.
func TestPeerSkipsAway(t *testing.T) {
	if _, err := peerCase("peer/numpy/x", "numpy_epoch.py", t.TempDir()).Run(); !IsSkip(err) {
		t.Errorf("peer case away from the root: error %v, want a skip", err)
	}
}
