"use strict";
// Shared by both pages. Every text from the server (model text above all) is inserted
// with textContent: nothing it carries is ever parsed as HTML.
const OA = {
  el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  },
  squareName(i) { return "abcdefgh"[i % 8] + String(Math.floor(i / 8) + 1); },
  // squares: 64 characters a1..h8 (X black, O white, - empty).
  // opts: legal and flips (square names), last (a square name), onClick, hints.
  drawBoard(container, squares, opts) {
    opts = opts || {};
    const legal = new Set(opts.legal || []), flips = new Set(opts.flips || []);
    // hints: square -> { text, best }, drawn on the square (the play page's hints).
    const hints = new Map(Object.entries(opts.hints || {}));
    container.replaceChildren();
    container.appendChild(OA.el("div", "", "corner"));
    for (const f of "abcdefgh") container.appendChild(OA.el("div", f, "label"));
    for (let r = 0; r < 8; r++) {
      container.appendChild(OA.el("div", String(r + 1), "label"));
      for (let f = 0; f < 8; f++) {
        const i = r * 8 + f, name = OA.squareName(i);
        const sq = OA.el(opts.onClick && legal.has(name) ? "button" : "div", undefined, "sq");
        sq.dataset.square = name;
        const c = squares[i];
        if (c === "X" || c === "O") {
          const disc = OA.el("span", undefined, "disc " + (c === "X" ? "b" : "w"));
          sq.appendChild(disc);
          sq.dataset.disc = c === "X" ? "black" : "white";
        }
        if (legal.has(name)) { sq.classList.add("legal"); sq.setAttribute("aria-label", "play " + name); }
        if (hints.has(name)) {
          const h = hints.get(name);
          sq.classList.add("hinted"); if (h.best) sq.classList.add("best");
          sq.appendChild(OA.el("span", h.text, "hint"));
          sq.setAttribute("aria-label", "play " + name + ", hint " + h.text);
        }
        if (opts.last === name) sq.classList.add("last");
        if (flips.has(name)) sq.classList.add("flipped");
        if (opts.onClick && legal.has(name)) sq.addEventListener("click", () => opts.onClick(name));
        container.appendChild(sq);
      }
    }
  },
  async api(method, url, body) {
    const init = { method, headers: {} };
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    const response = await fetch(url, init);
    const text = await response.text();
    let value = null;
    try { value = text ? JSON.parse(text) : null; } catch (_) { value = { error: text }; }
    if (!response.ok) throw new Error((value && value.error) || response.statusText);
    return value;
  },
};
