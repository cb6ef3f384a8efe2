package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/unit"
)

// ConfigError is a setting that cannot work, found before any training:
// commands report it as bad usage. Its message names the setting as the
// command's flag of the same name.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Validate checks what can be checked of a Spec without its data: the
// engine's settings, at least one epoch, the evaluation settings.
func (s Spec) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if err := s.validateDeep(0); err != nil {
		errs = append(errs, err)
	}
	if s.Engine.Epochs < 1 {
		bad("epochs = %d: a run needs at least one epoch", s.Engine.Epochs)
	}
	if s.EvalEvery < 0 {
		bad("eval-every = %d is negative", s.EvalEvery)
	}
	if err := s.Likelihood.Check(); err != nil {
		errs = append(errs, err)
	}
	if s.Classify && s.Engine.Visible.Continuous() {
		bad("classify: label units need binary or categorical visible units; visible %s trains generative models only", s.Engine.Visible.Name())
	}
	if s.AISRuns < 0 { // 0: eval.DefaultRuns
		bad("ais-runs = %d is negative", s.AISRuns)
	}
	if s.AISIntervals < 0 { // 0: the paper's schedule
		bad("ais-betas = %d is negative", s.AISIntervals)
	}
	k := s.AISIntervals
	if k == 0 {
		k = eval.DefaultIntervals
	}
	if s.AISMaxIntervals < 0 || (s.AISMaxIntervals > 0 && s.AISMaxIntervals < 2*k) {
		bad("ais-max-betas = %d: the schedule grows by doubling its %d intervals; give 0 (no growth) or at least %d", s.AISMaxIntervals, k, 2*k)
	}
	if _, err := s.RealMode(); err != nil {
		errs = append(errs, err)
	}
	if _, err := data.ParseCategorical(s.Categories); err != nil {
		errs = append(errs, fmt.Errorf("-categories: %w", err))
	}
	switch s.Format {
	case "", "idx", "libsvm", "split":
	default:
		bad("format %q is not one of idx, libsvm, split", s.Format)
	}
	return errors.Join(errs...)
}

// checkFits checks the Spec against its training data (d) and the memory
// it may use (Memory; Bytes 0 if unknown), before a model is drawn: the engine's
// width-dependent settings, an exact likelihood the evaluation can compute,
// and a run whose arrays (model, minibatch, chains of every temperature,
// evaluation) fit in memory, naming the setting that sizes the largest of
// them.
func (s Spec) checkFits(d *engine.Data, memory MemoryLimit) error {
	x := d.D + d.Classes
	if err := s.validateDeep(d.D); err != nil {
		return err
	}
	if m := maxAbs(d.Real); m*m > math.MaxFloat32 {
		return fmt.Errorf("data %s: values up to |x| = %.3g, whose squares (which Gaussian units' energies and reconstruction errors sum) are beyond float32's range, in which training computes; give -real standardise",
			s.Data, m)
	}
	if s.Likelihood == eval.LikelihoodExact && !s.IsDeep() {
		if err := ExactLimit(s.Units(), x, s.Engine.Hidden); err != nil {
			return fmt.Errorf("likelihood exact: %w; use ais", err)
		}
	}
	return s.fitMemory(fmt.Sprintf("a run of %d visible units", x), d, memory)
}

