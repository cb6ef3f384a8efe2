package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// profiling holds the flags every command has: -cpuprofile, -memprofile,
// -trace (taken out of the arguments by main, whatever the command) and
// -quiet (registered by the commands that print progress).
type profiling struct {
	cpu, mem, trace string
	quiet           bool
}

// profileFlags are the profiling flags, taken out of every command's
// arguments by main (extractProfileFlags) and listed in the commands' help.
var profileFlags = []struct {
	name, usage string
	field       func(*profiling) *string
}{
	{"cpuprofile", "write a CPU profile to `file` (go tool pprof)", func(p *profiling) *string { return &p.cpu }},
	{"memprofile", "write a heap profile to `file` at exit", func(p *profiling) *string { return &p.mem }},
	{"trace", "write an execution trace to `file` (go tool trace)", func(p *profiling) *string { return &p.trace }},
}

// register adds the flags to fs: -quiet for real, the profiling flags for
// the help text only (main takes them out of the arguments before fs sees
// them, for every command).
func (p *profiling) register(fs *flag.FlagSet) {
	for _, f := range profileFlags {
		fs.StringVar(f.field(p), f.name, "", f.usage)
	}
	fs.BoolVar(&p.quiet, "quiet", false, "print no progress")
}

// start begins the requested profiles; the returned function ends them.
func (p *profiling) start() (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var first error
		for i := len(stops) - 1; i >= 0; i-- {
			if err := stops[i](); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	if p.cpu != "" {
		f, err := os.Create(p.cpu)
		if err != nil {
			return stop, fmt.Errorf("-cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return stop, fmt.Errorf("-cpuprofile: %w", err)
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	if p.trace != "" {
		f, err := os.Create(p.trace)
		if err != nil {
			return stop, fmt.Errorf("-trace: %w", err)
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return stop, fmt.Errorf("-trace: %w", err)
		}
		stops = append(stops, func() error { trace.Stop(); return f.Close() })
	}
	if p.mem != "" {
		stops = append(stops, func() error {
			f, err := os.Create(p.mem)
			if err != nil {
				return fmt.Errorf("-memprofile: %w", err)
			}
			runtime.GC()
			if err := pprof.WriteHeapProfile(f); err != nil {
				f.Close()
				return fmt.Errorf("-memprofile: %w", err)
			}
			return f.Close()
		})
	}
	return stop, nil
}

// progressWriter is where progress lines go: stderr unless -quiet.
func (p *profiling) progressWriter(stderr io.Writer) io.Writer {
	if p.quiet {
		return nil
	}
	return stderr
}

// interruptible returns a context cancelled by Ctrl-C (SIGINT) or SIGTERM.
// The first signal asks the command to stop after saving its state (within
// a second or so); a second one kills the process at once, which loses
// nothing already written (files are replaced atomically, and the lock of a
// run directory dies with its process).
func interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, sigterm)
	go func() {
		<-ctx.Done()
		stop() // the signals' default action again
	}()
	return ctx, stop
}

func printJSON(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}

// isTerminal reports whether w is a terminal (a character device), where
// progress is a live line rather than periodic lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// checkOutFile refuses, as bad usage naming the flag, an output file that
// could not be written: an empty name, a directory, or a file in a
// directory that does not exist. It is checked before the command works,
// not after minutes of it.
func checkOutFile(flagName, path string) error {
	if path == "" {
		return usagef("-%s: empty file name", flagName)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("-%s %s is a directory; give a file name", flagName, path)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return usagef("-%s %s: no directory %s", flagName, path, filepath.Dir(path))
	}
	return nil
}

// checkOutDir refuses, as bad usage naming the flag, an output directory
// that is an empty name or an existing file.
func checkOutDir(flagName, path string) error {
	if path == "" {
		return usagef("-%s: empty directory name", flagName)
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return usagef("-%s %s is a file, not a directory", flagName, path)
	}
	return nil
}
