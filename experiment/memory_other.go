//go:build !linux

package experiment

// systemLimits has only GOMEMLIMIT where there is no sysinfo(2) nor
// cgroups: without it the memory check is skipped.
func systemLimits() []MemoryLimit { return []MemoryLimit{goMemLimit()} }
