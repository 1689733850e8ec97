"use strict";
(function () {
  const $ = id => document.getElementById(id);
  const el = OA.el;
  let game = null;   // { id, human, source, ply, state }

  function spec() {
    const kind = $("kind").value, depth = $("depth").value || "1";
    switch (kind) {
      case "alphabeta": return "alphabeta:" + depth + ":" + $("evaluation").value;
      case "n-hand": case "n-least": case "n-most": return kind + ":" + depth;
      case "llm": return "llm:" + $("model").value.trim();
      case "custom": return $("custom").value.trim();
      default: return kind;
    }
  }
  // The models the server serves, asked for the first time an LLM opponent is chosen.
  let modelsAsked = false;
  async function offerModels() {
    if (modelsAsked) return;
    modelsAsked = true;
    try {
      const { models } = await OA.api("GET", "/api/models");
      $("models").replaceChildren(...models.map(m => { const o = el("option"); o.value = m; return o; }));
      if (!$("model").value && models.length) { $("model").value = models[0]; showFields(); }
      $("models-note").textContent = models.length ? models.length + " served" : "the server lists no model";
    } catch (err) {
      $("models-note").textContent = "cannot list the server's models: " + err.message;
    }
  }
  function showFields() {
    const kind = $("kind").value;
    if (kind === "llm") offerModels();
    $("depth-field").hidden = !["alphabeta", "n-hand", "n-least", "n-most"].includes(kind);
    $("eval-field").hidden = kind !== "alphabeta";
    $("model-field").hidden = kind !== "llm";
    $("custom-field").hidden = kind !== "custom";
    $("spec").textContent = spec();
  }
  for (const id of ["kind", "depth", "evaluation", "model", "custom"]) {
    $(id).addEventListener("input", showFields);
    $(id).addEventListener("change", showFields);
  }
  const preset = new URLSearchParams(location.search);
  if (preset.get("opponent")) { $("kind").value = "custom"; $("custom").value = preset.get("opponent"); }
  if (preset.get("color")) $("color").value = preset.get("color");
  showFields();

  function log(node) { $("log").appendChild(node); node.scrollIntoView({ block: "nearest" }); }
  function block(cls, title, parts) {
    const div = el("div", undefined, "entry " + cls);
    div.appendChild(el("div", title, "title"));
    for (const [label, text, partCls] of parts) {
      if (text === undefined || text === null || text === "") continue;
      const p = el("div", undefined, "part");
      p.appendChild(el("span", label, "muted"));
      p.appendChild(el("pre", text, partCls));
      div.appendChild(p);
    }
    return div;
  }

  // Ends the game in play on the server (its log says so and its slot is freed); sent
  // as the page is left too, so it survives the page (keepalive).
  function endGame() {
    if (!game || game.over) return;
    game.over = true;
    fetch("/api/games/" + game.id + "/end", {
      method: "POST", keepalive: true, headers: { "Content-Type": "application/json" }, body: "{}",
    }).catch(() => {});
  }
  $("end").addEventListener("click", endGame);
  window.addEventListener("pagehide", endGame);

  $("setup").addEventListener("submit", async event => {
    event.preventDefault();
    endGame();
    if (game && game.source) game.source.close();
    $("log").replaceChildren(); $("result").textContent = ""; $("status").textContent = "starting…";
    try {
      const started = await OA.api("POST", "/api/games", { color: $("color").value, opponent: spec() });
      game = { id: started.id, human: $("color").value, ply: 1, over: false };
      $("end").hidden = false;
      $("run").textContent = "Logged in run " + started.run;
      listen();
    } catch (err) {
      $("status").textContent = "Cannot start: " + err.message;
    }
  });

  function listen() {
    const source = new EventSource("/api/games/" + game.id + "/events");
    game.source = source;
    source.onmessage = message => handle(JSON.parse(message.data));
    source.onerror = () => { if (game && !game.over) $("status").textContent = "connection lost; reconnecting…"; };
  }

  async function move(square) {
    try {
      $("status").textContent = "you played " + square;
      await OA.api("POST", "/api/games/" + game.id + "/move", { square, ply: game.ply });
    } catch (err) {
      $("status").textContent = err.message;
    }
  }

  // The board as last shown, with hints drawn on it when they are on and for this ply.
  function draw() {
    const e = game.state, mine = e.to_move === game.human && !e.over;
    const opts = { legal: mine ? e.legal : [], last: e.last, flips: e.flips, onClick: mine ? move : null };
    if (mine && game.hint && game.hint.ply === e.ply) opts.hints = game.hint.squares;
    OA.drawBoard($("board"), e.board, opts);
  }

  // Asks for the value of each legal move (logged with the move) and draws them.
  async function askHint() {
    const e = game && game.state;
    if (!$("hints").checked || !e || e.over || e.to_move !== game.human) return;
    const ply = e.ply;
    if (game.hint && game.hint.ply === ply) { draw(); return; }
    $("hint-note").textContent = "hint: thinking…";
    try {
      const h = await OA.api("POST", "/api/games/" + game.id + "/hint", { engine: $("hint-engine").value.trim() || "reference", ply });
      if (!game.state || game.state.ply !== ply) return;
      const best = Math.max(...h.values.map(v => v.value)), squares = {};
      for (const v of h.values) {
        const value = Math.round(v.value * 10) / 10;
        squares[v.move] = { text: (value > 0 ? "+" : "") + value, best: v.value === best };
      }
      game.hint = { ply, squares };
      $("hint-note").textContent = "hint by " + h.engine + ": final disc difference for you, " +
        (h.exact
          ? "solved exactly, with the squares left empty at the end counted for the winner (the result line gives both counts)"
          : "estimated at depth " + h.depth + ": an evaluation, not a count, that leans to the side to move (the start, " +
            "a draw with perfect play, reads about +10 at the default depth), so compare the moves with each other") +
        "; logged with your move";
      draw();
    } catch (err) {
      if (game.state && game.state.ply === ply) $("hint-note").textContent = "hint: " + err.message;
    }
  }
  $("hints").addEventListener("change", () => {
    if ($("hints").checked) askHint();
    else { $("hint-note").textContent = ""; if (game && game.state) { game.hint = null; draw(); } }
  });

  function handle(e) {
    switch (e.kind) {
      case "reset": $("log").replaceChildren(); break;
      case "start":
        $("players").textContent = "Black: " + e.black + " · White: " + e.white;
        break;
      case "state": {
        game.ply = e.ply; game.state = e;
        const mine = e.to_move === game.human && !e.over;
        draw();
        if (mine) askHint();
        $("score").textContent = "Black " + e.black + " – White " + e.white;
        $("score").dataset.black = e.black; $("score").dataset.white = e.white;
        if (!e.over) $("status").textContent = mine ? "Your move (" + game.human + ")" : "Opponent is thinking…";
        break;
      }
      case "pass":
        log(el("div", (e.color === game.human ? "You have" : "The opponent has") + " no legal move: " + e.color + " passes.", "entry pass"));
        $("status").textContent = e.color + " passes";
        break;
      case "engine": {
        // Scores in the engine's own unit; n-least's best moves are its lowest.
        const unit = e.unit ? " " + e.unit.name : "";
        const sign = e.unit && e.unit.lower_is_better ? -1 : 1;
        const best = (e.candidates || []).slice().sort((a, b) => sign * (b.value - a.value)).slice(0, 5)
          .map(c => c.move + " " + (Math.round(c.value * 100) / 100)).join(", ");
        const score = e.score === null ? "" : ", score " + (Math.round(e.score * 100) / 100) + unit;
        log(el("div", e.player + " played " + e.move + score + ", " + e.nodes + " nodes" + (best ? "; best: " + best + (unit ? " (" + unit.trim() + ")" : "") : ""), "entry engine"));
        break;
      }
      case "llm_reply":
        log(block("llm", "model reply (session " + e.session + ", turn " + e.turn + ")", [
          ["thinking", e.thinking, "llm-thinking"], ["text", e.content, "llm-content"],
          ...e.tool_calls.map(c => ["tool call", c.name + " " + c.arguments, "tool-call"])]));
        break;
      case "rejected": {
        // The reply just shown did not count: mark it, then show what was sent back.
        const replies = $("log").querySelectorAll(".entry.llm:not(.rejected)");
        const reply = replies[replies.length - 1];
        if (reply) { reply.classList.add("rejected"); reply.querySelector(".title").append(" · rejected: " + e.reason); }
        log(block("feedback", e.feedback ? "sent back to the model (session " + e.session + ")" : "rejected, the session ends: " + e.reason,
          [["feedback", e.feedback, "feedback"]]));
        break;
      }
      case "tool_result":
        log(block("tool", "tool result: " + e.name + " " + e.arguments, [["result", e.content, "tool-result" + (e.is_error ? " error" : "")]]));
        break;
      case "decision":
        log(el("div", "decision: " + e.source + (e.fallback_reason ? " (" + e.fallback_reason + ")" : "") +
          ", " + e.turns + " request(s), " + e.tool_calls + " tool call(s), " + Math.round(e.latency_ms) + " ms", "entry decision"));
        break;
      case "error":
        log(el("div", "error: " + e.message, "entry error"));
        break;
      case "end": {
        game.over = true;
        const me = game.human === "black" ? e.black : e.white, them = game.human === "black" ? e.white : e.black;
        const verdict = e.winner === "draw" ? "Draw" : (e.winner === game.human ? "You win" : "You lose");
        // The result counts discs; a hint solved exactly counts the empty squares for
        // the winner too: both are said, so the two agree.
        const empty = 64 - e.black - e.white;
        const withEmpty = empty > 0 && e.winner !== "draw"
          ? " Counting the " + empty + " empty square(s) for the winner, as exact hints do: " +
            (me > them ? "+" : "-") + (Math.abs(me - them) + empty) + " for you."
          : "";
        $("result").textContent = "Game over: Black " + e.black + " – White " + e.white + ". " + verdict + " (" + me + "–" + them + ")." + withEmpty;
        $("result").dataset.black = e.black; $("result").dataset.white = e.white; $("result").dataset.winner = e.winner;
        $("status").textContent = "Game over";
        $("end").hidden = true;
        game.source.close();
        break;
      }
      case "failed":
        game.over = true;
        $("status").textContent = "The game stopped: " + e.message;
        $("end").hidden = true;
        game.source.close();
        break;
      case "lagged":
        game.source.close(); listen();
        break;
    }
  }
  OA.drawBoard($("board"), "-".repeat(27) + "OX------XO" + "-".repeat(27), {});
})();
