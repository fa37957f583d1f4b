"""A sphere settling onto a wall at Re << 1 against Brenner's (1961) exact series.

Reads the `bodies.csv` of runs of a sphere of radius a settling along the axis of a cylinder of
radius R onto its bottom at z = 0 (meshes/sphere_wall.geo; the case is described in
docs/validation.md, "The lubrication film") and compares the
drag factor the run shows, beta = (rho_s - rho_f) V g / (6 pi mu a U), with Brenner's beta(h) for
the wall plus the cylinder's own, Haberman & Sayre's (1958) factor K(a/R) less one (the first
reflections add). Usage:
    python scripts/sphere_wall.py OUT_DIR R A MU RHO_S RHO_F G [label]...
(one group of seven per run) prints the table and, with matplotlib, draws docs/images/sphere_wall.png.
"""

import csv
import math
import sys


def brenner(h, a, terms=200):
    """Brenner's (1961) exact drag factor of a sphere of radius a moving normal to a plane wall
    at a gap h (its centre at h + a)."""
    alpha = math.acosh((h + a) / a)
    total = 0.0
    for n in range(1, terms + 1):
        if (2 * n + 1) * alpha > 600.0:
            break  # the terms fall as exp(-(2n-1) alpha); beyond, sinh overflows
        num = 2.0 * math.sinh((2 * n + 1) * alpha) + (2 * n + 1) * math.sinh(2.0 * alpha)
        den = 4.0 * math.sinh((n + 0.5) * alpha) ** 2 - (2 * n + 1) ** 2 * math.sinh(alpha) ** 2
        total += n * (n + 1) / ((2 * n - 1) * (2 * n + 3)) * (num / den - 1.0)
    return 4.0 / 3.0 * math.sinh(alpha) * total


def haberman(lam):
    """Haberman & Sayre's (1958) wall factor of a sphere on the axis of a cylinder, lam = a/R."""
    return 1.0 / (1.0 - 2.10444 * lam + 2.08877 * lam**3 - 0.94813 * lam**5 - 1.372 * lam**6
                  + 3.87 * lam**8 - 4.19 * lam**10)


def rows(out):
    with open(f"{out}/bodies.csv") as f:
        return [(float(r["time"]), float(r["z"]), float(r["vz"])) for r in csv.DictReader(f)]


def main(argv):
    runs = []
    while len(argv) >= 7:
        out, big_r, a, mu, rho_s, rho_f, g = argv[:7]
        argv = argv[7:]
        big_r, a, mu, rho_s, rho_f, g = map(float, (big_r, a, mu, rho_s, rho_f, g))
        weight = (rho_s - rho_f) * 4.0 / 3.0 * math.pi * a**3 * g
        side = haberman(a / big_r) - 1.0
        table = []
        for t, z, vz in rows(out):
            h = z - a
            if vz >= 0.0 or h > 4.0 * a or h <= 0.0:
                continue
            measured = weight / (6.0 * math.pi * mu * a * -vz)
            expected = brenner(h, a) + side
            table.append((h / a, measured, expected))
        runs.append((out, table))
        print(f"# {out}: R/a = {big_r / a:g}, the cylinder's K - 1 = {side:.4f}")
        print("h/a, beta measured, beta Brenner + K - 1, ratio")
        for h, m, e in table[:: max(1, len(table) // 25)]:
            print(f"{h:.4f}, {m:.4f}, {e:.4f}, {m / e:.4f}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for out, table in runs:
        ax.loglog([r[0] for r in table], [r[1] for r in table], label=out.rstrip("/").split("/")[-1])
    hs = [10 ** (-2 + 3 * k / 200) for k in range(201)]
    ax.loglog(hs, [brenner(h, 1.0) for h in hs], "k--", label="Brenner (1961)")
    ax.set_xlabel("gap h / a")
    ax.set_ylabel("drag factor F / (6 pi mu a U)")
    ax.legend()
    fig.tight_layout()
    fig.savefig("docs/images/sphere_wall.png", dpi=120)


if __name__ == "__main__":
    main(sys.argv[1:])
