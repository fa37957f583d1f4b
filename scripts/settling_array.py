"""A periodic array of bodies settling in Stokes flow: one body in a periodic cell, its weight
carried by the mean pressure gradient (`[fluid] balance`), against the exact drag of the array.

3D (`--dim 3`): a sphere in the triply periodic unit cube, the simple cubic array, whose drag
`K = F / (6π μ a U)` Zick and Homsy (1982, J. Fluid Mech. 115, 13, their Table 2) computed from 0.027
to 0.5236; the same runs otherwise, the cube meshed with `n³` cubes cut in six tetrahedra
(five to nine minutes a run at 22 cells on 2 cores).

2D: a disk in the doubly periodic unit square, the square array of cylinders, whose drag per
unit length `F / (μ U)` (`U` the mean velocity over the cell relative to the cylinders) Sangani and
Acrivos (1982, Int. J. Multiphase Flow 8, 343, their Table 1) computed from 0.05 to 0.75; at 0.01
their small-fraction series (after Hasimoto 1959), `4π / (−½ ln φ − 0.738 + φ − 0.887 φ² + 2.038 φ³)`.
Settling, `U` is the disk's velocity relative to the mixture's mean velocity (the frame of zero
volume flux, `summary.json`'s `settling_velocity`) and `F` its buoyant weight.

Each run: Stokes flow, ρ_f = μ = 1, a disk of density 2 under g = 10, the accurate body boundary
(`body_boundary = "surface"`), time steps of 0.005 to t = 0.5 (about twenty viscous times of the
cell; the speed is the mean over the second half), the cell meshed with `n × n` squares cut in two.

Usage (seconds a run at 64 cells, a minute at 256):

    cargo build --release
    python3 scripts/settling_array.py --out out/settling_array [--cells 32 64 128] \
        [--csv docs/reference/settling_array_2d.csv] [--image docs/images/validation_settling_array.png]

(`--cached` draws only the runs already in --out: the 3D picture holds 22 cubes for every fraction), prints a row per run (the fraction, the cells across, the diameter over the spacing, the drag,
the reference and the error) and, with --image and matplotlib, draws the drag against the
fraction and the error against the cells across the gap between neighbours.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
G, DENSITY = 10.0, 2.0

# Sangani and Acrivos (1982), Table 1: the square array's F / (μ U).
REFERENCE = {0.05: 15.56, 0.1: 24.83, 0.2: 51.53, 0.3: 102.90, 0.4: 217.89, 0.5: 532.55}
# Zick and Homsy (1982), Table 2: the simple cubic array's K = F / (6π μ a U).
REFERENCE_3D = {0.027: 2.008, 0.064: 2.810, 0.125: 4.292, 0.216: 7.442, 0.343: 15.4, 0.45: 28.1, 0.5236: 42.1}


def reference(phi, dim=2):
    """The array's drag at `phi`: Zick and Homsy's in 3D; Sangani and Acrivos's table in 2D, or
    their series below 0.05."""
    if dim == 3:
        return REFERENCE_3D[phi]
    if phi in REFERENCE:
        return REFERENCE[phi]
    return 4.0 * math.pi / (-0.5 * math.log(phi) - 0.738 + phi - 0.887 * phi**2 + 2.038 * phi**3)


def radius(phi, dim):
    """The body's radius at the volume fraction `phi` of the unit cell."""
    return math.sqrt(phi / math.pi) if dim == 2 else (3.0 * phi / (4.0 * math.pi)) ** (1.0 / 3.0)


CASE = """dimension = {dim}
gravity = {gravity}

[domain]
box = [{lo}, {hi}]
cells = {cells}
periodic = {axes}

[fluid]
density = 1.0
viscosity = 1.0
stokes = true
balance = true
body_boundary = "surface"

[[bodies]]
name = "disk"
shape = {{ type = "{shape}", radius = {r!r} }}
density = {rho}
position = {centre}

[contact]
range = 0.02
stiffness = 1e-4

[time]
step = 0.005
end = 0.5

[output]
every = 0
"""


