#!/bin/sh
# The stop rule's figures (docs/intrinsic.md, "The stop rule"): three rungs of the
# ladder, each in a two-engine round-robin against a weaker rung, 40 games at most,
# 4 random opening plies, seeds 1 to 8, stopped by RULE (intrinsic:800 by default;
# ci:800 gives the results rule's figures beside it). One line per run: the first
# player, the seed, the pairs played, the verdict and the interval the stop rested on.
#   BIN=target/release/othello-arena RULE=intrinsic:800 scripts/intrinsic-stop.sh
# Needs jq; each tournament's folder and JSON are kept under $OUT.
set -eu
BIN=${BIN:-target/release/othello-arena}
RULE=${RULE:-intrinsic:800}
OUT=${OUT:-logs/intrinsic-stop}/$(echo "$RULE" | tr : -)
command -v jq >/dev/null || { echo "intrinsic-stop.sh: jq not found: install it (apt-get install jq)" >&2; exit 2; }
case "$RULE" in intrinsic:*) key=intrinsic ;; *) key=elo ;; esac
rm -rf "$OUT"
mkdir -p "$OUT"
for pair in alphabeta:2:weight,greedy alphabeta:3:weight,greedy alphabeta:4:weight,n-hand:2; do
    first=${pair%,*}
    second=${pair#*,}
    for seed in 1 2 3 4 5 6 7 8; do
        name="$OUT/$(echo "$first" | tr : -)-$seed"
        printf 'format = "round-robin"\nengines = ["%s", "%s"]\ngames = 40\nopening_random = 4\nseed = %s\nstop = "%s"\n' \
            "$first" "$second" "$seed" "$RULE" >"$name.toml"
        "$BIN" tournament "$name.toml" --log-dir "$name-run" --json >"$name.json" 2>/dev/null
        echo "$first $seed $(jq -c ".pairings[0].stop | [.pairs, .decision.verdict, .decision.$key]" "$name.json")"
    done
done
