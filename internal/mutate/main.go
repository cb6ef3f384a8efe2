// Command mutate is the mutation check of CI: it applies each semantic
// mutation of a list (.ci/mutations.txt) to a scratch copy of the module,
// runs the tests the entry names with -short, and fails if any mutation
// survives (its tests pass), does not build, or has an original text that
// does not occur exactly once in its file. Before the mutations it runs each
// distinct test command on the unmutated copy, which must pass.
//
// Run it from the module root:
//
//	go run ./internal/mutate [-list .ci/mutations.txt] [-only REGEXP] [-v]
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
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	list := flag.String("list", ".ci/mutations.txt", "the list of mutations")
	only := flag.String("only", "", "check only the mutations whose name matches this regular expression")
	verbose := flag.Bool("v", false, "print the output of every go test run")
	timeout := flag.Duration("timeout", 3*time.Minute, "go test -timeout for each run")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mutate: unexpected arguments %q\n", flag.Args())
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
	if err := run(ctx, *list, sel, *verbose, *timeout, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "mutate: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, listPath string, sel *regexp.Regexp, verbose bool, timeout time.Duration, w io.Writer) error {
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
	if sel != nil {
		muts = slices.DeleteFunc(muts, func(m Mutation) bool { return !sel.MatchString(m.Name) })
	}
	if len(muts) == 0 {
		return errors.New("no mutations selected")
	}
	scratch, err := os.MkdirTemp("", "ncg-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	if err := copyModule(root, scratch); err != nil {
		return err
	}
	env := os.Environ()
	if os.Getenv("NCG_DATA") == "" {
		if d := filepath.Join(filepath.Dir(root), "shared", "data"); isDir(d) {
			env = append(env, "NCG_DATA="+d)
		}
	}
	start := time.Now()
	fmt.Fprintf(w, "mutation check: %d mutations from %s in %s\n", len(muts), listPath, scratch)

	// Every original must be found exactly once before anything runs.
	originals := map[string]string{}
	for _, m := range muts {
		src, ok := originals[m.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(scratch, filepath.FromSlash(m.File)))
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

	gotest := func(m *Mutation) (out string, failed bool, err error) {
		args := []string{"test", "-short", "-timeout", timeout.String()}
		if m.Run != "" {
			args = append(args, "-run", m.Run)
		}
		args = append(args, m.Package)
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = scratch
		cmd.Env = append(slices.Clone(env), m.Env...)
		b, runErr := cmd.CombinedOutput()
		out = string(b)
		if verbose {
			fmt.Fprintf(w, "$ %s go %s\n%s", strings.Join(m.Env, " "), strings.Join(args, " "), out)
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

	// Baselines: each distinct test command passes on the unmutated copy.
	seen := map[string]bool{}
	for i := range muts {
		m := &muts[i]
		key := m.Package + "\x00" + m.Run + "\x00" + strings.Join(m.Env, "\x00")
		if seen[key] {
			continue
		}
		seen[key] = true
		t0 := time.Now()
		out, failed, err := gotest(m)
		if err != nil {
			return fmt.Errorf("baseline for %s: %w", m.Name, err)
		}
		if failed {
			return fmt.Errorf("baseline for %s: the unmutated tests fail (go test -short -run %q %s):\n%s", m.Name, m.Run, m.Package, indent(out))
		}
		fmt.Fprintf(w, "baseline  %-8s %s -run %q %s (%.1fs)\n", "pass", m.Package, m.Run, strings.Join(m.Env, " "), time.Since(t0).Seconds())
	}

	var survived, broken []string
	for i := range muts {
		m := &muts[i]
		p := filepath.Join(scratch, filepath.FromSlash(m.File))
		src := originals[m.File]
		mutated, _ := m.apply(src) // checked above
		if err := os.WriteFile(p, []byte(mutated), 0o644); err != nil {
			return err
		}
		t0 := time.Now()
		out, failed, err := gotest(m)
		if rerr := os.WriteFile(p, []byte(src), 0o644); rerr != nil {
			return rerr
		}
		if errors.Is(err, context.Canceled) {
			return err
		}
		el := time.Since(t0).Seconds()
		switch {
		case err != nil:
			broken = append(broken, m.Name)
			fmt.Fprintf(w, "BROKEN    %-32s %s: %v\n", m.Name, m.File, err)
		case !failed:
			survived = append(survived, m.Name)
			fmt.Fprintf(w, "SURVIVED  %-32s %s (%.1fs): %s\n", m.Name, m.File, el, m.Breaks)
		default:
			fmt.Fprintf(w, "killed    %-32s %-28s by %s (%.1fs)\n", m.Name, m.File, firstFailure(out), el)
		}
	}
	fmt.Fprintf(w, "%d mutations: %d killed, %d survived, %d broken; %.0fs in all\n",
		len(muts), len(muts)-len(survived)-len(broken), len(survived), len(broken), time.Since(start).Seconds())
	if len(survived)+len(broken) > 0 {
		return fmt.Errorf("survived: %v; broken: %v", survived, broken)
	}
	return nil
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
