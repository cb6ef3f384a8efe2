package experiment

import (
	"math"
	"runtime/debug"
)

// MemoryLimit is memory this process may use, with where the limit comes
// from, so that a refusal can name it.
type MemoryLimit struct {
	Bytes uint64 // 0: unknown (nothing is refused)
	What  string // "this machine's RAM", "GOMEMLIMIT", a cgroup file, …
}

func (l MemoryLimit) String() string {
	return bytesString(float64(l.Bytes)) + " (" + l.What + ")"
}

// Memory returns the smallest of the memory limits that apply to this
// process: the machine's RAM, the memory limit of its cgroup or of any
// cgroup above it (cgroup v2 memory.max, v1 memory.limit_in_bytes: a
// Slurm job's --mem, a container's or a Kubernetes pod's limit), its
// address-space limit (RLIMIT_AS, ulimit -v) and Go's GOMEMLIMIT. Where
// none can be read, Bytes is 0.
func Memory() MemoryLimit {
	return smallest(systemLimits()...)
}

// smallest returns the smallest known limit (Bytes 0: none known).
func smallest(limits ...MemoryLimit) MemoryLimit {
	var out MemoryLimit
	for _, l := range limits {
		if l.Bytes > 0 && (out.Bytes == 0 || l.Bytes < out.Bytes) {
			out = l
		}
	}
	return out
}

// goMemLimit is GOMEMLIMIT (or debug.SetMemoryLimit's), if set. It is a
// soft limit: a run above it does not fail, but collects garbage without
// end, which is no better.
func goMemLimit() MemoryLimit {
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		return MemoryLimit{uint64(l), "GOMEMLIMIT"}
	}
	return MemoryLimit{}
}
