"use strict";
(function () {
  const $ = id => document.getElementById(id);
  const el = OA.el;
  let current = null, follow = null, games = {};
  const ticked = new Set();
  // The runs the last listing found running: only they are followed as "Live".
  const running = new Set();

  function cell(tr, text, cls) { const td = el("td", text, cls); tr.appendChild(td); return td; }
  const enc = encodeURIComponent;

  // "Live" only over a run the listing finds running (a finished run's games show their
  // last positions).
  function liveTitle() {
    if (!follow) return;
    $("live-title").textContent = running.has(current) ? "Live" : "Games (the run is not running: their last positions)";
  }

  async function loadRuns() {
    let listed;
    try { listed = await OA.api("GET", "/api/runs"); } catch (err) { $("runs").replaceChildren(el("tr", err.message)); return; }
    const table = $("runs");
    table.replaceChildren();
    $("runs-notes").replaceChildren(...(listed.notes || []).map(note => el("p", note)));
    const head = el("tr");
    for (const h of ["", "run", "command", "games", ""]) head.appendChild(el("th", h));
    table.appendChild(head);
    running.clear();
    for (const run of listed.runs) {
      if (run.running) running.add(run.name);
      const tr = el("tr");
      tr.dataset.run = run.name;
      const box = el("input"); box.type = "checkbox"; box.checked = ticked.has(run.name);
      box.addEventListener("change", () => box.checked ? ticked.add(run.name) : ticked.delete(run.name));
      cell(tr, undefined).appendChild(box);
      const link = el("button", run.name, "linkish");
      link.type = "button";
      link.addEventListener("click", () => openRun(run.name));
      cell(tr, undefined).appendChild(link);
      cell(tr, run.command);
      cell(tr, String(run.games));
      cell(tr, run.running ? "running" : "", run.running ? "live-badge" : "");
      table.appendChild(tr);
    }
    liveTitle();
  }

  function tallyRow(table, g, color, t) {
    const tr = el("tr");
    for (const v of [g.model, g.opponent, color, t.games, t.wins, t.losses, t.draws]) cell(tr, v === undefined ? "" : String(v));
    table.appendChild(tr);
  }

  async function openRun(name) {
    current = name;
    if (follow) { follow.close(); follow = null; }
    games = {};
    $("live").replaceChildren(); $("feed").replaceChildren(); $("live-title").textContent = "";
    $("run-title").textContent = name;
    let run;
    try { run = await OA.api("GET", "/api/runs/" + enc(name)); } catch (err) { $("run-command").textContent = err.message; return; }
    $("run-command").textContent = (run.run.command || "") + (run.run.created_utc ? " · " + run.run.created_utc : "");
    const tables = $("tables");
    tables.replaceChildren();
    if (run.tables && run.tables.groups) {
      const table = el("table", undefined, "table");
      const head = el("tr");
      // An engine-only run is tabulated by pairing, from the view of the name sorted first.
      const first = run.tables.by === "pairing" ? "player (sorted first)" : "LLM player";
      for (const h of [first, "opponent", "color", "games", "W", "L", "D"]) head.appendChild(el("th", h));
      table.appendChild(head);
      for (const g of run.tables.groups) {
        tallyRow(table, g, "black", g.as_black); tallyRow(table, g, "white", g.as_white); tallyRow(table, g, "all", g.overall);
      }
      tables.appendChild(table);
    } else if (run.tables_note) {
      tables.appendChild(el("p", run.tables_note, "muted"));
    }
    if (run.results && typeof run.results === "object") {
      const details = el("details"); details.appendChild(el("summary", "results.json"));
      details.appendChild(el("pre", JSON.stringify(run.results, null, 1), "pre"));
      tables.appendChild(details);
    }
    const link = el("a", "Replay the games with the report's viewer");
    link.href = "/runs/" + enc(name) + "/report";
    $("report-link").replaceChildren(link);
    const table = $("games");
    table.replaceChildren();
    const head = el("tr");
    for (const h of ["log", "black", "white", "plies", "result"]) head.appendChild(el("th", h));
    table.appendChild(head);
    for (const g of run.games) {
      const tr = el("tr");
      // The game opens in the report's replay viewer; its raw log is one link beside.
      const a = el("a", g.file); a.href = "/runs/" + enc(name) + "/report#file=" + enc(g.file);
      const raw = el("a", "log"); raw.href = "/runs/" + enc(name) + "/files/" + enc(g.file);
      raw.className = "muted";
      cell(tr, undefined).append(a, " (", raw, ")");
      cell(tr, g.black); cell(tr, g.white); cell(tr, String(g.plies));
      cell(tr, g.end ? (g.end[0] === null ? g.end[2] : g.end[0] + "–" + g.end[1] + " " + g.end[2]) : "in play");
      table.appendChild(tr);
    }
    startFollow(name);
  }

  function liveGame(file) {
    if (games[file]) return games[file];
    const box = el("div", undefined, "live-game");
    box.dataset.file = file;
    const title = el("div", file, "title");
    const board = el("div", undefined, "board small");
    const line = el("div", "", "muted moves");
    box.append(title, board, line);
    $("live").prepend(box);
    games[file] = { box, title, board, line, moves: [] };
    return games[file];
  }

  function feed(text, cls) {
    const node = el("div", text, "entry " + (cls || ""));
    $("feed").prepend(node);
    while ($("feed").childElementCount > 200) $("feed").lastChild.remove();
  }

  function startFollow(name) {
    follow = new EventSource("/api/runs/" + enc(name) + "/follow");
    liveTitle();
    follow.onmessage = message => {
      const batch = JSON.parse(message.data);
      if (name !== current) return;
      for (const r of batch.records) {
        const g = liveGame(r.file);
        switch (r.type) {
          case "game_start":
            g.title.textContent = r.file + ": " + r.black + " (black) vs " + r.white + " (white)";
            break;
          case "move":
            g.moves.push(r.move);
            OA.drawBoard(g.board, r.board_after, { last: r.move });
            g.ply = r.ply;
            g.line.textContent = "ply " + r.ply + ": " + r.color + " " + r.move + " (" + r.source + ") · … " + g.moves.slice(-10).join(" ");
            g.box.dataset.moves = String(r.ply);
            if (!batch.first) feed(r.file + " ply " + r.ply + ": " + r.player + " played " + r.move + " (" + r.source + ")", "move");
            break;
          case "exchange": {
            // Named by session and turn: each session (direct mode's attempts) starts at turn 1.
            const at = r.file + " ply " + r.ply + " session " + r.session + " turn " + r.turn;
            if (r.sent_back) feed(at + ", sent back to the model before this turn:\n" + r.sent_back, "feedback");
            const parts = [at + ":"];
            if (r.thinking) parts.push("thinking: " + r.thinking);
            if (r.content) parts.push(r.content);
            for (const c of r.tool_calls || []) parts.push("tool call " + c.name + " " + c.arguments);
            feed(parts.join("\n"), "llm");
            break;
          }
          case "game_end":
            g.line.textContent = "final after " + (g.ply || 0) + " plies: black " + r.black_discs + " – white " + r.white_discs + " (" + r.winner + ")";
            g.box.classList.add("done");
            if (!batch.first) feed(r.file + " finished: " + r.black_discs + "–" + r.white_discs, "end");
            break;
          default:
            feed(r.file + ": " + r.type, "");
        }
      }
    };
  }

  // One leaderboard as a table: rank, player, Elo, its interval (as numbers and as a bar
  // on one scale for every row), games, score and the model's share of the moves.
  function leaderTable(board, caption) {
    const table = el("table", undefined, "table leaders");
    table.appendChild(el("caption", caption + " · " + board.games + " games, " + board.anchor[0] + " held at " + board.anchor[1]));
    const head = el("tr");
    for (const h of ["#", "player", "Elo", "95% interval", "games", "score", "model moves"]) head.appendChild(el("th", h));
    table.appendChild(head);
    const ends = board.rows.flatMap(r => [r.low, r.high, r.elo]).filter(v => v !== null && v !== undefined);
    const lo = Math.min(...ends), span = Math.max(1, Math.max(...ends) - lo);
    const at = v => (100 * (v - lo) / span).toFixed(1) + "%";
    board.rows.forEach((r, i) => {
      const tr = el("tr");
      cell(tr, String(i + 1)); cell(tr, r.player, "player"); cell(tr, String(Math.round(r.elo)), "num");
      const interval = cell(tr, undefined, "interval");
      const held = board.anchor[0] === r.player || (board.held || []).some(h => h[0] === r.player);
      if (held) interval.textContent = "held";
      else if (r.low === null || r.low === undefined) interval.textContent = "too few games";
      else {
        interval.appendChild(el("span", "[" + Math.round(r.low) + ", " + Math.round(r.high) + "]", "num"));
        const track = el("span", undefined, "bar");
        const range = el("span", undefined, "range"); range.style.left = at(r.low); range.style.width = "calc(" + at(r.high) + " - " + at(r.low) + ")";
        const mark = el("span", undefined, "mark"); mark.style.left = at(r.elo);
        track.append(range, mark); interval.appendChild(track);
      }
      cell(tr, String(r.games), "num");
      cell(tr, r.games ? Math.round(100 * r.score / r.games) + "%" : "", "num");
      cell(tr, r.moves ? r.moves[1] + "/" + r.moves[0] + " (" + Math.round(100 * r.moves[1] / Math.max(1, r.moves[0])) + "%)" : "");
      table.appendChild(tr);
    });
    return table;
  }

  // The intrinsic table (rate's, from the values the runs hold): player, Elo and its
  // interval where the calibration gives a number, decisions, games, the fitted
  // parameters and the player's place among the rungs (and, when its interval and the
  // results' do not overlap, that); the table's notes below it.
  function intrinsicTable(table) {
    const box = el("div");
    const t = el("table", undefined, "table leaders");
    t.appendChild(el("caption", "Intrinsic ratings · " + (table.model || "no") + " model on every valued decision, 95% intervals"));
    const head = el("tr");
    for (const h of ["player", "Elo", "95% interval", "decisions", "games", "s", "c", "place among the rungs"]) head.appendChild(el("th", h));
    t.appendChild(head);
    const round = v => (v === null || v === undefined) ? "–" : String(Math.round(v));
    for (const r of table.rows) {
      const tr = el("tr");
      cell(tr, r.player, "player"); cell(tr, round(r.elo), "num");
      cell(tr, r.low === null || r.low === undefined ? "–" : "[" + round(r.low) + ", " + round(r.high) + "]", "num");
      cell(tr, String(r.decisions), "num"); cell(tr, String(r.games), "num");
      cell(tr, r.params.s.toFixed(2), "num"); cell(tr, r.params.c.toFixed(2), "num"); cell(tr, r.disagrees ? r.place + "; " + r.disagrees : r.place);
      t.appendChild(tr);
    }
    if (!table.rows.length) { const tr = el("tr"); const td = cell(tr, "no player has valued decisions", "muted"); td.colSpan = 8; t.appendChild(tr); }
    const scroll = el("div", undefined, "scroll-x"); scroll.appendChild(t); box.appendChild(scroll);
    for (const note of table.notes) box.appendChild(el("p", "note: " + note, "muted"));
    return box;
  }

  $("rate").addEventListener("click", async () => {
    const runs = [...ticked];
    if (!runs.length && current) runs.push(current);
    const out = $("leaderboard");
    $("ratings-pane").hidden = false;
    out.replaceChildren(el("p", "rating " + runs.length + " run(s)…", "muted"));
    try {
      const rated = await OA.api("POST", "/api/rate", { runs, ladder: $("rate-ladder").checked });
      // Each table scrolls sideways on a narrow screen rather than widening the page.
      const scrolled = table => { const box = el("div", undefined, "scroll-x"); box.appendChild(table); return box; };
      out.replaceChildren(...rated.notes.map(note => el("p", "note: " + note, "muted")), scrolled(leaderTable(rated.as_played, "As played")));
      if (rated.fallback_as_loss) out.appendChild(scrolled(leaderTable(rated.fallback_as_loss, "Every game in which a fallback moved scored as the LLM player's loss")));
      out.appendChild(intrinsicTable(rated.intrinsic));
      const details = el("details"); details.appendChild(el("summary", "as text (rate's tables)"));
      details.appendChild(el("pre", rated.text, "pre"));
      out.appendChild(details);
    } catch (err) {
      out.replaceChildren(el("p", err.message));
    }
  });

  setInterval(loadRuns, 5000);
  const wanted = new URLSearchParams(location.search).get("run");
  // The listing first, so that a run opened from the address is known to be running.
  loadRuns().then(() => { if (wanted) openRun(wanted); });
})();
