package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ncg-rbm/ncg/report"
)

func init() {
	commands["report"] = command{"tables and figures of run directories, seeds grouped (report [-out DIR] DIR...)", runReport}
}

// parseReportArgs parses flags and positional arguments in any order
// (flag.Parse stops at the first positional one) and returns the
// positional arguments. "--" ends the flags. (data.go's parseInterspersed
// prints the data usage on -h, so this command has its own.)
func parseReportArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	out := fs.String("out", "reports", "output `directory` of table.md, table.csv and the figures")
	formats := fs.String("format", "md,csv,png,svg", "comma-separated output `formats`: md, csv, png, svg")
	asJSON := fs.Bool("json", false, "print the table as JSON on stdout (instead of Markdown)")
	quiet := fs.Bool("quiet", false, "do not list the files written (on stderr)")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "Usage: ncgbench report [flags] DIR...\n\nReads the run directories under each DIR (any number, e.g. one per shard),\ngroups runs that differ only in the seed, and writes table.md, table.csv,\ncurves, degrees and density figures (.png, .svg) into -out.\n\nFlags:")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	dirs, err := parseReportArgs(fs, args) // -h: fs.Parse has printed fs.Usage
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return usagef("no directories given: ncgbench report [flags] DIR...")
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); errors.Is(err, os.ErrNotExist) {
			return usagef("%s: no such directory", d)
		}
	}
	if err := checkOutDir("out", *out); err != nil {
		return err
	}
	fmts, err := report.ParseFormats(*formats)
	if err != nil {
		return usageError{fmt.Errorf("-format: %w", err)}
	}
	ctx, cancel := interruptible()
	defer cancel()
	runs, skipped, err := report.Collect(ctx, dirs...)
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err != nil {
		return err
	}
	for _, e := range skipped { // reported, and the report goes on without them
		fmt.Fprintf(stderr, "ncgbench report: skipping a run: %s\n", oneLine(e))
	}
	groups := report.GroupRuns(runs)
	for _, m := range report.MixedTiers(groups) {
		fmt.Fprintf(stderr, "ncgbench report: warning: runs of one group trained on different kernel tiers (%s): their spread includes the tiers' rounding\n", m)
	}
	files, err := report.Write(ctx, *out, groups, fmts)
	if ctx.Err() != nil {
		return fmt.Errorf("%w: the files written so far are complete: %v", errInterrupted, files)
	}
	if err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stderr, "%d runs in %d groups; wrote", len(runs), len(groups))
		for _, f := range files {
			fmt.Fprintf(stderr, " %s", f)
		}
		fmt.Fprintln(stderr)
	}
	if *asJSON {
		return printJSON(stdout, report.Table(groups))
	}
	return report.WriteMarkdown(stdout, groups)
}
