#!/usr/bin/env python3
"""Plays an xboard (CECP) engine as if it were a UCI engine, for match runners that speak only
UCI (such as fastchess; cutechess-cli speaks xboard itself), so that Fairy-Max and Phalanx can
be calibration opponents (README, *Playing at a human strength*). The other direction, a UCI
engine in an xboard GUI, is what polyglot does.

    python3 docs/xboard_as_uci.py /usr/games/fairymax
    python3 docs/xboard_as_uci.py /usr/games/phalanx -b- -l-      # no book, no learning

In fastchess: `-engine name=fairymax cmd=python3 "args=docs/xboard_as_uci.py /usr/games/fairymax"`.

What it does: answers `uci`/`isready` itself; for every `go` it sets the engine up from scratch
(`new`, `force`, the clock with `level`/`time`/`otim`, or `st`/`sd`, the position with
`setboard` where the engine has it, then the moves) and sends `go`; the engine's `move` becomes
`bestmove` (coordinate or SAN, checked for legality with python-chess). `stop` sends `?`. It
prints no `info` lines (the engine's thinking output is switched off with `nopost`). Only
standard chess; a FEN start needs an engine with `setboard` (Fairy-Max has none: it can only
play games from the start position and the moves of a PGN opening, which is how fastchess and
cutechess-cli send 8moves_v3.pgn openings).
"""

import queue
import shlex
import subprocess
import sys
import threading

import chess

out_lock = threading.Lock()


def say(line):
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class XboardEngine:
    def __init__(self, argv):
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.features = {}
        self.send("xboard")
        self.send("protover 2")
        self._read_features()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _read_features(self):
        # Protocol 2 engines announce features, ending with done=1; old ones say nothing.
        while True:
            try:
                line = self.lines.get(timeout=2.0)
            except queue.Empty:
                return
            if line is None:
                raise SystemExit("the xboard engine exited during the handshake")
            if not line.startswith("feature "):
                continue
            for token in shlex.split(line[len("feature "):]):
                name, _, value = token.partition("=")
                self.features[name] = value
                if name not in ("done",):
                    self.send(f"accepted {name}")
            if self.features.get("done") == "1":
                return

    def name(self):
        return self.features.get("myname") or self.proc.args[0]

    def wait_move(self, board):
        """The engine's next move as a legal python-chess move (None if it exited)."""
        while True:
            line = self.lines.get()
            if line is None:
                return None
            tokens = line.split()
            if len(tokens) >= 2 and tokens[0] == "move":
                text = tokens[1]
                try:
                    return board.parse_uci(text)
                except ValueError:
                    return board.parse_san(text)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    engine = XboardEngine(sys.argv[1:])
    start_fen, moves = chess.STARTING_FEN, []
    searching = None  # the thread waiting for the engine's move

    def search(board, commands):
        for c in commands:
            engine.send(c)
        move = engine.wait_move(board)
        say(f"bestmove {move.uci() if move else '0000'}")

    for raw in sys.stdin:
        tokens = raw.split()
        if not tokens:
            continue
        cmd = tokens[0]
        if cmd == "uci":
            say(f"id name {engine.name()} (xboard)")
            say("id author its authors, through Scout's docs/xboard_as_uci.py")
            say("uciok")
        elif cmd == "isready":
            say("readyok")
        elif cmd == "position":
            if "moves" in tokens:
                at = tokens.index("moves")
                moves = tokens[at + 1:]
            else:
                at = len(tokens)
                moves = []
            if tokens[1] == "startpos":
                start_fen = chess.STARTING_FEN
            else:
                start_fen = " ".join(tokens[2:at])
        elif cmd == "go":
            if searching is not None:
                searching.join()
            args = dict(zip(tokens[1::2], tokens[2::2]))
            board = chess.Board(start_fen)
            for m in moves:
                board.push_uci(m)
            us = "w" if board.turn == chess.WHITE else "b"
            them = "b" if us == "w" else "w"
            commands = ["new", "force", "easy", "nopost"]
            if "movetime" in args:
                commands.append(f"st {max(1, round(int(args['movetime']) / 1000))}")
            elif f"{us}time" in args:
                ms = max(0, int(args[f"{us}time"]))
                inc = max(0, int(args.get(f"{us}inc", 0))) / 1000
                mtg = int(args.get("movestogo", 0))
                commands.append(f"level {mtg} {ms // 60000}:{ms // 1000 % 60:02d} {inc:g}")
                commands.append(f"time {ms // 10}")
                commands.append(f"otim {max(0, int(args.get(f'{them}time', ms))) // 10}")
            if "depth" in args:
                commands.append(f"sd {args['depth']}")
            if start_fen != chess.STARTING_FEN:
                if engine.features.get("setboard") != "1":
                    sys.exit("this xboard engine cannot start from a FEN (no setboard)")
                commands.append(f"setboard {start_fen}")
            prefix = "usermove " if engine.features.get("usermove") == "1" else ""
            commands += [prefix + m for m in moves]
            commands.append("go")
            searching = threading.Thread(target=search, args=(board, commands))
            searching.start()
        elif cmd == "stop":
            engine.send("?")
        elif cmd == "quit":
            break
    engine.send("quit")


if __name__ == "__main__":
    main()
