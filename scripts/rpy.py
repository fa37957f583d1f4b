"""The Rotne–Prager–Yamakawa (RPY) estimate of equal spheres settling in a triply periodic cube
in Stokes flow: a far-field reference for tumble's suspensions that needs no mesh.

Under equal forces F along −z the spheres' speeds are `U_i = Σ_j M_ij F`, with the periodic RPY
mobility in Fourier space (the RPY tensor of two spheres of radius a is the Oseen tensor
averaged over both surfaces, so its transform is `j0(ka)² (I − k̂k̂)/(μ k²)`):

    U_i / U_0 = (6π a / V) Σ_{0 < |k| ≤ K} j0(ka)² (1 − k_z²/k²)/k² · Re(e^{ik·r_i} Σ_j e^{−ik·r_j})
                + 1/(π a K),

the sum over the cube's wave vectors `k = 2π n/L` within the sphere |k| ≤ K, the last term its
tail (`j0²` averages `1/(2k²a²)`), `U_0 = F/(6πμa)`. Leaving out `k = 0` sets the mean velocity
of the whole cube to zero: the frame of zero volume flux, tumble's `settling_velocity`. It holds
Hasimoto's (1959) simple cubic array to O(φ) (0.4987 at φ = 0.027, Zick and Homsy 0.4980) and
Batchelor's (1976) pair mobility to O(r⁻³); it leaves out the near-field and many-body
reflections, which slow a dense suspension (the simple cubic array at φ = 0.216: RPY 0.160,
Zick and Homsy 0.134). Cost O(N K³ L³) (numpy, chunked; `pip install numpy`).

    python3 scripts/rpy.py run <folder>...        RPY against a tumble run's own bodies.csv
    python3 scripts/rpy.py scatter --fraction 0.2 --gap 0.1 --count 16 100 400
"""

import argparse
import csv
import math
import os
import sys

import numpy as np

A = 0.5  # the spheres' radius (d = 1)


def settling(pos, length, cells=24.0):
    """`U_i/U_0` for the spheres at `pos` (N × 3) in the periodic cube of side `length`, with
    wave vectors up to `K = 2π cells/d`-ish: `K = 2π n/L`, `n = cells L / 6.4` (24 at the
    100-sphere box of φ = 0.2; the tail term keeps the truncation's error below 0.5 %)."""
    nmax = max(8, int(round(cells * length / 6.4)))
    n = np.arange(-nmax, nmax + 1)
    grid = np.stack(np.meshgrid(n, n, n, indexing="ij"), -1).reshape(-1, 3)
    grid = grid[((grid * grid).sum(1) > 0) & ((grid * grid).sum(1) <= nmax * nmax)]
    speeds = np.zeros(len(pos))
    for start in range(0, len(grid), 20000):
        k = 2 * np.pi / length * grid[start:start + 20000]
        k2 = (k * k).sum(1)
        ka = np.sqrt(k2) * A
        weight = (np.sin(ka) / ka) ** 2 / k2 * (1 - k[:, 2] ** 2 / k2)
        phase = np.exp(1j * (pos @ k.T))
        speeds += (phase * np.conj(phase.sum(0))[None, :] * weight[None, :]).real.sum(1)
    big_k = 2 * np.pi / length * nmax
    return speeds * 6 * np.pi * A / length ** 3 + 1 / (np.pi * A * big_k)


def scatter(count, fraction, gap, seed):
    """Random sequential addition of `count` spheres at `fraction` in a periodic cube, each kept
    `gap` clear of those before through the images (tumble's `scatter`, another generator)."""
    length = (count * math.pi / 6 / fraction) ** (1 / 3)
    rng = np.random.default_rng(seed)
    pos = np.empty((0, 3))
    while len(pos) < count:
        p = rng.uniform(0, length, 3)
        d = pos - p
        d -= length * np.round(d / length)
        if len(pos) == 0 or np.sqrt((d * d).sum(1)).min() >= 1 + gap:
            pos = np.vstack([pos, p])
    return pos, length


def run_bodies(folder):
    """(length, {time: (positions, vz)}) of a tumble run of spheres in a periodic box."""
    import tomllib

    with open(folder.rstrip("/") + ".toml", "rb") as f:
        case = tomllib.load(f)
    lo, hi = case["domain"]["box"]
    rows = {}
    with open(os.path.join(folder, "bodies.csv")) as f:
        for r in csv.DictReader(f):
            rows.setdefault(float(r["time"]), []).append(r)
    times = {
        t: (np.array([[float(r[c]) for c in "xyz"] for r in rs]), np.array([float(r["vz"]) for r in rs]))
        for t, rs in rows.items()
    }
    return hi[0] - lo[0], times, case


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run", help="RPY for a tumble run's spheres at some of its times")
    r.add_argument("folders", nargs="+")
    r.add_argument("--times", type=float, nargs="+", default=[1.0, 30.0, 60.0])
    s = sub.add_parser("scatter", help="RPY of random arrangements against their count and gap")
    s.add_argument("--fraction", type=float, default=0.2)
    s.add_argument("--gap", type=float, default=0.1)
    s.add_argument("--count", type=int, nargs="+", default=[16, 100, 400])
    s.add_argument("--samples", type=int, default=400, help="spheres over all realisations of a count")
    args = parser.parse_args()
    if args.what == "run":
        for folder in args.folders:
            length, times, case = run_bodies(folder)
            g = -case["gravity"][2]
            body = case["bodies"][0]
            u0 = (body["density"] - case["fluid"]["density"]) * g / (18 * case["fluid"]["viscosity"])
            for t in args.times:
                if t not in times:
                    continue
                pos, vz = times[t]
                u = settling(pos, length)
                mine = -(vz - vz.mean()) / u0
                slope = np.polyfit(u - u.mean(), mine, 1)[0]
                print(f"{os.path.basename(folder)} t = {t:g}: RPY {u.mean():.4f} (spread {u.std():.4f}); "
                      f"tumble's speeds about their mean against RPY's: correlation "
                      f"{np.corrcoef(u - u.mean(), mine)[0, 1]:.3f}, slope {slope:.3f}")
    else:
        for count in args.count:
            draws = max(1, args.samples // count)
            values = [settling(*scatter(count, args.fraction, args.gap, seed)).mean() for seed in range(1, draws + 1)]
            error = np.std(values) / math.sqrt(draws - 1) if draws > 1 else float("nan")
            print(f"φ {args.fraction} gap {args.gap} N {count}: RPY {np.mean(values):.4f} ± {error:.4f} ({draws} arrangements)",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
