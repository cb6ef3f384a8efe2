// Package report reads run directories written by package experiment,
// groups runs of the same configuration over seeds, and writes the tables
// (Markdown, CSV, JSON) and figures (PNG, SVG) of a study. It only reads
// what runs wrote: it never trains or evaluates.
package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/ncg-rbm/ncg/experiment"
)

// Run is one run directory.
type Run struct {
	Dir     string
	Spec    experiment.Spec
	Metrics []experiment.Metrics // metrics.csv, one row per epoch (may be empty)
	Result  *experiment.Result   // result.json; nil while the run is unfinished
	// Failure is failed.json of a run stopped short by a NaN (nil
	// otherwise).
	Failure *experiment.Failure
	// Tiers are the kernel tiers that trained the run (config.json's
	// meta; nil when it does not say).
	Tiers []string
}

// Finished reports whether the run wrote result.json.
func (r *Run) Finished() bool { return r.Result != nil }

// Final returns the final metrics: result.json's of a finished run, else
// the last row of metrics.csv (NaN everywhere when there is none).
func (r *Run) Final() experiment.Metrics {
	if r.Result != nil {
		return r.Result.Final
	}
	if n := len(r.Metrics); n > 0 {
		return r.Metrics[n-1]
	}
	return nanMetrics()
}

func nanMetrics() experiment.Metrics {
	n := math.NaN()
	return experiment.Metrics{Seconds: n, NLL: n, LogZ: n, LogZLo: n, LogZHi: n, TrainAcc: n, TestAcc: n, Density: n, DegreeMean: n, Recon: n}
}

// Collect walks dirs (any number, e.g. the output directories of several
// shards) for run directories, those holding config.json, and reads them.
// A run directory is not searched further. The same directory reached
// twice is read once. Runs come sorted by directory. A run directory that
// cannot be read (a malformed config.json, metrics.csv or result.json) is
// left out, and its error, naming the file, is among skipped. Collect stops
// with ctx's error when ctx is done.
func Collect(ctx context.Context, dirs ...string) (runs []Run, skipped []error, err error) {
	if len(dirs) == 0 {
		return nil, nil, errors.New("no directories given")
	}
	seen := map[string]bool{}
	for _, root := range dirs {
		if _, err := os.Stat(root); err != nil {
			return nil, nil, err
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if !experiment.RunDir(path).IsRun() {
				return nil
			}
			abs, err := filepath.Abs(path)
			if err != nil {
				return err
			}
			if !seen[abs] {
				seen[abs] = true
				r, err := ReadRun(path)
				if err != nil {
					skipped = append(skipped, err)
				} else {
					runs = append(runs, *r)
				}
			}
			return filepath.SkipDir
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if len(runs) == 0 {
		if len(skipped) > 0 {
			return nil, skipped, fmt.Errorf("no readable run directories under %v: %w", dirs, errors.Join(skipped...))
		}
		return nil, nil, fmt.Errorf("no run directories (with config.json) found under %v", dirs)
	}
	sort.Slice(runs, func(a, b int) bool { return runs[a].Dir < runs[b].Dir })
	return runs, skipped, nil
}

// ReadRun reads one run directory: config.json, metrics.csv (absent means
// no epoch finished yet) and result.json (absent means unfinished).
func ReadRun(dir string) (*Run, error) {
	rd := experiment.RunDir(dir)
	spec, err := rd.Spec()
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Spec: spec.Normalize()}
	if meta, err := rd.Meta(); err == nil {
		r.Tiers = meta.Tiers()
	}
	r.Metrics, err = rd.Metrics()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	switch rd.State() {
	case experiment.StateFinished:
		if r.Result, err = rd.Result(); err != nil {
			return nil, err
		}
	case experiment.StateFailed:
		if r.Failure, err = rd.Failure(); err != nil {
			return nil, err
		}
	}
	return r, nil
}
