package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
)

// runFlags are the flags that define a run, shared by train and sweep, all
// made from experiment's table of settings. A flag given goes into given
// as its text; experiment.NewSpec (train) or experiment.Grid (sweep) fills
// the rest with the defaults. In a sweep (lists set) the axes take lists.
type runFlags struct {
	given   experiment.Settings
	lists   bool
	dataDir *string
	workers int
	out     string
}

// settingFlag is one setting's flag: it checks the value when parsed and
// records its text.
type settingFlag struct {
	st    experiment.Setting
	given experiment.Settings
	lists bool
}

func (f settingFlag) String() string { return "" }
func (f settingFlag) IsBoolFlag() bool {
	return f.st.Kind() == reflect.Bool
}
func (f settingFlag) Set(s string) error {
	if err := f.st.Check(s, f.lists && f.st.Axis != ""); err != nil {
		_, msg, _ := strings.Cut(err.Error(), ": ") // the flag package names the flag
		return errors.New(msg)
	}
	f.given[f.st.Name] = s
	return nil
}

// aliasFlag is a flag that stands for one value of another setting.
type aliasFlag struct {
	name  string
	given experiment.Settings
}

func (f aliasFlag) String() string   { return "" }
func (f aliasFlag) IsBoolFlag() bool { return true }
func (f aliasFlag) Set(s string) error {
	if s != "true" && s != "false" {
		return fmt.Errorf("%q is not true or false", s)
	}
	f.given[f.name] = s
	return nil
}

// registerSettings adds a flag for each setting that keep accepts.
func registerSettings(fs *flag.FlagSet, given experiment.Settings, lists bool, keep func(experiment.Setting) bool) {
	for _, st := range experiment.Table() {
		if keep(st) {
			fs.Var(settingFlag{st, given, lists}, st.Name, settingUsage(st, lists))
		}
	}
	for _, a := range experiment.Aliases() {
		if st, _ := experiment.Lookup(a.Of); keep(st) {
			fs.Var(aliasFlag{a.Name, given}, a.Name, fmt.Sprintf("same as -%s %s", a.Of, a.Value))
		}
	}
}

// settingUsage is a setting's help: its usage, the list it takes in a
// sweep and its defaults.
func settingUsage(st experiment.Setting, lists bool) string {
	return usageWith(st, lists, defaultText(st))
}

// usageWith is a setting's help with the given words on its default.
func usageWith(st experiment.Setting, lists bool, def string) string {
	u := st.Usage
	if st.Arg != "" {
		u = "`" + st.Arg + "`: " + u
	}
	if lists && st.Axis != "" {
		u += " (a sweep takes a comma list)"
	}
	if def != "" {
		u += " (default " + def + ")"
	}
	return u
}

// defaultText says what a setting defaults to, in words ("" when the usage
// says it or it has none).
func defaultText(st experiment.Setting) string {
	var parts []string
	if st.PerData != nil {
		parts = append(parts, "per data set, see the table below")
	} else if d := experiment.Format(st.Default); d != "" && d != "false" && !strings.Contains(st.Usage, "(default") {
		parts = append(parts, d)
	}
	for _, r := range st.Rules {
		v := experiment.Format(r.Value(experiment.Spec{Engine: engine.Config{LR: 1}}))
		if strings.Contains(r.When, ":") { // the rule's value is in its words
			parts = append(parts, r.When)
		} else {
			parts = append(parts, r.When+": "+v)
		}
	}
	return strings.Join(parts, "; ")
}

func (r *runFlags) register(fs *flag.FlagSet) {
	r.given = experiment.Settings{}
	registerSettings(fs, r.given, r.lists, func(experiment.Setting) bool { return true })
	r.dataDir = dataDirFlag(fs)
	workersFlag(fs, &r.workers, "goroutines per run (default GOMAXPROCS); never changes results")
	fs.StringVar(&r.out, "out", "", "run directory (default runs/<data>-<method>-seed<seed>; the demo's two runs go in DIR/bas-ncg-seed<seed> and DIR/bas-dense-seed<seed>)")
}

// workersFlag registers -workers.
func workersFlag(fs *flag.FlagSet, p *int, usage string) {
	fs.IntVar(p, "workers", 0, usage)
}

// dataDefaultsHelp returns the table of the per-data-set defaults (the
// settings with a value per data set), so that -h says what a run uses.
func dataDefaultsHelp(*flag.FlagSet) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	cols := perDataSettings()
	fmt.Fprint(tw, "  data set")
	for _, st := range cols {
		fmt.Fprintf(tw, "\t-%s", st.Name)
	}
	fmt.Fprintln(tw)
	for _, row := range dataDefaultRows() {
		fmt.Fprintf(tw, "  %s", row.name)
		for _, st := range cols {
			fmt.Fprintf(tw, "\t%s", experiment.Format(st.DefaultFor(row.spec)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return "\nDefaults per data set (the paper's settings, ours for bas; a flag given\noverrides them; no -data trains bas; -v applies to line runs):\n" + b.String()
}

func perDataSettings() []experiment.Setting {
	var out []experiment.Setting
	for _, st := range experiment.Table() {
		if st.PerData != nil {
			out = append(out, st)
		}
	}
	return out
}

// dataRow is a row of the per-data-set table.
type dataRow struct {
	name string
	spec experiment.Spec // a Spec of the data set, for Setting.DefaultFor
}

// dataDefaultRows are the rows of the per-data-set table: each named data
// set, then a file.
func dataDefaultRows() []dataRow {
	var rows []dataRow
	for _, set := range experiment.DataSets() {
		rows = append(rows, dataRow{set, experiment.Spec{Data: set}})
	}
	return append(rows, dataRow{"a file", experiment.Spec{Data: "file"}})
}

// finish checks the flags of fs that are not settings.
func (r *runFlags) finish(fs *flag.FlagSet) error {
	if err := experiment.CheckWorkers(r.workers); err != nil {
		return err
	}
	if fs.Lookup("out").Value.String() != "" || flagGiven(fs, "out") {
		return checkOutDir("out", r.out)
	}
	return nil
}

// given reports whether the flag of a setting was given.
func (r *runFlags) has(name string) bool {
	_, ok := r.given[name]
	return ok
}

// runDir is a lone run's directory: -out, else runs/<name>.
func (r *runFlags) runDir(s experiment.Spec) string {
	if r.out != "" {
		return r.out
	}
	return filepath.Join("runs", experiment.RunName(s))
}

// flagGiven reports whether the flag name was given on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
