"""Pictures of the validation cases against their references, for docs/validation.md: each run's
curve (from its `bodies.csv`) and the reference's values, with the verdict in the title.

    pip install matplotlib
    cargo run --release -- check cases/stokes_sedimentation.toml --out out/stokes_sedimentation
    cargo run --release -- check cases/disk_sedimentation_re17.toml --out out/disk_sedimentation_re17
    cargo run --release -- check cases/dkt.toml --out out/dkt
    (and likewise schafer_turek_2d2, falling_ellipse, stenotic_artery, stenotic_artery_two, stenotic_artery_many,
    stenotic_artery_inflow, ten_cate_e1 ... ten_cate_e4, xia_ellipse)
    python3 scripts/validation_plots.py --runs out --images docs/images --xia-reference DIR

Schäfer–Turek 2D-1 is run here, on the three committed meshes (`cargo build --release` first), and
so is the 3D sphere in a spherical container (the tests of tests/immersed.rs that measure it).

References (values, and E1's curves; sources in docs/validation.md):
- Stokes sedimentation between two walls: Faxén's drag law, terminal velocity 0.045612;
- a disk settling at Re ≈ 17: Wan and Turek (2006), Re_max 17.3 (Glowinski et al. 1999: 17.42),
  reached at t ≈ 0.5–0.6;
- drafting, kissing, tumbling: Glowinski et al. (2001), Wan and Turek (2006): the trailing disk's
  peak speed about 1.7 cm/s at t ≈ 1.1–1.5, the heights crossing at t ≈ 1.8–1.9, y ≈ 4.85;
- Schäfer–Turek 2D-2: FeatFlow's 2014 reference, c_D max 3.22739, c_L max 0.98658, St 0.30184;
- the falling ellipse (specification 4.4): its figure, landing with the long side level;
- the particle through the stenosis (specification 4.7.1): about 0.85 in the channel and 4.15 at
  the throat, read off its figure; two particles (4.7.2): the one nearer the centreline passes
  first, the other stops and moves back;
- the 3D sphere in a spherical container: Happel and Brenner's terminal velocity (exact);
- Schäfer–Turek 2D-1: c_D 5.57953523384, c_L 0.010618948146, Δp 0.11752016697 (Nabh, via featflow.de);
- the disk at high Reynolds number: Bergmann, Hovnanian and Iollo (2014), heights 3.50, 2.69,
  1.99, 0.81 at t = 0.083, 0.153, 0.207, 0.295 and Re_max 440–500;
- the falling tripole (specification 4.6): its figure, at rest on two lobes (its angle a multiple
  of 2π/3);
- many particles through the stenosis (specification 4.7.3, and its variant fed by [[inflow]]):
  its figure's statement that all cross the throat; here each path and its exit at the outlet;
- ten Cate et al. (2002): the four experiments' measured top speeds (docs/reference/ten_cate_2002.csv)
  and E1's measured speed and gap curves (docs/reference/ten_cate_2002_e1_*.csv);
- Xia et al. (2009): their ellipse's lateral position, angle and speed, as digitised by the FEN
  project (not copied here: --xia-reference names the directory holding the three files; the
  coarse and fine runs of that case are made here when missing).
A case whose run is missing is skipped with a message.
"""

import argparse
import csv
import json
import math
import os
import re
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    """{body: {column: list}} of a `bodies.csv` (or `exits.csv`: its `opening` stays a name)."""
    bodies = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            body = bodies.setdefault(row.pop("body"), {})
            for k, v in row.items():
                body.setdefault(k, []).append(v if k == "opening" else float(v))
    return bodies


def finish(fig, title, image):
    """Legends (where a curve has a label) and grids on every panel, the title, the PNG."""
    for ax in fig.axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(image, dpi=110)


def speed(body):
    return [math.hypot(u, v) for u, v in zip(body["vx"], body["vy"])]


def stokes(run, image):
    body = next(iter(run.values()))
    exact = 0.045612
    v = [-x for x in body["vy"]]
    error = (v[-1] - exact) / exact
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(body["time"], v, label="tumble (cases/stokes_sedimentation.toml)")
    ax.axhline(exact, color="k", ls="--", lw=1, label="Faxén's law, 0.045612")
    ax.axhspan(exact * 0.997, exact * 1.003, color="grey", alpha=0.2, label="check band ±0.3 %")
    ax.set(xlabel="t (s)", ylabel="settling speed (cm/s)")
    finish(fig, f"Stokes sedimentation between two walls: terminal speed {error * 100:+.3f} %", image)
    return f"terminal speed {v[-1]:.6f} against {exact} ({error * 100:+.3f} %)"


