"""Hindered settling: many bodies released at random in a box periodic every way, settling
through their own back-flow, their mean speed against the single body's terminal speed.

Each run: `count` bodies of diameter d = 1 and density 2 placed at random without overlap
(`scatter`, random sequential addition through the periodic images, gaps ≥ `--gap`, 0.1 d) in a cube
(square) whose side gives the volume fraction φ, at rest, under g = 1 along −z (−y in 2D), in a
fluid of density 1 periodic every way and carrying the body force that balances the
suspension's weight (`[fluid] balance`: the mixture's momentum stays zero). The accurate body
boundary (`body_boundary = "surface"`), `cells_per_d` mesh cells across a diameter.

The settling speed is the bodies' mean velocity along g relative to the mean velocity over the
whole box (the frame of zero volume flux, Richardson & Zaki's): with the mixture's momentum zero,
⟨u⟩ = −φ (ρ_s/ρ_f − 1) v̄, so U_s(t) = v̄(t) (1 + φ (ρ_s/ρ_f − 1)), v̄ the bodies' mean velocity
along g read from bodies.csv; its mean over the run's second half (the window `summary.json`'s
`settling_velocity` uses too, checked against it here) is the result.

Regimes (`--regime`):
- `re10`: a lone body's Reynolds number U_t d/ν = 10. 3D: μ = 0.0567, U_t = 0.5557 (Re_t 9.80)
  from the standard drag curve (Clift, Grace & Weber 1978's correlation for 0.01 < Re ≤ 20,
  C_D = 24/Re (1 + 0.1315 Re^(0.82 − 0.05 log10 Re)), solved with the weight); 2D: μ = 0.0743,
  U_t = 0.7429 (Re_t 10.0) from the cylinder's C_D(10) = 2.846 (Dennis & Chang 1970, J. Fluid
  Mech. 42, 471). Semi-Lagrangian convection, Δt = 0.1 to t = 16 (3D) and 0.05 to t = 60 (2D).
- `stokes`: the Stokes equations (Re = 0), μ = 1, U_t = Δρ g d²/(18 μ) (Stokes's law, exact), 3D
  only (a disk has no terminal speed in unbounded Stokes flow); Δt = 1, nine times the
  sphere's relaxation time ρ_s d²/(18 μ), to t = 60: the speed follows the arrangement, which
  changes slowly (spheres about U_t/3 apart move a diameter in some 50 time units), and 16
  spheres at φ = 0.2 settled within 0.15 % of their speed at Δt = 0.5 over t ∈ [10, 20]
  (a lone sphere in a periodic cube of side 4 at d/h = 6 and Δt = 0.5 settles within 0.8 % of
  Hasimoto's speed for the simple cubic array).

References: Richardson & Zaki (1954) U_s/U_t = (1 − φ)^n with Garside & Al-Dibouni's (1977)
n = (5.1 + 0.27 Re_t^0.9)/(1 + 0.1 Re_t^0.9); Yin & Koch (2007, Phys. Fluids 19, 093302,
lattice-Boltzmann, triply periodic) U_s/U_t = k (1 − φ)^n with their fitted k = 0.86 ± 0.04,
n = 3.8 ± 0.2 at Re_t = 9.98 (their k and n at Re_t = 1.02 … 20 are in
docs/reference/hindered_settling_2d.csv's header).

The cases are written into --out and run there. Usage (a 3D run at Re_t 10 took about an hour
on 2 cores at φ = 0.1 and 52 minutes at 0.2 beside the test suite; 0.05, 61 cubes across, about two
hours by the cell count, not run; a 2D one 5–25 minutes on one core):

    cargo build --release
    python3 scripts/hindered_settling.py --dim 2 --cells-per-d 8 --out out/hindered_settling [--fractions 0.05 0.1 0.2] \
        [--csv docs/reference/hindered_settling_2d.csv] [--image docs/images/validation_hindered_settling_2d.png]

(`--cached` uses only the runs already in --out; `--range` and `--gap` set the contact law's range
and the scatter's smallest gap, which shape the arrangement: `scripts/rpy.py` estimates what
they do.) Prints a row per run: φ, the bodies, d/h, the
window, U_s/U_t with its standard error (from the history's block means), Richardson–Zaki's
and Yin & Koch's values and the differences.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RHO_S, G, D = 2.0, 1.0, 1.0
# Yin & Koch (2007), the fit U_s/U_t = k (1 - φ)^n at each Re_t, with its uncertainty.
YIN_KOCH = {1.02: (0.92, 0.03, 4.2, 0.1), 1.83: (0.90, 0.03, 4.1, 0.1), 5.00: (0.86, 0.06, 4.0, 0.3),
            9.98: (0.86, 0.04, 3.8, 0.2), 20.0: (0.88, 0.02, 3.6, 0.1)}
# The repulsive law's ε (`[contact] stiffness`, the force (ρ − gap)²/ε within the range ρ = 0.1):
# its barrier ρ³/(3ε) must exceed a colliding pair's relative kinetic energy. Disks at Re 10
# drafting and kissing overlapped by 2 % of d with 1e-3 (a barrier of 0.33); the spheres' smallest
# gap with 1e-3 was 0.05 (see docs/validation.md "Hindered settling").
STIFFNESS = {2: 1e-4, 3: 1e-3}
RANGE = 0.1
GAP = 0.1
# The distance fields' lattice spacing: the default ρ/4 down to ρ = 0.05; a shorter range keeps it
# (a sphere's lattice at ρ/4 = 0.005 holds 8 million points).
RESOLUTION = 0.0125


def stiffness(dim, reach):
    """The ε that gives the range `reach` the barrier ρ³/(3ε) of STIFFNESS at RANGE."""
    return STIFFNESS[dim] * (reach / RANGE) ** 3

# A disk's terminal speed where its buoyant weight per length, Δρ g π d²/4, is its drag
# C_D ρ_f U² d / 2 at C_D = 2.846 (Dennis & Chang 1970, Re = 10).
DISK_UT = math.sqrt(math.pi * (RHO_S - 1.0) * G * D / (2.0 * 2.846))
# (viscosity, convection, time step, end, U_t, Re_t, how U_t was got) per (dim, regime).
REGIMES = {
    (3, "re10"): (0.0567, "characteristics", 0.1, 16.0, None, None, "standard drag curve (Clift, Grace & Weber 1978)"),
    (2, "re10"): (0.0743, "characteristics", 0.05, 60.0, DISK_UT, DISK_UT * D / 0.0743, "cylinder C_D(10) = 2.846 (Dennis & Chang 1970)"),
    (3, "stokes"): (1.0, None, 1.0, 60.0, (RHO_S - 1.0) * G * D * D / 18.0, 0.0, "Stokes's law"),
}


def clift_grace_weber(mu):
    """The sphere's terminal speed and Reynolds number on the standard drag curve (the
    correlation of Clift, Grace & Weber 1978 for 0.01 < Re ≤ 20), by fixed-point iteration on the
    balance of weight and drag: U² = 4 Δρ g d / (3 ρ_f C_D(U d/ν))."""
    u = 0.5
    for _ in range(200):
        u = math.sqrt(4.0 * (RHO_S - 1.0) * G * D / (3.0 * drag_coefficient(u * D / mu)))
    return u, u * D / mu


def drag_coefficient(re):
    """The sphere's C_D at the Reynolds number `re` on the standard drag curve (Clift, Grace &
    Weber 1978, 0.01 < Re ≤ 20): 24/Re (1 + 0.1315 Re^(0.82 − 0.05 log10 Re))."""
    return 24.0 / re * (1.0 + 0.1315 * re ** (0.82 - 0.05 * math.log10(re)))


def terminal(dim, regime):
    """(U_t, Re_t, source) of a lone body in the regime's fluid."""
    mu, _, _, _, ut, re, source = REGIMES[(dim, regime)]
    if ut is None:
        ut, re = clift_grace_weber(mu)
    return ut, re, source