// fitMemory refuses a run of s on d whose arrays need more than memory,
// naming the setting at fault: of the settings that size its arrays, the
// one whose default would shrink the run the most (a minibatch's scratch
// grows with the hidden units as well as with the batch: with -hidden 10⁸
// and a batch of 10 the hidden units are at fault), else (every one at its
// default) the setting of the largest array.
func (s Spec) fitMemory(what string, d *engine.Data, memory MemoryLimit) error {
	parts := s.memoryParts(d)
	if err := checkMemory(what, parts, memory); err == nil {
		return nil
	}
	total := func(parts []MemoryPart) (n float64) {
		for _, p := range parts {
			n += p.Bytes
		}
		return n
	}
	blame, least := "", total(parts)
	for _, p := range parts {
		st := lookup(p.Setting)
		if st == nil {
			continue
		}
		t := s
		st.assign(&t, st.DefaultFor(t))
		if n := total(t.memoryParts(d)); n < least {
			blame, least = p.Setting, n
		}
	}
	var mine []MemoryPart
	for _, p := range parts {
		if p.Setting == blame {
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		return checkMemory(what, parts, memory)
	}
	return memoryError(what, mine, total(parts), memory)
}

// memoryParts are the arrays of a run of s on d: the engine's and the
// evaluation's.
func (s Spec) memoryParts(d *engine.Data) []MemoryPart {
	if s.IsDeep() {
		return s.stackMemory(d)
	}
	x := d.D + d.Classes
	var parts []MemoryPart
	for _, p := range engine.MemoryParts(s.Engine, x) {
		parts = append(parts, MemoryPart(p))
	}
	for _, p := range s.plan(s.Engine.Workers, d.Classes, true).MemoryParts(s.Engine.Visible, x, s.Engine.Hidden, 0) {
		parts = append(parts, MemoryPart(p))
	}
	return parts
}

// ExactLimit returns an error when exact log Z of a model of x visible
// units of type t and h hidden units would sum over more than
// 2^eval.MaxExactBits states: the states of t.ExactLayer(x, h) units.
func ExactLimit(t unit.Type, x, h int) error {
	if n := t.ExactLayer(x, h); n > eval.MaxExactBits {
		return fmt.Errorf("exact log Z of %d %s visible and %d hidden units sums over 2^%d states; the limit is 2^%d",
			x, t.Name(), h, n, eval.MaxExactBits)
	}
	return nil
}

// MemoryPart is memory that one setting's value decides: Bytes for What,
// sized by the flag Setting = Value.
type MemoryPart struct {
	Setting string
	Value   int
	Bytes   float64
	What    string
}

// CheckMemory refuses, with a *ConfigError, a task (what: "sampling") whose
// parts add up to more than the memory this process may use (Memory),
// naming the setting of the largest part and the limit, before anything is
// allocated. Where no limit is known it refuses nothing.
func CheckMemory(what string, parts []MemoryPart) error {
	if err := checkMemory(what, parts, Memory()); err != nil {
		return &ConfigError{err}
	}
	return nil
}

func checkMemory(what string, parts []MemoryPart, memory MemoryLimit) error {
	var need float64
	for _, p := range parts {
		need += p.Bytes
	}
	if memory.Bytes == 0 || need <= float64(memory.Bytes) {
		return nil
	}
	return memoryError(what, parts, need, memory)
}

// memoryError is the refusal of a task needing need bytes, naming the
// setting of the largest of parts.
func memoryError(what string, parts []MemoryPart, need float64, memory MemoryLimit) error {
	big := 0
	for i, p := range parts {
		if p.Bytes > parts[big].Bytes {
			big = i
		}
	}
	p := parts[big]
	return fmt.Errorf("%s = %d: %s needs at least %s of memory, %s of it for %s; this process may use %s",
		p.Setting, p.Value, what, bytesString(need), bytesString(p.Bytes), p.What, memory)
}

// MaxWorkers is the most goroutines a run, an evaluation or a sweep's run
// may be given. Results never depend on the number, and more goroutines
// than CPUs only add scheduling, so the cap is there to refuse a typing
// error before it allocates a helper per goroutine. It is a constant, not a
// multiple of this machine's CPUs, so that a command line valid on one
// machine is valid on every other (a sweep's shards run the same command
// on machines of different sizes); 4096 is above the hardware threads of
// the largest single machines.
const MaxWorkers = 4096

// CheckWorkers refuses, naming the flag, a worker count that is negative
// or above MaxWorkers.
func CheckWorkers(workers int) error {
	switch {
	case workers < 0:
		return &ConfigError{fmt.Errorf("workers = %d is negative", workers)}
	case workers > MaxWorkers:
		return &ConfigError{fmt.Errorf("workers = %d: at most %d (more goroutines than CPUs never make a run faster, and results do not depend on the number)", workers, MaxWorkers)}
	}
	return nil
}

func bytesString(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	k := 0
	for b >= 1024 && k < len(units)-1 {
		b /= 1024
		k++
	}
	return fmt.Sprintf("%.3g %s", b, units[k])
}

// differences lists the settings in which two JSON objects differ, one
// "name: a vs b" entry per leaf, named by the setting's flag (dotted JSON
// keys for what is not a setting), sorted.
// It works from the JSON form, so a field added to Spec or engine.Config
// later is compared without any change here (a field absent on one side
// shows as "absent").
func differences(a, b json.RawMessage) ([]string, error) {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return nil, err
	}
	var out []string
	diffJSON("", va, vb, &out)
	out = layeredDifferences(out, a, b)
	sort.Strings(out)
	return out, nil
}