def re17(run, image):
    body = next(iter(run.values()))
    re = [1.25 * s * 0.25 / 0.1 for s in speed(body)]
    k = max(range(len(re)), key=re.__getitem__)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(body["time"], re, label="tumble (cases/disk_sedimentation_re17.toml)")
    ax.plot([0.5, 0.6], [17.3, 17.3], "k-", lw=3, label="Wan and Turek 2006: Re_max 17.3 at t ≈ 0.5–0.6")
    ax.plot([0.5, 0.6], [17.42, 17.42], "C3-", lw=3, label="Glowinski et al. 1999: 17.42")
    ax.set(xlabel="t (s)", ylabel="Re = ρ_s |U| d / μ")
    finish(fig, f"A disk settling at Re ≈ 17: Re_max {re[k]:.2f} at t = {body['time'][k]:.3f} ({(re[k] / 17.3 - 1) * 100:+.1f} %)", image)
    return f"Re_max {re[k]:.2f} at t = {body['time'][k]:.3f} against 17.3 ({(re[k] / 17.3 - 1) * 100:+.1f} %)"


def dkt(run, image):
    upper, lower = run["upper"], run["lower"]
    t = upper["time"]
    s = speed(upper)
    k = max(range(len(s)), key=s.__getitem__)
    cross = next((i for i in range(len(t)) if upper["y"][i] < lower["y"][i]), None)
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.plot(t, upper["y"], label="trailing disk (from y = 7.2)")
    a.plot(t, lower["y"], label="leading disk (from y = 6.8)")
    a.add_patch(plt.Rectangle((1.8, 4.75), 0.1, 0.2, color="k", alpha=0.4, label="published crossing, t ≈ 1.8–1.9, y ≈ 4.85"))
    a.set(xlabel="t (s)", ylabel="height y (cm)")
    b.plot(t, s, label="trailing disk")
    b.plot(t, speed(lower), label="leading disk")
    b.plot([1.1, 1.5], [1.7, 1.7], "k-", lw=3, label="published peak, about 1.7 at t ≈ 1.1–1.5")
    b.set(xlabel="t (s)", ylabel="speed (cm/s)")
    height = (upper["y"][cross] + lower["y"][cross]) / 2 if cross is not None else None
    crossing = f"cross at t = {t[cross]:.2f}, y = {height:.2f}" if cross is not None else "no crossing"
    finish(fig, f"Drafting, kissing, tumbling: trailing peak {s[k]:.2f} cm/s at t = {t[k]:.2f}; {crossing}", image)
    return f"trailing disk's peak {s[k]:.3f} at t = {t[k]:.2f}; {crossing}"


def read_table(path):
    """{column: list} of a CSV with a header of numeric columns."""
    table = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            for k, v in row.items():
                table.setdefault(k, []).append(float(v))
    return table


def schafer_turek(directory, image):
    flow = read_table(os.path.join(directory, "fluid.csv"))
    t, cd, cl = flow["time"], flow["drag_coefficient"], flow["lift_coefficient"]
    half = [i for i in range(len(t)) if t[i] >= t[-1] / 2]
    cd_max, cl_max = max(cd[i] for i in half), max(cl[i] for i in half)
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    window = [i for i in half if t[i] >= t[-1] - 1.0]
    a.plot([t[i] for i in window], [cd[i] for i in window], label="tumble")
    a.axhline(3.22739, color="k", ls="--", lw=1, label="reference c_D max 3.22739")
    a.set(xlabel="t (s)", ylabel="c_D")
    b.plot([t[i] for i in window], [cl[i] for i in window], label="tumble")
    b.axhline(0.98658, color="k", ls="--", lw=1, label="reference c_L max 0.98658")
    b.set(xlabel="t (s)", ylabel="c_L")
    verdict = f"c_D max {cd_max:.4f} ({(cd_max / 3.22739 - 1) * 100:+.3f} %), c_L max {cl_max:.4f} ({(cl_max / 0.98658 - 1) * 100:+.2f} %)"
    finish(fig, f"Schäfer–Turek 2D-2, the last second: {verdict}", image)
    return verdict


