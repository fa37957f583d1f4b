"""A lone sphere of the hindered-settling fluid (scripts/hindered_settling.py, regime re10) on the
axis of a closed box, to tell the body boundary's drag when the sphere moves through the mesh
from its drag when a frame that follows it keeps it among the same cells.

The box: 12 × 12 × 14 diameters, `meshes/gondret.geo` with cells d/`cells-per-d` within a
diameter of the axis, growing to 1.5 d over 3 d (Gmsh, `pip install gmsh`; 73 237 tetrahedra at
d/h 6.1). The fluid: density 1, μ = 0.0567, semi-Lagrangian convection, Δt = 0.1 (the drag
curve's terminal speed U_t = 0.5557, Re_t 9.8, for a sphere of density 2 under g = 1). Runs:

- `free_<boundary>`: the sphere of density 2 released at rest 12 d above the floor (lab frame).
- `heavy_<boundary>`: a sphere of density 100 started at U_t, under g = 1/99 so that its net
  weight is the drag curve's drag at U_t: it keeps within 2 % of U_t, so its hydrodynamic force
  is the drag at a steady speed, moving through the mesh.
- `frame_<boundary>`: the same heavy sphere 9 d above the floor in a frame that follows it (top
  an outflow, bottom the fluid at rest in the lab): the drag at the same speed among fixed cells.
- `..._dt05`: the same at Δt = 0.05.

Prints, per window of 2 time units, the sphere's speed over U_t and its hydrodynamic force along
g over the drag curve's drag at that speed (Clift, Grace & Weber 1978's correlation; the box's
walls 6 d from the axis add about 2 %). About 5 minutes a run on 2 cores.

    python3 scripts/lone_sphere.py --out out/lone_sphere [--runs heavy_surface frame_surface ...]
"""

import argparse
import csv
import math
import os
import subprocess
import sys

from hindered_settling import REGIMES, clift_grace_weber, drag_coefficient

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MU = REGIMES[(3, "re10")][0]
UT = clift_grace_weber(MU)[0]

CASE = """dimension = 3
gravity = [0, 0, {g}]

[domain]
mesh = "lone.msh"
walls = {walls}

[fluid]
density = 1.0
viscosity = {mu}
convection = "characteristics"
body_boundary = "{boundary}"

[fluid.boundary]
bottom = {bottom}
top = {top}
sides = "no-slip"

[[bodies]]
name = "s"
shape = {{ type = "sphere", radius = 0.5 }}
density = {rho}
position = [0, 0, {z}]
velocity = [0, 0, {v}]

[contact]
range = 0.1
stiffness = 1e-3

[time]
step = {dt}
end = 16

[output]
every = {every}
{frame}"""


def case(name):
    """The case file's text for a run called `name` (`kind_boundary[_dt05]`)."""
    kind, boundary, *rest = name.split("_")
    dt = 0.05 if rest == ["dt05"] else 0.1
    heavy = kind in ("heavy", "frame")
    frame = kind == "frame"
    return CASE.format(
        g=-1.0 / 99.0 if heavy else -1.0,
        walls='["bottom", "sides"]' if frame else '["bottom", "top", "sides"]',
        mu=MU,
        boundary=boundary,
        bottom="{ velocity = [0, 0, 0] }" if frame else '"no-slip"',
        top='"outflow"' if frame else '"no-slip"',
        rho=100.0 if heavy else 2.0,
        z=9 if frame else 12,
        v=-UT if heavy else 0.0,
        dt=dt,
        every=round(16 / dt),
        frame='\n[frame]\nfollow = "s"\n' if frame else "",
    )


def drag_curve(v):
    """The standard drag curve's drag on the sphere of diameter 1 at speed `v` (ρ_f = 1)."""
    return drag_coefficient(v / MU) * 0.5 * v * v * math.pi / 4.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "lone_sphere"))
    parser.add_argument("--tumble", default=os.path.join(ROOT, "target", "release", "tumble"))
    parser.add_argument("--cells-per-d", type=float, default=6.1)
    parser.add_argument("--runs", nargs="+", default=["heavy_surface", "frame_surface", "free_surface"])
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    mesh = os.path.join(args.out, "lone.msh")
    if not os.path.exists(mesh):
        h = 1.0 / args.cells_per_d
        subprocess.run(
            ["gmsh", "-3", os.path.join(ROOT, "meshes", "gondret.geo"), "-setnumber", "d", "1", "-setnumber", "W", "12",
             "-setnumber", "H", "14", "-setnumber", "hp", str(h), "-setnumber", "rp", "1", "-setnumber", "hb", str(h),
             "-setnumber", "rb", "0.01", "-setnumber", "zb", "0.01", "-setnumber", "grow", "3", "-setnumber", "h", "1.5",
             "-format", "msh41", "-o", mesh],
            check=True, stdout=subprocess.DEVNULL,
        )
    histories = {}
    for name in args.runs:
        out = os.path.join(args.out, name)
        if not os.path.exists(os.path.join(out, "bodies.csv")):
            path = os.path.join(args.out, name + ".toml")
            with open(path, "w") as f:
                f.write(case(name))
            print(f"running {path}", file=sys.stderr)
            if subprocess.run([args.tumble, "run", "--quiet", "--out", out, path]).returncode != 0:
                sys.exit(f"{path}: tumble failed (see {out}/summary.json)")
        with open(os.path.join(out, "bodies.csv")) as f:
            histories[name] = [(float(r["time"]), -float(r["vz"]), float(r["hz"])) for r in csv.DictReader(f)]
    print("window  " + "".join(f"{name:>22}" for name in args.runs))
    print("        " + "".join(f"{'drag/curve  v/U_t':>22}" for _ in args.runs))
    for a in range(0, 16, 2):
        cells = []
        for name in args.runs:
            rows = [(t, v, h) for t, v, h in histories[name] if a < t <= a + 2 and v > 0]
            if not rows:
                cells.append(f"{'':>22}")
                continue
            ratio = sum(h / drag_curve(v) for _, v, h in rows) / len(rows)
            cells.append(f"{ratio:>12.3f} {rows[-1][1] / UT:>9.3f}")
        print(f"{a:2d}–{a + 2:<3d}  " + "".join(cells))


if __name__ == "__main__":
    main()
