package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"time"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
)

// Flag helpers every command shares.

// newFlags returns a FlagSet that reports errors instead of exiting, so
// every command turns bad flags into a one-line error and exit status 2.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("ncgbench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args and wraps a flag error as a usageError.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard) // the one-line error below is enough
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// parseFlagsHelp is parseFlags that prints the flags for -h. Each extra
// function may rewrite the flags' help and returns text printed after them.
func parseFlagsHelp(fs *flag.FlagSet, args []string, stderr io.Writer, synopsis string, extra ...func(*flag.FlagSet) string) error {
	err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stderr, "Usage: %s\n", synopsis)
		var after []string
		for _, e := range extra {
			after = append(after, e(fs))
		}
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(stderr, "\nFlags:\n")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		for _, a := range after {
			fmt.Fprint(stderr, a)
		}
	}
	return err
}

// checkpointEveryFlag registers -checkpoint-every.
func checkpointEveryFlag(fs *flag.FlagSet) *time.Duration {
	return fs.Duration("checkpoint-every", experiment.DefaultCheckpointEvery, "least time between checkpoints of a run (0: after every epoch); one is also written on Ctrl-C and at the end")
}

// checkpointEvery is experiment's option for the value of -checkpoint-every.
func checkpointEvery(d time.Duration) time.Duration {
	if d == 0 {
		return experiment.EveryEpoch
	}
	return d
}

// zeroString is what the zero value of v's type prints, which the flag
// package reads as "no default to show".
func zeroString(v flag.Value) string {
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Pointer {
		return reflect.Zero(t).Interface().(flag.Value).String()
	}
	return reflect.New(t.Elem()).Interface().(flag.Value).String()
}

// initValue is -init: the name of an initialisation, checked with the
// rest of the configuration.
type initValue struct{ p *engine.Init }

func (v initValue) String() string {
	if v.p == nil {
		return ""
	}
	return string(*v.p)
}
func (v initValue) Set(s string) error { *v.p = engine.Init(s); return nil }

// listValue is a flag that takes a comma list (a sweep's axis). Each Set
// replaces the list.
type listValue[T any] struct {
	p     *[]T
	def   string // the default printed in -h
	parse func(string) ([]T, error)
}

func (v *listValue[T]) String() string {
	if v == nil || v.p == nil {
		return ""
	}
	return v.def
}

func (v *listValue[T]) Set(s string) error {
	l, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.p = l
	return nil
}

// eachItem parses every item of a comma list with one.
func eachItem[T any](one func(string) (T, error)) func(string) ([]T, error) {
	return func(s string) ([]T, error) {
		items, err := experiment.SplitList(s)
		if err != nil {
			return nil, err
		}
		out := make([]T, len(items))
		for i, it := range items {
			if out[i], err = one(it); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

func parseInt(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	return v, nil
}

func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

func parseMethod(s string) (engine.Method, error) { return engine.Method(s), nil }
