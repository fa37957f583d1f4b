"""A sphere approaching a wall, and two spheres approaching each other, at Re << 1 against
Brenner's (1961) exact series.

A sphere of radius a = 1 settles along the axis of a closed cylinder of radius R = 30 a onto its
bottom (meshes/sphere_wall_r30.msh), from a gap of 3 a; or two spheres on the axis of a taller one
(meshes/sphere_pair_r30.msh), from a gap of 6 a, fall and approach each other: the upper one
carries twice the net weight W, the lower one none (neutrally buoyant: the fictitious domain
takes no body lighter than the liquid). In Stokes flow the two motions add: the pair falls as
under W each (Stimson & Jeffery 1926) and approaches as under W and -W (Brenner 1961). The liquid is
made so light (density 1e-3, viscosity 10) that the flow is Stokes's at every instant: the
viscous time a^2 rho_f / mu = 1e-4 against the approach's a/U of about 1, so that the unsteady
drag (Basset's history term, sqrt of their ratio: 1 %) and the bodies' inertia (their response time
m / (6 pi mu a) = 5e-5) are out of the comparison (with the liquid of density 1 the ratios
below moved by about 1 %, docs/validation.md).

Each run gives, row by row, the gap h (sphere to wall; half the gap between the two spheres,
the plane of symmetry being a free surface for each of them) and the drag factor
beta = W / (6 pi mu a U) (U the approach speed of a sphere), against Brenner's beta for a no-slip
wall (the sphere) or a free surface (the pair: the plane between two equal spheres approaching
at equal speeds is one). The cylinder's walls: near the bottom a sphere's disturbance decays as
1/r^3 (Blake's image system), the pair's approach as 1/r^2 (a force dipole), so at R = 30 a the
side walls and ends matter little below 2 a (the sphere's ratio at R = 15 a and at R = 30 a
differ by 0.4 %, docs/validation.md). The pair's fall is a Stokeslet pair whose 1/r field the
side walls slow more: in the first reflection each sphere sees the walls' answer to the pair's
whole force 2W, twice a single sphere's, whose mobility Haberman & Sayre's factor K(a/R) gives
(1/K = 0.93 at R = 30 a). So the pair's factor lambda = W / (6 pi mu a U_fall) is compared with
Stimson & Jeffery's as it is and as 1/(1/lambda_SJ - 2 (1 - 1/K)). The film's force (`fz`) and the fluid's (`hz`) are read apart,
and the share of Brenner's resistance that the fluid mesh alone carries is the fluid's
part over Brenner's.

Usage (cargo build --release first; 15-40 min a run on 2 cores, cached in --out):

    python3 scripts/sphere_wall.py --out out/sphere_wall --csv docs/reference/sphere_wall_runs.csv \
        --image docs/images/validation_sphere_wall.png
"""

import argparse
import csv
import math
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
A, MU, RHO_F, R = 1.0, 10.0, 1e-3, 30.0
# The net weight of each sphere, (rho_s - rho_f) (4/3 pi a^3) g with rho_s - rho_f = 1e-3 and
# g = 45 000: 188.5, the Stokes drag of the unit sphere at the speed 1.
G = 45000.0
DELTA_RHO = 1e-3

# With the pressure converged in each step (`pressure_passes`) the spheres are a hundredth of the
# liquid's density heavier instead of twice as heavy, g a hundred times larger (the same weight):
# a body's velocity trails its fluid's by rho_s/rho_f - 1 steps in creeping flow (docs/theory.md,
# "The bodies' own inertia").
LIGHT = 100.0

