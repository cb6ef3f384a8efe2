// Command mutate is the mutation check of CI: it applies each semantic
// mutation of a list (.ci/mutations.txt) to a scratch copy of the module,
// runs the tests the entry names with -short, and fails if any mutation
// survives (its tests pass), does not build, or has an original text that
// does not occur exactly once in its file. Before the mutations it runs each
// distinct test command on the unmutated copy, which must pass. With -j N
// (default GOMAXPROCS) N copies check N mutations at a time: most of a
// check is compiling and linking a test binary, which uses one core.
//
// Run it from the module root:
//
//	go run ./internal/mutate [-list .ci/mutations.txt] [-only REGEXP] [-share N -share-seed S] [-j N] [-v]
//
// The module's files are those git lists (tracked, and untracked but not
// ignored), so uncommitted edits are checked too. NCG_DATA is set to the
// shared data directory beside the module when it is not set already,
// because the scratch copy is elsewhere.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

func main() {
	list := flag.String("list", ".ci/mutations.txt", "the list of mutations")
	only := flag.String("only", "", "check only the mutations whose name matches this regular expression")
	verbose := flag.Bool("v", false, "print the output of every go test run")
	timeout := flag.Duration("timeout", 3*time.Minute, "go test -timeout for each run")
	jobs := flag.Int("j", runtime.GOMAXPROCS(0), "mutations checked at a time, each in its own scratch copy")
	share := flag.Int("share", 1, "check each mutation with probability 1/N, chosen by -share-seed and its name (1: all)")
	seed := flag.String("share-seed", "", "the seed of -share's choice (CI: the commit)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mutate: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if *share < 1 {
		fmt.Fprintf(os.Stderr, "mutate: -share %d: need 1 or more\n", *share)
		os.Exit(2)
	}
	var sel *regexp.Regexp
	if *only != "" {
		var err error
		if sel, err = regexp.Compile(*only); err != nil {
			fmt.Fprintf(os.Stderr, "mutate: -only: %v\n", err)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pick := options{only: sel, share: *share, seed: *seed}
	if err := run(ctx, *list, pick, *verbose, *timeout, *jobs, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "mutate: %v\n", err)
		os.Exit(1)
	}
}

// checker runs go test in one scratch copy of the module.
type checker struct {
	dir     string
	env     []string
	timeout time.Duration
	verbose bool
	w       *syncWriter
}

// test runs m's tests in c's copy. failed reports whether they failed; err
// is set when the run says nothing about the mutation (it did not build,
// ran no tests, or go could not run).
func (c *checker) test(ctx context.Context, m *Mutation) (out string, failed bool, err error) {
	// -vet=off: CI vets every package once; here vet would rerun on each
	// mutated package. -ldflags=-s -w: a test binary without its symbol
	// table and DWARF links faster, and the tests need neither.
	args := []string{"test", "-short", "-vet=off", "-ldflags=-s -w", "-timeout", c.timeout.String()}
	if m.Run != "" {
		args = append(args, "-run", m.Run)
	}
	args = append(args, m.Package)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = c.dir
	cmd.Env = append(slices.Clone(c.env), m.Env...)
	b, runErr := cmd.CombinedOutput()
	out = string(b)
	if c.verbose {
		c.w.printf("$ %s go %s\n%s", strings.Join(m.Env, " "), strings.Join(args, " "), out)
	}
	if ctx.Err() != nil {
		return out, false, ctx.Err()
	}
	if strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]") {
		return out, true, fmt.Errorf("does not build:\n%s", indent(out))
	}
	var ee *exec.ExitError
	if runErr != nil && !errors.As(runErr, &ee) {
		return out, false, runErr
	}
	if runErr == nil && strings.Contains(out, "[no tests to run]") {
		return out, false, fmt.Errorf("go test %s ran no tests", strings.Join(args[1:], " "))
	}
	return out, runErr != nil, nil
}

