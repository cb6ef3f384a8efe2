package report

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ncg-rbm/ncg/engine"
)

// Formats are the output formats Write knows: tables md and csv, figures
// png and svg.
var Formats = []string{"md", "csv", "png", "svg"}

// ParseFormats splits a comma-separated list of formats and checks it.
func ParseFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		switch f {
		case "md", "csv", "png", "svg":
			out = append(out, f)
		default:
			return nil, fmt.Errorf("format %q is not one of %s", f, strings.Join(Formats, ", "))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no format given")
	}
	return out, nil
}

// Write writes the report of groups into dir (created if needed) in the
// given formats: table.md, table.csv, and curves, degrees and density
// figures as .png and .svg. Every file is written atomically. It stops
// before the next file when ctx is done. It returns the paths written.
func Write(ctx context.Context, dir string, groups []Group, formats []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	put := func(name string, write func(io.Writer) error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		path := filepath.Join(dir, name)
		if err := engine.WriteAtomic(path, write); err != nil {
			return err
		}
		written = append(written, path)
		return nil
	}
	var figs []*Figure
	for _, f := range formats {
		var err error
		switch f {
		case "md":
			err = put("table.md", func(w io.Writer) error { return WriteMarkdown(w, groups) })
		case "csv":
			err = put("table.csv", func(w io.Writer) error { return WriteCSV(w, groups) })
		default:
			if err := checkFormat(f); err != nil {
				return written, err
			}
			if figs == nil {
				if figs, err = Figures(groups); err != nil {
					return written, err
				}
			}
			for _, fig := range figs {
				if err = put(fig.Name+"."+f, func(w io.Writer) error { return fig.WriteTo(w, f) }); err != nil {
					break
				}
			}
		}
		if err != nil {
			return written, err
		}
	}
	return written, nil
}
