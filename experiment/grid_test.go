package experiment

import (
	"fmt"
	"reflect"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	got, err := ParseSeeds("1-3, 7,10-10")
	if err != nil || !reflect.DeepEqual(got, []uint64{1, 2, 3, 7, 10}) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "3-1", "x", "1,,2", "-1", "0-2000000"} {
		if _, err := ParseSeeds(bad); err == nil {
			t.Errorf("ParseSeeds(%q): no error", bad)
		}
	}
}

func TestShards(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	cases := []struct {
		env   map[string]string
		count int
		want  Shard
		ok    bool
		err   bool
	}{
		{map[string]string{}, 0, Shard{}, false, false},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{2, 4}, true, false},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{3, 4}, true, false},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{}, true, true},
		{map[string]string{"JOB_COMPLETION_INDEX": "1"}, 3, Shard{1, 3}, true, false},
		{map[string]string{"JOB_COMPLETION_INDEX": "1"}, 0, Shard{}, true, true},
		// Set but empty: an error, not the whole sweep in every task.
		{map[string]string{"SLURM_ARRAY_TASK_ID": "", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{}, true, true},
		{map[string]string{"SLURM_ARRAY_TASK_ID": ""}, 4, Shard{}, true, true},
		{map[string]string{"JOB_COMPLETION_INDEX": ""}, 3, Shard{}, true, true},
	}
	for _, c := range cases {
		s, ok, err := ShardFromEnv(env(c.env), c.count)
		if ok != c.ok || (err != nil) != c.err || (err == nil && s != c.want) {
			t.Errorf("%v: %v %v %v", c.env, s, ok, err)
		}
	}
	if s, err := ParseShard("1/3"); err != nil || !s.Has(4) || s.Has(3) {
		t.Errorf("ParseShard: %v %v", s, err)
	}
	for _, bad := range []string{"3/3", "1", "a/b", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): no error", bad)
		}
	}
	if got := SafeName("a b/c:0.5"); got != "a_b_c_0.5" {
		t.Errorf("SafeName: %q", got)
	}
}

// TestBoolSettingsTakeBooleans: a switch given as a number (a grid file's
// "centre": 1) is refused naming it, as a flag -centre=2 is; true, false
// and their text are taken.
func TestBoolSettingsTakeBooleans(t *testing.T) {
	for _, v := range []any{1, 0.0, 2} {
		for _, name := range []string{"centre", "pcd"} {
			if err := (Settings{name: v}).Check(true); err == nil || err.Error() != fmt.Sprintf("-%s: %v is not true or false", name, v) {
				t.Errorf("%s = %v: %v, want it refused", name, v, err)
			}
		}
	}
	for _, v := range []any{true, false, "true", "false"} {
		if err := (Settings{"centre": v}).Check(true); err != nil {
			t.Errorf("centre = %v: %v", v, err)
		}
	}
}
