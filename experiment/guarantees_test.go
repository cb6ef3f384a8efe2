package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/internal/dirlock"
)

// TestDifferencesNameEverySetting: changing any one setting of the table
// in a run that uses it makes a resume's comparison name its flag, and
// every field of engine.Config with a JSON name is some setting's (found
// by reflection, so a field added without a row in the table fails here).
func TestDifferencesNameEverySetting(t *testing.T) {
	keys := map[string]bool{}
	for _, st := range Table() {
		keys[st.Key] = true
		// A run that uses the setting: the first of these the setting's
		// Uses accepts.
		var base Spec
		for _, given := range []map[string]string{
			{"data": "bas"}, {"data": "bas", "method": "line"}, {"data": "bas", "method": "random"},
			{"data": "bas", "method": "set"}, {"data": "bas", "method": "set", "set-procedure": "mocanu"},
			{"data": "bas", "sampler": "pt"}, {"data": "bas", "lr-schedule": "linear"}, {"data": "bas", "lr-schedule": "step", "lr-step-every": "2", "lr-step-factor": "0.5"},
			{"data": "bas", "visible": "gaussian"}, {"data": "bas", "visible": "gaussian", "learn-sigma": "true"}, {"data": "a.libsvm"},
			{"data": "bas", "model": "dbm"},
		} {
			s, err := resolve(given)
			if err != nil {
				t.Fatal(err)
			}
			if st.Uses == nil || st.Uses(s) {
				base = s.Normalize()
				break
			}
		}
		other := base
		v := reflect.ValueOf(st.field(&other)).Elem()
		switch v.Kind() {
		case reflect.Int:
			v.SetInt(v.Int() + 1)
		case reflect.Uint64:
			v.SetUint(v.Uint() + 1)
		case reflect.Float64:
			v.SetFloat(v.Float() + 0.25)
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Bool:
			v.SetBool(!v.Bool())
		}
		diff, err := differences(mustIdentity(t, other), mustIdentity(t, base))
		if err != nil {
			t.Fatal(err)
		}
		// One entry names the flag; a method, sampler or schedule changes
		// which other settings the run uses, and those are named too.
		named := false
		for _, d := range diff {
			named = named || strings.HasPrefix(d, "-"+st.Name+": ")
			if !strings.HasPrefix(d, "-") {
				t.Errorf("%s changed: %q is not named by a flag", st.Name, d)
			}
		}
		if !named || (len(diff) != 1 && st.Kind() != reflect.String) {
			t.Errorf("%s changed: differences %q, want one naming -%s", st.Name, diff, st.Name)
		}
	}
	// Every field of engine.Config and of a DBM's engine.JointConfig, but
	// those a stack sets itself: the doubled inputs of each RBM's
	// pre-training (engine.StackConfig.LayerConfig) and the joint
	// centring, which is -centre's (Spec.Stack).
	notSettings := map[string]bool{"engine.double_up": true, "engine.double_down": true, "deep.joint.centre": true}
	for prefix, typ := range map[string]reflect.Type{"engine.": reflect.TypeOf(engine.Config{}), "deep.joint.": reflect.TypeOf(engine.JointConfig{})} {
		for i := 0; i < typ.NumField(); i++ {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name != "-" && !keys[prefix+name] && !notSettings[prefix+name] {
				t.Errorf("%s.%s (JSON %q) is no setting's Key", typ, typ.Field(i).Name, name)
			}
		}
	}
	// Workers is not part of the identity.
	base, _ := resolve(map[string]string{"data": "bas"})
	other := base
	other.Engine.Workers = 7
	if diff, _ := differences(mustIdentity(t, other), mustIdentity(t, base)); len(diff) != 0 {
		t.Errorf("workers changed the identity: %q", diff)
	}
}

