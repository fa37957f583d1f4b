"""Pictures of the collision law (`[contact] law = "collision"`) for docs/validation.md:

1. an oblique impact with friction against the impulse theory (Walton 1993; Foerster, Louge,
   Chang and Allia 1994, Am. J. Phys. 62, 2, whose cellulose acetate spheres give e = 0.87 and
   μ = 0.25): a ball (disk) of radius 0.1 thrown at the floor without gravity at normal speed 1,
   the contact point's tangential speed after (ψ₂) and before (ψ₁), both over the normal speed
   before.
   The theory's sliding branch is ψ₂ = ψ₁ − μ(1 + e)(1 + 1/K) (K = I/mR², 2/5 for a ball, 1/2 for
   a disk), its sticking branch ψ₂ = −β ψ₁; the law has no β of its own (its tangential spring
   rings with the normal one, κ = 2/7 and 1/3, so that it turns the contact point back by e:
   β = e), where Foerster et al. measured β = 0.43; the picture shows the β it gives. Each point
   is a dry run of `tumble` (a second or two each, run here);
2. the steel disk dropped in water (cases/steel_disk_water.toml): its height and vertical speed,
   the contact force's spans shaded, from its `bodies.csv`.

    pip install matplotlib
    cargo build --release
    cargo run --release -- run cases/steel_disk_water.toml --out out/steel_disk_water   # 70 s
    python3 scripts/collision_plots.py --runs out --images docs/images
"""

import argparse
import csv
import os
import subprocess
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

E, MU, R = 0.87, 0.25, 0.1
TUMBLE = os.path.join(os.path.dirname(__file__), "..", "target", "release", "tumble")


def ball_case(dim, vt, spin):
    """A dry case: a ball (disk) thrown at the floor of a box with speed (vt, -1) and spin `spin`
    about z, the collision law with Foerster et al.'s e and μ (as tests/collision.rs's)."""
    vector = (lambda *v: "[" + ", ".join(repr(float(x)) for x in v) + "]")
    if dim == 2:
        corner, h, lattice, spin_text = vector(2, 2), 0.05, 0.001, repr(float(spin))
        position, velocity = vector(1, R + 0.007), vector(vt, -1)
    else:
        corner, h, lattice, spin_text = vector(2, 2, 2), 0.25, 0.004, vector(0, 0, spin)
        position, velocity = vector(1, R + 0.007, 1), vector(vt, -1, 0)
    return f"""dimension = {dim}
gravity = {vector(*[0] * dim)}
[domain]
box = [{vector(*[0] * dim)}, {corner}]
h = {h}
[[bodies]]
name = "ball"
shape = {{ type = "circle", radius = {R} }}
density = 7.8
position = {position}
velocity = {velocity}
angular_velocity = {spin_text}
[contact]
law = "collision"
resolution = {lattice}
range = 0.005
restitution = {E}
duration = 3e-3
friction = {MU}
[time]
step = 1.5e-4
end = 0.02
[output]
every = 0
csv_every = 1
"""


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def oblique(dim, vt, spin, work):
    """ψ₁ and ψ₂ of one dry run."""
    case = os.path.join(work, f"oblique_{dim}d.toml")
    with open(case, "w") as f:
        f.write(ball_case(dim, vt, spin))
    out = os.path.join(work, f"out_{dim}d")
    subprocess.run([TUMBLE, "run", "--quiet", "--out", out, case], check=True)
    table = rows(os.path.join(out, "bodies.csv"))
    w = "omega" if dim == 2 else "wz"

    def slip(row):
        return float(row["vx"]) + float(row[w]) * R

    # Both over the normal speed before (Walton's and Foerster et al.'s ψ).
    pressed = [k for k, r in enumerate(table) if float(r["fy"]) != 0.0]
    normal = abs(float(table[0]["vy"]))
    return slip(table[0]) / normal, slip(table[pressed[-1] + 1]) / normal