def run(phi, n, args):
    """The drag of the run at fraction `phi` on `n` cells across (cached in --out)."""
    dim = args.dim
    r = radius(phi, dim)
    folder = os.path.join(args.out, f"phi{phi}_n{n}")
    summary = os.path.join(folder, "summary.json")
    if not os.path.exists(summary):
        if args.cached:
            return None
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, f"phi{phi}_n{n}.toml")
        vector = lambda xs: "[" + ", ".join(str(x) for x in xs) + "]"
        with open(path, "w") as f:
            f.write(
                CASE.format(
                    dim=dim,
                    gravity=vector([0.0] * (dim - 1) + [-G]),
                    lo=vector([0.0] * dim),
                    hi=vector([1.0] * dim),
                    cells=vector([n] * dim),
                    axes=vector(['"' + a + '"' for a in "xyz"[:dim]]),
                    shape="circle" if dim == 2 else "sphere",
                    r=r,
                    rho=DENSITY,
                    centre=vector([0.5] * dim),
                )
            )
        done = subprocess.run([args.tumble, "run", "--quiet", "--out", folder, path], stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            sys.exit(f"{path}: tumble failed")
    with open(summary) as f:
        speed = json.load(f)["settling_velocity"]
    if dim == 2:
        return (DENSITY - 1.0) * math.pi * r * r * G / speed, 2.0 * r * n, (1.0 - 2.0 * r) * n
    weight = (DENSITY - 1.0) * 4.0 / 3.0 * math.pi * r**3 * G
    return weight / (6.0 * math.pi * r * speed), 2.0 * r * n, (1.0 - 2.0 * r) * n


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "settling_array"))
    parser.add_argument("--tumble", default=os.path.join(ROOT, "target", "release", "tumble"))
    parser.add_argument("--dim", type=int, default=2, choices=[2, 3])
    parser.add_argument("--fractions", type=float, nargs="+")
    parser.add_argument("--cells", type=int, nargs="+")
    parser.add_argument("--cached", action="store_true", help="leave out the runs not already in --out")
    parser.add_argument("--csv")
    parser.add_argument("--image")
    args = parser.parse_args()
    if args.fractions is None:
        args.fractions = [0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5] if args.dim == 2 else [0.027, 0.064, 0.125, 0.216, 0.343]
    if args.cells is None:
        args.cells = [32, 64, 128] if args.dim == 2 else [22]
    rows = []
    print(f"{'phi':>5} {'cells':>5} {'d/h':>6} {'gap/h':>6} {'drag':>9} {'reference':>9} {'error':>8}")
    for phi in args.fractions:
        for n in args.cells:
            done = run(phi, n, args)
            if done is None:
                continue
            drag, dh, gh = done
            ref = reference(phi, args.dim)
            rows.append((phi, n, dh, drag, ref, drag / ref - 1.0, gh))
            print(f"{phi:5.3g} {n:5d} {dh:6.1f} {gh:6.1f} {drag:9.3f} {ref:9.3f} {100 * (drag / ref - 1):7.2f}%")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            if args.dim == 2:
                f.write(
                    "# A disk settling in a doubly periodic cell (scripts/settling_array.py): the drag W/(mu U) against\n"
                    "# Sangani and Acrivos (1982), Int. J. Multiphase Flow 8, 343, Table 1 (square array, F/(mu U), U the\n"
                    "# mean velocity over the cell); at 0.01 their series 4 pi/(-ln(phi)/2 - 0.738 + phi - 0.887 phi^2 + 2.038 phi^3).\n"
                    "# cells: squares across the unit cell; d/h: the disk's diameter over the cells' side; gap/h: the cells across the gap between neighbours.\n"
                )
            else:
                f.write(
                    "# A sphere settling in a triply periodic cell (scripts/settling_array.py --dim 3): the drag\n"
                    "# K = W/(6 pi mu a U) against Zick and Homsy (1982), J. Fluid Mech. 115, 13, Table 2 (simple cubic\n"
                    "# array, F = 6 pi mu a K U, U the mean velocity over the cell).\n"
                    "# cells: cubes across the unit cell (six tetrahedra each); d/h: the sphere's diameter over the cubes' side; gap/h: the cubes across the gap between neighbours.\n"
                )
            w = csv.writer(f)
            w.writerow(["fraction", "cells", "d_over_h", "gap_over_h", "drag", "reference", "relative_error"])
            for phi, n, dh, drag, ref, err, gh in rows:
                w.writerow([phi, n, f"{dh:.2f}", f"{gh:.2f}", f"{drag:.4f}", f"{ref:.4f}", f"{err:.5f}"])
    if args.image:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
        fractions = sorted({r[0] for r in rows})
        source = "Sangani & Acrivos (1982)" if args.dim == 2 else "Zick & Homsy (1982)"
        a.semilogy(fractions, [reference(p, args.dim) for p in fractions], "k-", label=source)
        for n in args.cells:
            mine = [r for r in rows if r[1] == n]
            a.semilogy([r[0] for r in mine], [r[3] for r in mine], "o", mfc="none", label=f"tumble, {n} cells across")
        for phi in fractions:
            mine = sorted((r[6], abs(r[5])) for r in rows if r[0] == phi)
            b.loglog([m[0] for m in mine], [m[1] for m in mine], "o-", label=f"φ = {phi}")
        a.set_xlabel("volume fraction φ")
        body = "disk" if args.dim == 2 else "sphere"
        a.set_ylabel("F / (μ U)" if args.dim == 2 else "K = F / (6π μ a U)")
        a.set_title("a square array of disks settling (Stokes)" if args.dim == 2 else "a simple cubic array of spheres settling (Stokes)")
        a.legend()
        b.axhline(0.01, color="grey", lw=0.8, ls="--")
        b.set_xlabel(f"cells across the gap between neighbouring {body}s")
        b.set_ylabel("|relative error|")
        b.set_title("error against resolution")
        b.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.image, dpi=110)


if __name__ == "__main__":
    main()
