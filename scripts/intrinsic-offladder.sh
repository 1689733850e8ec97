#!/bin/sh
# The issue's figures for engines off the ladder (docs/intrinsic.md, "Engines off the
# ladder"): each engine plays GAMES games, colours alternating, against each of two
# rungs of docs/ladder-ratings.toml near its strength, from 4 random opening
# plies, seed 46; every move of both sides is valued by reference:4:14 as the
# calibration's were. Then `rate --ladder` (the rungs held) rates it by results and
# intrinsically from its first k games (the first k/2 of each run: whole colour-swapped
# pairs, both rungs) and from all of them, and prints one table row per engine and k.
#   BIN=target/release/othello-arena GAMES=100 scripts/intrinsic-offladder.sh
# Needs jq for the table; each `rate --json` answer is kept under $OUT/rate/.
set -eu
BIN=${BIN:-target/release/othello-arena}
GAMES=${GAMES:-100}
OUT=${OUT:-logs/intrinsic-offladder}
LADDER=${LADDER:-docs/ladder-ratings.toml}
command -v jq >/dev/null || { echo "intrinsic-offladder.sh: jq not found: install it (apt-get install jq)" >&2; exit 2; }
# Each engine, then its two rungs (near it by a trial without values: docs/intrinsic.md).
ENGINES="n-least:1,n-hand:2,n-hand:3 n-most:1,random,n-hand:1 n-hand:4,alphabeta:3:count,greedy"
rm -rf "$OUT"
mkdir -p "$OUT/rate"
start=$(date +%s)
for entry in $ENGINES; do
    engine=${entry%%,*}
    rungs=$(echo "${entry#*,}" | tr , ' ')
    for rung in $rungs; do
        "$BIN" play --black "$engine" --white "$rung" --games "$GAMES" --swap --opening-random 4 --seed 46 \
            --score-moves --exact-empties 14 --reference-depth 4 --parallel 2 \
            --log-dir "$OUT/$engine-vs-$rung" --json >/dev/null 2>&1
    done
done
echo "played and valued $(ls "$OUT"/*/game-*.jsonl | wc -l) games in $(($(date +%s) - start)) s" >&2
start=$(date +%s)
echo "| engine | games | results: Elo [95%] | width | holds | intrinsic: Elo [95%] | width | holds | width ratio | decisions | s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for entry in $ENGINES; do
    engine=${entry%%,*}
    # The rating by results from all games first: the truth each row's intervals should hold.
    for k in $((2 * GAMES)) 4 8 16 $((2 * GAMES)); do
        files=""
        for run in "$OUT/$engine"-vs-*; do
            files="$files $(ls "$run"/game-*.jsonl | head -n $((k / 2)) | tr '\n' ' ')"
        done
        # shellcheck disable=SC2086 # one path a word (no spaces in these names)
        [ -s "$OUT/rate/$engine-$k.json" ] ||
            "$BIN" rate $files --ladder "$LADDER" --json 2>/dev/null >"$OUT/rate/$engine-$k.json"
        [ -n "${truth:-}" ] || { truth=$(jq --arg p "$engine" '.as_played.rows[] | select(.player == $p) | .elo' \
            "$OUT/rate/$engine-$k.json"); continue; }
        jq -r --arg p "$engine" --arg k "$k" --argjson t "$truth" '
            def num: if . == null then "-" else (round | tostring) end;
            def width(r): if r.low == null or r.high == null then null else r.high - r.low end;
            def holds(r): if width(r) == null then "-" elif r.low <= $t and $t <= r.high then "yes" else "no" end;
            (.as_played.rows[] | select(.player == $p)) as $r
            | (.intrinsic.rows[] | select(.player == $p)) as $i
            | "| \($p) | \($k) | \($r.elo | num) [\($r.low | num), \($r.high | num)] | \(width($r) | num) | \(holds($r)) "
              + "| \($i.elo | num) [\($i.low | num), \($i.high | num)] | \(width($i) | num) | \(holds($i)) "
              + "| \(if width($i) == null or width($r) == null then "-" else (width($i) / width($r) * 100 | round / 100 | tostring) end) "
              + "| \($i.decisions) | \($i.params.s * 100 | round / 100) |"' "$OUT/rate/$engine-$k.json"
    done
    truth=""
done
echo "rated in $(($(date +%s) - start)) s" >&2
