"""The specification's section 4.2 with the fluid: 1 to 25 disks of radius 0.125 near the floor and
each other in the box [0, 2]², 50 steps of 0.001, and its table of timings beside ours.

    python3 scripts/spec_4_2.py --write      # (re)writes cases/spec_4_2/case1.toml … case8.toml
    cargo build --release
    python3 scripts/spec_4_2.py [--out out/spec_4_2]   # runs the eight, prints the table

The specification gives its configurations as pictures only; here the disks of each case sit as
its pictures and titles say, every one within the contact range ρ = 0.03 of the floor or of a
neighbour (gaps ρ/2, as `benches/contact.rs` places them): case 1 one disk on the floor; case 2
two disks on the floor far apart; case 3 two disks on the floor touching each other (the
placement of `cases/two_disks_floor.toml`); cases 4 to 8 square packings of 3, 6, 9, 16 and 25
disks (rows of ⌈√n⌉ from the floor up, centred on x = 1). The fluid and the contact are the
specification's (ρ_b 1.01, ρ_f 1, μ 0.1, h = 0.01, Δt = 0.001, ε = ε_W = 1e-4, Glowinski's law).

The table: the specification's mesh elements, executions of the collision algorithm and its time
(its "complex shaped body" column, the general algorithm that `tumble` implements) and total
time, beside `tumble`'s cells, contact evaluations (steps × body sub-steps), the time of the
bodies' part of the step (contact and rigid-body update, `summary.json`'s `seconds.bodies`) and
the run's wall time; the ratios are the specification's time over ours.
"""

import argparse
import json
import math
import os
import subprocess
import sys

R, RHO = 0.125, 0.03
CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases", "spec_4_2")

# The specification's tables (section 4.2, "complex shaped body"): elements, collision time (s),
# executions, total time (s).
SPEC = {
    1: (93702, 8.38542, 150, 111.828),
    2: (94104, 21.66329, 200, 239.839),
    3: (93752, 21.24991, 200, 217.893),
    4: (93776, 33.05940, 203, 210.080),
    5: (94576, 73.74359, 203, 331.433),
    6: (95348, 118.6058, 200, 485.259),
    7: (95766, 369.1102, 257, 1004.872),
    8: (96750, 1041.908, 311, 2072.229),
}
TITLES = {
    1: "1 sphere - bottom interaction",
    2: "2 spheres - bottom interaction",
    3: "2 spheres - bottom and sphere - sphere interactions",
    4: "3 spheres interactions",
    5: "6 spheres interactions",
    6: "9 spheres interactions",
    7: "16 spheres interactions",
    8: "25 spheres interactions",
}


def packing(n):
    """n disks in rows of ⌈√n⌉ from the floor up, gaps ρ/2 to the floor and between neighbours."""
    m = math.ceil(math.sqrt(n))
    s = 2 * R + RHO / 2
    return [(1.0 + (k % m - (m - 1) / 2) * s, R + RHO / 2 + (k // m) * s) for k in range(n)]


def placement(case):
    if case == 1:
        return [(1.0, R + RHO / 2)]
    if case == 2:
        return [(0.6, R + RHO / 2), (1.4, R + RHO / 2)]
    if case == 3:
        return [(1.0 - R - RHO / 4, R + 0.02), (1.0 + R + RHO / 4, R + 0.02)]
    return packing({4: 3, 5: 6, 6: 9, 7: 16, 8: 25}[case])


def write():
    os.makedirs(CASES, exist_ok=True)
    for case in SPEC:
        bodies = "\n".join(
            f'[[bodies]]\nname = "d{k + 1}"\nshape = {{ type = "circle", radius = {R} }}\n'
            f"density = 1.01\nposition = [{x:.6f}, {y:.6f}]\n"
            for k, (x, y) in enumerate(placement(case))
        )
        # Cases 1 and 2 have no pair within range (`min_body_gap` is then not measured).
        pair_check = "" if case <= 2 else "min_body_gap = [0.0, 0.03]        # nothing overlaps; neighbours stay within range\n"
        text = f"""# The specification's case 4.2.{case}, "{TITLES[case]}": disks of radius 0.125 in the box
# [0, 2]², each within the contact range of the floor or of a neighbour, 50 steps. Written by
# scripts/spec_4_2.py --write (the placements and the table it prints are explained there).
dimension = 2
gravity = [0, -981]

[domain]
box = [[0.0, 0.0], [2.0, 2.0]]
cells = [200, 200]                # h = 0.01

[fluid]
density = 1.0
viscosity = 0.1
body_boundary = "surface"

[fluid.boundary]
xmin = "no-slip"
xmax = "no-slip"
ymin = "no-slip"
ymax = "no-slip"

{bodies}
[contact]
range = 0.03
stiffness = 1e-4
wall_stiffness = 1e-4

[time]
step = 0.001
end = 0.05

[output]
every = 50
csv_every = 1

[check]
final_gap = [0.0, 0.03]           # the bottom disks rest within range of the floor
{pair_check}"""
        with open(os.path.join(CASES, f"case{case}.toml"), "w") as f:
            f.write(text)
    print(f"wrote {len(SPEC)} cases into {os.path.normpath(CASES)}")


def run(out, tumble):
    print("| case | disks | spec elements | tumble cells | spec executions | tumble contact evaluations "
          "| spec collision s | tumble bodies ms | ratio | spec total s | tumble total s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case, (elements, collision, executions, total) in SPEC.items():
        directory = os.path.join(out, f"case{case}")
        done = subprocess.run(
            [tumble, "check", os.path.join(CASES, f"case{case}.toml"), "--quiet", "--out", directory],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            sys.exit(f"case {case} failed:\n{done.stdout}{done.stderr}")
        with open(os.path.join(directory, "summary.json")) as f:
            s = json.load(f)
        bodies, wall = s["seconds"]["bodies"], s["wall_seconds"]
        print(
            f"| {case} | {s['bodies']} | {elements} | {s['cells']} | {executions} | {s['steps'] * s['substeps']} "
            f"| {collision:.3f} | {bodies * 1e3:.1f} | {collision / bodies:.0f}x | {total:.1f} | {wall:.1f} | {total / wall:.0f}x |"
        )
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the case files and stop")
    parser.add_argument("--out", default="out/spec_4_2")
    parser.add_argument("--tumble", default="target/release/tumble")
    args = parser.parse_args()
    if args.write:
        write()
    else:
        run(args.out, args.tumble)


if __name__ == "__main__":
    main()
