#!/usr/bin/env bash
# How the two local model servers share this machine's cores, setting by setting:
# `othello-arena bench llm` (the harness's own move requests, timed by the server's
# clock and the wall's) on qwen alone, gemma alone, and both at once, with the threads
# and slots each setting gives the servers. docs/leaderboard.md quotes its output.
#
#   scripts/llm-throughput.sh [POSITIONS]     (default 16 positions a model and setting)
#
# Each setting starts the servers afresh (scripts/local-llm.sh, with
# OTHELLO_ARENA_LLM_THREADS and OTHELLO_ARENA_LLM_SLOTS), measures, and stops them.
# Run it on an idle machine: anything else on the cores is measured too.
set -euo pipefail
cd "$(dirname "$0")/.."

positions="${1:-16}"
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
        --answer-format json-legal --positions "$positions" --parallel "$parallel" --max-in-flight "$parallel" \
        | sed "s/^/[$label $model] /"
}

stop_all() {
    scripts/local-llm.sh stop >/dev/null 2>&1 || true
    scripts/local-llm.sh stop gemma-3-270m >/dev/null 2>&1 || true
}
trap stop_all EXIT

# Seconds since START (date +%s.%N).
since() { echo "$(date +%s.%N) - $1" | bc; }

# One setting: NAME, SLOTS a server, PARALLEL requests at once a model, and THREADS a
# server when it is not the script's own choice (cores / servers running). Each model
# alone (its server the only one), then both at once.
setting() {
    local name="$1" slots="$2" parallel="$3" start alone together url model
    stop_all
    export OTHELLO_ARENA_LLM_SLOTS="$slots"
    if [ -n "${4:-}" ]; then export OTHELLO_ARENA_LLM_THREADS="$4"; else unset OTHELLO_ARENA_LLM_THREADS; fi
    echo "== $name: $slots slot(s) a server, $parallel request(s) at once a model, $cores cores"
    alone=0
    for model in qwen2.5-coder-0.5b gemma-3-270m; do
        url=$(scripts/local-llm.sh start "$model" 2>/dev/null | tail -n 1)
        start=$(date +%s.%N)
        bench alone "$model" "$url" "$parallel"
        alone=$(echo "$alone + $(since "$start")" | bc)
        scripts/local-llm.sh stop "$model" >/dev/null 2>&1
    done
    local qwen gemma
    qwen=$(scripts/local-llm.sh start 2>/dev/null | tail -n 1)
    gemma=$(scripts/local-llm.sh start gemma-3-270m 2>/dev/null | tail -n 1)
    start=$(date +%s.%N)
    bench together qwen2.5-coder-0.5b "$qwen" "$parallel" &
    bench together gemma-3-270m "$gemma" "$parallel"
    wait
    together=$(since "$start")
    printf '== %s: each alone one after the other %.1f s, both at once %.1f s: %.2f of the time\n' \
        "$name" "$alone" "$together" "$(echo "$together / $alone" | bc -l)"
}

setting "before: llama.cpp's threads (all cores) in each server, one slot" 1 1 "$cores"
setting "threads split between the servers, one slot" 1 1
setting "threads split, two slots, two requests at once" 2 2
