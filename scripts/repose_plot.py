"""The heap of cases/repose_slot_3d.toml seen along the slot, for docs/validation.md ("The angle
of repose"): the poured spheres at the end of the run (the bed they landed on in grey), the
highest top over each cell one diameter wide (the free surface `case::heap` fits), and the slope
the run reported (`repose_angle` in summary.json) beside the band of Zhou, Xu, Yu and Zulli's
(2002) correlation, 26.0 ± 2°, both drawn from the crest.

    pip install matplotlib
    cargo run --release -- run cases/repose_slot_3d.toml --out out/repose_slot_3d   # 90 min
    python3 scripts/repose_plot.py out/repose_slot_3d docs/images/validation_repose_slot.png
"""

import csv
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Circle  # noqa: E402

REFERENCE, SCATTER = 26.0, 2.0
RADIUS = 0.5


def last_rows(path):
    """The rows of `bodies.csv` at its last time: name, x, z."""
    rows = list(csv.DictReader(open(path)))
    end = max(float(r["time"]) for r in rows)
    return [(r["body"], float(r["x"]), float(r["z"])) for r in rows if float(r["time"]) == end], end


def main(run, image):
    rows, end = last_rows(f"{run}/bodies.csv")
    summary = json.load(open(f"{run}/summary.json"))
    angle = summary["repose_angle"]
    poured = [(x, z) for name, x, z in rows if name.startswith("ball_")]
    bed = [(x, z) for name, x, z in rows if not name.startswith("ball_")]
    centre = sum(x for x, _ in poured) / len(poured)
    # The highest top over each cell one diameter wide, a sphere counting in every cell its
    # shadow reaches (as case::heap does).
    tops = {}
    for x, z in poured:
        for k in range(math.floor((x - centre - RADIUS)), math.floor((x - centre + RADIUS)) + 1):
            if z + RADIUS > tops.get(k, (0, -1e9))[1]:
                tops[k] = (x, z + RADIUS)
    crest_x, crest_z = max(tops.values(), key=lambda t: t[1])
    fig, ax = plt.subplots(figsize=(11, 3.6))
    for x, z in bed:
        ax.add_patch(Circle((x, z), RADIUS, color="0.8", lw=0))
    for x, z in poured:
        ax.add_patch(Circle((x, z), RADIUS, color="tab:blue", alpha=0.25, lw=0))
    surface = sorted(tops.values())
    ax.plot([x for x, _ in surface], [z for _, z in surface], ".", color="k", ms=4, label="highest top per cell")
    reach = 20.0  # the length of the drawn slopes
    for sign in (-1, 1):
        xs = [crest_x, crest_x + sign * reach]
        for theta, style, label in (
            (angle, "-", f"tumble: {angle:.1f}°"),
            (REFERENCE - SCATTER, ":", f"Zhou et al. 2002: {REFERENCE - SCATTER:.0f}–{REFERENCE + SCATTER:.0f}°"),
            (REFERENCE + SCATTER, ":", None),
        ):
            ax.plot(
                xs,
                [crest_z, crest_z - reach * math.tan(math.radians(theta))],
                style,
                color="tab:red" if style == "-" else "k",
                label=label if sign == 1 else None,
            )
    ax.set_xlim(0, 56)
    ax.set_ylim(0, 12)
    ax.set_aspect("equal")
    ax.set_xlabel("x (cm), along the slot")
    ax.set_ylabel("z (cm)")
    ax.set_title(f"{len(poured)} spheres poured into a slot 4 d wide, t = {end:.2f} s, seen along y")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(image, dpi=110)
    print(f"{image}: repose_angle {angle:.2f}°, crest at x = {crest_x:.2f}, z = {crest_z:.2f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