def ellipse(run, image):
    body = next(iter(run.values()))
    t = body["time"]
    tilt = [math.degrees(abs(math.remainder(a, math.pi))) for a in body["angle"]]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.plot(t, tilt)
    a.axhline(3, color="grey", ls="--", lw=1, label="check: under 3° at the end")
    a.set(xlabel="t (s)", ylabel="angle of the long axis from level (°)")
    b.plot(t, body["y"], label="centre height")
    b.axhline(0.125, color="k", ls="--", lw=1, label="lying flat on the floor (y = b = 0.125)")
    b.set(xlabel="t (s)", ylabel="y (cm)")
    verdict = f"released upright, lands flat: {tilt[-1]:.2f}° from level at t = {t[-1]:g}, gap {body['y'][-1] - 0.125:.4f} to the floor"
    finish(fig, f"Falling ellipse (specification 4.4): {verdict}", image)
    return verdict


def stenosis(run, image):
    body = next(iter(run.values()))
    d = 8.5e-4
    x = [v / d for v in body["x"]]
    u = body["vx"]
    k = max(range(len(u)), key=u.__getitem__)
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(x, u, label="tumble (cases/stenotic_artery.toml)")
    ax.axhline(0.85, color="k", ls="--", lw=1, label="specification: about 0.85 in the channel")
    ax.axhline(4.15, color="C3", ls="--", lw=1, label="specification: about 4.15 at the throat")
    ax.set(xlabel="x / d", ylabel="particle speed u_x (cm/s)")
    verdict = f"largest speed {u[k]:.3f} at x = {x[k]:.1f} d ({(u[k] / 4.15 - 1) * 100:+.1f} % of 4.15)"
    finish(fig, f"A particle through a stenosis (4.7.1): {verdict}", image)
    return verdict


def high_re(run, image):
    body = next(iter(run.values()))
    t, y = body["time"], body["y"]
    re = [1.5 * v * 0.25 / 0.01 for v in speed(body)]
    published = [(0.083, 3.50), (0.153, 2.69), (0.207, 1.99), (0.295, 0.81)]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.plot(t, y, label="tumble (cases/disk_sedimentation_high_re.toml)")
    a.plot(*zip(*published), "ko", label="Bergmann et al. 2014")
    a.set(xlabel="t (s)", ylabel="height y (cm)")
    b.plot(t, re, label="tumble")
    b.axhspan(440, 500, color="grey", alpha=0.3, label="published Re_max 440–500")
    b.set(xlabel="t (s)", ylabel="Re = ρ_s |U| d / μ")
    behind = [y[min(range(len(t)), key=lambda i: abs(t[i] - tp))] - yp for tp, yp in published]
    verdict = f"Re_max {max(re):.0f}; heights {', '.join(f'{d:+.2f}' for d in behind)} from the published"
    finish(fig, f"A disk at Re ≈ 500: {verdict}", image)
    return verdict


def tripole(run, image):
    body = next(iter(run.values()))
    t = body["time"]
    off = [abs(math.remainder(a, 2 * math.pi / 3)) for a in body["angle"]]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.semilogy(t, [max(o, 1e-6) for o in off])
    a.set(xlabel="t (s)", ylabel="angle from the nearest two-lobe rest (rad)")
    b.plot(t, body["y"], label="centre height")
    b.set(xlabel="t (s)", ylabel="y (cm)")
    verdict = f"at t = {t[-1]:g} on two lobes, {off[-1]:.1e} rad from the rest angle"
    finish(fig, f"Falling tripole (specification 4.6): {verdict}", image)
    return verdict


