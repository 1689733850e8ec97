#!/bin/sh
# Games for the playout-value analysis of issue 54 (docs/intrinsic.md, "Values by
# playouts"): every rung of docs/ladder-ratings.toml from random up to
# alphabeta:4:weight (the weak end, the dilute rungs included) plays GAMES games,
# colours alternating, against n-hand:2 and against greedy, from 4 random opening
# plies, seed 17 (the calibration's set-up); the three off-ladder engines of
# scripts/intrinsic-offladder.sh play GAMES against each of their two rungs, seed 46.
# No values are written: the analysis values the moves itself, by playouts.
#   BIN=target/release/othello-arena GAMES=16 scripts/intrinsic-playouts.sh
#   cargo test --release --test integration intrinsic_playouts -- --ignored --nocapture
set -eu
BIN=${BIN:-target/release/othello-arena}
GAMES=${GAMES:-16}
OUT=${OUT:-logs/intrinsic-playouts}
rm -rf "$OUT"
mkdir -p "$OUT/ladder" "$OUT/offladder"
for rung in alphabeta:4:weight alphabeta:3:weight alphabeta:2:weight dilute:10:alphabeta:2:weight \
    alphabeta:1:weight alphabeta:4:count greedy dilute:20:alphabeta:2:weight dilute:30:alphabeta:2:weight \
    alphabeta:3:count n-hand:3 alphabeta:2:count dilute:40:alphabeta:2:weight dilute:50:alphabeta:2:weight \
    n-most:2 n-hand:2 n-least:2 dilute:60:alphabeta:2:weight dilute:70:alphabeta:2:weight n-hand:1 \
    alphabeta:1:count dilute:80:alphabeta:2:weight dilute:90:alphabeta:2:weight random; do
    for opponent in n-hand:2 greedy; do
        "$BIN" play --black "$rung" --white "$opponent" --games "$GAMES" --swap --opening-random 4 --seed 17 \
            --parallel 2 --log-dir "$OUT/ladder/$rung-vs-$opponent" --json >/dev/null
    done
done
for entry in n-least:1,n-hand:2,n-hand:3 n-most:1,random,n-hand:1 n-hand:4,alphabeta:3:count,greedy; do
    engine=${entry%%,*}
    for rung in $(echo "${entry#*,}" | tr , ' '); do
        "$BIN" play --black "$engine" --white "$rung" --games "$GAMES" --swap --opening-random 4 --seed 46 \
            --parallel 2 --log-dir "$OUT/offladder/$engine-vs-$rung" --json >/dev/null
    done
done