// layeredDifferences replaces the entries of a layered setting (-hidden,
// -method: one JSON value for the bottom layer, one for those above it)
// by one that shows its whole values, as the flag takes them
// ("-hidden: 16,12 vs 16"), when a and b are Specs.
func layeredDifferences(out []string, a, b json.RawMessage) []string {
	var sa, sb Spec
	if json.Unmarshal(a, &sa) != nil || json.Unmarshal(b, &sb) != nil {
		return out
	}
	for _, st := range settings {
		if st.layers == nil {
			continue
		}
		prefix := "-" + st.Name + ": "
		if !slices.ContainsFunc(out, func(d string) bool { return strings.HasPrefix(d, prefix) }) {
			continue
		}
		out = slices.DeleteFunc(out, func(d string) bool { return strings.HasPrefix(d, prefix) })
		out = append(out, prefix+st.Value(sa)+" vs "+st.Value(sb))
	}
	return out
}

func diffJSON(name string, a, b any, out *[]string) {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if okA && okB {
		keys := map[string]bool{}
		for k := range ma {
			keys[k] = true
		}
		for k := range mb {
			keys[k] = true
		}
		for k := range keys {
			sub := k
			if name != "" {
				sub = name + "." + k
			}
			va, inA := ma[k]
			vb, inB := mb[k]
			_, objA := va.(map[string]any)
			_, objB := vb.(map[string]any)
			switch {
			case !inA && objB: // an object on one side only: its settings, each named
				diffJSON(sub, map[string]any{}, vb, out)
			case !inB && objA:
				diffJSON(sub, va, map[string]any{}, out)
			case !inA:
				*out = append(*out, fmt.Sprintf("%s: absent vs %s", keyName(sub), jsonString(vb)))
			case !inB:
				*out = append(*out, fmt.Sprintf("%s: %s vs absent", keyName(sub), jsonString(va)))
			default:
				diffJSON(sub, va, vb, out)
			}
		}
		return
	}
	if ja, jb := jsonString(a), jsonString(b); ja != jb {
		*out = append(*out, fmt.Sprintf("%s: %s vs %s", keyName(name), ja, jb))
	}
}

func jsonString(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(buf.String())
}

// foreign returns an error naming how the Spec stored as `theirs` (a
// checkpoint's or a config.json's, described by what) differs from s, or
// nil when they are the same run.
func (s Spec) foreign(what string, theirs json.RawMessage) error {
	ours, err := s.identity()
	if err != nil {
		return err
	}
	return foreign(what, theirs, ours)
}

func foreign(what string, theirs, ours json.RawMessage) error {
	theirs, err := normalIdentity(theirs)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if ours, err = normalIdentity(ours); err != nil {
		return err
	}
	diff, err := differences(theirs, ours)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(diff) == 0 {
		return nil
	}
	// Bad usage (the flags and the directory disagree), found before
	// anything is written: a ConfigError, exit status 2.
	return &ConfigError{fmt.Errorf("%s belongs to another configuration (there vs this run: %s); choose another -out, or move it away to start this run over",
		what, strings.Join(diff, ", "))}
}

// CheckAll checks each Spec against its data and the machine as Run does
// before training, loading each distinct data set once, so that a sweep can
// refuse a setting that cannot work before any of its runs trains. It
// returns one error per Spec (nil where it can run), or an error when a
// data set cannot be loaded.
func CheckAll(specs []Spec, dataDir string) ([]error, error) {
	errs, _, err := checkAll(specs, nil, dataDir, Memory())
	return errs, err
}