def passage(directory, image):
    """Particles through the stenosis and out (4.7.3): each one's path and its exit."""
    d = 8.5e-4
    run = read(os.path.join(directory, "bodies.csv"))
    exits = read(os.path.join(directory, "exits.csv")) if os.path.exists(os.path.join(directory, "exits.csv")) else {}
    with open(os.path.join(directory, "summary.json")) as f:
        summary = json.load(f)
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.2), gridspec_kw={"width_ratios": [1, 1.6]})
    for k, (name, body) in enumerate(run.items()):
        colour = f"C{k % 10}"
        a.plot(body["time"], [x / d for x in body["x"]], color=colour, lw=1)
        b.plot([x / d for x in body["x"]], [y / d for y in body["y"]], color=colour, lw=1)
        b.annotate(name, (body["x"][0] / d, body["y"][0] / d), color=colour, fontsize=7, ha="right", va="center")
        if name in exits:
            a.plot(exits[name]["time"], [exits[name]["x"][0] / d], "o", color=colour, ms=4)
    for x, label in [(16, "throat"), (32, "outlet")]:
        a.axhline(x, color="k", ls="--", lw=0.8)
        a.text(0, x + 0.4, label, fontsize=8)
    # The channel's walls and the two semicircular protuberances (radius 3.125 d at x = 16 d).
    angles = [math.pi * i / 100 for i in range(101)]
    b.plot([16 + 3.125 * math.cos(t) for t in angles], [3.125 * math.sin(t) for t in angles], "k", lw=1)
    b.plot([16 + 3.125 * math.cos(t) for t in angles], [8 - 3.125 * math.sin(t) for t in angles], "k", lw=1)
    b.plot([0, 32], [0, 0], "k", [0, 32], [8, 8], "k", [32, 32], [0, 8], "k:", lw=1)
    b.set_aspect("equal")
    a.set(xlabel="t (s)", ylabel="x / d (dots: the exit)")
    b.set(xlabel="x / d", ylabel="y / d")
    gap = summary.get("min_body_gap")
    verdict = (
        f"{summary['bodies_out']} of {summary['bodies_in']} crossed the throat and left, "
        f"the last at t = {max(e['time'][0] for e in exits.values()):.4f}; smallest gap "
        f"{gap:.1e} (none overlapped)"
    )
    finish(fig, f"{summary['case']}: {verdict}", image)
    return verdict


def stenosis_two(run, image):
    """Two particles at the throat (4.7.2): the one nearer the centreline passes first, the other
    stops, moves back and follows."""
    d = 8.5e-4
    (na, a_), (nb, b_) = list(run.items())[:2]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for name, body in ((na, a_), (nb, b_)):
        a.plot(body["time"], [x / d for x in body["x"]], label=name)
        window = [i for i, t in enumerate(body["time"]) if 0.004 <= t <= 0.008]
        b.plot([body["time"][i] for i in window], [body["x"][i] / d for i in window], label=name)
    a.axhline(16, color="k", ls="--", lw=0.8, label="throat")
    a.set(xlabel="t (s)", ylabel="x / d")
    b.set(xlabel="t (s)", ylabel="x / d (near the stall)")

    def back(body):
        top, most = -math.inf, 0.0
        for x in body["x"]:
            top = max(top, x)
            most = max(most, top - x)
        return most / d

    def through(body):
        """When the body's centre passes the throat."""
        return next(t for t, x in zip(body["time"], body["x"]) if x > 16 * d)

    first, other = sorted((na, nb), key=lambda name: through(run[name]))
    verdict = f"'{first}' passes first; '{other}' moves back {back(run[other]):.2f} d and follows"
    finish(fig, f"Two particles at the stenosis (4.7.2): {verdict}", image)
    return verdict