def garside(re):
    """Garside & Al-Dibouni's Richardson–Zaki exponent at the terminal Reynolds number `re`."""
    return (5.1 + 0.27 * re**0.9) / (1.0 + 0.1 * re**0.9)


def side(phi, count, dim):
    """The box's side holding `count` bodies of diameter D at the fraction `phi`."""
    volume = math.pi * D * D / 4.0 if dim == 2 else math.pi * D**3 / 6.0
    return (count * volume / phi) ** (1.0 / dim)


CASE = """dimension = {dim}
gravity = {gravity}

[domain]
box = [{lo}, {hi}]
cells = {cells}
periodic = {axes}

[fluid]
density = 1.0
viscosity = {mu}
balance = true
{flow}
body_boundary = "surface"

[[bodies]]
name = "s"
shape = {{ type = "{shape}", radius = {r} }}
density = {rho}
position = {centre}
scatter = {{ count = {count}, spread = {centre}, gap = {gap}, seed = {seed} }}

[contact]
range = {range}
stiffness = {stiffness}
resolution = {resolution}

[time]
step = {dt}
end = {end}

[output]
every = {every}
"""


def folder(phi, args):
    """The run's folder in --out and its case file."""
    name = f"hindered_{args.dim}d_{args.regime}_phi{phi}_n{args.count}" + (f"_seed{args.seed}" if args.seed != 1 else "")
    name += f"_range{args.range}" if args.range != RANGE else ""
    name += f"_gap{args.gap}" if args.gap != GAP else ""
    return os.path.join(args.out, name), os.path.join(args.out, name + ".toml")


