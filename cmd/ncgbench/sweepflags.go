package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/ncg-rbm/ncg/experiment"
)

// sweepFlags are a sweep's flags: the run flags, filling a typed grid, and
// the sweep's own.
type sweepFlags struct {
	run      runFlags
	prof     profiling
	gridFile *string
	parallel *int
	shard    *string
	shards   *int
	order    *string
	dryRun   *bool
	every    *time.Duration
	asJSON   *bool
}

func (s *sweepFlags) register(fs *flag.FlagSet) {
	s.run.lists = true
	s.run.register(fs)
	of := fs.Lookup("out")
	of.Usage = "sweep `directory`: each run in a subdirectory named from its settings"
	of.DefValue = "runs/sweep"
	s.run.out = of.DefValue
	fs.Lookup("workers").Usage = "goroutines per run (default GOMAXPROCS/parallel); never changes results"
	s.prof.register(fs)
	s.gridFile = fs.String("grid", "", "JSON `file` of run settings, e.g. {\"method\": [\"ncg\", \"dense\"], \"seed\": \"1-25\"}; flags given override it")
	s.parallel = fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once")
	s.shard = fs.String("shard", "", "run shard `i/n` only: the runs whose index % n == i (0-based)")
	s.shards = fs.Int("shards", 0, "number of shards, with the index from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX")
	s.order = fs.String("order", "grid", "run `order`: grid (each setting's seeds together, the seed varying fastest) or seed (every setting's first seed before any second seed, so a partial sweep covers every setting); it sets the run indices -shard splits by, never a run's result")
	s.dryRun = fs.Bool("dry-run", false, "list this shard's runs without training")
	s.every = checkpointEveryFlag(fs)
	s.asJSON = fs.Bool("json", false, "print one JSON array of results (with -dry-run: of runs)")
}

// parseSweepFlags parses a sweep's arguments over the settings of its
// -grid file, if any: the file's settings first, the flags given after.
func parseSweepFlags(args []string, stderr io.Writer) (*sweepFlags, *flag.FlagSet, error) {
	s := &sweepFlags{}
	fs := newFlags("sweep", stderr)
	s.register(fs)
	if err := parseFlagsHelp(fs, args, stderr, "ncgbench sweep [flags]: train every combination of the list-valued flags\n("+axisNames()+" take comma lists; -seed also a-b)", dataDefaultsHelp); err != nil {
		return nil, nil, err
	}
	if *s.gridFile == "" {
		return s, fs, nil
	}
	file, err := readGridFile(*s.gridFile)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range file {
		if _, given := s.run.given[k]; !given {
			s.run.given[k] = v
		}
	}
	return s, fs, nil
}

// axisNames lists the flags a sweep takes lists of.
func axisNames() string {
	var names []string
	for _, st := range experiment.Table() {
		if st.Axis != "" {
			names = append(names, "-"+st.Name)
		}
	}
	return strings.Join(names, ", ")
}

// readGridFile reads a JSON object of run settings: {"data": "bas",
// "method": ["ncg", "dense"], "seed": "1-25", "epochs": 50}. Arrays are
// allowed for a sweep's axes only. Errors name the file.
func readGridFile(path string) (experiment.Settings, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError{fmt.Errorf("-grid: %v", err)}
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, usageError{fmt.Errorf("%s: not a JSON object of flag settings: %v", path, err)}
	}
	out := experiment.Settings{}
	for k, v := range obj {
		out[strings.TrimLeft(k, "-")] = v
	}
	if err := out.Check(true); err != nil {
		return nil, usageError{fmt.Errorf("%s: %v", path, err)}
	}
	return out, nil
}

// shardOf is the part of the sweep this process runs, from -shard, -shards
// and the environment of a job array.
func (s *sweepFlags) shardOf() (experiment.Shard, error) {
	if *s.shard != "" {
		sh, err := experiment.ParseShard(*s.shard)
		if err != nil {
			return sh, usageError{err}
		}
		if *s.shards != 0 && *s.shards != sh.Count {
			return sh, usagef("-shard %s and -shards %d disagree", *s.shard, *s.shards)
		}
		return sh, nil
	}
	if *s.shards < 0 {
		return experiment.All, usagef("-shards %d is negative", *s.shards)
	}
	sh, ok, err := experiment.ShardFromEnv(nil, *s.shards)
	switch {
	case err != nil:
		return sh, usageError{err}
	case ok:
		return sh, nil
	case *s.shards > 1:
		return sh, usagef("-shards needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX in the environment (or use -shard i/n)")
	}
	return experiment.All, nil
}

// shardLockName is the lock file of a sweep's shard in its directory.
func shardLockName(s experiment.Shard) string {
	if s == experiment.All {
		return ".sweep.lock"
	}
	return fmt.Sprintf(".sweep-shard-%d-of-%d.lock", s.Index, s.Count)
}