def schafer_turek_steady(directory, image):
    """Schäfer–Turek 2D-1 on the three committed meshes (runs them: 1 s each) against the
    reference values c_D 5.57954, c_L 0.010619, Δp 0.11752."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    binary = os.path.join(root, "target", "release", "tumble")
    reference = {"drag_coefficient": 5.57953523384, "lift_coefficient": 0.010618948146, "pressure_difference": 0.11752016697}
    with open(os.path.join(root, "cases", "schafer_turek_2d1.toml")) as f:
        text = f.read()
    rows = []
    for level in ("coarse", "medium", "fine"):
        case = os.path.join(directory, f"2d1_{level}.toml")
        with open(case, "w") as f:
            f.write(text.replace("../meshes/schafer_turek_2d_medium.msh",
                                 os.path.join(root, "meshes", f"schafer_turek_2d_{level}.msh")))
        out = os.path.join(directory, level)
        subprocess.run([binary, "run", case, "--quiet", "--out", out], check=True, capture_output=True)
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        rows.append((summary["cells"], summary))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    names = {"drag_coefficient": "c_D", "lift_coefficient": "c_L", "pressure_difference": "Δp"}
    targets = {"drag_coefficient": 5e-3, "lift_coefficient": 5e-2, "pressure_difference": 1e-2}
    for k, (key, value) in enumerate(reference.items()):
        ax.loglog([c for c, _ in rows], [abs(s[key] / value - 1) for _, s in rows], "o-", color=f"C{k}",
                  label=f"{names[key]} (dotted: the benchmark's target)")
        ax.axhline(targets[key], color=f"C{k}", ls=":", lw=1)
    ax.set(xlabel="cells", ylabel="|relative error| against the reference")
    medium = rows[1][1]
    verdict = ", ".join(f"{names[k]} {(medium[k] / v - 1) * 100:+.4f} %" for k, v in reference.items())
    finish(fig, f"Schäfer–Turek 2D-1, committed mesh: {verdict}", image)
    return verdict


def ten_cate(runs, image):
    """ten Cate's four experiments: each sphere's settling speed and gap to the bottom against the
    experiment's top speeds (docs/reference/ten_cate_2002.csv) and E1's measured curves
    (docs/reference/ten_cate_2002_e1_*.csv)."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "reference")

    def table(name):
        with open(os.path.join(here, name), newline="") as f:
            return list(csv.DictReader(line for line in f if not line.startswith("#")))

    tops = {r["experiment"]: float(r["top_speed"]) for r in table("ten_cate_2002.csv")}
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    velocity = table("ten_cate_2002_e1_velocity.csv")
    gap = table("ten_cate_2002_e1_gap.csv")
    a.plot([float(r["t"]) for r in velocity], [-100 * float(r["w"]) for r in velocity], "ko", ms=3,
           label="E1 measured (SedFoam's digitisation)")
    b.plot([float(r["t"]) for r in gap], [float(r["gap_over_d"]) for r in gap], "ko", ms=3, label="E1 measured")
    errors = []
    for k in range(1, 5):
        path = os.path.join(runs, f"ten_cate_e{k}", "bodies.csv")
        if not os.path.exists(path):
            continue
        body = next(iter(read(path).values()))
        w = [-v for v in body["vz"]]
        colour = f"C{k - 1}"
        a.plot(body["time"], w, color=colour, label=f"tumble E{k}")
        a.axhline(tops[f"E{k}"], color=colour, ls="--", lw=0.8)
        b.plot(body["time"], [(z - 0.75) / 1.5 for z in body["z"]], color=colour, label=f"tumble E{k}")
        errors.append(f"E{k} {(max(w) / tops[f'E{k}'] - 1) * 100:+.1f} %")
    a.set(xlabel="t (s)", ylabel="settling speed (cm/s); dashed: measured top speeds")
    b.set(xlabel="t (s)", ylabel="gap to the bottom / d")
    verdict = "top speeds against the experiment's: " + ", ".join(errors)
    finish(fig, f"ten Cate's sphere: {verdict}", image)
    return verdict


def xia_extrema(ys, values, lowest):
    """The local extrema of `values` along the fall, from the top, between the height `lowest` and
    23.5 (the release at 24 is not one)."""
    pairs = sorted(zip(ys, values), reverse=True)
    out = []
    for (_, before), (y, v), (_, after) in zip(pairs, pairs[1:], pairs[2:]):
        if lowest < y < 23.5 and (before < v >= after or before > v <= after):
            out.append((y, v))
    return out


