package experiment

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/unit"
)

// The settings of a run, each declared once. ncgbench's flags of train,
// sweep and eval, its help tables, the axes of a sweep, the differences a
// refused run directory names, report's group names and docs/cli.md's flag
// tables all come from this table; NewSpec fills a Spec from it and
// Normalize drops what a run does not use. A new setting is a field of
// Spec (or engine.Config, with its default in engine.DefaultConfig), a row
// here, and its check in Spec.Validate (or engine.Config.Validate). A
// setting of engine.Config takes its Default from engine.DefaultConfig
// (init, below); the rows give what differs per data set, method, procedure
// or sampler.
var settings = []*Setting{
	// Data.
	{Name: "data", Key: "data", Group: DataGroup, Arg: "NAME|FILE", Eval: true, Default: "bas",
		Usage: "data set: bas, mnist, mushrooms, connect-4, or a file path",
		field: func(s *Spec) any { return &s.Data }},
	{Name: "test-data", Key: "test_data", Group: DataGroup, Arg: "FILE", Eval: true,
		Usage: "test set file, for a file -data", Uses: dataFile, UsedBy: "a data file",
		field: func(s *Spec) any { return &s.TestData }},
	{Name: "format", Key: "format", Group: DataGroup, Arg: "F", Eval: true,
		Usage: "format of a data file: idx, libsvm or split (default: detected; plain or gzip)", Uses: dataFile, UsedBy: "a data file",
		field: func(s *Spec) any { return &s.Format }},
	{Name: "real", Key: "real", Group: DataGroup, Arg: "MODE", Eval: true, Default: data.RealNone,
		Usage: "real-valued data, for -visible gaussian: unit (MNIST's grey levels in [0, 1]; a matrix file's columns scaled to [0, 1]) or standardise (each unit to mean 0 and deviation 1 on the training set); .npy and CSV files are real-valued as read (default binary)",
		field: func(s *Spec) any { return &s.Real }},
	{Name: "categories", Key: "categories", Group: DataGroup, Arg: "K", Eval: true, Default: "",
		Rules: []Rule{{When: "-visible categorical: data", Applies: func(s Spec) bool { return s.Engine.Visible == unit.Categorical }, Value: func(Spec) any { return "data" }}},
		Usage: "a .npy or CSV file's columns as integer-coded categorical attributes, each a one-hot group: data (each column's values in the training file), K (values 0…K−1 in every column) or K1,K2,… (one K per column); mushrooms and connect-4 have their groups built in",
		Uses:  dataFile, UsedBy: "a data file",
		field: func(s *Spec) any { return &s.Categories }},
	{Name: "data-seed", Key: "data_seed", Group: DataGroup, Arg: "S", Eval: true, Default: uint64(0),
		Usage: "seed of MNIST's stochastic binarisation and of seeded splits",
		field: func(s *Spec) any { return &s.DataSeed }},

	// Model.
	{Name: "model", Key: "deep.kind", Group: ModelGroup, Arg: "rbm|dbn|dbm", Axis: "model",
		Usage: "model: an RBM, or a stack of RBMs, one per -hidden layer: dbn, a deep belief network, or dbm, a deep Boltzmann machine, each RBM pre-trained with the settings of an RBM (-method one per weight matrix, the others shared) (default rbm)",
		field: func(s *Spec) any { return &s.Deep.Kind }},
	{Name: "method", Required: true, Key: "engine.method", Group: ModelGroup, Arg: "M", Axis: "method",
		Usage: "connectivity method: " + names(engine.Methods()) + "; a deep model's: one for every weight matrix, or a comma list, one per matrix, the bottom one first",
		field: func(s *Spec) any { return &s.Engine.Method }, layers: func(s *Spec) any { return &s.Deep.Methods }, layersKey: "deep.methods"},
	{Name: "hidden", Required: true, Key: "engine.hidden", Group: ModelGroup, Arg: "H", Axis: "h",
		PerData: map[string]any{"bas": 16, "mushrooms": 100, "connect-4": 100},
		Usage:   "hidden units; a deep model's: a comma list, one per hidden layer, the bottom one first",
		field:   func(s *Spec) any { return &s.Engine.Hidden }, layers: func(s *Spec) any { return &s.Deep.Hidden }, layersKey: "deep.hidden"},
	{Name: "p", Key: "engine.p", Group: ModelGroup, Arg: "P", Axis: "p",
		Usage: "NCG: initial connection density", Uses: method(engine.NCG), UsedBy: "-method ncg",
		field: func(s *Spec) any { return &s.Engine.P }},
	{Name: "gamma", Required: true, Key: "engine.gamma", Group: ModelGroup, Arg: "γ", Axis: "g",
		Usage: "NCG: threshold γ on the connection strength A′", Uses: method(engine.NCG), UsedBy: "-method ncg",
		field: func(s *Spec) any { return &s.Engine.Gamma }},
	{Name: "lr-conn", Key: "engine.lr_conn", Group: ModelGroup, Arg: "α_A", Axis: "lrc",
		PerData: map[string]any{"bas": 0.25, "mushrooms": 0.05, "connect-4": 0.05},
		Usage:   "NCG: learning rate α_A of the connection strength A′", Uses: method(engine.NCG), UsedBy: "-method ncg",
		field: func(s *Spec) any { return &s.Engine.LRConn }},
	{Name: "v", Required: true, Key: "engine.v", Group: ModelGroup, Arg: "V", Axis: "v",
		PerData: map[string]any{"bas": 8, "mushrooms": 56, "connect-4": 63},
		Usage:   "line: visible units per hidden unit (half the data units: the paper's line density 0.5)", Uses: method(engine.Line), UsedBy: "-method line",
		field: func(s *Spec) any { return &s.Engine.LineWidth }},
	{Name: "density", Key: "engine.density", Group: ModelGroup, Arg: "D", Axis: "d",
		Usage: "random: connection density", Uses: method(engine.Random), UsedBy: "-method random",
		field: func(s *Spec) any { return &s.Engine.Density }},
	{Name: "epsilon", Required: true, Key: "engine.epsilon", Group: ModelGroup, Arg: "ε",
		Usage: "SET: ε, for a density ε(X+H)/(XH)", Uses: method(engine.SET), UsedBy: "-method set",
		field: func(s *Spec) any { return &s.Engine.Epsilon }},
	{Name: "zeta", Key: "engine.zeta", Group: ModelGroup, Arg: "ζ",
		Usage: "SET: fraction ζ of connections rewired after every epoch but the last", Uses: method(engine.SET), UsedBy: "-method set",
		field: func(s *Spec) any { return &s.Engine.Zeta }},
	{Name: "set-procedure", Key: "engine.set_procedure", Group: ModelGroup, Arg: "mocanu",
		Usage: "SET: mocanu trains as the SET authors' code does (mean-field reconstructions, sampled statistics, biases decayed, N(0, σ²) regrowth, a last pruning without regrowth), with their -k, -init, -init-scale and -l2 where not given (default: this engine's SET)",
		Uses:  method(engine.SET), UsedBy: "-method set",
		field: func(s *Spec) any { return &s.Engine.SETProcedure }},
	{Name: "seed", Key: "engine.seed", Group: ModelGroup, Arg: "S", Axis: "seed",
		Usage: "seed of the run: initialisation, order, chains (a sweep takes lists and ranges a-b)",
		field: func(s *Spec) any { return &s.Engine.Seed }},
	{Name: "init", Required: true, Key: "engine.init", Group: ModelGroup, Arg: "I",
		Rules: []Rule{{When: "-set-procedure mocanu", Applies: mocanu, Value: func(Spec) any { return engine.Normal }}},
		Usage: "weight initialisation: uniform U(−a, a), normal N(0, a²) or zero",
		field: func(s *Spec) any { return &s.Engine.Init }},
	{Name: "init-scale", Key: "engine.init_scale", Group: ModelGroup, Arg: "a",
		Rules: []Rule{{When: "-set-procedure mocanu", Applies: mocanu, Value: func(Spec) any { return engine.MocanuInitScale }}},
		Usage: "a of uniform(−a, a) or of normal N(0, a²)", Uses: func(s Spec) bool { return s.Engine.Init != engine.Zero }, UsedBy: "-init uniform or normal",
		field: func(s *Spec) any { return &s.Engine.InitScale }},
	{Name: "visible", Key: "engine.visible", Group: ModelGroup, Arg: "type",
		Usage: "visible units: binary; gaussian for real-valued data, v | h ~ N(d + Cᵀh, σ²), d the visible biases; categorical for one-hot attributes, each group drawn from its softmax",
		field: func(s *Spec) any { return &s.Engine.Visible }},
	{Name: "learn-sigma", Key: "engine.learn_sigma", Group: ModelGroup, Arg: "",
		Usage: "gaussian: learn each visible unit's σ (through log σ², Cho, Ilin & Raiko 2011) instead of σ = 1",
		Uses:  gaussian, UsedBy: "-visible gaussian",
		field: func(s *Spec) any { return &s.Engine.LearnSigma }},
	{Name: "sigma-step", Key: "engine.sigma_step", Group: ModelGroup, Arg: "f", Axis: "ss",
		Usage: "learned σ: the step of log σ² as a fraction f of the learning rate (0: the biases' step)",
		Uses:  learnSigma, UsedBy: "-learn-sigma",
		field: func(s *Spec) any { return &s.Engine.SigmaStep }},
	{Name: "min-sigma", Key: "engine.min_sigma", Group: ModelGroup, Arg: "σ_min", Axis: "ms",
		Usage: "learned σ: the least σ of a unit, in the data's scale (0: none; a unit constant in the data drives σ to 0)",
		Uses:  learnSigma, UsedBy: "-learn-sigma",
		field: func(s *Spec) any { return &s.Engine.MinSigma }},
	{Name: "centre", Key: "engine.centre", Group: TrainingGroup, Arg: "",
		Usage: "centred training: the gradient with visible units offset by the data mean, hidden units by a running mean (Melchior, Fischer & Wiskott 2016); a deep model's every RBM, and a DBM's joint training with every layer offset by a running mean of its mean field",
		field: func(s *Spec) any { return &s.Engine.Centre }},

	// Training.
	{Name: "k", Required: true, Key: "engine.k", Group: TrainingGroup, Arg: "K",
		Rules: []Rule{{When: "-set-procedure mocanu", Applies: mocanu, Value: func(Spec) any { return engine.MocanuK }}},
		Usage: "Gibbs steps of CD-k (pt: rounds of one step at every temperature and swaps)",
		field: func(s *Spec) any { return &s.Engine.K }},
	{Name: "batch", Required: true, Key: "engine.batch", Group: TrainingGroup, Arg: "B",
		PerData: map[string]any{"bas": 10, "mushrooms": 10, "connect-4": 10},
		Usage:   "minibatch size",
		field:   func(s *Spec) any { return &s.Engine.Batch }},
	{Name: "lr", Key: "engine.lr", Group: TrainingGroup, Arg: "α",
		PerData: map[string]any{"bas": 0.05, "mushrooms": 0.01, "connect-4": 0.01},
		Usage:   "learning rate α of weights and biases",
		field:   func(s *Spec) any { return &s.Engine.LR }},
	{Name: "epochs", Required: true, Key: "engine.epochs", Group: TrainingGroup, Arg: "N",
		PerData: map[string]any{"bas": 2000},
		Usage:   "epochs",
		field:   func(s *Spec) any { return &s.Engine.Epochs }},
	{Name: "sampler", Key: "engine.sampler", Group: TrainingGroup, Arg: "S",
		Usage: "negative phase: " + names(engine.Samplers()) + ": CD-k, persistent CD-k, or parallel tempering (-temperatures chains per slot, -k rounds of a Gibbs step each and neighbour swaps) (default cd)",
		field: func(s *Spec) any { return &s.Engine.Sampler }},
	{Name: "temperatures", Required: true, Key: "engine.temperatures", Group: TrainingGroup, Arg: "M",
		Rules: []Rule{{When: "-sampler pt", Applies: pt, Value: func(Spec) any { return engine.DefaultTemperatures }}},
		Usage: "pt: chains per minibatch slot, β from 1 down to -min-beta on a geometric ladder", Uses: pt, UsedBy: "-sampler pt",
		field: func(s *Spec) any { return &s.Engine.Temperatures }},
	{Name: "min-beta", Required: true, Key: "engine.min_beta", Group: TrainingGroup, Arg: "β",
		Rules: []Rule{{When: "-sampler pt", Applies: pt, Value: func(Spec) any { return engine.DefaultMinBeta }}},
		Usage: "pt: the lowest inverse temperature", Uses: pt, UsedBy: "-sampler pt",
		field: func(s *Spec) any { return &s.Engine.MinBeta }},
	{Name: "momentum", Key: "engine.momentum", Group: TrainingGroup, Arg: "μ",
		Usage: "momentum μ of weights and biases (never of NCG's A′)",
		field: func(s *Spec) any { return &s.Engine.Momentum }},
	{Name: "momentum-start", Key: "engine.momentum_start", Group: TrainingGroup, Arg: "μ₀",
		Usage: "momentum during the first -momentum-epochs epochs",
		field: func(s *Spec) any { return &s.Engine.MomentumStart }},
	{Name: "momentum-epochs", Key: "engine.momentum_epochs", Group: TrainingGroup, Arg: "E",
		Usage: "epochs at -momentum-start before -momentum",
		field: func(s *Spec) any { return &s.Engine.MomentumEpochs }},
	{Name: "l2", Key: "engine.l2", Group: TrainingGroup, Arg: "λ₂",
		Rules: []Rule{{When: "-set-procedure mocanu: 2e-7/lr", Applies: mocanu, Value: func(s Spec) any { return engine.MocanuDecay / s.Engine.LR }}},
		Usage: "L2 weight decay λ₂ of W (never of the biases)",
		field: func(s *Spec) any { return &s.Engine.L2 }},
	{Name: "l1", Key: "engine.l1", Group: TrainingGroup, Arg: "λ₁",
		Usage: "L1 weight decay λ₁ of W (never of the biases)",
		field: func(s *Spec) any { return &s.Engine.L1 }},
	{Name: "lr-schedule", Key: "engine.lr_schedule", Group: TrainingGroup, Arg: "S",
		Usage: "schedule of -lr: constant, linear (to -lr-final at the last epoch) or step (× -lr-step-factor every -lr-step-every epochs); NCG's α_A stays constant (default constant)",
		field: func(s *Spec) any { return &s.Engine.LRSchedule }},
	{Name: "lr-final", Key: "engine.lr_final", Group: TrainingGroup, Arg: "α",
		Usage: "linear schedule: α at the last epoch", Uses: schedule(engine.Linear), UsedBy: "-lr-schedule linear",
		field: func(s *Spec) any { return &s.Engine.LRFinal }},
	{Name: "lr-step-every", Key: "engine.lr_step_every", Group: TrainingGroup, Arg: "N",
		Usage: "step schedule: epochs between steps", Uses: schedule(engine.Step), UsedBy: "-lr-schedule step",
		field: func(s *Spec) any { return &s.Engine.LRStepEvery }},
	{Name: "lr-step-factor", Key: "engine.lr_step_factor", Group: TrainingGroup, Arg: "f",
		Usage: "step schedule: factor of α at each step", Uses: schedule(engine.Step), UsedBy: "-lr-schedule step",
		field: func(s *Spec) any { return &s.Engine.LRStepFactor }},

	// Deep models: a DBM's joint training.
	{Name: "joint-epochs", Key: "deep.joint.epochs", Group: DeepGroup, Arg: "N",
		Usage: "DBM: epochs of joint training after every RBM's pre-training (0: none)", Uses: dbm, UsedBy: "-model dbm",
		field: func(s *Spec) any { return &s.Deep.Joint.Epochs }},
	{Name: "joint-batch", Required: true, Key: "deep.joint.batch", Group: DeepGroup, Arg: "B",
		Usage: "DBM: data rows per update of joint training", Uses: dbm, UsedBy: "-model dbm",
		field: func(s *Spec) any { return &s.Deep.Joint.Batch }},
	{Name: "chains", Key: "deep.joint.chains", Group: DeepGroup, Arg: "N",
		Usage: "DBM: persistent Gibbs chains of joint training's negative phase (0: -joint-batch)", Uses: dbm, UsedBy: "-model dbm",
		field: func(s *Spec) any { return &s.Deep.Joint.Chains }},
	{Name: "mean-field", Required: true, Key: "deep.joint.mean_field", Group: DeepGroup, Arg: "N",
		Usage: "DBM: mean-field iterations of joint training's positive phase, after its bottom-up pass", Uses: dbm, UsedBy: "-model dbm",
		field: func(s *Spec) any { return &s.Deep.Joint.MeanField }},
	{Name: "gibbs", Required: true, Key: "deep.joint.gibbs", Group: DeepGroup, Arg: "N",
		Usage: "DBM: Gibbs sweeps of every chain per update (odd layers given the even, then the even given the odd)", Uses: dbm, UsedBy: "-model dbm",
		field: func(s *Spec) any { return &s.Deep.Joint.Gibbs }},
	{Name: "joint-lr", Key: "deep.joint.lr", Group: DeepGroup, Arg: "α",
		Usage: "DBM: learning rate of the weights and biases in joint training", Uses: dbm, UsedBy: "-model dbm",
		field: func(s *Spec) any { return &s.Deep.Joint.LR }},
	{Name: "joint-momentum", Key: "deep.joint.momentum", Group: DeepGroup, Arg: "μ",
		Usage: "DBM: momentum of the weights and biases in joint training (never of NCG's A′)", Uses: dbm, UsedBy: "-model dbm",
		field: func(s *Spec) any { return &s.Deep.Joint.Momentum }},
	{Name: "joint-l2", Key: "deep.joint.l2", Group: DeepGroup, Arg: "λ₂",
		Usage: "DBM: L2 weight decay of W in joint training (never of the biases)", Uses: dbm, UsedBy: "-model dbm",
		field: func(s *Spec) any { return &s.Deep.Joint.L2 }},

	// Evaluation.
	{Name: "classify", Key: "classify", Group: EvalGroup, Arg: "", Eval: true, Default: false,
		PerData: map[string]any{"mushrooms": true, "connect-4": true},
		Rules:   []Rule{{When: "-model dbn or dbm", Applies: deep, Value: func(Spec) any { return false }}},
		Usage:   "classification mode: one-hot label units, accuracy reported",
		field:   func(s *Spec) any { return &s.Classify }},
	{Name: "eval-every", Key: "eval_every", Group: EvalGroup, Arg: "N", Default: 0,
		PerData: map[string]any{"bas": 250},
		Usage:   "evaluate every N epochs, and after the last (0: after the last only)",
		field:   func(s *Spec) any { return &s.EvalEvery }},
	{Name: "likelihood", Key: "likelihood", Group: EvalGroup, Arg: "L", Eval: true, Default: eval.LikelihoodAuto,
		Usage: "exact, ais or none (default: exact when exact log Z sums over at most 2^20 states, the smaller layer's or a Gaussian model's hidden layer's, else AIS; none when classifying)",
		field: func(s *Spec) any { return &s.Likelihood }},
	{Name: "ais-runs", Required: true, Key: "ais_runs", Group: EvalGroup, Arg: "N", Eval: true, Default: eval.DefaultRuns,
		Usage: "AIS runs", Uses: ais, UsedBy: "AIS (-likelihood ais, or its default)",
		field: func(s *Spec) any { return &s.AISRuns }},
	{Name: "ais-betas", Required: true, Key: "ais_intervals", Group: EvalGroup, Arg: "N", Eval: true, Default: eval.DefaultIntervals,
		Usage: fmt.Sprintf("AIS intervals: %d is the paper's schedule, other values evenly spaced β", eval.DefaultIntervals), Uses: ais, UsedBy: "AIS (-likelihood ais, or its default)",
		field: func(s *Spec) any { return &s.AISIntervals }},
	{Name: "ais-seed", Key: "ais_seed", Group: EvalGroup, Arg: "S", Eval: true, Default: uint64(0),
		Usage: "seed of the AIS chains", Uses: ais, UsedBy: "AIS (-likelihood ais, or its default)",
		field: func(s *Spec) any { return &s.AISSeed }},
	{Name: "ais-max-betas", Key: "ais_max_intervals", Group: EvalGroup, Arg: "N", Eval: true, Default: 0,
		Usage: "grow the AIS schedule while its checks' verdict fires, each interval split in two, up to N intervals (train: at the final evaluation); 0: -ais-betas alone",
		Uses:  ais, UsedBy: "AIS (-likelihood ais, or its default)",
		field: func(s *Spec) any { return &s.AISMaxIntervals }},
}

