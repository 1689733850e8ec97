#!/usr/bin/env bash
# The README's main job: a short evaluation of an LLM agent (2 games per color against
# random and greedy), printing the table and where the logs are.
#
#   scripts/quick-eval.sh [--host HOST] [--model MODEL] [more eval flags...]
#
# With --host or OLLAMA_HOST pointing at a reachable Ollama, MODEL (default gemma4:e4b)
# is evaluated there. Otherwise a local llama-server with Qwen2.5-Coder-0.5B-Instruct is
# set up and used: the first run builds it (about 10-15 minutes on 2 cores, cached
# afterwards in ~/.cache/othello-arena) and needs no GPU and no account.
set -euo pipefail
cd "$(dirname "$0")/.."

host="${OLLAMA_HOST:-}"
model=""
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --host) host="$2"; shift 2 ;;
        --model) model="$2"; shift 2 ;;
        *) extra+=("$1"); shift ;;
    esac
done

echo "[quick-eval] building othello-arena (the first build takes several minutes; cargo shows its progress)" >&2
cargo build --release
bin=target/release/othello-arena
echo "[quick-eval] the binary is $PWD/$bin (\`cargo install --path .\` puts othello-arena on PATH)" >&2

ollama_reachable() {
    [ -n "$host" ] || return 1
    local url="$host"
    case "$url" in *://*) ;; *) url="http://$url" ;; esac
    case "$url" in *://*:*) ;; *) url="$url:11434" ;; esac
    curl -fsS -m 5 "$url/api/tags" >/dev/null 2>&1
}

if ollama_reachable; then
    model="${model:-gemma4:e4b}"
    echo "[quick-eval] Ollama at $host: evaluating $model" >&2
    exec "$bin" eval --agent "llm:$model" --host "$host" --vs random,greedy --games 2 \
        --system tool-ja "${extra[@]+"${extra[@]}"}"
fi

[ -z "$host" ] || echo "[quick-eval] no Ollama answers at $host; using the local model instead" >&2
was_running=1
scripts/local-llm.sh status >/dev/null 2>&1 || was_running=0
url=$(scripts/local-llm.sh start | tail -n 1)
[ "$was_running" = 1 ] || trap 'scripts/local-llm.sh stop' EXIT
model="${model:-qwen2.5-coder-0.5b}"
echo "[quick-eval] local llama-server at $url: evaluating $model" >&2
"$bin" eval --agent "llm:$model" --api openai --host "$url" --vs random,greedy --games 2 \
    --agent-file prompts/small-model.toml "${extra[@]+"${extra[@]}"}"