def impulse_figure(image):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    verdicts = []
    with tempfile.TemporaryDirectory() as work:
        for ax, dim, k in ((axes[0], 2, 0.5), (axes[1], 3, 0.4)):
            limit = MU * (1 + E) * (1 + 1 / k)
            psi1s, psi2s = [], []
            for target in (0.1, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0):
                a, b = oblique(dim, target, 0.0, work)
                psi1s.append(a)
                psi2s.append(b)
            slide = [x - limit for x in psi1s]
            ax.plot(psi1s, psi2s, "o", label="tumble (dry runs)")
            ax.plot(psi1s, slide, "-", color="grey", label=f"sliding: ψ₁ − μ(1+e)(1+1/K) = ψ₁ − {limit:.3f}")
            beta = -psi2s[0] / psi1s[0]
            turn = limit / (1 + beta)
            ax.plot([0, turn], [0, -beta * turn], "--", color="grey",
                    label=f"sticking: −β ψ₁ up to ψ₁ = {turn:.2f}; the law's β = {beta:.3f} (= e)")
            worst = max(abs(b - s) for a, b, s in zip(psi1s, psi2s, slide) if a > 1.2 * limit)
            verdicts.append(f"{dim}D sliding branch within {worst:.3f}")
            ax.set(xlabel="ψ₁ = contact point's tangential speed / normal speed, before", ylabel="ψ₂, after",
                   title=f"{dim}D ({'ball' if dim == 3 else 'disk'}, K = {k})")
            ax.axhline(0, color="black", lw=0.5)
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
    fig.suptitle(f"Oblique impact, e = {E}, μ = {MU} (Foerster et al. 1994): " + "; ".join(verdicts))
    fig.tight_layout()
    fig.savefig(image, dpi=110)
    plt.close(fig)
    return "; ".join(verdicts)


def steel_figure(run, image):
    table = rows(os.path.join(run, "bodies.csv"))
    t = [float(r["time"]) for r in table]
    y = [float(r["y"]) - R for r in table]
    v = [float(r["vy"]) for r in table]
    pressed = [float(r["fy"]) != 0.0 for r in table]
    fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    axes[0].plot(t, y)
    axes[0].axhline(0.01, color="grey", ls="--", label="contact range ρ = 0.01")
    axes[0].set(ylabel="gap to the floor")
    axes[1].plot(t, v)
    axes[1].set(xlabel="t", ylabel="vertical speed")
    for ax in axes:
        for k in range(1, len(t)):
            if pressed[k]:
                ax.axvspan(t[k - 1], t[k], color="orange", alpha=0.3, lw=0)
        ax.grid(alpha=0.3)
    axes[0].legend()
    first = [k for k in range(1, len(t)) if pressed[k]]
    start = first[0]
    end = next(k for k in range(start, len(t)) if not pressed[k])
    ratio = -v[end] / v[start - 1]
    verdict = f"first rebound {ratio:.3f} of the impact speed {-v[start - 1]:.2f} (dry e 0.9); smallest gap {min(y):.4f}"
    fig.suptitle(f"Steel disk in water: {verdict}")
    fig.tight_layout()
    fig.savefig(image, dpi=110)
    plt.close(fig)
    return verdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default="out")
    parser.add_argument("--images", default="docs/images")
    args = parser.parse_args()
    os.makedirs(args.images, exist_ok=True)
    image = os.path.join(args.images, "validation_oblique_impact.png")
    print(f"oblique impact: {impulse_figure(image)} -> {image}")
    run = os.path.join(args.runs, "steel_disk_water")
    if os.path.exists(os.path.join(run, "bodies.csv")):
        image = os.path.join(args.images, "validation_steel_disk_water.png")
        print(f"steel_disk_water: {steel_figure(run, image)} -> {image}")
    else:
        print(f"steel_disk_water: no run at {run}, skipped")


if __name__ == "__main__":
    main()
