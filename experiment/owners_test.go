package experiment

import (
	"testing"

	"github.com/ncg-rbm/ncg/engine"
)

// TestDefaultConfigIsTheTable: engine.DefaultConfig, the paper's MNIST
// settings for NCG, is what ncgbench trains for -data mnist with no other
// flag: the table takes its engine defaults from it, and a change to
// either shows here (the run's settings the table adds per data set,
// method and sampler aside).
func TestDefaultConfigIsTheTable(t *testing.T) {
	spec, err := NewSpec(Settings{"data": "mnist"})
	if err != nil {
		t.Fatal(err)
	}
	want := Spec{Data: "mnist", Engine: engine.DefaultConfig()}.Normalize().Engine
	if spec.Engine != want {
		t.Errorf("ncgbench's MNIST run %+v, engine.DefaultConfig %+v", spec.Engine, want)
	}
	for _, st := range Table() {
		if st.Key[:min(7, len(st.Key))] != "engine." || st.Rules != nil || st.PerData != nil {
			continue
		}
		def := Spec{Engine: engine.DefaultConfig()}
		if got, want := Format(st.Default), st.Value(def); got != want {
			t.Errorf("-%s: the table's default %q, engine.DefaultConfig's %q", st.Name, got, want)
		}
	}
}
