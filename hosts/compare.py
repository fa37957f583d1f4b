"""Plot the two disks of the specification's case 4.2.3 as several runs give them, in one PNG, and
print their numbers side by side: the hosts of this directory against `tumble`'s own run.

    pip install matplotlib
    python3 hosts/compare.py -o docs/images/host_dealii.png \
        "deal.II host=out/dealii_two_disks/bodies.csv" "tumble=out/two_disks_floor/bodies.csv"

Each run is `label=path` to a `bodies.csv` in `tumble run`'s columns (time, body, x, y, angle, vx,
vy, omega, …; a row per disk and step). The picture has four panels against time: the left disk's
settling speed −vy and sideways speed −vx (the right disk mirrors it), its gap to the floor
(y − r) and the gap between the disks (x_right − x_left − 2r).
The table gives the same at `--times`, and each run's difference from the last run given (the
reference) in per cent.
"""

import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

RADIUS, RANGE = 0.125, 0.03


def read(path):
    """The run at `path` as {body: {column: array}} (numeric columns, in time order)."""
    rows = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows.setdefault(row.pop("body"), []).append({k: float(v) for k, v in row.items()})
    return {body: {k: np.array([r[k] for r in rs]) for k in rs[0]} for body, rs in rows.items()}


def quantities(run):
    """Time, −vy, −vx, floor gap and pair gap of the left disk."""
    left, right = run["left"], run["right"]
    n = min(len(left["time"]), len(right["time"]))
    return {
        "time": left["time"][:n],
        "settling speed −vy": -left["vy"][:n],
        "sideways speed −vx": -left["vx"][:n],
        "gap to the floor": left["y"][:n] - RADIUS,
        "gap between the disks": right["x"][:n] - left["x"][:n] - 2 * RADIUS,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="label=path/to/bodies.csv; the last is the reference")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    parser.add_argument("--times", type=float, nargs="*", default=[0.01, 0.02, 0.05])
    args = parser.parse_args()
    runs = []
    for spec in args.runs:
        label, _, path = spec.rpartition("=")
        runs.append((label, quantities(read(path))))
    names = [k for k in runs[0][1] if k != "time"]
    figure, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True)
    for ax, name in zip(axes.flat, names):
        for label, q in runs:
            ax.plot(q["time"], q[name], label=label)
        ax.set_title(f"{name} (contact range ρ = {RANGE})" if name.startswith("gap") else name)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("t (s)")
    axes[0, 0].legend(fontsize=8)
    figure.suptitle("Case 4.2.3: two disks settling near the floor and each other (left disk)")
    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    reference = runs[-1][1]
    print("| t | run | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for t in args.times:
        for label, q in runs:
            i, j = np.argmin(abs(q["time"] - t)), np.argmin(abs(reference["time"] - t))
            cells = []
            for name in names:
                value, ref = q[name][i], reference[name][j]
                diff = "" if q is reference else f" ({100 * (value - ref) / abs(ref):+.1f} %)"
                cells.append(f"{value:.5f}{diff}")
            print(f"| {q['time'][i]:g} | {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
