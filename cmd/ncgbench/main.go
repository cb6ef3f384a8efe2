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
	"strconv"
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
	out := &countingWriter{w: stdout}
	if err == nil {
		err = cmd.run(rest, out, stderr)
		if serr := stop(); err == nil {
			err = serr
		}
	}
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	code := exitCode(err)
	if code == 2 {
		fmt.Fprintf(stderr, "ncgbench %s: %s (run 'ncgbench %s -h' for usage)\n", args[0], oneLine(err), args[0])
	} else {
		fmt.Fprintf(stderr, "ncgbench %s: %v\n", args[0], err)
	}
	// With -json, a command that fails before printing its result prints
	// the error as JSON on stdout instead, so that a script reading stdout
	// always gets JSON.
	if wantsJSON(rest) && out.n == 0 {
		printJSON(stdout, jsonError{Error: oneLine(err), ExitCode: code})
	}
	return code
}

// exitCode is the exit status of a command's error: 130 interrupted, 2 bad
// usage (flags, arguments, settings that cannot work), 1 anything else.
func exitCode(err error) int {
	switch {
	case errors.Is(err, errInterrupted):
		return 130
	case errors.As(err, new(usageError)), errors.As(err, new(*experiment.ConfigError)):
		return 2
	}
	return 1
}

// jsonError is what a command given -json prints on stdout when it fails.
type jsonError struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
}

// wantsJSON reports whether args (before "--") ask for -json output.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "json" || a == name || len(a)-len(strings.TrimLeft(a, "-")) > 2 {
			continue
		}
		if !hasValue {
			return true
		}
		b, err := strconv.ParseBool(value)
		return err == nil && b
	}
	return false
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
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
