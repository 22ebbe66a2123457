#!/usr/bin/env python3
"""Clock report for match PGNs: how close each engine came to losing on time.

Replays every engine move's time (the `{score/depth 0.123s}` comments that fastchess and
cutechess-cli write, also with `, reason` after them on a game's last move) against the game's
TimeControl (`B+I` or `M/B`) and prints, per engine: games, moves, the average move time, the
lowest clock left after a move, the largest share of its remaining clock one move took, and the
games lost on time (`Termination "time forfeit"`). Book moves (no time) are skipped.
Usage: python3 docs/clock_report.py games.pgn [more.pgn ...]   (needs python-chess)
"""
import re
import sys
from collections import defaultdict

import chess.pgn

TIME = re.compile(r"/\d+ ([0-9]+(?:\.[0-9]+)?)s\b")


def parse_tc(tc):
    moves = None
    if "/" in tc:
        moves, tc = tc.split("/", 1)
        moves = int(moves)
    base, _, inc = tc.partition("+")
    return moves, float(base) * 1000, float(inc or 0) * 1000


def main(paths):
    stats = defaultdict(lambda: {"games": 0, "moves": 0, "used": 0.0, "min_left": float("inf"),
                                 "max_share": 0.0, "forfeits": 0})
    for path in paths:
        with open(path) as f:
            while (game := chess.pgn.read_game(f)) is not None:
                moves_per, base, inc = parse_tc(game.headers["TimeControl"])
                names = {chess.WHITE: game.headers["White"], chess.BLACK: game.headers["Black"]}
                clock = {c: base for c in names}
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
                    s["min_left"] = min(s["min_left"], clock[c])
                    clock[c] += inc
                    own[c] += 1
                    if moves_per and own[c] % moves_per == 0:
                        clock[c] += base
    print(f"{'engine':<14} {'games':>6} {'moves':>7} {'avg ms':>7} {'min left ms':>12} "
          f"{'max share':>10} {'forfeits':>9}")
    for name, s in sorted(stats.items()):
        avg = s["used"] / max(s["moves"], 1)
        print(f"{name:<14} {s['games']:>6} {s['moves']:>7} {avg:>7.0f} {s['min_left']:>12.0f} "
              f"{s['max_share']:>9.0%} {s['forfeits']:>9}")


if __name__ == "__main__":
    main(sys.argv[1:])
