package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/ncg-rbm/ncg/data"
)

// PeerPython is the interpreter of the NumPy peers: Debian's python3 with
// its NumPy on OpenBLAS.
const PeerPython = "/usr/bin/python3"

// peerCase is the epoch of a NumPy peer, bench/peers/<script> of the
// repository (the command runs from its root) with the given arguments
// after the data directory: the script prints the seconds of one training
// epoch last on its line. It runs with OpenBLAS
// on GOMAXPROCS threads, as many as the engine's workers, and without
// the OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE settings of the
// environment. Its case is skipped where the script, the interpreter or
// NumPy is missing.
func peerCase(name, script, dataDir string, args ...string) Case {
	return Case{Name: name, Unit: "s", Count: 3, Group: "epoch", Run: func() (float64, error) {
		path := filepath.Join("bench", "peers", script)
		if _, err := os.Stat(path); err != nil {
			return 0, &SkipError{fmt.Sprintf("no %s here (run from the repository's root)", path)}
		}
		if err := exec.Command(PeerPython, "-c", "import numpy").Run(); err != nil {
			return 0, &SkipError{fmt.Sprintf("no NumPy for %s (%v)", PeerPython, err)}
		}
		cmd := exec.Command(PeerPython, append([]string{path, data.Dir(dataDir)}, args...)...)
		cmd.Env = peerEnv(os.Environ(), runtime.GOMAXPROCS(0))
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return 0, fmt.Errorf("%s: %v: %s", path, err, strings.TrimSpace(string(ee.Stderr)))
			}
			return 0, fmt.Errorf("%s: %v", path, err)
		}
		return peerSeconds(string(out))
	}}
}

// peerEnv is env without OpenBLAS's core type and L2 size settings, with
// OPENBLAS_NUM_THREADS = threads.
func peerEnv(env []string, threads int) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "OPENBLAS_NUM_THREADS="+strconv.Itoa(threads))
}

var peerLine = regexp.MustCompile(`([0-9]+(\.[0-9]+)?) s\s*$`)

// peerSeconds reads the seconds a peer printed: the number before the "s"
// that ends its output.
func peerSeconds(out string) (float64, error) {
	m := peerLine.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("peer printed %q, want a line ending in seconds", strings.TrimSpace(out))
	}
	return strconv.ParseFloat(m[1], 64)
}
