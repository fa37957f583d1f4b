"""The cost of many resolved bodies in 3D: spheres scattered at random in a triply periodic box at
the volume fraction 0.2 and four mesh cells across a diameter, settling under `[fluid] balance`;
the time per step split into the fluid, the rigidity constraint and the bodies (contact and
motion), and the peak memory, for N = 1, 10, 100 (and more where they fit).

Each run: spheres of diameter 1 and density 2 in a fluid of density 1 and viscosity 0.1 under
g = 1 (a settling Reynolds number of order one), a box of side `L = (N π / (6 φ))^(1/3)` cut into
`round(4 L)` cubes a side (six tetrahedra each), the default body boundary, time steps of 0.05;
`--steps` steps (the summary's phase seconds over them; the set-up, with the factors or the
preconditioners, is apart). The peak memory is the child process's maximum resident set
(`os.wait4`).

Usage (N = 100: about 2 min on 2 cores):

    cargo build --release
    python3 scripts/bench_suspension_3d.py --out out/bench_suspension [--counts 1 10 100] [--steps 6] \
        [--csv docs/reference/bench_suspension_3d.csv] [--image docs/images/performance_suspension_3d.png]

prints a row per N: velocity unknowns, seconds a step in each phase, (constraint + bodies) over
fluid (the target: at most 1), and the peak memory.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHI, CELLS_PER_DIAMETER = 0.2, 4

CASE = """dimension = 3
gravity = [0.0, 0.0, -1.0]

[domain]
box = [[0.0, 0.0, 0.0], [{L!r}, {L!r}, {L!r}]]
cells = [{n}, {n}, {n}]
periodic = ["x", "y", "z"]

[fluid]
density = 1.0
viscosity = 0.1
balance = true

[[bodies]]
name = "s"
shape = {{ type = "sphere", radius = 0.5 }}
density = 2.0
position = [{c!r}, {c!r}, {c!r}]
{placement}

[contact]
range = 0.1
stiffness = 1e-3

[time]
step = 0.05
end = {end!r}

[output]
every = 0
"""


def run(count, args):
    """One run's summary and peak resident memory (GB)."""
    side = (count * math.pi / (6.0 * PHI)) ** (1.0 / 3.0)
    n = round(CELLS_PER_DIAMETER * side)
    folder = os.path.join(args.out, f"n{count}")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"n{count}.toml")
    # The box less a radius on each side would leave no room across the faces: spread over the
    # whole cell (the scatter keeps the spheres apart through the images).
    placement = "" if count == 1 else f"scatter = {{ count = {count}, spread = [{side / 2!r}, {side / 2!r}, {side / 2!r}], gap = 0.1, seed = 7 }}"
    with open(path, "w") as f:
        f.write(CASE.format(L=side, n=n, c=side / 2, placement=placement, end=args.steps * 0.05))
    child = subprocess.Popen([args.tumble, "run", "--quiet", "--out", folder, path], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"{path}: tumble failed")
    with open(os.path.join(folder, "summary.json")) as f:
        summary = json.load(f)
    return summary, usage.ru_maxrss / 1e6, side, n


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "bench_suspension"))
    parser.add_argument("--tumble", default=os.path.join(ROOT, "target", "release", "tumble"))
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--csv")
    parser.add_argument("--image")
    args = parser.parse_args()
    rows = []
    print(f"{'N':>5} {'cells':>5} {'unknowns':>10} {'fluid s':>8} {'constr. s':>9} {'bodies s':>8} {'(c+b)/f':>8} {'memory GB':>9}")
    for count in args.counts:
        summary, memory, side, n = run(count, args)
        seconds, steps = summary["seconds"], summary["steps"]
        per = lambda key: seconds[key] / steps
        fluid, constraint, bodies = per("fluid"), per("constraint"), per("bodies")
        ratio = (constraint + bodies) / fluid
        rows.append((count, n, summary["velocity_unknowns"], fluid, constraint, bodies, ratio, memory))
        print(
            f"{count:5d} {n:5d} {summary['velocity_unknowns']:10d} {fluid:8.3f} {constraint:9.3f} {bodies:8.3f}"
            f" {ratio:8.2f} {memory:9.2f}"
        )
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            f.write(
                "# scripts/bench_suspension_3d.py: spheres at phi = 0.2, d/h = 4, triply periodic, seconds a step over\n"
                f"# {args.steps} steps (2 cores), peak resident memory of the run.\n"
            )
            w = csv.writer(f)
            w.writerow(["bodies", "cells_across", "velocity_unknowns", "fluid_s", "constraint_s", "bodies_s", "ratio", "memory_gb"])
            for r in rows:
                w.writerow([r[0], r[1], r[2], f"{r[3]:.4f}", f"{r[4]:.4f}", f"{r[5]:.4f}", f"{r[6]:.3f}", f"{r[7]:.3f}"])
    if args.image:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.5, 4.2))
        counts = [r[0] for r in rows]
        for k, label in [(3, "fluid"), (4, "rigidity constraint"), (5, "contact and motion")]:
            ax.loglog(counts, [r[k] for r in rows], "o-", label=label)
        ax.set_xlabel("spheres N (φ = 0.2, d/h = 4)")
        ax.set_ylabel("seconds a step")
        ax.set_title("3D step with N resolved spheres, 2 cores")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.image, dpi=110)


if __name__ == "__main__":
    main()
