"""A real MCP client for `othello-arena mcp`: the official Python SDK (package `mcp`)
starts the server over stdio and plays through its tools. Run by tests/mcp.rs:

    python tests/mcp/client.py BINARY LOG_DIR

It lists the tools and the prompt, plays whole games against `random` and `greedy` on
both colours (trying each move with simulate_move first), makes an illegal move, lets
the fallback move after the last legal try, resigns one game (the client's forfeit),
checks that bad calls get MCP errors, then leaves a game mid-play (a disconnect). It
prints one JSON object: what it saw.
"""

import asyncio
import json
import sys

from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Implementation


async def call(session, tool, **arguments):
    """The tool's result: (structured content, is_error)."""
    result = await session.call_tool(tool, arguments)
    return result.structured_content, result.is_error


async def play_out(session, state):
    """Plays until the game is over: each move tried with simulate_move, then played."""
    for _ in range(64):
        if state["over"]:
            return state
        coord = state["legal_moves"][-1]
        tried, error = await call(session, "simulate_move", game_id=state["game_id"], coord=coord)
        assert not error and "opponent_valid_moves" in tried, tried
        state, error = await call(session, "play_move", game_id=state["game_id"], coord=coord)
        assert not error, state
    raise AssertionError(f"the game did not end: {state}")


async def bad_calls(session, game_id):
    """Bad calls get MCP errors that name the problem; an illegal move an error result."""
    errors = []
    for tool, arguments in [
        ("get_state", {"game_id": 999}),
        ("play_move", {"game_id": game_id}),
        ("play_move", {"game_id": game_id, "coord": "x" * 1000}),
    ]:
        try:
            await session.call_tool(tool, arguments)
        except MCPError as err:
            errors.append(str(err))
        else:
            raise AssertionError(f"{tool} {arguments} was accepted")
    return errors


async def main(binary, log_dir):
    server = StdioServerParameters(
        command=binary,
        args=["mcp", "--log-dir", log_dir, "--opponent", "random", "--opponent", "greedy", "--max-invalid", "2"],
    )
    seen = {"games": []}
    async with stdio_client(server) as (read, write):
        info = Implementation(name="sdk-client", version="2.3")
        async with ClientSession(read, write, client_info=info) as session:
            await session.initialize()
            seen["tools"] = [tool.name for tool in (await session.list_tools()).tools]
            prompt = await session.get_prompt("system")
            seen["prompt_chars"] = len(prompt.messages[0].content.text)
            for opponent in ["random", "greedy"]:
                for color in ["black", "white"]:
                    state, _ = await call(session, "new_game", color=color, opponent=opponent)
                    end = await play_out(session, state)
                    seen["games"].append({"opponent": opponent, "color": color, "result": end["result"]})
            state, _ = await call(session, "new_game", color="black")
            illegal, error = await call(session, "play_move", game_id=state["game_id"], coord="a1")
            seen["illegal_is_error"] = error and "legal moves" in illegal["error"]
            after_fallback, error = await call(session, "play_move", game_id=state["game_id"], coord="h8")
            # The last illegal try is an error naming the move the fallback made instead.
            seen["fallback_moved"] = (
                error
                and after_fallback.get("fallback_move") is not None
                and len(after_fallback["moves"]) > len(state["moves"])
            )
            seen["errors"] = await bad_calls(session, state["game_id"])
            resigned, _ = await call(session, "resign", game_id=state["game_id"])
            seen["resigned"] = resigned["result"]
            # A game left in play: the session ends and the server's stdin closes.
            await call(session, "new_game", color="white", opponent="greedy")
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
