package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/klauspost/cpuid/v2"

	"github.com/ncg-rbm/ncg/kernel"
)

func init() {
	commands["version"] = command{"print the version, Go version, kernel tier and CPU", runVersion}
}

// version is the module version when built from a tagged module, else the
// VCS revision when known, else "devel".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr)
	if err := parseFlagsHelp(fs, args, stderr, "ncgbench version"); err != nil {
		return err
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}
	_, err := io.WriteString(stdout, versionText())
	return err
}

// versionText is what ncgbench version prints: the build, the Go version,
// the kernel tier and the CPU (kernel.Init must have run).
func versionText() string {
	return fmt.Sprintf("ncgbench %s\ngo %s %s/%s\nkernel tier %s (available: %v)\ncpu %s\n",
		version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, kernel.Tier(), kernel.Tiers(), cpuLine())
}

// cpuLine names the CPU for bench and version output: the brand string,
// which a virtual machine may shorten to "AMD EPYC", then the family and
// model, which tell the generations apart (AMD family 25 is Zen 3 and 4,
// 26 is Zen 5), and the cache sizes per core that the kernels' blocking
// depends on, where cpuid reports them.
func cpuLine() string {
	c := cpuid.CPU
	s := fmt.Sprintf("%s (family %d, model %d", c.BrandName, c.Family, c.Model)
	for _, l := range []struct {
		name  string
		bytes int
	}{{"L1d", c.Cache.L1D}, {"L2", c.Cache.L2}, {"L3", c.Cache.L3}} {
		if l.bytes > 0 {
			s += fmt.Sprintf(", %s %d KB", l.name, l.bytes/1024)
		}
	}
	return s + ")"
}
