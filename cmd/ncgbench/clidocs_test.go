package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/experiment"
)

var update = flag.Bool("update", false, "rewrite the generated tables of docs/cli.md")

// TestCLIDocsTables: docs/cli.md's tables of run settings are those made
// from experiment's table (as the -h tables are); -update rewrites them.
func TestCLIDocsTables(t *testing.T) {
	const path = "../../docs/cli.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)(<!-- settings (\S+) -->\n).*?(<!-- end settings -->)`)
	n := 0
	got := block.ReplaceAllStringFunc(string(b), func(m string) string {
		n++
		sub := block.FindStringSubmatch(m)
		return sub[1] + settingsMarkdown(sub[2]) + sub[3]
	})
	if n != 6 {
		t.Fatalf("%s: %d generated tables, want 6 (data, model, training, deep, evaluation, per-data-set)", path, n)
	}
	if got == string(b) {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the tables of settings differ from experiment's table; run go test ./cmd/ncgbench -run TestCLIDocsTables -update", path)
}

// settingsMarkdown is the table of one group of settings, or of the
// defaults per data set (group "per-data-set").
func settingsMarkdown(group string) string {
	var b strings.Builder
	if group == "per-data-set" {
		cols := perDataSettings()
		b.WriteString("| data set |")
		for _, st := range cols {
			fmt.Fprintf(&b, " `-%s` |", st.Name)
		}
		b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(cols)) + "\n")
		for _, row := range dataDefaultRows() {
			name := row.name
			if name != "a file" {
				name = "`" + name + "`"
			}
			fmt.Fprintf(&b, "| %s |", name)
			for _, st := range cols {
				fmt.Fprintf(&b, " %s |", experiment.Format(st.DefaultFor(row.spec)))
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	b.WriteString("| flag | meaning | default |\n| --- | --- | --- |\n")
	for _, st := range experiment.Table() {
		if string(st.Group) != group {
			continue
		}
		name := "-" + st.Name
		if st.Arg != "" {
			name += " " + st.Arg
		}
		def := defaultText(st)
		if st.PerData != nil {
			def = strings.Replace(def, "per data set, see the table below", "per data set", 1)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", esc(name), esc(st.Usage), esc(def))
		for _, a := range experiment.Aliases() {
			if a.Of == st.Name {
				fmt.Fprintf(&b, "| `-%s` | same as `-%s %s` | |\n", a.Name, a.Of, a.Value)
			}
		}
	}
	return b.String()
}
