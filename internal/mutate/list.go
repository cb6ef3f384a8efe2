package main

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"
)

// Mutation is one deliberate semantic change: in File, the text Original
// (which must occur exactly once) becomes Mutated, which Breaks what the
// tests Run of Package must catch.
type Mutation struct {
	Name     string
	File     string // slash-separated, relative to the module root
	Package  string // go test package pattern, e.g. ./engine/
	Run      string // go test -run pattern ("" runs every test of Package)
	Env      []string
	Breaks   string
	Original string
	Mutated  string
	Line     int // where the entry starts in the list
}

// parseList reads the list format documented in docs/testing.md: entries
// separated by blank lines, each a set of "key: value" lines (name, file,
// package, run, env, breaks) followed by the original text as lines
// starting "- " and the mutated text as lines starting "+ " (a line "-" or
// "+" alone is an empty line of the text). Lines starting "#" are comments.
func parseList(r io.Reader, name string) ([]Mutation, error) {
	var out []Mutation
	var cur *Mutation
	var orig, mut []string
	finish := func() error {
		if cur == nil {
			return nil
		}
		m := cur
		m.Original, m.Mutated = strings.Join(orig, "\n"), strings.Join(mut, "\n")
		cur, orig, mut = nil, nil, nil
		switch {
		case m.Name == "":
			return fmt.Errorf("%s:%d: entry without a name", name, m.Line)
		case m.File == "" || m.Package == "" || m.Breaks == "":
			return fmt.Errorf("%s:%d: mutation %s needs file, package and breaks", name, m.Line, m.Name)
		case m.Original == "":
			return fmt.Errorf("%s:%d: mutation %s has no original text (lines starting \"- \")", name, m.Line, m.Name)
		case m.Original == m.Mutated:
			return fmt.Errorf("%s:%d: mutation %s changes nothing", name, m.Line, m.Name)
		case path.IsAbs(m.File) || strings.HasPrefix(path.Clean(m.File), ".."):
			return fmt.Errorf("%s:%d: mutation %s: file %q is not inside the module", name, m.Line, m.Name, m.File)
		}
		for _, o := range out {
			if o.Name == m.Name {
				return fmt.Errorf("%s:%d: mutation %s is listed twice (also line %d)", name, m.Line, m.Name, o.Line)
			}
		}
		out = append(out, *m)
		return nil
	}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if strings.HasPrefix(l, "#") {
			continue
		}
		if strings.TrimSpace(l) == "" {
			if err := finish(); err != nil {
				return nil, err
			}
			continue
		}
		if cur == nil {
			cur = &Mutation{Line: line}
		}
		switch {
		case l == "-" || strings.HasPrefix(l, "- "):
			if len(mut) > 0 {
				return nil, fmt.Errorf("%s:%d: original text after mutated text", name, line)
			}
			orig = append(orig, strings.TrimPrefix(strings.TrimPrefix(l, "-"), " "))
			continue
		case l == "+" || strings.HasPrefix(l, "+ "):
			mut = append(mut, strings.TrimPrefix(strings.TrimPrefix(l, "+"), " "))
			continue
		}
		if len(orig) > 0 || len(mut) > 0 {
			return nil, fmt.Errorf("%s:%d: %q after the texts: keys come first", name, line, l)
		}
		key, val, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want \"key: value\", \"- original\" or \"+ mutated\", have %q", name, line, l)
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "name":
			cur.Name = val
		case "file":
			cur.File = val
		case "package":
			cur.Package = val
		case "run":
			cur.Run = val
		case "env":
			if !strings.Contains(val, "=") {
				return nil, fmt.Errorf("%s:%d: env %q is not NAME=value", name, line, val)
			}
			cur.Env = append(cur.Env, val)
		case "breaks":
			cur.Breaks = val
		default:
			return nil, fmt.Errorf("%s:%d: unknown key %q (want name, file, package, run, env, breaks)", name, line, key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// apply returns src with m's original text replaced by its mutated text,
// or an error when the original does not occur exactly once.
func (m *Mutation) apply(src string) (string, error) {
	switch n := strings.Count(src, m.Original); n {
	case 1:
		return strings.Replace(src, m.Original, m.Mutated, 1), nil
	case 0:
		return "", fmt.Errorf("mutation %s: original text not found in %s", m.Name, m.File)
	default:
		return "", fmt.Errorf("mutation %s: original text occurs %d times in %s, want once", m.Name, n, m.File)
	}
}
