#!/usr/bin/env bash
# dbm.sh [OUT]: a 2-layer DBM on binarised MNIST of the size Salakhutdinov &
# Hinton used (500 and 1000 hidden units), dense and NCG (p = 0.5 in both
# matrices), and a dense DBM of 250 and 1000 hidden units, which has NCG's
# starting number of connections in both matrices (docs/training.md, "Deep
# Boltzmann machines on MNIST"). Seed 1 each. Pre-training: 10 epochs of
# CD-1 per RBM (doubled inputs), minibatches of 100, α = 0.05, momentum
# 0.5 then 0.9, L2 0.001, W ~ N(0, 0.01²). Joint training: 30 epochs of 100
# rows and 100 persistent chains per update, 10 mean-field sweeps, 1 Gibbs
# sweep, α = 0.002, momentum 0.5, L2 0.0002; evaluated every 10 joint epochs:
# AIS on the model with the odd layers summed out (100 runs, 14,500
# intervals) and the mean-field bound of the test rows. Trains into OUT
# (default runs), copies the runs' summaries into reproduction/runs/dbm/,
# and writes the report to reproduction/dbm/. Run from the repository's
# root; NCG_DATA (default ../shared/data) holds the data sets.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-runs}
data=${NCG_DATA:-../shared/data}
go build -o "$out/ncgbench" ./cmd/ncgbench
common=(-data mnist -data-dir "$data" -model dbm -seed 1
  -epochs 10 -k 1 -batch 100 -lr 0.05 -init normal -init-scale 0.01
  -momentum 0.9 -momentum-start 0.5 -momentum-epochs 5 -l2 0.001
  -joint-epochs 30 -joint-batch 100 -chains 100 -mean-field 10 -gibbs 1
  -joint-lr 0.002 -joint-momentum 0.5 -joint-l2 0.0002 -eval-every 10 -quiet)
"$out/ncgbench" train "${common[@]}" -hidden 500,1000 -method dense -out "$out/dbm/dense-h500_1000"
"$out/ncgbench" train "${common[@]}" -hidden 500,1000 -method ncg -p 0.5 -out "$out/dbm/ncg-h500_1000"
"$out/ncgbench" train "${common[@]}" -hidden 250,1000 -method dense -out "$out/dbm/dense-h250_1000"
"$here/collect.sh" -finished "$out/dbm"
"$out/ncgbench" report -out "$here/dbm" "$here/runs/dbm"