def run(phi, args):
    """The run's folder after running it (or None with --cached when it has not run)."""
    out, path = folder(phi, args)
    if os.path.exists(os.path.join(out, "summary.json")):
        return out
    if args.cached:
        return None
    mu, convection, dt, end, _, _, _ = REGIMES[(args.dim, args.regime)]
    dim, length = args.dim, side(phi, args.count, args.dim)
    cells = math.ceil(length * args.cells_per_d / D)
    vector = lambda xs: "[" + ", ".join(repr(x) for x in xs) + "]"
    os.makedirs(args.out, exist_ok=True)
    with open(path, "w") as f:
        f.write(
            CASE.format(
                dim=dim,
                gravity=vector([0.0] * (dim - 1) + [-G]),
                lo=vector([0.0] * dim),
                hi=vector([round(length, 4)] * dim),
                cells=vector([cells] * dim),
                axes=vector(["x", "y", "z"][:dim]).replace("'", '"'),
                mu=mu,
                flow=f'convection = "{convection}"' if convection else "stokes = true",
                shape="circle" if dim == 2 else "sphere",
                r=D / 2.0,
                rho=RHO_S,
                centre=vector([round(length / 2.0, 4)] * dim),
                count=args.count,
                dt=dt,
                end=end,
                every=round(end / dt),
                range=args.range,
                stiffness=stiffness(dim, args.range),
                resolution=max(args.range / 4.0, RESOLUTION),
                seed=args.seed,
                gap=args.gap,
            )
        )
    print(f"running {path} (output in {out})", file=sys.stderr)
    done = subprocess.run([args.tumble, "run", "--quiet", "--out", out, path], stdout=subprocess.DEVNULL)
    if done.returncode != 0:
        sys.exit(f"{path}: tumble failed (see {out}/summary.json)")
    return out


def history(out, dim):
    """(times, v̄(t)) from bodies.csv: the bodies' mean velocity along g (−z in 3D, −y in 2D)."""
    column = "vz" if dim == 3 else "vy"
    sums = {}
    with open(os.path.join(out, "bodies.csv")) as f:
        for row in csv.DictReader(f):
            t = float(row["time"])
            s = sums.setdefault(t, [0.0, 0])
            s[0] -= float(row[column])
            s[1] += 1
    times = sorted(sums)
    return times, [sums[t][0] / sums[t][1] for t in times]


def window_mean(times, values, start, blocks=8):
    """The mean of `values` over times ≥ `start` and its standard error from `blocks` block means
    (consecutive samples are correlated, the block means much less)."""
    data = [v for t, v in zip(times, values) if t >= start]
    mean = sum(data) / len(data)
    size = len(data) // blocks
    means = [sum(data[i * size:(i + 1) * size]) / size for i in range(blocks)]
    spread = math.sqrt(sum((m - mean) ** 2 for m in means) / (blocks - 1) / blocks)
    return mean, spread