// mutate applies m to the file in c's copy (whose unmutated text is src),
// runs its tests and restores the file.
func (c *checker) mutate(ctx context.Context, m *Mutation, src string) (out string, failed bool, err error) {
	p := filepath.Join(c.dir, filepath.FromSlash(m.File))
	mutated, err := m.apply(src)
	if err != nil {
		return "", false, err
	}
	if err := os.WriteFile(p, []byte(mutated), 0o644); err != nil {
		return "", false, err
	}
	out, failed, err = c.test(ctx, m)
	if rerr := os.WriteFile(p, []byte(src), 0o644); rerr != nil && err == nil {
		err = rerr
	}
	return out, failed, err
}

// syncWriter serialises the lines of concurrent workers.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, format, args...)
}

// forEach calls f(worker, i) for i in [0, n) on the given number of
// workers, stopping early when f returns an error.
func forEach(workers, n int, f func(worker, i int) error) error {
	var g errgroup.Group
	var next atomic.Int64
	for wk := 0; wk < workers; wk++ {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return nil
				}
				if err := f(wk, i); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// options choose the mutations a run checks.
type options struct {
	only  *regexp.Regexp // nil: every name
	share int            // check a mutation with probability 1/share
	seed  string         // the seed of that choice
}

// inShare reports whether the mutation called name is in the share of
// the list that seed chooses: the FNV-1a hash of seed and name, modulo
// share, is 0. Each seed (CI gives the commit) chooses about 1/share of
// the list, and a different part for each seed, so that over the commits
// every mutation is checked again and again.
func inShare(name string, share int, seed string) bool {
	if share <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(seed))
	h.Write([]byte{0})
	h.Write([]byte(name))
	return h.Sum64()%uint64(share) == 0
}