def xia(runs, image, reference):
    """Xia et al.'s ellipse in a channel 4A wide (cases/xia_ellipse.toml) on three meshes (the coarse
    and fine ones run here when missing, from the committed case) against their curves: the
    lateral position and the angle against the height (both in units of A), the settling speed
    against time. `reference` holds FEN's digitisation of their figure (docs/validation.md)."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    binary = os.path.join(root, "target", "release", "tumble")
    with open(os.path.join(root, "cases", "xia_ellipse.toml")) as f:
        text = f.read()
    variants = {"xia_ellipse_coarse": ("cells = [48, 240]", "step = 1e-3"),
                "xia_ellipse_fine": ("cells = [96, 480]", "step = 5e-4")}
    for name, (cells, step) in variants.items():
        out = os.path.join(runs, name)
        if not os.path.exists(os.path.join(out, "bodies.csv")):
            case = os.path.join(runs, f"{name}.toml")
            with open(case, "w") as f:
                f.write(text.replace("cells = [64, 320]", cells).replace("step = 1e-3", step))
            subprocess.run([binary, "run", case, "--quiet", "--out", out], check=True, capture_output=True)

    def columns(name):
        with open(os.path.join(reference, name)) as f:
            rows = [line.split() for line in f if line.strip()]
        return [float(r[0]) for r in rows], [float(r[1]) for r in rows]

    A = 0.1
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(15, 4.2))
    ry, rx = columns("xref.txt")
    a.plot(ry, rx, "ko", ms=3, label="Xia et al. (2009)")
    ty, tt = columns("thetaref.txt")
    b.plot(ty, tt, "ko", ms=3, label="Xia et al. (2009)")
    vt, vv = columns("vref.txt")
    c.plot(vt, [-v for v in vv], "ko", ms=3, label="Xia et al. (2009)")
    runs_drawn = {"xia_ellipse_coarse": "A/h = 12", "xia_ellipse": "A/h = 16 (the case)", "xia_ellipse_fine": "A/h = 24"}
    for k, (name, label) in enumerate(runs_drawn.items()):
        body = next(iter(read(os.path.join(runs, name, "bodies.csv")).values()))
        y = [v / A for v in body["y"]]
        a.plot(y, [v / A for v in body["x"]], color=f"C{k}", label=f"tumble, {label}")
        b.plot(y, [v / math.pi for v in body["angle"]], color=f"C{k}", label=f"tumble, {label}")
        c.plot(body["time"], [-v for v in body["vy"]], color=f"C{k}", label=f"tumble, {label}")
        if name == "xia_ellipse":
            case = body
    a.set(xlabel="height y / A", ylabel="lateral position x / A", xlim=(0, 24))
    b.set(xlabel="height y / A", ylabel="angle θ / π", xlim=(0, 24))
    c.set(xlabel="t (s)", ylabel="settling speed (cm/s)")
    with open(os.path.join(runs, "xia_ellipse", "summary.json")) as f:
        terminal = json.load(f)["terminal_velocity"]
    y = [v / A for v in case["y"]]
    x = [v / A for v in case["x"]]
    i = min(range(len(x)), key=x.__getitem__)
    j = min(range(len(rx)), key=rx.__getitem__)
    for what, ours, theirs in (("x / A", x, (ry, rx)), ("θ / π", [v / math.pi for v in case["angle"]], (ty, tt))):
        print(f"  extrema of {what} (at y / A): tumble "
              + ", ".join(f"{v:.3f} ({h:.1f})" for h, v in xia_extrema(y, ours, 8))
              + "; Xia et al. " + ", ".join(f"{v:.3f} ({h:.1f})" for h, v in xia_extrema(*theirs, 8)))
    verdict = (f"terminal speed {terminal:.3f} cm/s ({(terminal / 1.295 - 1) * 100:+.2f} % from 1.295); "
               f"first swing to x = {x[i]:.3f}A at y = {y[i]:.1f}A (theirs {rx[j]:.3f}A at {ry[j]:.1f}A)")
    finish(fig, f"Xia et al.'s ellipse, L = 4A, Re 12.5: {verdict}", image)
    return verdict


def sphere_container(directory, image):
    """The 3D sphere settling from the centre of a spherical container against Happel and
    Brenner's terminal velocity: runs the two tests of tests/immersed.rs that measure it (about
    70 s) and draws the errors they print against the steps across the diameter (d = 1; the nodes
    boundary's rows are h = 0.125 and 0.1)."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    run = subprocess.run(["cargo", "test", "--release", "--test", "immersed", "sphere_settling_in_a",
                          "--", "--nocapture", "--test-threads", "1"],
                         cwd=root, check=True, capture_output=True, text=True)
    with open(os.path.join(directory, "sphere_container.log"), "w") as f:
        f.write(run.stdout)
    series = {"surface, λ = 0.25": [], "surface, λ = 0.5": [], "nodes, λ = 0.5": []}
    wide, narrow = "surface, λ = 0.25: errors at d/h = 4, 6, 8: [", "surface, λ = 0.5: error at d/h = 8: "
    for line in run.stdout.splitlines():
        if wide in line:
            values = line.split(wide)[1].split("]")[0].split(",")
            series["surface, λ = 0.25"] += [(d, float(v)) for d, v in zip((4, 6, 8), values)]
        elif narrow in line:
            series["surface, λ = 0.5"].append((8, float(line.split(narrow)[1])))
        elif nodes := re.search(r"h ([0-9.]+): \d+ tetrahedra.*error ([+-][0-9.]+)", line):
            series["nodes, λ = 0.5"].append((1 / float(nodes[1]), float(nodes[2])))
    fig, ax = plt.subplots(figsize=(8.5, 4.8))
    for k, (name, points) in enumerate(series.items()):
        ax.plot([d for d, _ in points], [100 * e for _, e in points], "o-", color=f"C{k}", label=name)
    ax.axhline(2, color="k", ls="--", lw=1, label="issue's target: 2 % at d/h = 6")
    ax.axhline(-2, color="k", ls="--", lw=1)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(xlabel="mesh steps across the diameter d/h", ylabel="terminal speed error vs Happel–Brenner (%)")
    wide = dict(series["surface, λ = 0.25"])
    verdict = "surface, λ = 0.25: " + ", ".join(f"d/h {d} {100 * e:+.2f} %" for d, e in sorted(wide.items()))
    finish(fig, f"3D sphere in a spherical container: {verdict}", image)
    return verdict