# name, geometry ("wall" or "pair"), body boundary, film (cut, share) or None, time step,
# starting gap h0, end, and the pressure passes a step (1 unless given)
RUNS = [
    ("wall_nodes", "wall", "nodes", None, 0.05, 3.0, 6.0),
    ("wall_surface", "wall", "surface", None, 0.05, 3.0, 6.0),
    ("wall_film", "wall", "surface", (0.5, 0.0), 0.05, 1.0, 9.0),
    ("wall_surface_dt025", "wall", "surface", None, 0.025, 1.0, 1.6),
    ("wall_film_dt025", "wall", "surface", (0.5, 0.0), 0.025, 0.5, 7.0),
    ("wall_calibrated", "wall", "surface", (0.25, 0.54), 0.05, 3.0, 8.0),
    ("pair_surface", "pair", "surface", None, 0.05, 3.0, 6.0),
    ("pair_calibrated", "pair", "surface", (0.25, 0.54), 0.05, 1.0, 5.0),
    ("wall_passes", "wall", "surface", None, 0.05, 1.0, 1.6, 3),
    ("wall_film_passes", "wall", "surface", (0.5, 0.0), 0.05, 1.0, 9.0, 3),
    ("wall_calibrated_passes", "wall", "surface", (0.225, 0.5), 0.05, 0.5, 3.0, 3),
    ("pair_calibrated_passes", "pair", "surface", (0.225, 0.5), 0.05, 0.5, 1.5, 3),
    ("wall_calibrated_passes_full", "wall", "surface", (0.225, 0.5), 0.05, 2.5, 8.0, 3),
]

CASE = """dimension = 3
gravity = [0, 0, {g}]

[domain]
mesh = "{mesh}"
walls = ["bottom", "top", "side"]

[fluid]
density = {rho_f}
viscosity = {mu}
stokes = true
body_boundary = "{boundary}"
pressure_passes = {passes}

[fluid.boundary]
bottom = "no-slip"
top = "no-slip"
side = "no-slip"
{bodies}
[contact]
law = "collision"
range = {hr}
restitution = 0.5
duration = 0.05
resolution = 0.05
{film}
[time]
step = {dt}
end = {end}

[output]
every = 0
csv_every = 1
"""

BODY = """
[[bodies]]
name = "{name}"
shape = {{ type = "circle", radius = {a} }}
density = {rho}
position = [0, 0, {z}]
"""

HR = 0.005 * A  # the film's cut-off and the collision law's range


def case_text(geometry, boundary, film, dt, h0, end, passes=1):
    light = LIGHT if passes > 1 else 1.0
    delta, g = DELTA_RHO / light, G * light
    if geometry == "wall":
        mesh = "sphere_wall_r30.msh"
        bodies = BODY.format(name="sphere", a=A, rho=RHO_F + delta, z=A + h0)
    else:
        # the pair on the axis of a cylinder 60 a tall about the height 38 a (18 a below the top
        # at h0 = 3 a): the upper sphere carries twice the net weight, the lower none (the
        # fictitious domain takes no body lighter than the liquid), so that they approach under
        # equal and opposite forces W while both fall under W.
        mesh = "sphere_pair_r30.msh"
        bodies = (BODY.format(name="upper", a=A, rho=RHO_F + 2.0 * delta, z=38.0 * A + A + h0)
                  + BODY.format(name="lower", a=A, rho=RHO_F, z=38.0 * A - A - h0))
    text = f"lubrication = {{ cut = {film[0]}, roughness = {HR}, share = {film[1]} }}\n" if film else ""
    return CASE.format(g=-g, mesh=os.path.join(ROOT, "meshes", mesh), rho_f=RHO_F, mu=MU,
                       boundary=boundary, passes=passes, bodies=bodies, hr=HR, film=text, dt=dt, end=end)


def bispherical(h, a, bracket, terms=400):
    """The series the bispherical coordinates give for two spheres (or a sphere and a plane) on
    their line of centres: (4/3) sinh(alpha) sum_n n(n+1)/((2n-1)(2n+3)) bracket(n, alpha),
    cosh(alpha) = (h + a)/a for a sphere of radius a at a gap h from the plane (the plane of
    symmetry for two spheres). The terms fall as exp(-(2n-1) alpha); they stop where sinh would
    overflow."""
    alpha = math.acosh((h + a) / a)
    total = 0.0
    for n in range(1, terms + 1):
        if (2 * n + 1) * alpha > 600.0:
            break
        total += n * (n + 1) / ((2 * n - 1) * (2 * n + 3)) * bracket(n, alpha)
    return 4.0 / 3.0 * math.sinh(alpha) * total


