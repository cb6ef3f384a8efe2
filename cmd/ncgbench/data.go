package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ncg-rbm/ncg/data"
)

func init() {
	commands["data"] = command{"fetch or list data sets (data fetch NAME | data info)", runData}
}

const dataUsage = `Usage:
  ncgbench data fetch [-data-dir D] [-mirror URL] [-force] NAME...
      download mnist, mushrooms, connect-4 (or all) into the data directory,
      verifying checksums; files already present and valid are kept
  ncgbench data info [-data-dir D] [-json]
      list every known file: present or missing, size, checksum verified;
      and the categorical groups built into mushrooms and connect-4
  ncgbench data show [-data-dir D] [-seed S] [-format F] NAME|FILE
      load a data set as training would and describe it

The data directory is -data-dir, else $NCG_DATA, else <user cache dir>/ncg.
`

func runData(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("missing subcommand: fetch, info or show")
	}
	switch args[0] {
	case "fetch":
		return runDataFetch(args[1:], stdout, stderr)
	case "info":
		return runDataInfo(args[1:], stdout, stderr)
	case "show":
		return runDataShow(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, dataUsage)
		return nil
	}
	return usagef("unknown subcommand %q (want fetch, info or show)", args[0])
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments, which it returns. -h prints usage to stdout.
func parseInterspersed(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, dataUsage+"\nFlags:\n")
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return nil, err
			}
			return nil, usageError{err}
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// dataDirFlag registers -data-dir.
func dataDirFlag(fs *flag.FlagSet) *string {
	return fs.String("data-dir", "", "data `directory` (default $NCG_DATA, else <user cache dir>/ncg)")
}

func runDataFetch(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("data fetch", stderr)
	dir := dataDirFlag(fs)
	mirror := fs.String("mirror", "", "fetch from a mirror `URL` laid out like the data directory (URL/mnist/…, URL/mushrooms/…); replaces the canonical locations")
	force := fs.Bool("force", false, "download again even files already present and valid")
	names, err := parseInterspersed(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usagef("missing data set name (%s or all)", strings.Join(data.FetchNames, ", "))
	}
	for _, n := range names {
		if n != "all" && !contains(data.FetchNames, n) {
			return usagef("cannot fetch %q (want %s or all)", n, strings.Join(data.FetchNames, ", "))
		}
	}
	d := data.Dir(*dir)
	ctx, stop := interruptible()
	defer stop()
	opts := data.FetchOptions{Mirror: *mirror, Force: *force, Log: stderr,
		Progress: fetchProgressTo(stderr, isTerminal(stderr)), ProgressEvery: fetchTiming.every,
		AnswerTimeout: fetchTiming.answer, StallTimeout: fetchTiming.stall}
	for _, n := range names {
		if err := data.Fetch(ctx, n, d, opts); err != nil {
			if errors.Is(err, context.Canceled) {
				return errInterrupted
			}
			return err
		}
		fmt.Fprintf(stdout, "%s: ok in %s\n", n, d)
	}
	return nil
}

// fetchTiming holds data fetch's timeouts and how often it reports
// progress (0: the data package's defaults) and how often a plain
// progress line is printed; tests shorten them.
var fetchTiming = struct {
	answer, stall, every, line time.Duration
}{line: 5 * time.Second}

