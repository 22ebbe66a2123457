#!/usr/bin/env python3
"""SPSA tuning of Scout's search parameters on one machine, with fastchess playing the games.

The tuning build (`cargo build --release --features tune`) exposes every entry of
src/params.rs as a UCI option and prints the tune's input with `scout spsa`: one line per
parameter, `name, int, value, min, max, c_end, r_end` (OpenBench's format). This driver runs the
same algorithm OpenBench runs (simultaneous perturbation stochastic approximation): each
iteration draws a random sign for every parameter, plays a batch of game pairs between the build
with every parameter moved up by its step times the sign and the build with every parameter moved
down, and moves each parameter by the match result over its step, with OpenBench's gain schedules
(a_k = a / (A + k + 1)^0.602, c_k = c / (k + 1)^0.101, A = iterations / 10, the final step c_end,
the final learning rate r_end). The state is saved after every iteration, so the same command
resumes an interrupted tune. Every game is appended to `--pgn`, for `scout convert`.

Usage (from the checkout; the input file is `scout spsa`'s output, edited to the parameters to
tune):
    cargo build --release --features tune && cp target/release/scout builds/scout-tune
    builds/scout-tune spsa > spsa-input.txt          # then keep the lines to tune (the
                                                      # tm_* ones only with --tc)
    python3 docs/spsa.py --engine builds/scout-tune --input spsa-input.txt \\
        --state spsa-state.json --iterations 2000 --pairs 4 --nodes 20000 \\
        --openings openings/UHO_Lichess_4852_v1.epd --pgn spsa.pgn
Prints, every iteration, the parameters' current values; `--show` prints them and exits.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

ALPHA = 0.602
GAMMA = 0.101


def read_input(path):
    params = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, kind, value, lo, hi, c_end, r_end = [x.strip() for x in line.split(",")]
            params.append({"name": name, "int": kind == "int", "value": float(value),
                           "min": float(lo), "max": float(hi), "c_end": float(c_end),
                           "r_end": float(r_end)})
    if not params:
        sys.exit(f"{path}: no parameters")
    return params


def new_state(params, iterations):
    big_a = iterations / 10
    state = {"iterations": iterations, "k": 0, "games": 0, "big_a": big_a, "params": []}
    for p in params:
        c = p["c_end"] * iterations ** GAMMA
        a_end = p["r_end"] * p["c_end"] ** 2
        a = a_end * (big_a + iterations) ** ALPHA
        state["params"].append(dict(p, c=c, a=a, start=p["value"]))
    return state


def as_option(p, value):
    value = min(max(value, p["min"]), p["max"])
    return str(round(value)) if p["int"] else f"{value:.4f}"


def play_batch(args, plus, minus, seed):
    """Plays `args.pairs` game pairs, plus against minus; returns (wins, losses, draws) of plus."""
    with tempfile.NamedTemporaryFile(suffix=".pgn", delete=False) as tmp:
        batch_pgn = tmp.name
    cmd = [args.fastchess,
           "-engine", f"cmd={args.engine}", "name=plus", *[f"option.{n}={v}" for n, v in plus],
           "-engine", f"cmd={args.engine}", "name=minus", *[f"option.{n}={v}" for n, v in minus],
           "-each", *args.each.split(), "option.Hash=16",
           "-rounds", str(args.pairs), "-games", "2", "-repeat", "-concurrency", "1",
           "-openings", f"file={args.openings}",
           f"format={'pgn' if args.openings.endswith('.pgn') else 'epd'}", "order=random",
           "-srand", str(seed),
           "-pgnout", f"file={batch_pgn}", "append=false", "nodes=true", "seldepth=true"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"fastchess failed ({run.returncode}):\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    wins = losses = draws = 0
    with open(batch_pgn) as f:
        text = f.read()
    os.unlink(batch_pgn)
    white = black = None
    for line in text.splitlines():
        if line.startswith("[White "):
            white = line.split('"')[1]
        elif line.startswith("[Black "):
            black = line.split('"')[1]
        elif line.startswith("[Result "):
            result = line.split('"')[1]
            if result == "1/2-1/2":
                draws += 1
            elif result in ("1-0", "0-1"):
                winner = white if result == "1-0" else black
                if winner == "plus":
                    wins += 1
                else:
                    losses += 1
    if wins + losses + draws != 2 * args.pairs:
        sys.exit(f"expected {2 * args.pairs} results, read {wins + losses + draws}")
    if args.pgn:
        with open(args.pgn, "a") as out:
            out.write(text if text.endswith("\n") else text + "\n")
    return wins, losses, draws


def show(state):
    print(f"iteration {state['k']}/{state['iterations']}, {state['games']} games")
    for p in state["params"]:
        print(f"  {p['name']:<22} {p['value']:9.2f}   (start {p['start']:g}, "
              f"range {p['min']:g}..{p['max']:g})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True, help="the tuning build")
    ap.add_argument("--input", help="`scout spsa` lines (needed to start a tune)")
    ap.add_argument("--state", required=True, help="JSON state, written after every iteration")
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=4, help="game pairs per iteration")
    ap.add_argument("--nodes", type=int, default=20000, help="nodes a move (unless --tc)")
    ap.add_argument("--tc", help="a clock instead of nodes, e.g. 8+0.08")
    ap.add_argument("--openings", default="openings/8moves_v3.pgn")
    ap.add_argument("--fastchess", default="fastchess")
    ap.add_argument("--pgn", help="append every game here")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", action="store_true", help="print the state and exit")
    args = ap.parse_args()
    args.each = f"tc={args.tc}" if args.tc else f"tc=inf nodes={args.nodes}"

    if os.path.exists(args.state):
        with open(args.state) as f:
            state = json.load(f)
    elif args.input:
        state = new_state(read_input(args.input), args.iterations)
    else:
        sys.exit("no state to resume and no --input to start from")
    clock_params = [p["name"] for p in state["params"] if p["name"].startswith("tm_")]
    if clock_params and not args.tc:
        sys.exit(f"{', '.join(clock_params)}: time management has no effect in games at a node "
                 "budget; tune them with --tc, or leave them out")
    if args.show:
        show(state)
        return
    rng = random.Random(args.seed * 1_000_003 + state["k"])
    while state["k"] < state["iterations"]:
        k = state["k"]
        signs = [rng.choice((-1, 1)) for _ in state["params"]]
        plus, minus, steps = [], [], []
        for p, sign in zip(state["params"], signs):
            # An integer's step never shrinks below half a unit, or its rounding would stall it.
            c_k = max(p["c"] / (k + 1) ** GAMMA, 0.5 if p["int"] else 0.0)
            steps.append(c_k)
            plus.append((p["name"], as_option(p, p["value"] + c_k * sign)))
            minus.append((p["name"], as_option(p, p["value"] - c_k * sign)))
        wins, losses, draws = play_batch(args, plus, minus, args.seed * 100_000 + k)
        result = wins - losses
        for p, sign, c_k in zip(state["params"], signs, steps):
            a_k = p["a"] / (state["big_a"] + k + 1) ** ALPHA
            p["value"] = min(max(p["value"] + a_k * result * sign / c_k, p["min"]), p["max"])
        state["k"] = k + 1
        state["games"] += wins + losses + draws
        tmp = args.state + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f, indent=1)
        os.replace(tmp, args.state)
        print(f"iteration {k + 1}: +{wins} ={draws} -{losses}  "
              + " ".join(f"{p['name']}={p['value']:.1f}" for p in state["params"]), flush=True)
    show(state)


if __name__ == "__main__":
    main()