def analyse(phi, out, summary, args):
    """A row of results for the run in `out`, whose `summary.json` is `summary`."""
    times, vbar = history(out, args.dim)
    frame = 1.0 + phi * (RHO_S - 1.0)
    speed = [v * frame for v in vbar]
    start = 0.5 * times[-1]
    mean, error = window_mean(times, speed, start)
    reported = summary.get("settling_velocity")
    if reported is not None and abs(reported / mean - 1.0) > 0.02:
        print(f"warning: {out}: settling_velocity {reported:.4f} in summary.json, {mean:.4f} from bodies.csv", file=sys.stderr)
    ut, re, _ = terminal(args.dim, args.regime)
    rz = (1.0 - phi) ** garside(re)
    yk = None
    if args.dim == 3 and args.regime == "re10":
        k, _, n, _ = YIN_KOCH[9.98]
        yk = k * (1.0 - phi) ** n
    _, path = folder(phi, args)
    with open(path, "rb") as f:
        domain = tomllib.load(f)["domain"]
    dh = D * domain["cells"][0] / (domain["box"][1][0] - domain["box"][0][0])
    return {
        "phi": phi, "bodies": summary["bodies"], "d_over_h": dh, "window": (start, times[-1]),
        "ratio": mean / ut, "error": error / ut, "rz": rz, "yk": yk, "times": times,
        "history": [s / ut for s in speed], "out": out, "re": re, "hours": summary["wall_seconds"] / 3600.0,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "hindered_settling"))
    parser.add_argument("--tumble", default=os.path.join(ROOT, "target", "release", "tumble"))
    parser.add_argument("--dim", type=int, default=3, choices=[2, 3])
    parser.add_argument("--regime", default="re10", choices=["re10", "stokes"])
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.05, 0.1, 0.2])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1, help="the scatter's seed (another realisation)")
    parser.add_argument("--cells-per-d", type=float, default=6.0)
    parser.add_argument("--range", type=float, default=RANGE,
                        help="the contact range ρ (the stiffness keeps the barrier ρ³/(3ε) of ρ = 0.1)")
    parser.add_argument("--gap", type=float, default=GAP,
                        help="the scatter's smallest gap between the bodies at the start (in d)")
    parser.add_argument("--cached", action="store_true", help="leave out the runs not already in --out")
    parser.add_argument("--csv")
    parser.add_argument("--image")
    args = parser.parse_args()
    if (args.dim, args.regime) not in REGIMES:
        sys.exit(f"no {args.regime} regime in {args.dim}D (a disk has no terminal speed in Stokes flow)")
    rows = []
    ut, re, source = terminal(args.dim, args.regime)
    print(f"U_t = {ut:.4f} (Re_t {re:.2f}, {source}); Richardson-Zaki n = {garside(re):.3f}")
    print(f"{'phi':>5} {'N':>4} {'d/h':>5} {'window':>11} {'U/U_t':>7} {'±':>6} {'R-Z':>6} {'diff':>7} {'Y&K':>6} {'diff':>7} {'hours':>5}")
    for phi in args.fractions:
        out = run(phi, args)
        if out is None:
            continue
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        if summary["status"] != "completed":
            print(f"{phi:5.3g} {summary['status']} at t = {summary.get('time')}: {summary.get('error')}")
            continue
        r = analyse(phi, out, summary, args)
        rows.append(r)
        yk = f"{r['yk']:6.3f} {100 * (r['ratio'] / r['yk'] - 1):6.1f}%" if r["yk"] else f"{'-':>6} {'-':>7}"
        print(f"{phi:5.3g} {r['bodies']:4d} {r['d_over_h']:5.2f} {r['window'][0]:5.1f}–{r['window'][1]:<5.1f} "
              f"{r['ratio']:7.4f} {r['error']:6.4f} {r['rz']:6.3f} {100 * (r['ratio'] / r['rz'] - 1):6.1f}% {yk} {r['hours']:5.2f}")
    if len(rows) >= 3:
        k, n = fit(rows)
        print(f"fit: U_s/U_t = {k:.3f} (1 - phi)^{n:.3f}")
    if args.csv and rows:
        with open(args.csv, "w", newline="") as f:
            f.write(
                f"# Hindered settling, {args.dim}D, regime {args.regime} (scripts/hindered_settling.py): U_s/U_t, the bodies' mean\n"
                "# speed along g relative to the zero-volume-flux frame over the window, over a lone body's terminal speed\n"
                f"# U_t = {ut:.4f} at Re_t = {re:.2f} ({source}); error: the standard error from 8 block means of the window.\n"
                "# richardson_zaki: (1 - phi)^n, n of Garside & Al-Dibouni (1977), Ind. Eng. Chem. Process Des. Dev. 16, 206:\n"
                "# n = (5.1 + 0.27 Re_t^0.9)/(1 + 0.1 Re_t^0.9).\n"
                "# yin_koch: k (1 - phi)^n of Yin & Koch (2007), Phys. Fluids 19, 093302 (lattice Boltzmann, triply periodic\n"
                "# boxes), their fits at Re_t = 1.02, 1.83, 5.00, 9.98, 20.0: k = 0.92(3), 0.90(3), 0.86(6), 0.86(4), 0.88(2),\n"
                "# n = 4.2(1), 4.1(1), 4.0(3), 3.8(2), 3.6(1) (as tabulated in a later study's public analysis scripts;\n"
                "# not read from the paper here); the Re_t = 9.98 fit is used.\n"
            )
            w = csv.writer(f)
            w.writerow(["fraction", "bodies", "d_over_h", "window_start", "window_end", "u_over_ut", "error", "richardson_zaki", "yin_koch"])
            for r in rows:
                w.writerow([r["phi"], r["bodies"], f"{r['d_over_h']:.2f}", r["window"][0], r["window"][1],
                            f"{r['ratio']:.4f}", f"{r['error']:.4f}", f"{r['rz']:.4f}", "" if r["yk"] is None else f"{r['yk']:.4f}"])
    if args.image and rows:
        draw(rows, args)


