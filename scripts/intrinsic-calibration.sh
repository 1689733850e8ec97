#!/bin/sh
# Rebuilds docs/intrinsic-calibration.toml byte for byte: every rung of
# docs/ladder-ratings.toml but reference:8:18 (the reference's own strength, which a
# shallower reference cannot judge) plays GAMES games, colours alternating, against
# each of two fixed opponents (n-hand:2 and greedy), from 4 random opening plies,
# seed 17; every move of both sides is valued by reference:4:14 (exact at 14 empties
# or fewer, a 4-ply search before). Then `rate --write-intrinsic` fits each rung's
# choice models on its own decisions and the map to the ladder's Elo, and names that
# reference in the file's [reference] (rate's default: the shipped calibration's).
#   BIN=target/release/othello-arena GAMES=8 scripts/intrinsic-calibration.sh
set -eu
BIN=${BIN:-target/release/othello-arena}
GAMES=${GAMES:-8}
OUT=${OUT:-logs/intrinsic-calibration}
FILE=${FILE:-docs/intrinsic-calibration.toml}
rm -rf "$OUT"
mkdir -p "$OUT"
for rung in search alphabeta:4:weight alphabeta:3:weight alphabeta:2:weight alphabeta:1:weight \
    alphabeta:4:count greedy alphabeta:3:count n-hand:3 alphabeta:2:count n-most:2 n-hand:2 \
    n-least:2 n-hand:1 alphabeta:1:count random; do
    for opponent in n-hand:2 greedy; do
        "$BIN" play --black "$rung" --white "$opponent" --games "$GAMES" --swap --opening-random 4 --seed 17 \
            --score-moves --exact-empties 14 --reference-depth 4 --parallel 2 \
            --log-dir "$OUT/$rung-vs-$opponent" --json >/dev/null 2>&1
    done
done
"$BIN" rate "$OUT"/* --ladder docs/ladder-ratings.toml --write-intrinsic "$FILE" --force --bootstrap 100 >/dev/null
