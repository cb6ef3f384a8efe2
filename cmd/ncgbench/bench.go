package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/ncg-rbm/ncg/bench"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/kernel"
)

func init() {
	commands["bench"] = command{"the standard benchmarks: kernels per tier, MNIST epochs, AIS, exact log Z", runBench}
}

// benchEntry is one line of -json: a case's median, or a target computed
// from the medians (name target/…, with its goal and whether it was met).
type benchEntry struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	Goal  string  `json:"goal,omitempty"`
	Met   *bool   `json:"met,omitempty"`
}

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", stderr)
	runRE := fs.String("run", "", "run only the benchmarks whose name matches `regexp`")
	count := fs.Int("count", 0, "repetitions, reported as the median (default 5 for kernels and machine cases, 3 for epochs, AIS and exact log Z)")
	benchTime := fs.Duration("benchtime", 250*time.Millisecond, "target time of one kernel or machine measurement (as go test -benchtime)")
	dataDir := dataDirFlag(fs)
	list := fs.Bool("list", false, "list the benchmark names and exit")
	asJSON := fs.Bool("json", false, "print one JSON array of {name, value, unit}")
	markdown := fs.String("markdown", "", "also write the machine, the date, the medians and the targets as a Markdown page to `file` (e.g. docs/benchmarks.md), and with two or more SET sizes measured their scaling figure beside it (docs/benchmarks-set-scaling.png)")
	var prof profiling
	prof.register(fs)
	if err := parseFlagsHelp(fs, args, stderr, "ncgbench bench [-run REGEXP] [-count N] [-json]"); err != nil {
		return err
	}
	re, err := regexp.Compile(*runRE)
	if err != nil {
		return usagef("-run: %v", err)
	}
	if *count < 0 {
		return usagef("-count %d is negative", *count)
	}
	if *benchTime <= 0 {
		return usagef("-benchtime must be positive")
	}
	if *markdown != "" {
		// Found out now, not after minutes of benchmarks.
		if err := checkOutFile("markdown", *markdown); err != nil {
			return err
		}
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}
	var cases []bench.Case
	for _, c := range bench.Suite(bench.Options{DataDir: *dataDir, BenchTime: *benchTime}) {
		if re.MatchString(c.Name) {
			cases = append(cases, c)
		}
	}
	if *list {
		for _, c := range cases {
			fmt.Fprintf(stdout, "%s\t%s\n", c.Name, c.Unit)
		}
		return nil
	}
	if len(cases) == 0 {
		return usagef("-run %q matches no benchmark (ncgbench bench -list)", *runRE)
	}
	ctx, cancel := interruptible()
	defer cancel()
	progress := prof.progressWriter(stderr)
	cpu := cpuLine()
	if !*asJSON {
		fmt.Fprintf(stdout, "cpu: %s\nkernel tier: %s (available: %v)\nGOMAXPROCS: %d, %s %s/%s\n\n", cpu, kernel.Tier(), kernel.Tiers(),
			runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	// Lines are printed as each case ends (the slow ones take minutes), so
	// the name column's width is fixed in advance.
	width := len("benchmark")
	for _, c := range cases {
		width = max(width, len(c.Name)+len("/chains-idle"))
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "%-*s  %10s  %-7s  %s\n", width, "benchmark", "median", "unit", "n")
	}
	entries := []benchEntry{}
	medians := map[string]float64{}
	var results []bench.Result
	var skipped []string
	// The cases of a group take their repetitions in turn, so that the
	// ratios between them compare measurements seconds apart, not minutes.
	for _, group := range groups(cases) {
		vals, parts, errs := repeat(ctx, group, *count)
		if ctx.Err() != nil {
			return errInterrupted
		}
		for k, c := range group {
			if bench.IsSkip(errs[k]) {
				skipped = append(skipped, fmt.Sprintf("%s: %v", c.Name, errs[k]))
				if progress != nil {
					fmt.Fprintf(progress, "%s: %v\n", c.Name, errs[k])
				}
				continue
			}
			if errs[k] != nil {
				return fmt.Errorf("%s: %w", c.Name, errs[k])
			}
			for _, r := range append([]bench.Result{{Name: c.Name, Median: median(vals[k]), Unit: c.Unit, N: len(vals[k])}}, partMedians(c.Name, parts[k])...) {
				medians[r.Name] = r.Median
				results = append(results, r)
				entries = append(entries, benchEntry{Name: r.Name, Value: r.Median, Unit: r.Unit})
				if progress != nil && *asJSON {
					fmt.Fprintf(progress, "%s %.4g %s\n", r.Name, r.Median, r.Unit)
				}
				if !*asJSON {
					fmt.Fprintf(stdout, "%-*s  %10.4g  %-7s  %d\n", width, r.Name, r.Median, r.Unit, r.N)
				}
			}
		}
	}
	targets := bench.Targets(medians, kernel.Tier())
	if *markdown != "" {
		rep := bench.Report{Command: commandLine("bench", args), Machine: versionText() + fmt.Sprintf("GOMAXPROCS %d\n", runtime.GOMAXPROCS(0)),
			Date: time.Now(), Results: results, Targets: targets, Skipped: skipped}
		if pts := bench.SETScaling(medians); len(pts) >= 2 {
			fig := scalingFigurePath(*markdown)
			if err := engine.WriteAtomic(fig, func(w io.Writer) error { return bench.WriteScalingFigure(w, pts) }); err != nil {
				return err
			}
			rep.ScalingFigure = filepath.Base(fig)
		}
		kept := handWritten(*markdown)
		if err := engine.WriteAtomic(*markdown, func(w io.Writer) error {
			if err := bench.WriteMarkdown(w, rep); err != nil {
				return err
			}
			_, err := io.WriteString(w, kept)
			return err
		}); err != nil {
			return err
		}
	}
	if *asJSON {
		for _, t := range targets {
			e := benchEntry{Name: t.Key, Value: t.Value, Unit: t.Unit, Goal: t.Goal}
			if t.Goal != "" {
				e.Met = &t.Met
			}
			entries = append(entries, e)
		}
		return printJSON(stdout, entries)
	}
	printTargets(stdout, targets)
	return nil
}

