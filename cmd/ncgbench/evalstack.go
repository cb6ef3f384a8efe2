package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
)

// evalStack is eval of a deep model (at.Stack): log Z, exact or by AIS,
// and the NLL bound of the measured rows (experiment.EvaluateStack).
func (f *evalFlags) evalStack(at experiment.ModelAt, spec experiment.Spec, train, test *data.Set, stdout, stderr io.Writer) error {
	for _, name := range []string{"classify", "raise", "raise-chains", "bdmc", "checks", "ais-max-betas"} {
		if f.set[name] {
			return usagef("-%s: %s is a deep model, whose evaluation is log Z and the NLL bound alone (no labels, RAISE, BDMC or checks of AIS)", name, f.model)
		}
	}
	d, err := engine.FromSet(train, false)
	if err != nil {
		return err
	}
	s, _, err := at.LoadStack(d, f.workers)
	if err != nil {
		return err
	}
	m := s.RBMs[0]
	for _, set := range []*data.Set{train, test} {
		if set == nil {
			continue
		}
		if err := m.Visible.Accepts(set); err != nil {
			return usagef("-data %s: %v: %s has %s visible units", spec.Data, err, f.model, m.Visible.Name())
		}
		if set.D != m.X {
			return fmt.Errorf("%s has %d visible units; data %s has %d units", f.model, m.X, spec.Data, set.D)
		}
	}
	resolved := experiment.ResolveStack(spec.Likelihood, s)
	if resolved != spec.Likelihood {
		how := fmt.Sprintf("%s (what no -likelihood chooses for %s)", resolved, f.model)
		if err := ignoredEvalFlags(f.set, resolved, how, 0); err != nil {
			return err
		}
	}
	if warn, err := trainingTierWarning(at); err != nil {
		return err
	} else if warn != "" {
		fmt.Fprintf(stderr, "ncgbench eval: warning: %s\n", warn)
	}
	plan := eval.Plan{Likelihood: spec.Likelihood, AISRuns: spec.AISRuns, AISIntervals: spec.AISIntervals, AISSeed: spec.AISSeed,
		UniformBase: f.aisBase == "uniform", Workers: f.workers}
	ctx, cancel := interruptible()
	defer cancel()
	start := time.Now()
	sets := eval.Sets{Train: train, Test: test}
	if f.setName == "train" {
		sets.Test = nil
	}
	mt, err := experiment.EvaluateStack(ctx, s, sets, plan)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	res := evalResult{Model: f.model, Data: spec.Data, Set: mt.Set, Rows: mt.Rows, X: m.X, H: m.H, Likelihood: mt.Likelihood,
		LogZ: finite(mt.LogZ), LogZLo: finite(mt.LogZLo), LogZHi: finite(mt.LogZHi), NLL: finite(mt.NLL),
		Seconds: time.Since(start).Seconds(), AISBase: f.aisBase, Kind: s.Kind, Sizes: s.Sizes(), NLLBound: mt.Likelihood != eval.LikelihoodNone}
	if r := mt.AIS; r != nil {
		res.Seed, res.Runs, res.Intervals = r.Seed, r.Runs, r.Intervals
	}
	if f.asJSON {
		return printJSON(stdout, res)
	}
	res.print(stdout, mt, false)
	return nil
}

// layersText is a deep model's layers, visible first: "16-12-8".
func layersText(sizes []int) string {
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, "-")
}
