"""Pictures of the validation cases against their references, for docs/validation.md: each run's
curve (from its `bodies.csv`) and the reference's values, with the verdict in the title.

    pip install matplotlib
    cargo run --release -- check cases/stokes_sedimentation.toml --out out/stokes_sedimentation
    cargo run --release -- check cases/disk_sedimentation_re17.toml --out out/disk_sedimentation_re17
    cargo run --release -- check cases/dkt.toml --out out/dkt
    python3 scripts/validation_plots.py --runs out --images docs/images

References (values, not curves; sources in docs/validation.md):
- Stokes sedimentation between two walls: Faxén's drag law, terminal velocity 0.045612;
- a disk settling at Re ≈ 17: Wan and Turek (2006), Re_max 17.3 (Glowinski et al. 1999: 17.42),
  reached at t ≈ 0.5–0.6;
- drafting, kissing, tumbling: Glowinski et al. (2001), Wan and Turek (2006): the trailing disk's
  peak speed about 1.7 cm/s at t ≈ 1.1–1.5, the heights crossing at t ≈ 1.8–1.9, y ≈ 4.85.
A case whose run is missing is skipped with a message.
"""

import argparse
import csv
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    """{body: {column: list}} of a `bodies.csv`."""
    bodies = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            body = bodies.setdefault(row.pop("body"), {})
            for k, v in row.items():
                body.setdefault(k, []).append(float(v))
    return bodies


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
    ax.set_title(f"Stokes sedimentation between two walls: terminal speed {error * 100:+.3f} %")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(image, dpi=110)
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
    ax.set_title(f"A disk settling at Re ≈ 17: Re_max {re[k]:.2f} at t = {body['time'][k]:.3f} ({(re[k] / 17.3 - 1) * 100:+.1f} %)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(image, dpi=110)
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
    a.legend(fontsize=8)
    a.grid(alpha=0.3)
    b.plot(t, s, label="trailing disk")
    b.plot(t, speed(lower), label="leading disk")
    b.plot([1.1, 1.5], [1.7, 1.7], "k-", lw=3, label="published peak, about 1.7 at t ≈ 1.1–1.5")
    b.set(xlabel="t (s)", ylabel="speed (cm/s)")
    b.legend(fontsize=8)
    b.grid(alpha=0.3)
    height = (upper["y"][cross] + lower["y"][cross]) / 2 if cross is not None else None
    crossing = f"cross at t = {t[cross]:.2f}, y = {height:.2f}" if cross is not None else "no crossing"
    fig.suptitle(f"Drafting, kissing, tumbling: trailing peak {s[k]:.2f} cm/s at t = {t[k]:.2f}; {crossing}")
    fig.tight_layout()
    fig.savefig(image, dpi=110)
    return f"trailing disk's peak {s[k]:.3f} at t = {t[k]:.2f}; {crossing}"


CASES = {"stokes_sedimentation": stokes, "disk_sedimentation_re17": re17, "dkt": dkt}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default="out", help="the directory holding the runs' output directories")
    parser.add_argument("--images", default="docs/images")
    args = parser.parse_args()
    os.makedirs(args.images, exist_ok=True)
    for case, draw in CASES.items():
        path = os.path.join(args.runs, case, "bodies.csv")
        if not os.path.exists(path):
            print(f"{case}: no run at {path}, skipped")
            continue
        image = os.path.join(args.images, f"validation_{case}.png")
        print(f"{case}: {draw(read(path), image)} -> {image}")


if __name__ == "__main__":
    main()
