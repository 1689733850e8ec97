#!/usr/bin/env python3
"""Reproduces seed 003's published marubatsu tables through the arena.

Runs `othello-arena play --game marubatsu --black A --white B --games 20000 --swap`
for every published pairing (10,000 games with A as O and 10,000 as X, as the
seed's ai_match), and prints a markdown table: the published row, the measured row,
and the largest two-sample z of the nine cells (both figures are samples of 10,000
games; |z| >= 3 is a difference to explain, not chance). Usage:

    cargo build --release && scripts/marubatsu-tables.py [path/to/othello-arena]
"""
import json
import math
import subprocess
import sys

BINARY = sys.argv[1] if len(sys.argv) > 1 else "target/release/othello-arena"
GAMES = 20000
N = None  # dashes in the seed's summary tables

# (A, B, published: O win lose draw, X win lose draw, total win lose draw), in percent.
PUBLISHED = [
    ("ai1", "ai2", [78.1, 17.5, 4.4, 44.7, 51.6, 3.8, 61.4, 34.5, 4.1]),
    ("ai2", "ai2", [58.7, 28.8, 12.6, 29.1, 58.6, 12.3, 43.9, 43.7, 12.5]),
    ("ai3", "ai2", [69.3, 19.2, 11.5, 38.9, 47.6, 13.5, 54.1, 33.4, 12.5]),
    ("ai4", "ai2", [83.0, 9.5, 7.4, 57.2, 33.0, 9.7, 70.1, 21.3, 8.6]),
    ("ai5", "ai2", [81.2, 12.3, 6.5, 51.8, 39.8, 8.4, 66.5, 26.0, 7.4]),
    ("ai6", "ai2", [88.9, 2.2, 8.9, 70.3, 6.2, 23.5, 79.6, 4.2, 16.2]),
    ("ai6s", "ai2", [88.6, 1.9, 9.5, 69.4, 9.1, 21.5, 79.0, 5.5, 15.5]),
    ("ai7", "ai2", [95.8, 0.2, 4.0, 82.3, 2.4, 15.3, 89.0, 1.3, 9.7]),
    ("ai7s", "ai2", [95.8, 0.2, 4.0, 82.3, 2.4, 15.3, 89.0, 1.3, 9.7]),
    ("ai8s", "ai2", [98.2, 0.1, 1.6, 89.4, 2.5, 8.1, 93.8, 1.3, 4.9]),
    ("ai8s", "ai2", [97.3, 1.5, 1.3, 86.1, 8.5, 5.4, 91.7, 5.0, 3.3]),
    ("ai9s", "ai2", [98.7, 0.1, 1.2, 89.6, 2.4, 8.0, 94.1, 1.3, 4.6]),
    ("ai9s", "ai8s", [50.2, 4.0, 45.8, 4.1, 33.7, 62.3, 27.1, 18.8, 54.0]),
    ("ai10s", "ai2", [97.4, 0.0, 2.6, 85.6, 2.6, 11.7, 91.5, 1.3, 7.2]),
    ("ai10s:2", "ai2", [98.7, N, 1.3, 90.8, 2.8, 6.4, 94.7, 1.4, 3.8]),
    ("ai10s:3", "ai2", [98.8, N, 1.2, 90.1, 3.1, 6.8, 94.5, 1.5, 4.0]),
    ("ai10s:4", "ai2", [98.9, N, 1.1, 90.3, 2.9, 6.8, 94.6, 1.5, 3.9]),
    ("ai10s:5", "ai2", [99.0, 0.0, 1.0, 90.0, 3.0, 6.9, 94.5, 1.5, 3.9]),
    ("ai10s", "ai9s", [74.8, 0.0, 25.2, 7.9, 0.0, 92.1, 41.3, 0.0, 58.7]),
    ("ai10s:2", "ai9s", [55.6, N, 44.4, 8.2, N, 91.8, 31.9, N, 68.1]),
    ("ai10s:3", "ai9s", [49.5, N, 50.5, 8.8, N, 91.2, 29.1, N, 70.9]),
    ("ai10s:4", "ai9s", [49.4, N, 50.6, 7.9, N, 92.1, 28.7, N, 71.3]),
    ("ai10s:5", "ai9s", [48.8, 0.0, 51.2, 8.0, 0.0, 92.0, 28.4, 0.0, 71.6]),
    ("ai11s", "ai2", [98.1, 0.0, 1.9, 82.5, 1.9, 15.6, 90.3, 1.0, 8.7]),
    ("ai11s", "ai10s", [21.9, 0.0, 78.1, 0.0, 50.1, 49.9, 10.9, 25.1, 64.0]),
]

# The perfect player against the whole ladder: it must never lose.
LADDER = ["ai1", "ai2", "ai3", "ai4", "ai5", "ai6", "ai6s", "ai7", "ai7s", "ai8s", "ai9s", "ai10s", "ai11s"]


def measure(a, b):
    out = subprocess.run(
        [BINARY, "play", "--game", "marubatsu", "--black", a, "--white", b,
         "--games", str(GAMES), "--swap", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    first = json.loads(out)["players"][0]
    cells, sizes = [], []
    for side in (first["as_black"], first["as_white"], first):
        n = side["games"]
        cells += [100.0 * side[k] / n for k in ("wins", "losses", "draws")]
        sizes += [n] * 3
    return cells, sizes


def z(published, measured, n_pub, n_meas):
    p, m = published / 100.0, measured / 100.0
    pooled = (p * n_pub + m * n_meas) / (n_pub + n_meas)
    se = math.sqrt(max(pooled * (1 - pooled), 1e-12) * (1 / n_pub + 1 / n_meas))
    return (m - p) / se


def fmt(cells):
    text = lambda c: "—" if c is None else f"{c:.1f}"
    return " / ".join(" ".join(text(c) for c in cells[i:i + 3]) for i in (0, 3, 6))


def main():
    print("| pairing | published | measured | largest \\|z\\| |")
    print("|---|---|---|---|")
    for a, b, published in PUBLISHED:
        measured, sizes = measure(a, b)
        worst = max(
            abs(z(p, m, n, n)) for p, m, n in zip(published, measured, sizes) if p is not None
        )
        flag = "" if worst < 3 else " (differs)"
        print(f"| `{a}` vs `{b}` | {fmt(published)} | {fmt(measured)} | {worst:.1f}{flag} |")
    print()
    print("| pairing | measured (perfect's view) |")
    print("|---|---|")
    for b in LADDER:
        measured, _ = measure("perfect", b)
        lost = measured[1] + measured[4]
        print(f"| `perfect` vs `{b}` | {fmt(measured)} |" + (" **LOST GAMES**" if lost else ""))


if __name__ == "__main__":
    main()