def brenner_wall(h, a=A):
    """Brenner's (1961) drag factor of a sphere of radius a moving normal to a plane no-slip wall
    at a gap h: the bracket (2 sinh((2n+1)alpha) + (2n+1) sinh(2 alpha))
    / (4 sinh^2((n+1/2)alpha) - (2n+1)^2 sinh^2(alpha)) - 1."""
    def bracket(n, alpha):
        num = 2.0 * math.sinh((2 * n + 1) * alpha) + (2 * n + 1) * math.sinh(2.0 * alpha)
        den = 4.0 * math.sinh((n + 0.5) * alpha) ** 2 - (2 * n + 1) ** 2 * math.sinh(alpha) ** 2
        return num / den - 1.0
    return bispherical(h, a, bracket)


def brenner_free(h, a=A):
    """Brenner's (1961) drag factor of a sphere moving normal to a plane free surface at a gap h,
    which is also each of two equal spheres approaching each other at equal speeds across a gap
    2h: the bracket (4 cosh^2((n+1/2)alpha) + (2n+1)^2 sinh^2(alpha))
    / (2 sinh((2n+1)alpha) - (2n+1) sinh(2 alpha)) - 1. Near contact a/(4h), the film of the
    two spheres' reduced radius a/2."""
    def bracket(n, alpha):
        num = 4.0 * math.cosh((n + 0.5) * alpha) ** 2 + (2 * n + 1) ** 2 * math.sinh(alpha) ** 2
        den = 2.0 * math.sinh((2 * n + 1) * alpha) - (2 * n + 1) * math.sinh(2.0 * alpha)
        return num / den - 1.0
    return bispherical(h, a, bracket)


def stimson_jeffery(h, a=A):
    """Stimson & Jeffery's (1926) drag factor of each of two equal spheres falling together
    along their line of centres across a gap 2h: the bracket 1 - (4 sinh^2((n+1/2)alpha)
    - (2n+1)^2 sinh^2(alpha)) / (2 sinh((2n+1)alpha) + (2n+1) sinh(2 alpha)); 0.645 at contact."""
    def bracket(n, alpha):
        num = 4.0 * math.sinh((n + 0.5) * alpha) ** 2 - (2 * n + 1) ** 2 * math.sinh(alpha) ** 2
        den = 2.0 * math.sinh((2 * n + 1) * alpha) + (2 * n + 1) * math.sinh(2.0 * alpha)
        return 1.0 - num / den
    return bispherical(h, a, bracket)


def haberman(lam):
    """Haberman & Sayre's (1958) wall factor of a sphere on the axis of a cylinder, lam = a/R."""
    return 1.0 / (1.0 - 2.10444 * lam + 2.08877 * lam**3 - 0.94813 * lam**5 - 1.372 * lam**6
                  + 3.87 * lam**8 - 4.19 * lam**10)


def rows(folder, geometry):
    """(time, gap h, approach speed U, film's force, fluid's force, fall speed) of each row, the
    forces along the approach; the pair's from both spheres, averaged (the fall speed is the
    pair's mean, none for the single sphere)."""
    by_time = {}
    with open(os.path.join(folder, "bodies.csv"), newline="") as f:
        for r in csv.DictReader(f):
            by_time.setdefault(float(r["time"]), {})[r["body"]] = r
    out = []
    for t in sorted(by_time):
        b = by_time[t]
        if geometry == "wall":
            s = b["sphere"]
            h, u = float(s["z"]) - A, -float(s["vz"])
            film, fluid, fall = float(s["fz"]), float(s["hz"]), None
        else:
            up, lo = b["upper"], b["lower"]
            h = 0.5 * (float(up["z"]) - float(lo["z"]) - 2.0 * A)
            u = 0.5 * (float(lo["vz"]) - float(up["vz"]))
            film = 0.5 * (float(up["fz"]) - float(lo["fz"]))
            fluid = 0.5 * (float(up["hz"]) - float(lo["hz"]))
            fall = -0.5 * (float(up["vz"]) + float(lo["vz"]))
        out.append((t, h, u, film, fluid, fall))
    return out