func run(ctx context.Context, listPath string, pick options, verbose bool, timeout time.Duration, jobs int, out io.Writer) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return fmt.Errorf("run from the module root (no go.mod in %s)", root)
	}
	f, err := os.Open(listPath)
	if err != nil {
		return err
	}
	muts, err := parseList(f, listPath)
	f.Close()
	if err != nil {
		return err
	}
	listed := len(muts)
	muts = slices.DeleteFunc(muts, func(m Mutation) bool {
		return (pick.only != nil && !pick.only.MatchString(m.Name)) || !inShare(m.Name, pick.share, pick.seed)
	})
	if len(muts) == 0 {
		return errors.New("no mutations selected")
	}
	jobs = max(1, min(jobs, len(muts)))
	env := os.Environ()
	if os.Getenv("NCG_DATA") == "" {
		if d := filepath.Join(filepath.Dir(root), "shared", "data"); isDir(d) {
			env = append(env, "NCG_DATA="+d)
		}
	}
	w := &syncWriter{w: out}
	start := time.Now()
	checkers := make([]*checker, jobs)
	for i := range checkers {
		dir, err := os.MkdirTemp("", "ncg-mutate-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if err := copyModule(root, dir); err != nil {
			return err
		}
		checkers[i] = &checker{dir: dir, env: env, timeout: timeout, verbose: verbose, w: w}
	}
	share := ""
	if pick.share > 1 {
		share = fmt.Sprintf(" (the share 1/%d of seed %q)", pick.share, pick.seed)
	}
	w.printf("mutation check: %d of the %d mutations of %s%s, %d at a time\n", len(muts), listed, listPath, share, jobs)

	// Every original must be found exactly once before anything runs.
	originals := map[string]string{}
	for _, m := range muts {
		src, ok := originals[m.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(checkers[0].dir, filepath.FromSlash(m.File)))
			if err != nil {
				return fmt.Errorf("mutation %s: %w", m.Name, err)
			}
			src = string(b)
			originals[m.File] = src
		}
		if _, err := m.apply(src); err != nil {
			return err
		}
	}

	// Baselines: every test the list names passes on the unmutated copy,
	// one go test run per package and environment (see baselines).
	base := baselines(muts)
	err = forEach(jobs, len(base), func(wk, i int) error {
		m := base[i]
		t0 := time.Now()
		out, failed, err := checkers[wk].test(ctx, m)
		if err != nil {
			return fmt.Errorf("baseline for %s: %w", m.Name, err)
		}
		if failed {
			return fmt.Errorf("baseline for %s: the unmutated tests fail (go test -short -run %q %s):\n%s", m.Name, m.Run, m.Package, indent(out))
		}
		run := m.Run
		if len(run) > 72 {
			run = run[:69] + "..."
		}
		w.printf("baseline  %-8s %s -run %q %s (%.1fs)\n", "pass", m.Package, run, strings.Join(m.Env, " "), time.Since(t0).Seconds())
		return nil
	})
	if err != nil {
		return err
	}

	verdict := make([]string, len(muts)) // "killed", "survived" or "broken"
	err = forEach(jobs, len(muts), func(wk, i int) error {
		m := &muts[i]
		t0 := time.Now()
		out, failed, err := checkers[wk].mutate(ctx, m, originals[m.File])
		if ctx.Err() != nil {
			return ctx.Err()
		}
		el := time.Since(t0).Seconds()
		switch {
		case err != nil:
			verdict[i] = "broken"
			w.printf("BROKEN    %-32s %s: %v\n", m.Name, m.File, err)
		case !failed:
			verdict[i] = "survived"
			w.printf("SURVIVED  %-32s %s (%.1fs): %s\n", m.Name, m.File, el, m.Breaks)
		default:
			verdict[i] = "killed"
			w.printf("killed    %-32s %-28s by %s (%.1fs)\n", m.Name, m.File, firstFailure(out), el)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var survived, broken []string
	for i, v := range verdict {
		switch v {
		case "survived":
			survived = append(survived, muts[i].Name)
		case "broken":
			broken = append(broken, muts[i].Name)
		}
	}
	w.printf("%d mutations: %d killed, %d survived, %d broken; %.0fs in all\n",
		len(muts), len(muts)-len(survived)-len(broken), len(survived), len(broken), time.Since(start).Seconds())
	if len(survived)+len(broken) > 0 {
		return fmt.Errorf("survived: %v; broken: %v", survived, broken)
	}
	return nil
}

// baselines returns the test commands that show every mutation's tests
// pass unmutated: one per package and environment, its -run pattern the
// alternation of the mutations' patterns, so that each test binary is
// built once rather than once per pattern. A pattern with a slash (a
// subtest level) or none (every test) is not merged, because an
// alternation would change what it selects. The Name of each is that of
// the first mutation it stands for.
func baselines(muts []Mutation) []*Mutation {
	var base []*Mutation
	merged := map[string]*Mutation{}
	seen := map[string]bool{}
	for i := range muts {
		m := &muts[i]
		env := strings.Join(m.Env, "\x00")
		if seen[m.Package+"\x00"+m.Run+"\x00"+env] {
			continue
		}
		seen[m.Package+"\x00"+m.Run+"\x00"+env] = true
		if m.Run == "" || strings.Contains(m.Run, "/") {
			base = append(base, m)
			continue
		}
		key := m.Package + "\x00" + env
		if b, ok := merged[key]; ok {
			b.Run += "|(?:" + m.Run + ")"
			continue
		}
		b := &Mutation{Name: m.Name, Package: m.Package, Run: "(?:" + m.Run + ")", Env: m.Env}
		merged[key] = b
		base = append(base, b)
	}
	return base
}

// firstFailure names the first failed test in go test's output.
func firstFailure(out string) string {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if name, ok := strings.CutPrefix(l, "--- FAIL: "); ok {
			if i := strings.IndexByte(name, ' '); i > 0 {
				name = name[:i]
			}
			return name
		}
		if strings.HasPrefix(l, "panic:") {
			return "a panic"
		}
	}
	return "a failure"
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return "\t" + strings.ReplaceAll(s, "\n", "\n\t")
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// copyModule copies the files git lists under root (tracked, and untracked
// but not ignored) to dst.
func copyModule(root, dst string) error {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %v: %s", err, stderr.String())
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		src, to := filepath.Join(root, rel), filepath.Join(dst, rel)
		fi, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
