#!/usr/bin/env bash
# The official Python MCP SDK (PyPI package `mcp`, by name and version) in a virtual
# environment cached outside the repository, for the real-client test of `othello-arena
# mcp` (tests/mcp.rs, tests/mcp/client.py).
#
#   scripts/mcp-client.sh setup    make the environment if it is missing or broken; prints
#                                  its python's path last on stdout
#
# Cache: $OTHELLO_ARENA_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/othello-arena. Nothing
# depends on it: a missing or broken environment is made again.
set -euo pipefail

CACHE="${OTHELLO_ARENA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/othello-arena}"
MCP_VERSION="2.3.0"
VENV="$CACHE/mcp-client-$MCP_VERSION"

say() { printf '[mcp-client] %s\n' "$*" >&2; }

case "${1:-}" in
    setup)
        if ! "$VENV/bin/python" -c "import mcp, mcp.client.stdio" >/dev/null 2>&1; then
            say "making $VENV (mcp==$MCP_VERSION)"
            rm -rf "$VENV"
            python3 -m venv "$VENV"
            "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION" >&2
        fi
        echo "$VENV/bin/python"
        ;;
    *) say "usage: $0 setup"; exit 2 ;;
esac