// init gives each setting of engine.Config without a Default of its own
// the value engine.DefaultConfig gives it (none for a Required setting
// that is zero there: its rules decide), and each of a DBM's joint
// training engine.DefaultJoint's.
func init() {
	def := Spec{Engine: engine.DefaultConfig(), Deep: Deep{Joint: engine.DefaultJoint()}}
	for _, st := range settings {
		if !strings.HasPrefix(st.Key, "engine.") && !strings.HasPrefix(st.Key, "deep.joint.") || st.Default != nil {
			continue
		}
		if v := reflect.ValueOf(st.field(&def)).Elem(); !(st.Required && v.IsZero()) {
			st.Default = v.Interface()
		}
	}
}

// aliases are flags that set another setting to one value.
var aliases = []Alias{
	{Name: "pcd", Of: "sampler", Value: string(engine.PersistentCD)},
	{Name: "exact", Of: "likelihood", Value: string(eval.LikelihoodExact)},
	{Name: "ais", Of: "likelihood", Value: string(eval.LikelihoodAIS)},
}

// names joins the names of values ("a, b, c"), for the help.
func names[T ~string](values []T) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// method: a run with a weight matrix of method m.
func method(m engine.Method) func(Spec) bool {
	return func(s Spec) bool { return slices.Contains(s.Methods(), m) }
}

func schedule(c engine.Schedule) func(Spec) bool {
	return func(s Spec) bool { return s.Engine.LRSchedule == c }
}

func mocanu(s Spec) bool     { return s.Engine.SETProcedure == engine.Mocanu }
func pt(s Spec) bool         { return s.Engine.Sampler == engine.ParallelTempering }
func learnSigma(s Spec) bool { return s.Engine.LearnSigma }
func gaussian(s Spec) bool   { return s.Engine.Visible == unit.Gaussian }
func dataFile(s Spec) bool {
	_, named := namedData(s.Data)
	return !named
}

// ais: AIS may run, so its settings matter (an explicit exact or none
// likelihood has no AIS).
func ais(s Spec) bool {
	return s.Likelihood != eval.LikelihoodExact && s.Likelihood != eval.LikelihoodNone
}
