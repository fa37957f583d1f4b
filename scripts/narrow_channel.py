"""The specification's 4.5: an ellipse settling in a channel barely wider than it, with the
collision law and the lubrication film, at several density ratios; the modes it shows.

The specification's geometry (its section 4.5, after Xia et al. 2009, J. Fluid Mech. 625, 249): a
channel of width L = 16/130, an ellipse of axes 0.1 and 0.05 (full lengths; blockage A/L = 13/16)
released at rest at the centre with its long axis at θ₀ = π/3 to the horizontal, the channel
infinitely long (a frame that follows the ellipse). Its stated fluid (ρ_f 1.195, μ 0.305) gives Re
≈ 0.01 and a plain vertical fall (docs/validation.md); here Xia et al.'s water (ρ_f 1, μ 0.01, CGS,
g = 981) at ellipse densities from 1.1 to 1.5, with `law = "collision"` (e = 0.9, t_c = 1 ms, no
friction; the ellipse's field at 1/50 of its short axis), the convection along the characteristics
(the explicit one diverged at μ = 0.006 within 0.12 s) and the film (cut two cells, cut-off 1e-3 of
the long axis).

Each run's `bodies.csv` over its second half gives the mode, in Xia et al.'s names:
- "tumbling": the ellipse turns over (its angle spans more than π), "along a wall" when its
  centre keeps to one side (its mean a tenth of L or more off the axis);
- "oscillating": the centre swings across the channel (more than a tenth of L) or the angle by
  more than 0.2 rad, without turning over; "at a wall" when its centre keeps to one side (its
  mean more than a twentieth of L off the axis: lying across the channel, the ellipse's centre
  is at most 0.094 L off it);
- otherwise steady: "horizontal" (long axis within 0.1 rad of horizontal), "vertical" (within
  0.1 rad of vertical) or "inclined".

Usage (about 2–6 min a run on 2 cores):

    cargo build --release
    python3 scripts/narrow_channel.py --out out/narrow_channel [--density 1.1 1.2 ...] \
        [--viscosity 0.01] [--csv docs/reference/narrow_channel_modes.csv] [--image PNG]

prints a row per run (the mode, the mean settling speed, the Reynolds number U A ρ_f / μ, the
centre's mean offset from the axis and its swing, the angle's range and net turn) and, with
--image and matplotlib, draws the map of the modes (density ratio against viscosity) and each
run's angle against its height.
"""

import argparse
import csv
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH, LONG, SHORT, THETA0, G = 16.0 / 130.0, 0.1, 0.05, math.pi / 3.0, 981.0

CASE = """dimension = 2
gravity = [0, -{g}]

[domain]
box = [[0, 0], [{width}, {length}]]
cells = [{nx}, {ny}]
walls = ["xmin", "xmax"]

[fluid]
density = 1.0
viscosity = {mu}
body_boundary = "surface"
convection = "characteristics"

[fluid.boundary]
xmin = "no-slip"
xmax = "no-slip"
ymin = {{ velocity = [0, 0] }}
ymax = "outflow"

[frame]
follow = "ellipse"

[[bodies]]
name = "ellipse"
shape = {{ type = "ellipse", semi_axes = [{a}, {b}] }}
density = {rho}
position = [{x0}, {y0}]
angle = {theta}

[contact]
law = "collision"
range = {hr}
restitution = 0.9
duration = 1e-3
friction = 0
resolution = {res}
lubrication = {{ cut = {cut}, roughness = {hr} }}

[time]
step = {dt}
end = {end}

[output]
every = 0
csv_every = 5
"""


def case_text(rho, mu, end, cells):
    h = WIDTH / cells
    length = 1.0
    return CASE.format(g=G, width=WIDTH, length=length, nx=cells, ny=round(length / h), mu=mu,
                       a=LONG / 2, b=SHORT / 2, rho=rho, x0=WIDTH / 2, y0=0.4 * length,
                       theta=THETA0, hr=1e-3 * LONG, res=SHORT / 50, cut=2 * h, dt=5e-4, end=end)


def rows(folder):
    with open(os.path.join(folder, "bodies.csv"), newline="") as f:
        return [(float(r["time"]), float(r["x"]), float(r["y"]), float(r["angle"]), float(r["vy"]))
                for r in csv.DictReader(f)]


def classify(data):
    """The mode over the run's second half, and the numbers it was read from."""
    half = [r for r in data if r[0] >= 0.5 * data[-1][0]]
    xs = [r[1] - 0.5 * WIDTH for r in half]
    angles = [r[3] for r in half]
    turn = angles[-1] - angles[0]
    swing = max(xs) - min(xs)
    spread = max(angles) - min(angles)
    offset = sum(xs) / len(xs)
    speed = -(half[-1][2] - half[0][2]) / (half[-1][0] - half[0][0])
    folded = sum(abs(math.remainder(a, math.pi)) for a in angles) / len(angles)
    if spread > math.pi and abs(offset) > 0.1 * WIDTH:
        mode = "tumbling along a wall"
    elif spread > math.pi:
        mode = "tumbling"
    elif (swing > 0.1 * WIDTH or spread > 0.2) and abs(offset) > 0.05 * WIDTH:
        mode = "oscillating at a wall"
    elif swing > 0.1 * WIDTH or spread > 0.2:
        mode = "oscillating"
    elif folded < 0.1:
        mode = "horizontal"
    elif abs(folded - 0.5 * math.pi) < 0.1:
        mode = "vertical"
    else:
        mode = "inclined"
    return {"mode": mode, "speed": speed, "offset": offset / WIDTH, "swing": swing / WIDTH,
            "spread": spread, "turn": turn}


