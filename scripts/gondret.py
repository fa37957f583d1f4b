"""Gondret, Lance & Petit's (2002) bouncing spheres: a run of `cases/gondret_st*.toml` against the
experiment's digitised gap (docs/reference/gondret_2002_st*_gap.csv).

From the run's `bodies.csv` (the sphere's height z and speed vz, lengths in mm, times in s; the
plate at z = 0): the impact speed (the largest downward speed before the first contact), the time
of the first contact (the smallest gap before the first rebound), the rebound speed (the largest
upward speed after it), the effective restitution (their ratio), and each rebound's top gap over
d with its time after the contact; the same read off the reference where it has them. Usage:

    python3 scripts/gondret.py OUT_DIR D [REFERENCE_CSV] [--image PNG] [--label NAME]

prints them (JSON on the last line) and, with --image and matplotlib, draws the gap against the
time after the first contact beside the reference.
"""

import argparse
import csv
import json


# The gap (over d) above which the rebound's speed is read as a film of the fall would show it:
# the collision law releases the sphere inside the lubrication film, which takes a share of that
# speed within the next few hundredths of d (Gondret et al.'s first points after a contact are
# 0.05-0.07 d up).
RISEN = 0.025


def run_rows(out):
    with open(f"{out}/bodies.csv", newline="") as f:
        return [(float(r["time"]), float(r["z"]), float(r["vz"])) for r in csv.DictReader(f)]


def reference_rows(path):
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    return [(float(t) / 1e3, float(g)) for t, g in csv.reader(lines[1:])]


def bounces(times, gaps):
    """The contacts (local minima of the gap) and the rebounds' tops (local maxima) in order, as
    (time, gap) pairs, over a sampled gap: a minimum is where the gap stops falling, a maximum
    where it stops rising, each by more than a thousandth of the largest gap."""
    noise = 1e-3 * max(gaps)
    out, falling = [], True
    pivot = 0
    for k in range(1, len(gaps)):
        if falling and gaps[k] > gaps[pivot] + noise:
            out.append(("contact", times[pivot], gaps[pivot]))
            falling, pivot = False, k
        elif not falling and gaps[k] < gaps[pivot] - noise:
            out.append(("top", times[pivot], gaps[pivot]))
            falling, pivot = True, k
        elif (falling and gaps[k] < gaps[pivot]) or (not falling and gaps[k] > gaps[pivot]):
            pivot = k
    return out


def measure(times, gaps, speeds, d):
    events = bounces(times, gaps)
    contacts = [e for e in events if e[0] == "contact"]
    if not contacts:
        return None
    t0 = contacts[0][1]
    result = {"contact_time": t0, "tops": [], "contacts": [c[1] - t0 for c in contacts]}
    for _, t, g in (e for e in events if e[0] == "top" and e[1] > t0):
        result["tops"].append({"time_ms": 1e3 * (t - t0), "gap_over_d": g / d})
    if speeds is not None:
        before = [-v for t, v in zip(times, speeds) if t <= t0]
        second = contacts[1][1] if len(contacts) > 1 else times[-1]
        after = [v for t, v in zip(times, speeds) if t0 < t <= second]
        risen = [v for t, g, v in zip(times, gaps, speeds) if t0 < t <= second and g >= RISEN * d]
        result["impact_speed"] = max(before)
        result["rebound_speed"] = max(after) if after else 0.0
        result["restitution"] = result["rebound_speed"] / result["impact_speed"]
        result["risen_speed"] = max(risen) if risen else 0.0
        result["risen_restitution"] = result["risen_speed"] / result["impact_speed"]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("d", type=float, help="the sphere's diameter (mm)")
    parser.add_argument("reference", nargs="?")
    parser.add_argument("--image")
    parser.add_argument("--label", help="the run's name in the picture (default: OUT_DIR's)")
    args = parser.parse_args()
    rows = run_rows(args.out)
    a = 0.5 * args.d
    times = [r[0] for r in rows]
    gaps = [r[1] - a for r in rows]
    run = measure(times, gaps, [r[2] for r in rows], args.d)
    report = {"run": run}
    print(f"# {args.out}")
    if run:
        print(f"impact speed {run['impact_speed']:.1f} mm/s, rebound {run['rebound_speed']:.1f} mm/s, "
              f"e_eff {run['restitution']:.3f}; above {RISEN} d: {run['risen_speed']:.1f} mm/s, "
              f"e_eff {run['risen_restitution']:.3f}")
        for k, top in enumerate(run["tops"]):
            print(f"rebound {k + 1}: top gap/d {top['gap_over_d']:.3f} at {top['time_ms']:.1f} ms")
    if args.reference:
        ref = reference_rows(args.reference)
        measured = measure([r[0] for r in ref], [r[1] for r in ref], None, args.d)
        # A file that starts after the first contact (St 27's) has its first point as the contact.
        report["reference"] = measured
        for k, top in enumerate(measured["tops"] if measured else []):
            line = f"reference rebound {k + 1}: top gap/d {top['gap_over_d']:.3f} at {top['time_ms']:.1f} ms"
            if run and k < len(run["tops"]):
                line += f"; run/reference {run['tops'][k]['gap_over_d'] / top['gap_over_d']:.3f}"
            print(line)
    if args.image:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.5))
        t0 = run["contact_time"] if run else 0.0
        ax.plot([1e3 * (t - t0) for t in times], [g / args.d for g in gaps], label=args.label or args.out.rstrip("/").split("/")[-1])
        if args.reference:
            ax.plot([1e3 * r[0] for r in ref], [r[1] / args.d for r in ref], "ko", ms=3,
                    label="Gondret et al. (2002)")
        ax.set_xlim(-20, None)
        highest = [t["gap_over_d"] for t in (run["tops"] if run else [])]
        if args.reference:
            highest += [r[1] / args.d for r in ref if r[0] > 0.0]
        ax.set_ylim(0, 1.3 * max(highest + [0.5]))
        ax.set_xlabel("time after the first contact (ms)")
        ax.set_ylabel("gap / d")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.image, dpi=120)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
