"""The restitution of a sphere bouncing on a plate in a liquid against the Stokes number.

A steel sphere (d = 4 mm, density 7.8e-3 g/mm³) thrown at 500 mm/s onto the bottom of a
8 d x 8 d x 8 d box of liquid (density 0.95e-3) from a gap of 1.5 d, under gravity, in 3D
(meshes/bounce.msh, from meshes/gondret.geo: d/6 along the path, d/8 over the plate); the
liquid's viscosity sets the Stokes number St = rho_s U d / (9 mu). The collision law is dry steel
on glass (e = 0.97, Gondret et al. 2002) and the lubrication film is the one of
cases/gondret_st27.toml (cut two cells over the plate, ending at 1e-3 of the radius); the
convection along the characteristics, as in the Gondret cases above St 27 (Re up to 1 000). Each run
gives the impact speed U (the downward speed where the gap falls to half a diameter), the Stokes number at
it, and the effective restitution (the largest upward speed after the contact once the gap is
0.025 d, past the film's sharp part, over U; scripts/gondret.py); the
table goes to a CSV and, with --image and matplotlib, a picture of e_eff / e_dry against St
beside the experiments' master curve (docs/reference/restitution_master_curve.csv) and
Gondret et al.'s two trajectories (docs/reference/gondret_2002_restitution.csv).

The sphere starts at 500 mm/s in a liquid at rest (as waLBerla's benchmark starts it, at its
impact speed, a diameter or so from the plate): the fluid takes up the sphere's speed within
the first steps, and in the viscous liquids gravity and the drag change it before the impact.
The Stokes number is the one at the impact. Usage (about 3 min a run on 2 cores):

    cargo build --release
    python3 scripts/restitution.py --out out/restitution --csv docs/reference/restitution_runs.csv \
        --image docs/images/validation_restitution.png
"""

import argparse
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gondret import measure, run_rows  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D, RHO_S, RHO_F, U0, E_DRY = 4.0, 7.8e-3, 0.95e-3, 500.0, 0.97
STOKES = [3, 6, 10, 15, 20, 30, 50, 100, 200, 500, 1000]

CASE = """dimension = 3
gravity = [0, 0, -9810]

[domain]
mesh = "{mesh}"
walls = ["bottom", "top", "sides"]

[fluid]
density = {rho_f}
viscosity = {mu}
convection = "characteristics"

[fluid.boundary]
bottom = "no-slip"
top = "no-slip"
sides = "no-slip"

[[bodies]]
name = "sphere"
shape = {{ type = "circle", radius = {a} }}
density = {rho_s}
position = [0, 0, {z0}]
velocity = [0, 0, {v0}]

[contact]
law = "collision"
range = {hr}
restitution = {e}
duration = 2e-4
resolution = 0.1
lubrication = {{ cut = {cut}, roughness = {hr} }}

[time]
step = {dt}
end = {end}

[output]
every = 0
csv_every = 1
"""


def case_text(mu):
    a = 0.5 * D
    return CASE.format(mesh=os.path.join(ROOT, "meshes", "bounce.msh"), rho_f=RHO_F, mu=mu, a=a,
                       rho_s=RHO_S, z0=a + 1.5 * D, v0=-U0, hr=1e-3 * a, e=E_DRY, cut=D / 4,
                       dt=2.5e-4, end=0.045)


def run(st, out, tumble):
    mu = RHO_S * U0 * D / (9.0 * st)
    folder = os.path.join(out, f"st{st:g}")
    if not os.path.exists(os.path.join(folder, "bodies.csv")):
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, f"st{st:g}.toml")
        with open(path, "w") as f:
            f.write(case_text(mu))
        subprocess.run([tumble, "run", "--quiet", "--out", folder, path], check=True)
    rows = run_rows(folder)
    times = [r[0] for r in rows]
    m = measure(times, [r[1] - 0.5 * D for r in rows], [r[2] for r in rows], D)
    u = approach_speed(times, rows, 0.5 * D)
    if u is None:
        return None  # it did not reach the plate within the run
    # No contact followed by a rise: the film stopped the sphere on the plate (no rebound).
    rebound = m["risen_speed"] if m is not None else 0.0
    return {"mu": mu, "impact_speed": u, "stokes": RHO_S * u * D / (9.0 * mu),
            "reynolds": RHO_F * u * D / mu, "restitution": rebound / u}


