#!/usr/bin/env python3
"""Clock report for match PGNs: how each engine spends its clock, and how close it came to
losing on time.

Reads every engine move's time (the `{score/depth 0.123s}` comments that fastchess and
cutechess-cli write, also with `, reason` after them on a game's last move) and, where fastchess
wrote it (`-pgnout ... timeleft=true`), the clock left after the move (`tl=1.234s`); without it
the clock is replayed from the game's TimeControl (`B+I`, `M/B` or `M/B+I`). Book moves (no
time) are skipped. Prints, per engine:

- games, moves, the average move time, the lowest clock left after a move, the largest share
  of its remaining clock one move took, and the games lost on time (`Termination "time
  forfeit"`);
- the clock left at the end of its games: median and quartiles, in ms and as a share of the
  game's budget (the base time, plus every increment received, plus the base again for each
  control reached with `M/B`);
- by phase (the engine's own moves 1-20, 21-40, 41-60, 61+): moves, the average move time and
  the average clock left after a move.

Usage: python3 docs/clock_report.py games.pgn [more.pgn ...]   (needs python-chess)
"""
import re
import statistics
import sys
from collections import defaultdict

import chess.pgn

TIME = re.compile(r"/\d+ ([0-9]+(?:\.[0-9]+)?)s\b")
LEFT = re.compile(r"\btl=(-?[0-9]+(?:\.[0-9]+)?)s\b")
PHASES = [(1, 20), (21, 40), (41, 60), (61, 10**9)]


def parse_tc(tc):
    moves = None
    if "/" in tc:
        moves, tc = tc.split("/", 1)
        moves = int(moves)
    base, _, inc = tc.partition("+")
    return moves, float(base) * 1000, float(inc or 0) * 1000


def phase_of(move_number):
    for i, (lo, hi) in enumerate(PHASES):
        if lo <= move_number <= hi:
            return i
    return len(PHASES) - 1


def new_stats():
    return {"games": 0, "moves": 0, "used": 0.0, "min_left": float("inf"), "max_share": 0.0,
            "forfeits": 0, "end_ms": [], "end_share": [],
            "phase": [[0, 0.0, 0.0] for _ in PHASES]}


def read_game(game, stats):
    moves_per, base, inc = parse_tc(game.headers["TimeControl"])
    names = {chess.WHITE: game.headers["White"], chess.BLACK: game.headers["Black"]}
    clock = {c: base for c in names}
    budget = {c: base for c in names}
    own = {c: 0 for c in names}
    for c in names:
        stats[names[c]]["games"] += 1
    if game.headers.get("Termination") == "time forfeit":
        loser = chess.WHITE if game.headers["Result"] == "0-1" else chess.BLACK
        stats[names[loser]]["forfeits"] += 1
    node = game
    while node.variations:
        board = node.board()
        node = node.variations[0]
        m = TIME.search(node.comment)
        if not m:  # book move
            continue
        c = board.turn
        used = float(m.group(1)) * 1000
        s = stats[names[c]]
        s["moves"] += 1
        s["used"] += used
        s["max_share"] = max(s["max_share"], used / max(clock[c], 1.0))
        clock[c] -= used
        left = LEFT.search(node.comment)
        if left:
            # fastchess's own clock (after the increment of this move was added, if any):
            # take it as what the engine held after the move, before the increment.
            clock[c] = float(left.group(1)) * 1000 - inc
        s["min_left"] = min(s["min_left"], clock[c])
        own[c] += 1
        p = s["phase"][phase_of(own[c])]
        p[0] += 1
        p[1] += used
        p[2] += clock[c]
        clock[c] += inc
        budget[c] += inc
        if moves_per and own[c] % moves_per == 0:
            clock[c] += base
            budget[c] += base
    for c in names:
        if own[c] > 0:
            s = stats[names[c]]
            s["end_ms"].append(clock[c])
            s["end_share"].append(clock[c] / budget[c])


def quartiles(values):
    if len(values) < 2:
        v = values[0] if values else float("nan")
        return v, v, v
    q = statistics.quantiles(values, n=4)
    return q[0], statistics.median(values), q[2]


def main(paths):
    if not paths:
        print(__doc__)
        sys.exit(2)
    stats = defaultdict(new_stats)
    for path in paths:
        with open(path) as f:
            while (game := chess.pgn.read_game(f)) is not None:
                read_game(game, stats)
    print(f"{'engine':<16} {'games':>6} {'moves':>7} {'avg ms':>7} {'min left ms':>12} "
          f"{'max share':>10} {'forfeits':>9}")
    for name, s in sorted(stats.items()):
        avg = s["used"] / max(s["moves"], 1)
        print(f"{name:<16} {s['games']:>6} {s['moves']:>7} {avg:>7.0f} {s['min_left']:>12.0f} "
              f"{s['max_share']:>9.0%} {s['forfeits']:>9}")
    print()
    print("clock left at the end of a game (quartiles: 25% / median / 75%)")
    print(f"{'engine':<16} {'ms':>24} {'share of the budget':>24}")
    for name, s in sorted(stats.items()):
        ms = "{:.0f} / {:.0f} / {:.0f}".format(*quartiles(s["end_ms"]))
        share = "{:.1%} / {:.1%} / {:.1%}".format(*quartiles(s["end_share"]))
        print(f"{name:<16} {ms:>24} {share:>24}")
    print()
    print("by phase (own moves): moves, average ms a move, average clock left after it (ms)")
    header = "".join(f"{f'{lo}-{hi}' if hi < 10**9 else f'{lo}+':>22}" for lo, hi in PHASES)
    print(f"{'engine':<16}{header}")
    for name, s in sorted(stats.items()):
        cells = ""
        for n, used, left in s["phase"]:
            cell = f"{n} {used / n:.0f} {left / n:.0f}" if n else "-"
            cells += f"{cell:>22}"
        print(f"{name:<16}{cells}")


if __name__ == "__main__":
    main(sys.argv[1:])