CASES = {
    "stokes_sedimentation": stokes,
    "disk_sedimentation_re17": re17,
    "dkt": dkt,
    "falling_ellipse": ellipse,
    "stenotic_artery": stenosis,
    "stenotic_artery_two": stenosis_two,
    "disk_sedimentation_high_re": high_re,
    "falling_tripole": tripole,
}
# Drawn from a whole run directory (its fluid.csv, or its bodies.csv, exits.csv and summary.json).
FLOWS = {"schafer_turek_2d2": schafer_turek}
OPEN = {"stenotic_artery_many": passage, "stenotic_artery_inflow": passage}
# Drawn from several runs, each under the runs' directory (Schäfer–Turek 2D-1: run here, into it).
GROUPS = {"ten_cate": (ten_cate, "ten_cate_e1")}
RUNS_HERE = {"schafer_turek_2d1": schafer_turek_steady, "sphere_container": sphere_container}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default="out", help="the directory holding the runs' output directories")
    parser.add_argument("--images", default="docs/images")
    parser.add_argument("--xia-reference", help="the directory holding xref.txt, thetaref.txt and vref.txt, "
                        "the digitisation of Xia et al.'s curves (where to get them: docs/validation.md)")
    args = parser.parse_args()
    os.makedirs(args.images, exist_ok=True)
    for case, draw in {**CASES, **FLOWS, **OPEN}.items():
        directory = os.path.join(args.runs, case)
        path = os.path.join(directory, "fluid.csv" if case in FLOWS else "bodies.csv")
        if not os.path.exists(path):
            print(f"{case}: no run at {path}, skipped")
            continue
        image = os.path.join(args.images, f"validation_{case}.png")
        result = draw(read(path), image) if case in CASES else draw(directory, image)
        print(f"{case}: {result} -> {image}")
    for case, draw in RUNS_HERE.items():
        directory = os.path.join(args.runs, case)
        os.makedirs(directory, exist_ok=True)
        image = os.path.join(args.images, f"validation_{case}.png")
        print(f"{case}: {draw(directory, image)} -> {image}")
    for group, (draw, first) in GROUPS.items():
        if not os.path.exists(os.path.join(args.runs, first, "bodies.csv")):
            print(f"{group}: no run at {os.path.join(args.runs, first)}, skipped")
            continue
        image = os.path.join(args.images, f"validation_{group}.png")
        print(f"{group}: {draw(args.runs, image)} -> {image}")
    if not os.path.exists(os.path.join(args.runs, "xia_ellipse", "bodies.csv")):
        print(f"xia_ellipse: no run at {os.path.join(args.runs, 'xia_ellipse')}, skipped")
    elif not args.xia_reference:
        print("xia_ellipse: no --xia-reference (Xia et al.'s curves, see docs/validation.md), skipped")
    else:
        image = os.path.join(args.images, "validation_xia_ellipse.png")
        print(f"xia_ellipse: {xia(args.runs, image, args.xia_reference)} -> {image}")


if __name__ == "__main__":
    main()
