#!/usr/bin/env bash
# collect.sh [-finished] SWEEP_DIR... : copy the small summary files of every run of each
# sweep (config.json, metrics.csv, result.json; never checkpoints or models)
# into reproduction/runs/<sweep name>/<run name>/, so that seeds can be added
# and `ncgbench report reproduction/runs/<sweep name>` rebuilds the tables and
# curves from everything committed. With -finished, only runs that have
# finished (result.json) are copied: runs still going are left for later.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
finished=0
if [ "${1:-}" = "-finished" ]; then finished=1; shift; fi
for sweep in "$@"; do
  name=$(basename "$sweep")
  for run in "$sweep"/*/; do
    [ -f "$run/config.json" ] || continue
    [ $finished = 1 ] && [ ! -f "$run/result.json" ] && continue
    dst="$here/runs/$name/$(basename "$run")"
    mkdir -p "$dst"
    for f in config.json metrics.csv result.json; do
      [ -f "$run/$f" ] && cp "$run/$f" "$dst/$f"
    done
  done
done