func mustIdentity(t *testing.T, s Spec) json.RawMessage {
	t.Helper()
	b, err := s.identity()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunRefusesALockedDirectory: Run fails at once, naming the holder,
// on a directory another Run (here: a lock taken by hand) works in.
func TestRunRefusesALockedDirectory(t *testing.T) {
	dir := t.TempDir()
	l, err := dirlock.Acquire(dir, LockFile)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	cfg := engine.DefaultConfig()
	cfg.Hidden, cfg.Epochs, cfg.Batch = 8, 2, 10
	_, err = Run(context.Background(), Spec{Data: "bas", Engine: cfg, Likelihood: "none"}, dir, Options{})
	var inUse *dirlock.InUseError
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() {
		t.Errorf("Run on a locked directory: %v, want in use by process %d", err, os.Getpid())
	}
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err == nil {
		t.Error("Run wrote into a locked directory")
	}
}

// TestMemoryCheck: a run that cannot fit in the given memory is refused
// naming the setting that sizes the largest of its arrays, and a small one
// is not. bas has 16 visible units. The refused cases each hold one array
// past the memory given (512 KiB = 524,288 bytes), counted here from the
// arrays' shapes alone: 10⁵ hidden units make W, A, C and CH, four 16×10⁵
// float32 matrices, 25.6 MB; 1000 temperatures × batch 10 make 10⁴ chains
// of 16 float32, 640,000 bytes; a batch of 10⁴ makes, among others, the
// 10⁴×16 float32 start states, 640,000 bytes; with parallel tempering the
// batch of 10⁴ outweighs its 2 temperatures; 10⁵ AIS runs make 10⁵ float64
// log weights, 800,000 bytes; 10⁵ AIS intervals make 10⁵ + 1 float64
// inverse temperatures, 800,008 bytes. 16 hidden units, batch 10, CD or 2
// temperatures, exact log Z: a few KB. A dense model of 10⁴ hidden units
// has a minibatch scratch (10 slots of 7 H-vectors of float32 among
// others, 2.9 MB) larger than its matrices (4 × 16 × 10⁴ float32, 2.6 MB),
// but its hidden units make both large, and they are named: at the
// default 16 hidden units the run fits.
func TestMemoryCheck(t *testing.T) {
	d := &engine.Data{N: 1, D: 16, X: make([]uint8, 16)}
	for _, c := range []struct {
		name string
		set  func(*Spec)
		want string // "" fits
	}{
		{"small", func(*Spec) {}, ""},
		{"small pt", func(s *Spec) {
			s.Engine.Sampler, s.Engine.Temperatures, s.Engine.MinBeta = engine.ParallelTempering, 2, 0.5
		}, ""},
		{"hidden", func(s *Spec) { s.Engine.Hidden = 100000 }, "hidden = 100000"},
		{"hidden dense", func(s *Spec) { s.Engine.Method, s.Engine.Hidden = engine.Dense, 10000 }, "hidden = 10000"},
		{"temperatures", func(s *Spec) {
			s.Engine.Sampler, s.Engine.Temperatures, s.Engine.MinBeta = engine.ParallelTempering, 1000, 0.5
		}, "temperatures = 1000"},
		{"batch", func(s *Spec) { s.Engine.Batch = 10000 }, "batch = 10000"},
		{"batch pt", func(s *Spec) {
			s.Engine.Sampler, s.Engine.Temperatures, s.Engine.MinBeta, s.Engine.Batch = engine.ParallelTempering, 2, 0.5, 10000
		}, "batch = 10000"},
		{"ais-runs", func(s *Spec) { s.Likelihood, s.AISRuns = eval.LikelihoodAIS, 100000 }, "ais-runs = 100000"},
		{"ais-betas", func(s *Spec) { s.Likelihood, s.AISIntervals = eval.LikelihoodAIS, 100000 }, "ais-betas = 100000"},
	} {
		cfg := engine.DefaultConfig()
		cfg.Hidden, cfg.Batch, cfg.Workers = 16, 10, 1 // one worker: AIS keeps one block of runs alive
		s := Spec{Data: "bas", Engine: cfg, Likelihood: eval.LikelihoodExact, AISRuns: 10, AISIntervals: 100}
		c.set(&s)
		err := s.checkFits(d, MemoryLimit{512 << 10, "a test limit"})
		if (c.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), c.want+":")) {
			t.Errorf("%s in 512 KiB: %v; want %q", c.name, err, c.want)
		}
	}
}

