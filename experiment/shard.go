package experiment

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Shard is the part of a sweep one process runs: the runs whose index i in
// the sweep's order has i % Count == Index.
type Shard struct{ Index, Count int }

// All is the whole sweep as one shard.
var All = Shard{0, 1}

// Has reports whether run number i belongs to the shard.
func (s Shard) Has(i int) bool { return i%s.Count == s.Index }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard parses "i/n" with 0 ≤ i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q is not i/n", s)
	}
	return NewShard(i, n)
}

// NewShard checks 0 ≤ i < n.
func NewShard(i, n int) (Shard, error) {
	if n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %d/%d: want 0 ≤ i < n", i, n)
	}
	return Shard{i, n}, nil
}

// ShardFromEnv reads the shard of a job array from the environment (lookup
// is os.LookupEnv when nil). count > 0 overrides the number of shards. A
// variable set to an empty value is an error, not an absent variable: a
// job script that exports SLURM_ARRAY_TASK_ID="" would otherwise run the
// whole sweep in every task.
//
//   - Slurm, with count > 0: SLURM_ARRAY_TASK_ID is the shard index itself
//     (the array numbered 0 to count-1), so that any part of the array can
//     be submitted again (sbatch --array=1 runs shard 1 of count).
//   - Slurm without a count: the array is the whole sweep, shard
//     SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN when set (arrays
//     numbered from 1) of SLURM_ARRAY_TASK_COUNT.
//   - Kubernetes indexed Jobs: JOB_COMPLETION_INDEX; the count must be given
//     (the Job's completions).
//
// ok is false when neither is set.
func ShardFromEnv(lookup func(string) (string, bool), count int) (s Shard, ok bool, err error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	getenv := func(name string) string { v, _ := lookup(name); return v }
	set := func(name string) bool { _, ok := lookup(name); return ok }
	atoi := func(name string) (int, error) {
		v, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
		if err != nil {
			return 0, fmt.Errorf("%s=%q is not an integer", name, getenv(name))
		}
		return v, nil
	}
	switch {
	case set("SLURM_ARRAY_TASK_ID"):
		id, err := atoi("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return Shard{}, true, err
		}
		if count > 0 {
			if id >= count {
				return Shard{}, true, fmt.Errorf("SLURM_ARRAY_TASK_ID=%d with %d shards: number the array's tasks 0 to %d (sbatch --array=0-%d)", id, count, count-1, count-1)
			}
			s, err := NewShard(id, count)
			return s, true, err
		}
		if set("SLURM_ARRAY_TASK_MIN") {
			lo, err := atoi("SLURM_ARRAY_TASK_MIN")
			if err != nil {
				return Shard{}, true, err
			}
			id -= lo
		}
		if !set("SLURM_ARRAY_TASK_COUNT") {
			return Shard{}, true, fmt.Errorf("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; give -shards")
		}
		n, err := atoi("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, true, err
		}
		s, err := NewShard(id, n)
		return s, true, err
	case set("JOB_COMPLETION_INDEX"):
		id, err := atoi("JOB_COMPLETION_INDEX")
		if err != nil {
			return Shard{}, true, err
		}
		if count <= 0 {
			return Shard{}, true, fmt.Errorf("JOB_COMPLETION_INDEX is set: give the number of shards with -shards (the Job's completions)")
		}
		s, err := NewShard(id, count)
		return s, true, err
	}
	return Shard{}, false, nil
}