// CheckSweep is CheckAll for the points of a sweep of which parallel train
// at once. A point whose run directory recorded the digest of other rows
// than its data now has (a shard started after the data file changed) is
// refused, naming the file. When each run fits alone, the parallel
// largest together must fit in memory too, else the second result is a
// *ConfigError naming parallel.
func CheckSweep(points []Point, dataDir string, parallel int) ([]error, error) {
	specs, dirs := make([]Spec, len(points)), make([]string, len(points))
	for i, p := range points {
		specs[i], dirs[i] = p.Spec, p.Dir
	}
	memory := Memory()
	errs, needs, err := checkAll(specs, dirs, dataDir, memory)
	if err != nil {
		return nil, err
	}
	for _, e := range errs {
		if e != nil {
			return errs, nil
		}
	}
	return errs, checkParallel(needs, parallel, memory)
}

// checkParallel refuses, naming parallel, runs whose largest parallel
// needs add up to more than memory (Bytes 0: unknown).
func checkParallel(needs []float64, parallel int, memory MemoryLimit) error {
	sorted := slices.Clone(needs)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	n := min(parallel, len(sorted))
	var sum float64
	for _, v := range sorted[:max(n, 0)] {
		sum += v
	}
	if memory.Bytes == 0 || n < 2 || sum <= float64(memory.Bytes) {
		return nil
	}
	return &ConfigError{fmt.Errorf("parallel = %d: %d runs at once need at least %s of memory (the largest %s); this process may use %s: give a smaller -parallel",
		parallel, n, bytesString(sum), bytesString(sorted[0]), memory)}
}

// checkAll is CheckAll against memory, with each Spec's run directory (dirs
// nil: none) checked against the digest of its data, also returning each
// Spec's memory need (0 where it has an error).
func checkAll(specs []Spec, dirs []string, dataDir string, memory MemoryLimit) ([]error, []float64, error) {
	type dataKey struct {
		data, test, format, real string
		seed                     uint64
		classify                 bool
	}
	loaded := map[dataKey]*engine.Data{}
	digests := map[dataKey]*DataDigest{}
	errs, needs := make([]error, len(specs)), make([]float64, len(specs))
	for i, s := range specs {
		if err := s.Validate(); err != nil {
			errs[i] = &ConfigError{err}
			continue
		}
		k := dataKey{s.Data, s.TestData, s.Format, string(s.Real), s.DataSeed, s.Classify}
		d, ok := loaded[k]
		if !ok {
			train, test, err := Load(s, dataDir)
			if err != nil {
				return nil, nil, err
			}
			digests[k] = digestOf(train, test)
			if d, err = engineData(s, train); err != nil {
				var ce *ConfigError
				if errors.As(err, &ce) {
					errs[i] = err
					continue
				}
				return nil, nil, err
			}
			loaded[k] = d
		}
		if dirs != nil && RunDir(dirs[i]).IsRun() {
			recorded, err := RunDir(dirs[i]).Digest()
			if err == nil {
				err = s.checkDigest(RunDir(dirs[i]), recorded, digests[k])
			}
			if err != nil {
				errs[i] = err
				continue
			}
		}
		if err := s.checkFits(d, memory); err != nil {
			errs[i] = &ConfigError{err}
			continue
		}
		for _, p := range s.memoryParts(d) {
			needs[i] += p.Bytes
		}
	}
	return errs, needs, nil
}

// engineData views the training set as the engine's data; -classify on a
// set without labels is a ConfigError.
func engineData(s Spec, train *data.Set) (*engine.Data, error) {
	if err := s.Engine.Visible.Accepts(train); err != nil {
		var m *unit.MismatchError
		if errors.As(err, &m) {
			return nil, &ConfigError{fmt.Errorf("-visible %s: data %s %s: train them with -visible %s", m.Type.Name(), s.Data, m.Why, m.Suits.Name())}
		}
		return nil, &ConfigError{fmt.Errorf("-visible %s: %w", s.Engine.Visible.Name(), err)}
	}
	if s.Classify && (train.Labels == nil || train.NumClasses <= 0) {
		return nil, &ConfigError{fmt.Errorf("classify: data %s has no labels", s.Data)}
	}
	return engine.FromSet(train, s.Classify)
}
