#!/usr/bin/env python3
"""How the PGN fixtures of the convert tests were made (needs python-chess; not run by tests).

fastchess_standard.pgn and fastchess_chess960.pgn are fastchess games between two copies of
Scout at 3,000 nodes a move (`-each tc=inf nodes=3000 proto=uci option.Hash=16 -concurrency 1
-draw movenumber=60 movecount=8 score=5 -pgnout file=... nodes=true seldepth=true -log file=...
level=info engine=true`): the standard games from the openings of ../genfens/book.pgn
(`-openings format=pgn order=sequential -rounds 2 -games 1`), the Chess960 game from the second
position of ../genfens/frc_shredder.epd (`-variant fischerandom`). Then:

  expected LOG OUT > expected.txt
      From a fastchess log written with `-log ... engine=true` and the match's standard output
      (its "Finished game N ...: RESULT" lines), lists every move an engine chose: the position
      it searched (FEN), the bestmove, and the last `info ... score` it printed before it
      (multipv 1), game by game with the result. This comes from the engines' own words, not
      from the PGN, so the convert test can compare the two.

  restyle cutechess|openbench PGN > OUT
      Rewrites fastchess's move comments the way cutechess-cli (`+0.35/14 0.210s`) or an
      OpenBench upload (no move numbers, `+0.35/14`, `book`, `unknown` for a move without a
      score, reduced headers) writes them, for the same games.
"""

import re
import sys

import chess
import chess.pgn


def expected(log_path, out_path):
    results = [m.group(1) for m in re.finditer(r"Finished game \d+ \([^)]*\): (\S+)", open(out_path).read())]
    games = []  # (start_key, [(fen, bestmove, score)])
    chess960 = {}
    position = {}
    score = {}
    last_cmd = None
    for line in open(log_path):
        m = re.match(r"\[Engine\] \[[^]]*\] <[^>]*>\s+(\S+) (<---|--->) (.*)$", line.rstrip("\n"))
        if not m:
            continue
        name, direction, text = m.groups()
        if direction == "<---":
            if text.startswith("setoption name UCI_Chess960 value"):
                chess960[name] = text.endswith("true")
            elif text.startswith("position "):
                position[name] = text
            elif text.startswith("go"):
                score[name] = None
            continue
        if text.startswith("info") and " score " in text and not text.startswith("info string"):
            if " multipv " in text and " multipv 1 " not in text:
                continue
            tokens = text.split()
            at = tokens.index("score")
            score[name] = "%s %s" % (tokens[at + 1], tokens[at + 2])
        elif text.startswith("bestmove"):
            cmd = position[name]
            words = cmd.split()
            if words[1] == "startpos":
                board = chess.Board(chess960=chess960.get(name, False))
                rest = words[2:]
            else:
                at = words.index("fen")
                fen_end = words.index("moves") if "moves" in words else len(words)
                board = chess.Board(" ".join(words[at + 1:fen_end]), chess960=chess960.get(name, False))
                rest = words[fen_end:]
            start = " ".join(words[:len(words) - len(rest)])
            moves = rest[1:] if rest else []
            for uci in moves:
                board.push_uci(uci)
            # A new game starts when this position does not continue the previous one.
            if last_cmd is None or not cmd.startswith(last_cmd.split(" moves")[0]) or len(cmd) < len(last_cmd):
                games.append([])
            last_cmd = cmd
            games[-1].append((board.fen(), text.split()[1], score[name] or "none"))
    assert len(games) == len(results), (len(games), len(results))
    for number, (moves, result) in enumerate(zip(games, results), 1):
        print("game %d %s" % (number, result))
        for fen, best, sc in moves:
            print("%s;%s;%s" % (fen, best, sc))


def restyle(style, pgn_path):
    text = open(pgn_path).read()
    games = re.split(r"\n\n(?=\[Event )", text.strip())
    for game in games:
        head, _, moves = game.partition("\n\n")
        comments = []

        def comment(m):
            body = m.group(1)
            if body == "book":
                return "{book}"
            score = re.match(r"([+-]?M?\d+(?:\.\d+)?/\d+) (\S+s)", body)
            if style == "cutechess":
                return "{%s %s}" % (score.group(1), score.group(2)) if score else "{%s}" % body
            return "{%s}" % (score.group(1) if score else "unknown")

        moves = re.sub(r"\{([^}]*)\}", comment, moves)
        if style == "openbench":
            keep = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "FEN", "Variant", "SetUp")
            head = "\n".join(l for l in head.splitlines() if l[1:].split(" ")[0] in keep)
            tokens = re.findall(r"\{[^}]*\}|[^\s{}]+", moves)
            moves = " ".join(t for t in tokens if not re.fullmatch(r"\d+\.+", t))
        print(head + "\n\n" + moves.strip() + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "expected":
        expected(sys.argv[2], sys.argv[3])
    else:
        restyle(sys.argv[2], sys.argv[3])