def measure(folder, geometry):
    """The comparison row by row while the sphere approaches (from the tenth step, after the
    start's transient: the pressure correction builds the pressure over several steps) down to
    the cut-off. A row's velocity is the one the step's solve gave the body where it stood at the
    step's start (the fluid's rows, the film and the forces are placed there, and the body then
    moves by its new velocity): it is compared at the previous row's gap."""
    weight = DELTA_RHO * 4.0 / 3.0 * math.pi * A**3 * G
    stokes = 6.0 * math.pi * MU * A
    reference = brenner_wall if geometry == "wall" else brenner_free
    table = []
    table_rows = rows(folder, geometry)
    for (_, h, *_), (t, _, u, film, fluid, fall) in list(zip(table_rows, table_rows[1:]))[9:]:
        if u <= 0.0 or h <= HR or h > 3.0 * A:
            continue
        beta = weight / (stokes * u)
        exact = reference(h)
        row = {"time": t, "gap": h, "beta": beta, "brenner": exact, "ratio": beta / exact,
               "mesh_share": fluid / (stokes * u) / exact, "film": film / (stokes * u)}
        if fall is not None:
            exact = stimson_jeffery(h)
            walls = 1.0 / (1.0 / exact - 2.0 * (1.0 - 1.0 / haberman(A / R)))
            row["fall_ratio"] = weight / (stokes * fall) / exact
            row["fall_ratio_walls"] = weight / (stokes * fall) / walls
        table.append(row)
    return table


def run(name, geometry, boundary, film, dt, h0, end, passes, out, tumble):
    folder = os.path.join(out, name)
    if not os.path.exists(os.path.join(folder, "bodies.csv")):
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, f"{name}.toml")
        with open(path, "w") as f:
            f.write(case_text(geometry, boundary, film, dt, h0, end, passes))
        subprocess.run([tumble, "run", "--quiet", "--out", folder, path], check=True)
    return measure(folder, geometry)


GAPS = [2.0, 1.5, 1.0, 0.7, 0.5, 0.3, 0.2, 0.15, 0.1, 0.05, 0.02, 0.01]


def at(table, gap):
    """The mean of the rows within 5 % of the gap (near contact the film's steps alternate about
    the balance), or None where the run has no row there."""
    near = [r for r in table if abs(math.log(r["gap"] / gap)) <= 0.05]
    if not near:
        return None
    return {key: sum(r[key] for r in near) / len(near) for key in near[0]}


