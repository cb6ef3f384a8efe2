package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
)

// How often progress is drawn: a live line (terminal) at most every
// liveEvery; a plain epoch line at most every epochEvery, except for an
// epoch with an evaluation and the last; a plain evaluation line at most
// every evalEvery.
const (
	liveEvery  = 250 * time.Millisecond
	epochEvery = 2 * time.Second
	evalEvery  = 30 * time.Second
)

// runProgress renders the progress events of runs on w, which may be
// shared by concurrent runs (a sweep): one line per event worth a line,
// and on a terminal a live line (minibatches, evaluation) redrawn in place.
type runProgress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	last     map[string]time.Time // per run: the last plain line
	live     time.Time            // the last live line
}

// runProgressTo returns the experiment.Options.Progress function that
// renders on w (nil: none).
func runProgressTo(w io.Writer, terminal bool) func(experiment.Event) {
	if w == nil {
		return nil
	}
	p := &runProgress{w: w, terminal: terminal, last: map[string]time.Time{}}
	return p.event
}

// leftString renders a time left (negative: unknown) and the evaluations
// of unknown length it leaves out: "1h2m3s", "1h2m3s + 2 evaluations".
func leftString(d time.Duration, unknownEvals int) string {
	if d < 0 {
		return "?"
	}
	s := d.Round(time.Second).String()
	switch {
	case unknownEvals == 1:
		s += " + 1 evaluation"
	case unknownEvals > 1:
		s += fmt.Sprintf(" + %d evaluations", unknownEvals)
	}
	return s
}

func (p *runProgress) event(e experiment.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	erase := ""
	if p.terminal {
		erase = "\r\033[K"
	}
	now := time.Now()
	switch e := e.(type) {
	case experiment.Resumed:
		fmt.Fprintf(p.w, "%sresuming %s at epoch %d\n", erase, e.Dir, e.Epoch)
	case experiment.Minibatch:
		if !p.terminal || now.Sub(p.live) < liveEvery {
			return
		}
		p.live = now
		fmt.Fprintf(p.w, "\r%s epoch %d/%d  minibatch %d/%d  %.0f minibatches/s  %s left   ",
			filepath.Base(e.Dir), e.Epoch, e.Epochs, e.Done, e.Batches, e.PerSecond, leftString(e.Left, e.UnknownEvals))
	case experiment.EpochDone:
		m := e.Metrics
		if !e.Evaluated && m.Epoch != e.Epochs && now.Sub(p.last[e.Dir]) < epochEvery {
			return
		}
		p.last[e.Dir] = now
		fmt.Fprintf(p.w, "%s%s epoch %d/%d  %.2fs  %s  (%s left)\n", erase, filepath.Base(e.Dir), m.Epoch, e.Epochs, m.Seconds, m.Summary(), leftString(e.Left, e.UnknownEvals))
	case experiment.Evaluating:
		start, end := e.Done == 0, e.Done == e.Total
		if p.terminal {
			if !end && !start && now.Sub(p.live) < liveEvery {
				return
			}
			p.live = now
			fmt.Fprintf(p.w, "\r%s epoch %d: %s %s  %s left   ", filepath.Base(e.Dir), e.Epoch, e.Phase, percent(e.Progress), leftString(e.Left, e.UnknownEvals))
			return
		}
		// Plain lines for the long phases only: their start, then at most
		// one every evalEvery.
		if e.Phase != eval.PhaseAIS && e.Phase != eval.PhaseExact && e.Phase != eval.PhaseRAISE || end {
			return
		}
		key := e.Dir + "\x00eval"
		if !start && now.Sub(p.last[key]) < evalEvery {
			return
		}
		p.last[key] = now
		fmt.Fprintf(p.w, "%s epoch %d: %s %s  (%s left)\n", filepath.Base(e.Dir), e.Epoch, e.Phase, percent(e.Progress), leftString(e.Left, e.UnknownEvals))
	case experiment.Finished:
		fmt.Fprintf(p.w, "%s%s final  %s\n", erase, filepath.Base(e.Dir), e.Metrics.Summary())
	}
}

func percent(p eval.Progress) string {
	if p.Total <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f%%", 100*float64(p.Done)/float64(p.Total))
}

// evalProgress renders the eval command's progress on w: a line when a
// long phase starts (what it computes), and on a terminal its percentage
// redrawn in place.
func evalProgress(w io.Writer, terminal bool, plan eval.Plan, exactBits int) func(eval.Progress) {
	intervals := plan.AISIntervals
	if intervals == 0 {
		intervals = eval.DefaultIntervals
	}
	var live time.Time
	return func(p eval.Progress) {
		switch {
		case p.Done == 0 && p.Phase == eval.PhaseExact:
			fmt.Fprintf(w, "exact log Z over 2^%d states…\n", exactBits)
		case p.Done == 0 && p.Phase == eval.PhaseAIS:
			runs := int64(plan.AISRuns)
			if runs == 0 {
				runs = eval.DefaultRuns
			}
			fmt.Fprintf(w, "AIS: %d runs, %d intervals, seed %d…\n", runs, p.Total/runs, plan.AISSeed) // the intervals grow with -ais-max-betas
		case p.Done == 0 && p.Phase == eval.PhaseRAISE:
			chains := max(plan.RAISEChains, 1)
			fmt.Fprintf(w, "RAISE: %d rows, %d chains each, %d intervals, seed %d…\n", p.Total/int64(chains*intervals), chains, intervals, plan.AISSeed)
		case p.Done == 0 && p.Phase == eval.PhaseChecks:
			fmt.Fprintf(w, "AIS checks: %d run-intervals of two other routes…\n", p.Total)
		case p.Done == 0 && p.Phase == eval.PhaseBDMC:
			fmt.Fprintf(w, "BDMC: %d rows drawn from the model, reverse chains…\n", plan.BDMCRows)
		case terminal && (p.Phase == eval.PhaseExact || p.Phase == eval.PhaseAIS || p.Phase == eval.PhaseRAISE || p.Phase == eval.PhaseChecks || p.Phase == eval.PhaseBDMC):
			if p.Done == p.Total {
				fmt.Fprint(w, "\r\033[K")
			} else if time.Since(live) >= liveEvery {
				live = time.Now()
				fmt.Fprintf(w, "\r%s %s   ", p.Phase, percent(p))
			}
		}
	}
}

// withWarnings returns a progress function that passes the events to
// progress (nil: none, as with -quiet) and renders the warnings among them
// on stderr whatever -quiet says: a run resumed on another kernel tier
// than the one it was trained on.
func withWarnings(command string, stderr io.Writer, progress func(experiment.Event)) func(experiment.Event) {
	return func(e experiment.Event) {
		if r, ok := e.(experiment.Resumed); ok {
			if other := r.OtherTiers(); len(other) > 0 {
				fmt.Fprintf(stderr, "ncgbench %s: warning: %s\n", command, tierWarning(r.Dir, other, r.Tier, "resumes"))
			}
		}
		if progress != nil {
			progress(e)
		}
	}
}

// tierWarning says that the run in dir, trained on the kernel tiers other,
// goes on (what: "resumes", "is evaluated") on tier now.
func tierWarning(dir string, other []string, now, what string) string {
	return fmt.Sprintf("%s was trained on kernel tier %s and %s on tier %s: tiers round differently, so the results differ from a run on one tier in the last digits or more (NCG_KERNEL=%s selects that tier where the CPU has it)",
		dir, strings.Join(other, " and "), what, now, other[len(other)-1])
}
