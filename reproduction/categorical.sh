#!/usr/bin/env bash
# categorical.sh [OUT]: binary against categorical visible units on the
# paper's Mushrooms and Connect-4 classifiers (docs/training.md, "Results"):
# dense and NCG (p = 0.5), the paper's settings otherwise, seeds 1-10, test
# NLL by AIS (the joint NLL of the one-hot rows with their one-hot labels)
# and test accuracy. Trains into OUT (default runs/categorical), copies the
# runs' summaries into reproduction/runs/categorical-<data>-<units>, and
# writes the report to reproduction/categorical/. Run from the repository's
# root; NCG_DATA (default ../shared/data) holds the data sets.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-runs/categorical}
data=${NCG_DATA:-../shared/data}
go build -o "$out/ncgbench" ./cmd/ncgbench
for d in mushrooms connect-4; do
  for v in binary categorical; do
    "$out/ncgbench" sweep -data "$d" -data-dir "$data" -visible "$v" -method dense,ncg -p 0.5 \
      -seed 1-10 -likelihood ais -quiet -out "$out/categorical-$d-$v"
  done
done
"$here/collect.sh" -finished "$out"/categorical-*
"$out/ncgbench" report -out "$here/categorical" "$here"/runs/categorical-*
