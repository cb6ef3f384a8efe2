// Command ncgbench trains, evaluates, sweeps, benchmarks, plots and reports
// RBMs trained with Network Connectivity Gradients.
//
// Usage: ncgbench <command> [flags]; ncgbench help lists the commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/ncg-rbm/ncg/experiment"
)

// command is one subcommand. run gets the arguments after the command name
// and returns an error; a usageError exits with status 2.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands is filled by the init functions of the files beside this one
// (train.go, data.go, bench.go, …), one file per command. What commands
// share lives apart: flags.go (flag parsing and help), runflags.go (the
// flags that define a run, for train and sweep), common.go (profiling,
// Ctrl-C, JSON output).
var commands = map[string]command{}

// usageError marks bad flags or arguments: exit status 2 and a usage hint.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without os.Exit, for tests.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ncgbench: unknown command %q (run 'ncgbench help')\n", args[0])
		return 2
	}
	// The profiling flags work on every command: they are taken out here,
	// before the command parses its own flags.
	rest, prof, perr := extractProfileFlags(args[1:])
	if perr != nil {
		fmt.Fprintf(stderr, "ncgbench %s: %v\n", args[0], perr)
		return 2
	}
	stop, err := prof.start()
	if err == nil {
		err = cmd.run(rest, stdout, stderr)
		if serr := stop(); err == nil {
			err = serr
		}
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errInterrupted):
		fmt.Fprintf(stderr, "ncgbench %s: %v\n", args[0], err)
		return 130
	}
	var ce *experiment.ConfigError
	if errors.As(err, &ce) && !errors.As(err, new(usageError)) {
		err = usageError{errors.New(oneLine(err))}
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "ncgbench %s: %v (run 'ncgbench %s -h' for usage)\n", args[0], err, args[0])
		return 2
	}
	fmt.Fprintf(stderr, "ncgbench %s: %v\n", args[0], err)
	return 1
}

// extractProfileFlags removes -cpuprofile, -memprofile and -trace (with one
// or two dashes, "=value" or a separate value) from args.
func extractProfileFlags(args []string) ([]string, *profiling, error) {
	p := &profiling{}
	targets := map[string]*string{}
	for _, f := range profileFlags {
		targets[f.name] = f.field(p)
	}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		if name == a || len(a)-len(name) > 2 {
			rest = append(rest, a)
			continue
		}
		value, hasValue := "", false
		if k := strings.IndexByte(name, '='); k >= 0 {
			name, value, hasValue = name[:k], name[k+1:], true
		}
		dst, ok := targets[name]
		if !ok {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("flag -%s needs a file name", name)
			}
			i++
			value = args[i]
		}
		*dst = value
	}
	return rest, p, nil
}

// oneLine joins the lines of an error's message (errors.Join's) with "; ".
func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }

// errInterrupted is returned by commands stopped by Ctrl-C (exit 130).
var errInterrupted = errors.New("interrupted")

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "ncgbench trains and evaluates RBMs with Network Connectivity Gradients.")
	fmt.Fprintln(w, "\nUsage: ncgbench <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'ncgbench <command> -h' for a command's flags.")
}
