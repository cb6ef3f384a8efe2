package experiment

import (
	"strings"
	"testing"
)

// TestShardFromSlurmWithACount: with the number of shards given, the Slurm
// task ID is the shard index itself, whatever part of the array was
// submitted, so a single task submitted again (sbatch --array=1, where
// Slurm sets SLURM_ARRAY_TASK_MIN=1 and SLURM_ARRAY_TASK_COUNT=1) runs the
// shard its ID names; an ID past the last shard is refused, naming the
// array to submit.
func TestShardFromSlurmWithACount(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	// The variables Slurm 22.05 sets for each task of these submissions.
	task := func(id, lo, n string) map[string]string {
		return map[string]string{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": lo, "SLURM_ARRAY_TASK_COUNT": n}
	}
	cases := []struct {
		name string
		env  map[string]string
		want Shard
	}{
		{"--array=0-2, task 2", task("2", "0", "3"), Shard{2, 3}},
		{"--array=1 (one task again)", task("1", "1", "1"), Shard{1, 3}},
		{"--array=1-2, task 2", task("2", "1", "2"), Shard{2, 3}},
		{"--array=0,2, task 2", task("2", "0", "2"), Shard{2, 3}},
	}
	for _, c := range cases {
		s, ok, err := ShardFromEnv(env(c.env), 3)
		if !ok || err != nil || s != c.want {
			t.Errorf("%s with 3 shards: %v, %v, %v; want %v", c.name, s, ok, err, c.want)
		}
	}
	_, ok, err := ShardFromEnv(env(task("3", "1", "3")), 3)
	if !ok || err == nil || !strings.Contains(err.Error(), "--array=0-2") {
		t.Errorf("--array=1-3, task 3, with 3 shards: %v, %v; want an error naming --array=0-2", ok, err)
	}
	// Without a count the array is the whole sweep, numbered from its
	// first task.
	if s, _, err := ShardFromEnv(env(task("3", "1", "3")), 0); err != nil || s != (Shard{2, 3}) {
		t.Errorf("--array=1-3, task 3, no count: %v, %v; want 2/3", s, err)
	}
}
