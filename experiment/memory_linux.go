//go:build linux

package experiment

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// systemLimits are the memory limits Memory chooses from.
func systemLimits() []MemoryLimit {
	return []MemoryLimit{ramLimit(), cgroupLimit("/"), addressSpaceLimit(), goMemLimit()}
}

// ramLimit is the machine's RAM (Bytes 0 if unknown).
func ramLimit() MemoryLimit {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return MemoryLimit{}
	}
	return MemoryLimit{uint64(si.Totalram) * uint64(si.Unit), "this machine's RAM"}
}

// addressSpaceLimit is RLIMIT_AS, if set.
func addressSpaceLimit() MemoryLimit {
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &r) != nil || r.Cur == unix.RLIM_INFINITY {
		return MemoryLimit{}
	}
	return MemoryLimit{r.Cur, "the address-space limit RLIMIT_AS, ulimit -v"}
}

// cgroupNoLimit: a cgroup v1 limit at or above it is none (v1 reports
// "unlimited" as the largest page count, 9223372036854771712).
const cgroupNoLimit = 1 << 62

// cgroupLimit returns the smallest memory limit of this process's cgroups
// and of every cgroup above them, up to the root of each mounted
// hierarchy: memory.max of cgroup v2 ("max" is none), memory.limit_in_bytes
// of v1's memory controller. It reads /proc/self/cgroup and
// /proc/self/mountinfo to find them, every path under root ("/"; a fake
// tree in tests). Bytes is 0 when no limit is found.
func cgroupLimit(root string) MemoryLimit {
	groups, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return MemoryLimit{}
	}
	mounts, err := os.ReadFile(filepath.Join(root, "proc/self/mountinfo"))
	if err != nil {
		return MemoryLimit{}
	}
	var limits []MemoryLimit
	for _, m := range cgroupMounts(mounts) {
		file := "memory.limit_in_bytes"
		if m.v2 {
			file = "memory.max"
		}
		path, ok := cgroupPath(groups, m.v2)
		if !ok {
			continue
		}
		// The process's cgroup as seen through this mount: its path
		// below the mount's root (a container sees its own cgroup as /).
		rel, err := filepath.Rel(m.root, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = "."
		}
		for dir := filepath.Join(m.point, rel); ; dir = filepath.Dir(dir) {
			if l, ok := readCgroupLimit(filepath.Join(root, dir, file)); ok {
				limits = append(limits, MemoryLimit{l, "the cgroup limit " + filepath.Join(dir, file)})
			}
			if dir == m.point || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return smallest(limits...)
}

// cgroupMount is a mounted cgroup hierarchy that has the memory
// controller: its mount point, the cgroup its root is, and its version.
type cgroupMount struct {
	point, root string
	v2          bool
}

// cgroupMounts returns the cgroup2 mounts and the cgroup v1 mounts of the
// memory controller listed in mountinfo (proc(5): "ID parent major:minor
// root mount-point options [optional…] - type source super-options").
func cgroupMounts(mountinfo []byte) []cgroupMount {
	var out []cgroupMount
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		before, after, ok := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(before), strings.Fields(after)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		switch {
		case g[0] == "cgroup2":
			out = append(out, cgroupMount{unescapeMount(f[4]), f[3], true})
		case g[0] == "cgroup" && slices.Contains(strings.Split(g[2], ","), "memory"):
			out = append(out, cgroupMount{unescapeMount(f[4]), f[3], false})
		}
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes of spaces and the like.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	if u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`); err == nil {
		return u
	}
	return s
}

// cgroupPath returns the process's cgroup in /proc/self/cgroup: the v2
// line "0::PATH", or the v1 line whose controllers include memory.
func cgroupPath(cgroup []byte, v2 bool) (string, bool) {
	for _, line := range strings.Split(string(cgroup), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if v2 && parts[0] == "0" && parts[1] == "" {
			return parts[2], true
		}
		if !v2 && slices.Contains(strings.Split(parts[1], ","), "memory") {
			return parts[2], true
		}
	}
	return "", false
}

// readCgroupLimit reads a memory.max or memory.limit_in_bytes file: a
// number of bytes, or "max" (v2) or a huge number (v1) for none.
func readCgroupLimit(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v == 0 || v >= cgroupNoLimit {
		return 0, false
	}
	return v, true
}