// fetchProgressTo renders data.Fetch's progress on w: a line when a
// download starts and when one fails; between, on a terminal a live line
// redrawn in place, elsewhere a line at most every fetchTiming.line.
func fetchProgressTo(w io.Writer, terminal bool) func(data.FetchProgress) {
	var last time.Time // of the last plain line
	live := false      // a live line is showing
	url := ""          // of the download reported
	return func(p data.FetchProgress) {
		now := time.Now()
		erase := ""
		if live {
			erase, live = "\r\033[K", false
		}
		var status string
		switch {
		case p.URL != url:
			url = p.URL
			fmt.Fprintf(w, "%sfetching %s\n", erase, p.URL)
			last = now
			return
		case p.Phase == data.PhaseFailed:
			fmt.Fprintf(w, "%s  failed: %v\n", erase, p.Err)
			url = ""
			return
		case p.Phase == data.PhaseDone:
			fmt.Fprint(w, erase)
			url = ""
			return
		case p.Phase == data.PhaseConnecting:
			status = fmt.Sprintf("no answer yet after %s", p.Elapsed.Round(time.Second))
		default:
			status = humanBytes(p.Bytes)
			if p.Total > 0 {
				status += fmt.Sprintf(" of %s (%.0f%%)", humanBytes(p.Total), 100*float64(p.Bytes)/float64(p.Total))
			}
			if sec := p.Elapsed.Seconds(); sec > 0 {
				status += fmt.Sprintf(", %s/s", humanBytes(int64(float64(p.Bytes)/sec)))
			}
			if p.Idle >= 2*time.Second {
				status += fmt.Sprintf(", nothing received for %s", p.Idle.Round(time.Second))
			}
		}
		if terminal {
			fmt.Fprintf(w, "%s  %s", erase, status)
			live = true
			return
		}
		if now.Sub(last) >= fetchTiming.line*9/10 { // reports come about every second
			fmt.Fprintf(w, "  %s\n", status)
			last = now
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func runDataInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("data info", stderr)
	dir := dataDirFlag(fs)
	asJSON := fs.Bool("json", false, "print the status as JSON")
	pos, err := parseInterspersed(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	d := data.Dir(*dir)
	from := "default"
	switch {
	case *dir != "":
		from = "-data-dir"
	case os.Getenv("NCG_DATA") != "":
		from = "$NCG_DATA"
	}
	st := data.Info(d)
	bad := 0
	for _, s := range st {
		if s.Present && !s.OK {
			bad++
		}
	}
	if *asJSON {
		files := make([]fileStatusJSON, len(st))
		for i, s := range st {
			files[i] = fileStatusJSON{Set: s.Set, Path: s.Path, What: s.What, FullPath: s.FullPath,
				Downloadable: s.Downloadable(), MD5: s.MD5, RawMD5: s.RawMD5, RowsMD5: s.RowsMD5,
				Rows: s.Rows, Features: s.Features, Format: s.Format,
				Present: s.Present, Size: s.Size, Verified: s.Verified, OK: s.OK, Check: s.Check}
		}
		if err := printJSON(stdout, struct {
			Dir    string           `json:"dir"`
			Files  []fileStatusJSON `json:"files"`
			Groups []setGroupsJSON  `json:"categorical_groups"`
		}{d, files, builtinGroups()}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "data directory %s (%s)\n", d, from)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FILE\tSTATUS\tSIZE\tCHECK")
		for _, s := range st {
			status, size, check := "missing", "-", "-"
			if s.Present {
				status, size, check = "present", humanBytes(s.Size), s.Check
				if !s.OK {
					status = "BAD"
				}
			} else if s.Downloadable() {
				check = "ncgbench data fetch " + s.Set
			} else {
				check = "not downloadable"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Path, status, size, check)
		}
		tw.Flush()
		fmt.Fprintln(stdout, "categorical groups built in (one unit on in each group of every row):")
		for _, g := range builtinGroups() {
			fmt.Fprintf(stdout, "  %s: %s\n", g.Set, describeGroups(g))
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d file(s) in %s failed verification", bad, d)
	}
	return nil
}

// fileStatusJSON is one file of data info -json: a data.FileStatus with
// snake_case keys, like every other JSON output.
type fileStatusJSON struct {
	Set          string `json:"set"`
	Path         string `json:"path"` // relative to the data directory
	What         string `json:"what"`
	FullPath     string `json:"full_path"`
	Downloadable bool   `json:"downloadable"`
	MD5          string `json:"md5"`      // "" if unknown
	RawMD5       string `json:"raw_md5"`  // of the decompressed bytes; "" if unknown
	RowsMD5      string `json:"rows_md5"` // of a LIBSVM file's rows in canonical form; "" if unknown
	Rows         int    `json:"rows"`     // checked by parsing when not 0
	Features     int    `json:"features"`
	Format       string `json:"format"`
	Present      bool   `json:"present"`
	Size         int64  `json:"size"`
	Verified     bool   `json:"verified"`
	OK           bool   `json:"ok"`
	Check        string `json:"check"`
}

// setGroupsJSON is one built-in set's categorical groups in data info
// -json: how many, the units they cover, each one's size and attribute.
type setGroupsJSON struct {
	Set    string   `json:"set"`
	Groups int      `json:"groups"`
	Units  int      `json:"units"`
	Sizes  []int    `json:"sizes"`
	Names  []string `json:"names"`
}

// builtinGroups lists the categorical groups of the built-in sets that
// have them.
func builtinGroups() []setGroupsJSON {
	var out []setGroupsJSON
	for _, name := range data.Names {
		g, attrs, ok := data.BuiltinGroups(name)
		if !ok {
			continue
		}
		sg := setGroupsJSON{Set: name, Groups: g.Len(), Units: g[g.Len()]}
		for k, a := range attrs {
			sg.Sizes = append(sg.Sizes, g.Size(k))
			sg.Names = append(sg.Names, a.Name)
		}
		out = append(out, sg)
	}
	return out
}

// describeGroups is a set's groups in a line: "21 groups, 112 units:
// cap-shape 6, …", or "42 groups of 3 units (a1, a2, …, g6), 126 in all"
// when every group has the same size.
func describeGroups(g setGroupsJSON) string {
	same := true
	for _, n := range g.Sizes {
		same = same && n == g.Sizes[0]
	}
	if same && g.Groups > 3 {
		return fmt.Sprintf("%d groups of %d units (%s, %s, …, %s), %d in all", g.Groups, g.Sizes[0], g.Names[0], g.Names[1], g.Names[g.Groups-1], g.Units)
	}
	parts := make([]string, g.Groups)
	for k := range parts {
		parts[k] = fmt.Sprintf("%s %d", g.Names[k], g.Sizes[k])
	}
	return fmt.Sprintf("%d groups, %d units: %s", g.Groups, g.Units, strings.Join(parts, ", "))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func runDataShow(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("data show", stderr)
	dir := dataDirFlag(fs)
	seed := fs.Uint64("seed", 0, "seed of binarisation and splits")
	format := fs.String("format", "", "format of a data file: idx, libsvm or split (default: detected)")
	pos, err := parseInterspersed(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one data set name (%s) or file", strings.Join(data.Names, ", "))
	}
	train, test, err := data.Load(pos[0], data.Options{Dir: *dir, Binarization: data.Binarization{Seed: *seed},
		SplitSeed: *seed, Format: *format})
	if err != nil {
		return err
	}
	for _, s := range []*data.Set{train, test} {
		if s != nil {
			fmt.Fprintf(stdout, "%s\n  %s held\n", s, humanBytes(s.Bytes()))
		}
	}
	return nil
}