def approach_speed(times, rows, gap):
    """The downward speed where the gap first falls to `gap` (interpolated between rows): the
    approach's speed before the wall slows it, as a video of the fall would give it."""
    a = 0.5 * D
    for k in range(1, len(rows)):
        g0, g1 = rows[k - 1][1] - a, rows[k][1] - a
        if g0 > gap >= g1:
            s = (g0 - gap) / (g0 - g1)
            return -((1 - s) * rows[k - 1][2] + s * rows[k][2])
    return None


def reference(path):
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    reader = csv.DictReader(lines)
    return [(float(r["stokes"]), float(r["e_over_e_dry"])) for r in reader]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/restitution")
    parser.add_argument("--tumble", default=os.path.join(ROOT, "target", "release", "tumble"))
    parser.add_argument("--st", type=float, nargs="*", default=STOKES, help="the nominal Stokes numbers")
    parser.add_argument("--csv", help="write the table here")
    parser.add_argument("--image")
    args = parser.parse_args()
    table = []
    print("St (nominal)   mu       U (mm/s)  St     Re      e_eff   e_eff/e_dry")
    for st in args.st:
        r = run(st, args.out, args.tumble)
        if r is None:
            print(f"{st:8g}  did not reach the plate within the run")
            continue
        table.append(r)
        print(f"{st:8g}  {r['mu']:.5f}  {r['impact_speed']:7.1f}  {r['stokes']:6.1f}  {r['reynolds']:6.1f}"
              f"  {r['restitution']:.3f}  {r['restitution'] / E_DRY:.3f}")
    if args.csv:
        tmp = args.csv + ".part"
        with open(tmp, "w", newline="") as f:
            f.write("# scripts/restitution.py: a steel sphere (d = 4 mm) thrown at 500 mm/s onto a plate in\n"
                    "# liquids of density 0.95e-3 g/mm3, the viscosity mu (g/(mm s)) setting the Stokes number;\n"
                    "# U is the impact speed (mm/s), St and Re at it, e_eff the rebound's speed over U, e_dry = 0.97.\n")
            w = csv.writer(f)
            w.writerow(["mu", "impact_speed", "stokes", "reynolds", "e_eff", "e_over_e_dry"])
            for r in table:
                w.writerow([f"{r['mu']:.6g}", f"{r['impact_speed']:.2f}", f"{r['stokes']:.2f}",
                            f"{r['reynolds']:.2f}", f"{r['restitution']:.4f}", f"{r['restitution'] / E_DRY:.4f}"])
        os.replace(tmp, args.csv)
    if args.image:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.8))
        ref = os.path.join(ROOT, "docs", "reference", "restitution_master_curve.csv")
        if os.path.exists(ref):
            pts = reference(ref)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "k-", lw=1, label="exp(−35/St) (Legendre et al. 2006)")
        gondret = os.path.join(ROOT, "docs", "reference", "gondret_2002_restitution.csv")
        if os.path.exists(gondret):
            pts = reference(gondret)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "ks", ms=5,
                    label="Gondret et al. (2002), St 27 and 152")
        ax.plot([r["stokes"] for r in table], [r["restitution"] / E_DRY for r in table], "o",
                color="tab:red", label="tumble, 3D")
        ax.set_xscale("log")
        ax.set_xlim(1, 3000)
        ax.set_ylim(-0.05, 1.1)
        ax.set_xlabel("Stokes number at the impact, St = ρ_s U d / (9 μ)")
        ax.set_ylabel("e_eff / e_dry")
        ax.legend(loc="upper left")
        fig.tight_layout()
        fig.savefig(args.image, dpi=120)
        print(f"wrote {args.image}")
    if not table:
        sys.exit(1)


if __name__ == "__main__":
    main()
