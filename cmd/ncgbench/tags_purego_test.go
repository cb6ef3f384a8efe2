//go:build purego || noasm

package main

// The end-to-end tests build the command with the kernels of the test
// binary itself, so that a value the command prints can be compared with
// one computed in the test.
func init() { buildTags = "purego" }
