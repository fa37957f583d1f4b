"""Two spheres settling together in Stokes flow, side by side and one above the other, and one
alone, in a triply periodic cube of side 16 d: tumble's two-sphere interaction against
Batchelor's (1976) mobility with Hasimoto's (1959) periodic images.

The mesh: `meshes/pair_box.geo` (Gmsh, `pip install gmsh`), cells d/6 (`h = 1/6`) within 2.2 d
of the centre, growing by a quarter of the distance beyond to 1.5 d at the faces (82 000
tetrahedra, 324 000 velocity unknowns). The spheres: d = 1, density 2, in a fluid of density 1
and μ = 1 under g = 0.01 (Stokes's speed U_0 = Δρ g d²/(18 μ) = 1/1800: they move 0.1 d in the
run), `[fluid] stokes` and `balance`, `"surface"` boundary, Δt = 20 to t = 200 (the box's slowest
mode decays as exp(−4π²νt/L²), a factor 0.24 a step); `settling_velocity` over the second half.

The reference, for equal spheres a distance r = s a apart (a the radius), to O(s⁻⁴) (Batchelor
1976, J. Fluid Mech. 74, 1; the next terms are O(s⁻⁶)):

    along the line of centres (one above the other):  U/U_0 = 1 + 3/(2s) − 1/s³ − 15/(4s⁴)
    across it (side by side):                          U/U_0 = 1 + 3/(4s) + 1/(2s³)

less the images of the cube, each sphere's own and its partner's, each `1.7601 φ₁^(1/3) − φ₁`
to O(φ₁) with φ₁ = (π/6)/L³ (Hasimoto 1959; the partner's differ from its own by O(a r²/L³),
0.1 % here). The last column divides out the lone sphere's error (the resolution's), leaving
the interaction's. About two minutes a run on 2 cores.

    python3 scripts/pair_mobility.py --out out/pair_mobility [--boundary surface|nodes]
"""

import argparse
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
L, G = 16.0, 0.01
U0 = G / 18.0

CASE = """dimension = 3
gravity = [0.0, 0.0, {g}]

[domain]
mesh = "pair_box.msh"
periodic = {{ x = ["xmin", "xmax"], y = ["ymin", "ymax"], z = ["zmin", "zmax"] }}

[fluid]
density = 1.0
viscosity = 1.0
balance = true
stokes = true
body_boundary = "{boundary}"
{bodies}
[contact]
range = 0.1
stiffness = 0.001

[time]
step = 20.0
end = 200.0

[output]
every = 10
"""

BODY = """
[[bodies]]
name = "s{i}"
shape = {{ type = "sphere", radius = 0.5 }}
density = 2.0
position = [{x}, {y}, {z}]
"""

# name: (centre distance r in d, the pair's axis), or None for the lone sphere.
RUNS = {"alone": None, "above_2": (2.0, 2), "side_2": (2.0, 0), "above_1.5": (1.5, 2), "side_1.5": (1.5, 0)}


def images():
    """Each sphere's slowing by a cube's images, over U_0 (Hasimoto 1959 to O(φ₁))."""
    phi = math.pi / 6.0 / L ** 3
    return 1.7601 * phi ** (1.0 / 3.0) - phi


def reference(run):
    """Batchelor's speed of the pair (or Stokes's of the lone sphere) with the images, over U_0."""
    if RUNS[run] is None:
        return 1.0 - images()
    r, axis = RUNS[run]
    s = 2.0 * r
    free = 1 + 3 / (2 * s) - 1 / s ** 3 - 15 / (4 * s ** 4) if axis == 2 else 1 + 3 / (4 * s) + 1 / (2 * s ** 3)
    return free - 2.0 * images()


def case(run, boundary):
    centre = [L / 2.0] * 3
    if RUNS[run] is None:
        places = [centre]
    else:
        r, axis = RUNS[run]
        places = [[c + (sign * r / 2.0 if k == axis else 0.0) for k, c in enumerate(centre)] for sign in (-1, 1)]
    bodies = "".join(BODY.format(i=i, x=p[0], y=p[1], z=p[2]) for i, p in enumerate(places))
    return CASE.format(g=-G, boundary=boundary, bodies=bodies)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "pair_mobility"))
    parser.add_argument("--tumble", default=os.path.join(ROOT, "target", "release", "tumble"))
    parser.add_argument("--boundary", default="surface", choices=["surface", "nodes"])
    parser.add_argument("--runs", nargs="+", default=list(RUNS), choices=list(RUNS))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    mesh = os.path.join(args.out, "pair_box.msh")
    if not os.path.exists(mesh):
        subprocess.run(["gmsh", "-3", os.path.join(ROOT, "meshes", "pair_box.geo"), "-format", "msh41", "-o", mesh],
                       check=True, stdout=subprocess.DEVNULL)
    print(f"{'run':>10} {'r/d':>5} {'tumble':>8} {'Batchelor':>9} {'error':>7} {'over alone':>10}")
    alone = None
    for run in args.runs:
        name = f"{run}_{args.boundary}"
        out = os.path.join(args.out, name)
        if not os.path.exists(os.path.join(out, "summary.json")):
            path = os.path.join(args.out, name + ".toml")
            with open(path, "w") as f:
                f.write(case(run, args.boundary))
            if subprocess.run([args.tumble, "run", "--quiet", "--out", out, path], stdout=subprocess.DEVNULL).returncode != 0:
                sys.exit(f"{path}: tumble failed (see {out}/summary.json)")
        with open(os.path.join(out, "summary.json")) as f:
            speed = json.load(f)["settling_velocity"] / U0
        ref = reference(run)
        if RUNS[run] is None:
            alone = speed / ref
        # The pair's error over the lone sphere's: the interaction's own, less the resolution's.
        relative = f"{100 * (speed / ref / alone - 1):+9.2f}%" if alone and RUNS[run] else ""
        r = "-" if RUNS[run] is None else f"{RUNS[run][0]:g}"
        print(f"{run:>10} {r:>5} {speed:8.4f} {ref:9.4f} {100 * (speed / ref - 1):+6.2f}% {relative:>10}", flush=True)


if __name__ == "__main__":
    main()
