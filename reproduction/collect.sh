#!/usr/bin/env bash
# collect.sh SWEEP_DIR... : copy the small summary files of every run of each
# sweep (config.json, metrics.csv, result.json; never checkpoints or models)
# into reproduction/runs/<sweep name>/<run name>/, so that later sessions can
# add seeds and `ncgbench report reproduction/runs/<sweep name>` rebuilds the
# tables and curves from everything committed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for sweep in "$@"; do
  name=$(basename "$sweep")
  for run in "$sweep"/*/; do
    [ -f "$run/config.json" ] || continue
    dst="$here/runs/$name/$(basename "$run")"
    mkdir -p "$dst"
    for f in config.json metrics.csv result.json; do
      [ -f "$run/$f" ] && cp "$run/$f" "$dst/$f"
    done
  done
done