def fit(rows):
    """Yin & Koch's form k (1 − φ)^n fitted to the runs (least squares on the logarithms)."""
    xs = [math.log(1.0 - r["phi"]) for r in rows]
    ys = [math.log(r["ratio"]) for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    n = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return math.exp(my - n * mx), n


def draw(rows, args):
    """The speed's history, U_s/U_t against φ with the references, and a snapshot of the bodies."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(15, 4.6))
    a = fig.add_subplot(1, 3, 1)
    for r in rows:
        a.plot(r["times"], r["history"], lw=1, label=f"φ = {r['phi']}")
        a.hlines(r["ratio"], *r["window"], colors="k", lw=1.5)
    a.set_xlabel("time (d = 1, g = 1)")
    a.set_ylabel("U_s(t) / U_t")
    a.set_title("the bodies' mean speed (black: the window's mean)")
    a.legend()
    b = fig.add_subplot(1, 3, 2)
    re = rows[0]["re"]
    grid = [0.005 * i for i in range(0, 81)]
    b.plot(grid, [(1 - p) ** garside(re) for p in grid], "k-", label=f"Richardson–Zaki, n = {garside(re):.2f} (Garside & Al-Dibouni)")
    if rows[0]["yk"] is not None:
        k, dk, n, dn = YIN_KOCH[9.98]
        b.plot(grid[10:], [k * (1 - p) ** n for p in grid[10:]], "k--", label=f"Yin & Koch (2007), {k}(1 − φ)^{n}")
    if len(rows) >= 3:
        k, n = fit(rows)
        b.plot(grid[8:], [k * (1 - p) ** n for p in grid[8:]], ":", color="C0", label=f"its fit {k:.2f}(1 − φ)^{n:.2f}")
    b.errorbar([r["phi"] for r in rows], [r["ratio"] for r in rows], yerr=[r["error"] for r in rows], fmt="o", mfc="none",
               label=f"tumble, {rows[0]['bodies']} bodies, d/h ≈ {rows[0]['d_over_h']:.0f}")
    b.set_xlabel("volume fraction φ")
    b.set_ylabel("U_s / U_t")
    b.set_title(f"{args.dim}D, Re_t = {re:.1f}" if re else f"{args.dim}D, Stokes flow")
    b.legend(fontsize=8)
    middle = min(rows, key=lambda r: abs(r["phi"] - 0.1))
    c = fig.add_subplot(1, 3, 3, projection="3d" if args.dim == 3 else None)
    snapshot(c, middle, args)
    fig.tight_layout()
    fig.savefig(args.image, dpi=110)


def snapshot(ax, r, args):
    """The bodies at the run's last time, coloured by their speed along g."""
    last, bodies = r["times"][-1], []
    with open(os.path.join(r["out"], "bodies.csv")) as f:
        for row in csv.DictReader(f):
            if float(row["time"]) == last:
                bodies.append(row)
    axis = "vz" if args.dim == 3 else "vy"
    speed = [-float(b[axis]) for b in bodies]
    if args.dim == 3:
        dots = ax.scatter([float(b["x"]) for b in bodies], [float(b["y"]) for b in bodies], [float(b["z"]) for b in bodies],
                          c=speed, cmap="viridis", s=60, depthshade=True)
        ax.set_zlabel("z")
    else:
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Circle

        with open(folder(r["phi"], args)[1], "rb") as f:
            box = tomllib.load(f)["domain"]["box"]
        length = box[1][0] - box[0][0]
        disks = [Circle((float(b["x"]) + i * length, float(b["y"]) + j * length), D / 2.0)
                 for b in bodies for i in (-1, 0, 1) for j in (-1, 0, 1)]
        dots = PatchCollection(disks, cmap="viridis")
        dots.set_array([v for v in speed for _ in range(9)])
        ax.add_collection(dots)
        ax.set_xlim(0.0, length)
        ax.set_ylim(0.0, length)
        ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(f"φ = {r['phi']} at t = {last:g}, coloured by the speed along g")
    ax.figure.colorbar(dots, ax=ax, shrink=0.7)


if __name__ == "__main__":
    main()