// scalingFigurePath is the file of the SET scaling figure beside the
// Markdown page page: docs/benchmarks.md → docs/benchmarks-set-scaling.png.
func scalingFigurePath(page string) string {
	return strings.TrimSuffix(page, filepath.Ext(page)) + "-set-scaling.png"
}

// printTargets prints the targets that this run's cases allow computing:
// ratios of medians taken in the same run, so they compare like with like
// on a machine whose speed drifts between runs.
func printTargets(w io.Writer, ts []bench.Target) {
	if len(ts) == 0 {
		return
	}
	fmt.Fprintf(w, "\ntargets (from the medians above; kernel tier %s):\n", kernel.Tier())
	width := 0
	for _, t := range ts {
		width = max(width, len([]rune(t.Name)))
	}
	for _, t := range ts {
		verdict := "(for context, no goal)"
		if t.Goal != "" {
			verdict = "goal " + t.Goal + ": not met"
			if t.Met {
				verdict = "goal " + t.Goal + ": met"
			}
		}
		pad := width - len([]rune(t.Name))
		fmt.Fprintf(w, "  %s%*s  %8.3g %-7s  %s\n", t.Name, pad, "", t.Value, t.Unit, verdict)
	}
}

// repeat runs the cases of a group in turn, each its Count times (count
// if positive), and returns each case's values, parts and error (after
// which it ran no more). It stops early when ctx ends.
func repeat(ctx context.Context, group []bench.Case, count int) (vals [][]float64, parts [][][]bench.Part, errs []error) {
	vals = make([][]float64, len(group))
	parts = make([][][]bench.Part, len(group)) // per case, per repetition
	errs = make([]error, len(group))
	for i := 0; ; i++ {
		ran := false
		for k, c := range group {
			n := c.Count
			if count > 0 {
				n = count
			}
			if i >= n || errs[k] != nil {
				continue
			}
			if ctx.Err() != nil {
				return
			}
			ran = true
			v, err := c.Run()
			if err != nil {
				errs[k] = err
				continue
			}
			vals[k] = append(vals[k], v)
			if c.Parts != nil {
				parts[k] = append(parts[k], c.Parts())
			}
		}
		if !ran {
			return
		}
	}
}

// groups splits cases, in order, into runs of consecutive cases with the
// same non-empty Group, and single cases.
func groups(cases []bench.Case) [][]bench.Case {
	var out [][]bench.Case
	for i := 0; i < len(cases); {
		j := i + 1
		for cases[i].Group != "" && j < len(cases) && cases[j].Group == cases[i].Group {
			j++
		}
		out = append(out, cases[i:j])
		i = j
	}
	return out
}

// partMedians returns, for each part of a case's repetitions, the median
// over them as a result named <name>/<part>.
func partMedians(name string, reps [][]bench.Part) []bench.Result {
	if len(reps) == 0 {
		return nil
	}
	var out []bench.Result
	for i, p := range reps[0] {
		v := make([]float64, len(reps))
		for r := range reps {
			v[r] = reps[r][i].Value
		}
		out = append(out, bench.Result{Name: name + "/" + p.Name, Median: median(v), Unit: p.Unit, N: len(v)})
	}
	return out
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// commandLine is the command ncgbench ran, as a shell in the directory of
// a binary built by go build -o ncgbench ./cmd/ncgbench would take it:
// arguments with spaces or shell metacharacters single-quoted.
func commandLine(cmd string, args []string) string {
	parts := []string{"./ncgbench", cmd}
	args = relativeDataDir(args)
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}~#!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// relativeDataDir returns args with an absolute -data-dir made relative to
// the working directory (the repository's root, for docs/benchmarks.md), so
// that the command recorded names no machine's own path:
// /work/shared/data run from /work/ncg is ../shared/data.
func relativeDataDir(args []string) []string {
	wd, err := os.Getwd()
	if err != nil {
		return args
	}
	rel := func(p string) string {
		if !filepath.IsAbs(p) {
			return p
		}
		if r, err := filepath.Rel(wd, p); err == nil {
			return r
		}
		return p
	}
	out := append([]string(nil), args...)
	for i, a := range out {
		name, value, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "data-dir" || !strings.HasPrefix(a, "-") {
			continue
		}
		if eq {
			out[i] = a[:len(a)-len(value)] + rel(value)
		} else if i+1 < len(out) {
			out[i+1] = rel(out[i+1])
		}
	}
	return out
}

// The markers of the section of a benchmarks page written by hand (the
// prose that reads the numbers), which bench -markdown carries over from
// the page it replaces, at its end.
const (
	handStart = "<!-- written by hand: ncgbench bench -markdown keeps this section -->"
	handEnd   = "<!-- end of the section written by hand -->"
)

// handWritten returns the section written by hand of the page at path,
// markers included, after a blank line ("" when there is none).
func handWritten(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	_, rest, ok := strings.Cut(string(b), handStart)
	section, _, closed := strings.Cut(rest, handEnd)
	if !ok || !closed {
		return ""
	}
	return "\n" + handStart + section + handEnd + "\n"
}