def run(rho, mu, args):
    folder = os.path.join(args.out, f"rho{rho:g}_mu{mu:g}")
    if not os.path.exists(os.path.join(folder, "bodies.csv")):
        os.makedirs(args.out, exist_ok=True)
        path = folder + ".toml"
        with open(path, "w") as f:
            f.write(case_text(rho, mu, args.end, args.cells))
        done = subprocess.run([args.tumble, "run", "--quiet", "--out", folder, path])
        if done.returncode != 0:
            return {"rho": rho, "mu": mu, "mode": "failed", "folder": folder}
    data = rows(folder)
    result = classify(data)
    result.update(rho=rho, mu=mu, folder=folder, reynolds=result["speed"] * LONG / mu,
                  end=data[-1][0])
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/narrow_channel")
    parser.add_argument("--tumble", default=os.path.join(ROOT, "target", "release", "tumble"))
    parser.add_argument("--density", type=float, nargs="*", default=[1.1, 1.2, 1.3, 1.4, 1.5])
    parser.add_argument("--viscosity", type=float, nargs="*", default=[0.01])
    parser.add_argument("--end", type=float, default=3.0, help="each run's final time (s)")
    parser.add_argument("--cells", type=int, default=32, help="cells across the channel")
    parser.add_argument("--csv")
    parser.add_argument("--image")
    args = parser.parse_args()
    table = [run(rho, mu, args) for mu in args.viscosity for rho in args.density]
    print("rho_e  mu      mode                    U (cm/s)  Re     offset/L  swing/L  angle range  turn")
    for r in table:
        if r["mode"] == "failed":
            print(f"{r['rho']:5g}  {r['mu']:<6g}  failed (see {r['folder']}/summary.json)")
            continue
        print(f"{r['rho']:5g}  {r['mu']:<6g}  {r['mode']:<22}  {r['speed']:8.3f}  {r['reynolds']:5.2f}  "
              f"{r['offset']:+8.3f}  {r['swing']:7.3f}  {r['spread']:11.3f}  {r['turn']:+6.2f}")
    if args.csv:
        tmp = args.csv + ".part"
        with open(tmp, "w", newline="") as f:
            f.write("# scripts/narrow_channel.py: the specification's 4.5 (channel 16/130 wide, ellipse axes 0.1 and\n"
                    "# 0.05, theta0 = pi/3) in Xia et al.'s water (rho_f 1, g 981, CGS) with the collision law and\n"
                    "# the film; over each run's second half: the mode, the mean settling speed U (cm/s), Re = U A / nu,\n"
                    "# the centre's mean offset and swing over L, the angle's range and net turn (rad).\n")
            w = csv.writer(f)
            w.writerow(["density", "viscosity", "end", "mode", "speed", "reynolds", "offset", "swing",
                        "angle_range", "turn"])
            for r in table:
                if r["mode"] == "failed":
                    w.writerow([r["rho"], r["mu"], "", "failed", "", "", "", "", "", ""])
                else:
                    w.writerow([r["rho"], r["mu"], f"{r['end']:g}", r["mode"], f"{r['speed']:.4f}",
                                f"{r['reynolds']:.3f}", f"{r['offset']:.4f}", f"{r['swing']:.4f}",
                                f"{r['spread']:.4f}", f"{r['turn']:.4f}"])
        os.replace(tmp, args.csv)
    if args.image:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
        markers = {"oscillating": "o", "oscillating at a wall": ">", "tumbling along a wall": "s", "tumbling": "D", "horizontal": "_",
                   "vertical": "|", "inclined": "v", "failed": "x"}
        for mode, mark in markers.items():
            pts = [r for r in table if r["mode"] == mode]
            if pts:
                ax.scatter([r["rho"] for r in pts], [r["mu"] for r in pts], marker=mark, s=80, label=mode)
        ax.set_xlabel("ellipse density (fluid 1)")
        ax.set_ylabel("viscosity (g/(cm s))")
        ax.set_title("modes over each run's second half")
        ax.legend(fontsize=8)
        for r in table:
            if r["mode"] != "failed":
                data = rows(r["folder"])
                bx.plot([-(d[2] - data[0][2]) / LONG for d in data], [d[3] / math.pi for d in data],
                        lw=0.8, label=f"ρ_e {r['rho']:g}, μ {r['mu']:g}")
        bx.set_xlabel("distance fallen / A")
        bx.set_ylabel("angle / π")
        bx.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.image, dpi=120)
        print(f"wrote {args.image}")
    if any(r["mode"] == "failed" for r in table):
        sys.exit(1)


if __name__ == "__main__":
    main()
