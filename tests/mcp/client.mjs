// A real MCP client for `othello-arena mcp --http`: the official TypeScript SDK (npm
// `@modelcontextprotocol/sdk`) over Streamable HTTP. Run by tests/mcp_http.rs:
//
//     node tests/mcp/client.mjs NODE_FOLDER URL
//
// NODE_FOLDER holds node_modules with the SDK (scripts/mcp-node.sh setup prints it). It
// lists the tools, plays whole games against `random` (as black) and `greedy` (as
// white), trying each move with simulate_move first, makes an illegal move (an error
// result), checks that a bad call gets an MCP error, then starts a game in a second
// session and ends that session mid-game (a disconnect). It prints one JSON object:
// what it saw.

import { createRequire } from "node:module";
import path from "node:path";

const [folder, url] = process.argv.slice(2);
const require = createRequire(path.join(folder, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function connect() {
  const client = new Client({ name: "ts-sdk-client", version: "1.32" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

// The tool's result: [structured content, is error].
async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  return [result.structuredContent, result.isError === true];
}

// Plays until the game is over: each move tried with simulate_move, then played.
async function playOut(client, state) {
  for (let i = 0; i < 64; i++) {
    if (state.over) return state;
    const coord = state.legal_moves[0];
    const [tried, simError] = await call(client, "simulate_move", { game_id: state.game_id, coord });
    if (simError || !("board" in tried)) throw new Error(`simulate_move ${coord}: ${JSON.stringify(tried)}`);
    let error;
    [state, error] = await call(client, "play_move", { game_id: state.game_id, coord });
    if (error) throw new Error(`play_move ${coord}: ${JSON.stringify(state)}`);
  }
  throw new Error(`the game did not end: ${JSON.stringify(state)}`);
}

async function main() {
  const seen = { games: [], errors: [] };
  const { client } = await connect();
  seen.tools = (await client.listTools()).tools.map((tool) => tool.name);
  for (const [color, opponent] of [["black", "random"], ["white", "greedy"]]) {
    const [state] = await call(client, "new_game", { color, opponent });
    const over = await playOut(client, state);
    seen.games.push({ color, opponent, result: over.result, moves: over.moves.length });
  }
  const [started] = await call(client, "new_game", { color: "black" });
  const [illegal, isError] = await call(client, "play_move", { game_id: started.game_id, coord: "a1" });
  seen.illegal_is_error = isError && typeof illegal.error === "string";
  try {
    await client.callTool({ name: "get_state", arguments: { game_id: 999 } });
  } catch (error) {
    seen.errors.push(String(error.message));
  }
  await playOut(client, started);
  await client.close();

  // A second session leaves mid-game: its game is logged as stopped.
  const left = await connect();
  const [open] = await call(left.client, "new_game", { color: "black" });
  seen.left_game = open.game_id;
  await left.transport.terminateSession();
  await left.client.close();
  process.stdout.write(JSON.stringify(seen));
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