def calibrate(resolved, film, low=0.1, high=2.0):
    """The film's cut and share that bring the sphere's resistance closest to Brenner's from
    `high` down to `low` (the worst ratio's distance from 1, then the mean square's), from the
    fluid mesh's share of it as measured, averaged over the rows within 5 % of each gap of a
    geometric grid (the rows scatter by a few per cent as the sphere crosses the mesh's layers):
    by `resolved` (a run without the film) where it has rows at or above the cut, by `film` (a run
    with a film whose share is 0, its fluid's force read apart) elsewhere. In Stokes flow the
    mesh's resistance and the film's add, so a film (1 - s)(a/h - a/h_c) gives the ratio
    share_mesh + (1 - s)(a/h - a/h_c)/beta_Brenner. Returns (worst, cut, share, lowest, highest)
    of the best few."""
    grid = []
    gap = high
    while gap >= low * (1.0 - 1e-9):
        grid.append(gap)
        gap /= 1.05
    best = []
    for cut in (0.15, 0.175, 0.2, 0.225, 0.25, 0.3, 0.4, 0.5, 0.75, 1.0):
        shares = []
        for g in grid:
            r = (at(resolved, g) if g >= cut else None) or at(film, g)
            if r is not None:
                shares.append((g, r["mesh_share"]))
        for share in (k / 50 for k in range(50)):
            ratios = [m + (1 - share) * max(A / h - A / cut, 0.0) / brenner_wall(h) for h, m in shares]
            rms = math.sqrt(sum((r - 1.0) ** 2 for r in ratios) / len(ratios))
            best.append((round(max(abs(r - 1.0) for r in ratios), 3), rms, cut, share, min(ratios), max(ratios)))
    return [b[:1] + b[2:] for b in sorted(best)[:3]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/sphere_wall")
    parser.add_argument("--tumble", default=os.path.join(ROOT, "target", "release", "tumble"))
    parser.add_argument("--runs", nargs="*", help="the runs' names (default: all)")
    parser.add_argument("--csv", help="write the table here")
    parser.add_argument("--image")
    args = parser.parse_args()
    results = []
    for name, geometry, boundary, film, dt, h0, end, *passes in RUNS:
        if args.runs and name not in args.runs:
            continue
        table = run(name, geometry, boundary, film, dt, h0, end, passes[0] if passes else 1, args.out, args.tumble)
        results.append((name, geometry, table))
        print(f"# {name}: the drag factor over Brenner's (the fluid mesh's share) at the gap h/a")
        print("  ".join(f"{g:>11g}" for g in GAPS))
        cells = []
        for g in GAPS:
            r = at(table, g)
            cells.append(f"{r['ratio']:.3f} ({r['mesh_share']:.2f})" if r else "")
        print("  ".join(f"{c:>11}" for c in cells))
        if geometry == "pair":
            cells = [at(table, g) for g in GAPS]
            print("  the fall's factor over Stimson & Jeffery's, as it is and with the walls' first reflection:")
            print("  ".join(f"{r['fall_ratio']:>11.3f}" if r else " " * 11 for r in cells))
            print("  ".join(f"{r['fall_ratio_walls']:>11.3f}" if r else " " * 11 for r in cells))
    tables = {name: table for name, _, table in results}
    for resolved, film in (("wall_surface", "wall_film"), ("wall_surface_dt025", "wall_film_dt025"),
                           ("wall_passes", "wall_film_passes")):
        if resolved in tables and film in tables:
            print(f"# the film's cut and share closest to Brenner's from 2 a to 0.1 a ({resolved}, {film}):")
            for worst, cut, share, lo, hi in calibrate(tables[resolved], tables[film]):
                print(f"  cut {cut:g} a, share {share:.2f}: ratios {lo:.3f} to {hi:.3f} (worst {worst:.1%})")
    if args.csv:
        tmp = args.csv + ".part"
        with open(tmp, "w", newline="") as f:
            f.write("# scripts/sphere_wall.py: a sphere of radius 1 approaching a wall (geometry wall) or two\n"
                    "# approaching each other (pair) at Re << 1; gap h over a (half the spheres' gap for the pair),\n"
                    "# the drag factor beta = W/(6 pi mu a U), Brenner's (1961) for the wall or the free surface,\n"
                    "# their ratio, and the fluid mesh's share of Brenner's (the film's force left out).\n")
            w = csv.writer(f)
            w.writerow(["run", "geometry", "gap", "beta", "brenner", "ratio", "mesh_share"])
            for name, geometry, table in results:
                for r in table:
                    w.writerow([name, geometry, f"{r['gap']:.5g}", f"{r['beta']:.5g}", f"{r['brenner']:.5g}",
                                f"{r['ratio']:.4f}", f"{r['mesh_share']:.4f}"])
        os.replace(tmp, args.csv)
    if args.image:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(11, 7), sharey=True)
        for ax, geometry, title in ((axes[0], "wall", "a sphere and a wall"),
                                    (axes[1], "pair", "two spheres (h: half their gap)")):
            for name, g, table in results:
                if g != geometry or not table:
                    continue
                film = next(run[3] for run in RUNS if run[0] == name)
                if film is not None and film[1] == 0.0:
                    # the whole film on top of the mesh's share: the share is what it measures
                    ax.semilogx([r["gap"] for r in table], [r["mesh_share"] for r in table], "--",
                                label=f"{name}: the fluid's part")
                else:
                    ax.semilogx([r["gap"] for r in table], [r["ratio"] for r in table], label=name)
                if geometry == "pair":
                    ax.semilogx([r["gap"] for r in table], [r["fall_ratio_walls"] for r in table], ":",
                                label=f"{name}: the fall over Stimson & Jeffery's (the walls' reflection out)")
            ax.axhspan(0.95, 1.05, color="0.9")
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_xlabel("gap h / a")
            ax.set_title(title)
            ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14))
        axes[0].set_ylabel("drag factor over Brenner's (1961)")
        axes[0].set_ylim(0.4, 1.3)
        fig.tight_layout()
        fig.savefig(args.image, dpi=120)
        print(f"wrote {args.image}")


if __name__ == "__main__":
    main()