// TestInterruptedFinalEvaluationKeepsTheModel: a run stopped during its
// final evaluation has written model.npz and the last checkpoint, and the
// model is the one a run without evaluation trains; run again, it resumes
// at the evaluation (here stopped again at once).
func TestInterruptedFinalEvaluationKeepsTheModel(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Hidden, cfg.Epochs, cfg.Batch = 8, 3, 10
	plain := filepath.Join(t.TempDir(), "plain")
	if _, err := Run(context.Background(), Spec{Data: "bas", Engine: cfg, Likelihood: "none"}, plain, Options{}); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Data: "bas", Engine: cfg, Likelihood: "ais", AISRuns: 10, AISIntervals: 2_000_000} // minutes of AIS
	dir := filepath.Join(t.TempDir(), "ais")
	// Stopped at the end of the last epoch, then at the resumption.
	for _, at := range []string{"epoch 3 done", "resumed"} {
		ctx, cancel := context.WithCancel(context.Background())
		var resumedAt []int
		_, err := Run(ctx, spec, dir, Options{Progress: func(e Event) {
			switch e := e.(type) {
			case EpochDone:
				if at == "epoch 3 done" && e.Metrics.Epoch == 3 {
					cancel()
				}
			case Resumed:
				resumedAt = append(resumedAt, e.Epoch)
				if at == "resumed" {
					cancel()
				}
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped at %s: %v", at, err)
		}
		if at == "resumed" && !reflect.DeepEqual(resumedAt, []int{3}) {
			t.Errorf("resumed at epochs %v, want [3] (the final evaluation)", resumedAt)
		}
		a, _ := os.ReadFile(filepath.Join(plain, "model.npz"))
		b, err := os.ReadFile(filepath.Join(dir, "model.npz"))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("model.npz kept: %v, equal to the plain run's: %v", err, bytes.Equal(a, b))
		}
		if _, err := os.Stat(filepath.Join(dir, "result.json")); err == nil {
			t.Error("result.json written by an interrupted evaluation")
		}
	}
}

// TestEvaluationLeavesTrainingAlone: a run trains the same model whether
// it is evaluated after every epoch or only at the end (evaluation draws
// from its own streams), for NCG and for SET by its authors' procedure,
// whose rewiring draws at random; so report groups runs across evaluation
// schedules.
func TestEvaluationLeavesTrainingAlone(t *testing.T) {
	for _, method := range []engine.Method{engine.NCG, engine.SET} {
		cfg := engine.DefaultConfig()
		cfg.Method, cfg.Hidden, cfg.Epochs, cfg.Batch, cfg.Seed = method, 8, 3, 10, 5
		if method == engine.SET {
			cfg.Epsilon, cfg.Zeta, cfg.SETProcedure = 2, 0.3, engine.Mocanu
		}
		var models [][]byte
		for _, every := range []int{1, 0} {
			spec := Spec{Data: "bas", Engine: cfg, EvalEvery: every, Likelihood: eval.LikelihoodAIS, AISRuns: 4, AISIntervals: 300}
			dir := filepath.Join(t.TempDir(), "run")
			if _, err := Run(context.Background(), spec, dir, Options{Workers: 1}); err != nil {
				t.Fatalf("%s, eval-every %d: %v", method, every, err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "model.npz"))
			if err != nil {
				t.Fatal(err)
			}
			models = append(models, b)
		}
		if !bytes.Equal(models[0], models[1]) {
			t.Errorf("%s: the model evaluated every epoch differs from the one evaluated at the end", method)
		}
	}
}

// TestCheckpointEveryDefault: a run of the library checkpoints as the
// command does, at most once a minute (and at the end), unless told to
// checkpoint after every epoch; metrics.csv goes with each checkpoint, so
// it is there when the second of three quick epochs ends with EveryEpoch alone.
func TestCheckpointEveryDefault(t *testing.T) {
	spec, err := NewSpec(Settings{"data": "bas", "epochs": 3, "likelihood": "none"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		every time.Duration
		want  bool
	}{{0, false}, {EveryEpoch, true}} {
		dir := filepath.Join(t.TempDir(), "run")
		var after1 *bool
		_, err := Run(context.Background(), spec, dir, Options{CheckpointEvery: c.every, Progress: func(e Event) {
			if d, ok := e.(EpochDone); ok && d.Metrics.Epoch == 2 { // epoch 1 and its checkpoint are done
				_, err := os.Stat(RunDir(dir).MetricsPath())
				exists := err == nil
				after1 = &exists
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if after1 == nil || *after1 != c.want {
			t.Errorf("CheckpointEvery %v: metrics.csv once epoch 2 of 3 ends: %v, want %v", c.every, after1 != nil && *after1, c.want)
		}
	}
}

// TestParallelMemoryCheck: runs that each fit are refused, naming
// parallel, when the largest of them that train at once do not fit
// together. Needs of 3, 2 and 1 MiB in 4 MiB: one at a time fits; two at
// once are the 3 and 2 MiB runs, 5 MiB; three, 6 MiB. Three runs of 1 MiB
// at once, 3 MiB, fit.
func TestParallelMemoryCheck(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		needs    []float64
		parallel int
		want     string // "" fits
	}{
		{[]float64{3 * mib, 2 * mib, 1 * mib}, 1, ""},
		{[]float64{1 * mib, 3 * mib, 2 * mib}, 2, "parallel = 2: 2 runs at once need at least 5 MiB of memory (the largest 3 MiB)"},
		{[]float64{2 * mib, 1 * mib, 3 * mib}, 8, "parallel = 8: 3 runs at once need at least 6 MiB of memory (the largest 3 MiB)"},
		{[]float64{1 * mib, 1 * mib, 1 * mib}, 3, ""},
	} {
		err := checkParallel(c.needs, c.parallel, MemoryLimit{4 * mib, "a test limit"})
		if (c.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("needs %v, parallel %d, in 4 MiB: %v; want %q", c.needs, c.parallel, err, c.want)
		}
	}
}
