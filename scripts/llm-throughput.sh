#!/usr/bin/env bash
# How the two local model servers share this machine's cores (docs/leaderboard.md,
# "Speed", quotes its output). Run it on an idle machine: anything else on the cores is
# measured too.
#
#   scripts/llm-throughput.sh bench [POSITIONS]    `othello-arena bench llm` (the harness's own move
#       requests, by the server's clock and the wall's) on qwen alone, gemma alone, then
#       both at once from two processes: each server with all the cores, then with half
#       (default 16 positions a model and setting)
#   scripts/llm-throughput.sh tournament [GAMES]   the same gauntlet (json-legal direct play
#       against random, GAMES games a model, default 2) for qwen alone, gemma alone, and
#       both in one tournament whose hosts share one share_cores group, --parallel 2
#
# Servers are started afresh for each setting (scripts/local-llm.sh, with
# OTHELLO_ARENA_LLM_THREADS and OTHELLO_ARENA_LLM_SLOTS) and stopped after it.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-bench}"
count="${2:-}"
if [ -z "${OTHELLO_ARENA_BIN:-}" ]; then
    cargo build --release >&2
    OTHELLO_ARENA_BIN="${CARGO_TARGET_DIR:-target}/release/othello-arena"
fi
bin="$OTHELLO_ARENA_BIN"
cores=$(nproc)

# bench llm on MODEL at URL, PARALLEL positions at once, its report prefixed by LABEL.
bench() {
    local label="$1" model="$2" url="$3" parallel="$4" file
    case "$model" in
        qwen2.5-coder-0.5b) file=prompts/small-model.toml ;;
        gemma-3-270m) file=prompts/gemma-3-270m.toml ;;
    esac
    "$bin" bench llm --agent "llm:$model" --api openai --host "$url" --agent-file "$file" \
        --answer-format json-legal --positions "${count:-16}" --parallel "$parallel" --max-in-flight "$parallel" \
        | sed "s/^/[$label $model] /"
}

stop_all() {
    scripts/local-llm.sh stop >/dev/null 2>&1 || true
    scripts/local-llm.sh stop gemma-3-270m >/dev/null 2>&1 || true
}
trap stop_all EXIT

# Seconds since START (date +%s.%N).
since() { echo "$(date +%s.%N) - $1" | bc; }

# One setting of `bench`: NAME, and THREADS a server when not all the cores. Each model
# alone (its server the only one), then both at once.
setting() {
    local name="$1" start alone together url model
    stop_all
    if [ -n "${2:-}" ]; then export OTHELLO_ARENA_LLM_THREADS="$2"; else unset OTHELLO_ARENA_LLM_THREADS; fi
    echo "== $name: one request at a time a model, $cores cores"
    alone=0
    for model in qwen2.5-coder-0.5b gemma-3-270m; do
        url=$(scripts/local-llm.sh start "$model" 2>/dev/null | tail -n 1)
        start=$(date +%s.%N)
        bench alone "$model" "$url" 1
        alone=$(echo "$alone + $(since "$start")" | bc)
        scripts/local-llm.sh stop "$model" >/dev/null 2>&1
    done
    local qwen gemma
    qwen=$(scripts/local-llm.sh start 2>/dev/null | tail -n 1)
    gemma=$(scripts/local-llm.sh start gemma-3-270m 2>/dev/null | tail -n 1)
    start=$(date +%s.%N)
    bench together qwen2.5-coder-0.5b "$qwen" 1 &
    bench together gemma-3-270m "$gemma" 1
    wait
    together=$(since "$start")
    printf '== %s: each alone one after the other %.1f s, both at once %.1f s: %.2f of the time\n' \
        "$name" "$alone" "$together" "$(echo "$together / $alone" | bc -l)"
}

# A gauntlet file of the [[llm]] tables named (qwen, gemma), GAMES games each.
gauntlet() {
    printf 'format = "gauntlet"\nengines = ["random"]\ngames = %s\nseed = 2026\nanchor = "random=0"\n' "${count:-2}"
    local model
    for model in "$@"; do
        case "$model" in
            qwen) printf '\n[[llm]]\nmodel = "qwen2.5-coder-0.5b"\nagent_file = "prompts/small-model.toml"\nhost = ["127.0.0.1:8080"]\n' ;;
            gemma) printf '\n[[llm]]\nmodel = "gemma-3-270m"\nagent_file = "prompts/gemma-3-270m.toml"\nhost = ["127.0.0.1:8081"]\n' ;;
        esac
        printf 'name = "direct"\napi = "openai"\nshare_cores = "local"\ntimeout = 120\ngrid = { answer_format = ["json-legal"] }\n'
    done
}

# One tournament of the [[llm]] tables named, its wall time on stdout, its tables and
# speed lines on stderr.
tournament() {
    local dir file start
    dir=$(mktemp -d)
    file="$dir/gauntlet.toml"
    gauntlet "$@" >"$file"
    start=$(date +%s.%N)
    "$bin" tournament "$file" --parallel 2 --log-dir "$dir/run" 2>/dev/null | sed -n '/^Ratings (as played)/,/^$/p' >&2
    since "$start"
    "$bin" stats "$dir/run" 2>/dev/null | grep -E "^(Agent|  speed)" >&2 || true
}

case "$mode" in
    bench)
        setting "all the cores in each server" ""
        setting "the cores split between the servers" "$(( cores / 2 > 0 ? cores / 2 : 1 ))"
        ;;
    tournament)
        stop_all
        unset OTHELLO_ARENA_LLM_THREADS
        OTHELLO_ARENA_LLM_PORT=8080 scripts/local-llm.sh start >/dev/null 2>&1
        OTHELLO_ARENA_LLM_PORT=8081 scripts/local-llm.sh start gemma-3-270m >/dev/null 2>&1
        qwen=$(tournament qwen)
        gemma=$(tournament gemma)
        both=$(tournament qwen gemma)
        printf '== tournament: qwen alone %.1f s, gemma alone %.1f s, both in one %.1f s: %.2f of the time alone\n' \
            "$qwen" "$gemma" "$both" "$(echo "$both / ($qwen + $gemma)" | bc -l)"
        ;;
    *) sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
