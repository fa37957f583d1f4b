"""Fast marching against scikit-fmm in one run: time per node and L2 error against time, on the
specification's accuracy test (its sections 1.2 and 1.3: the signed distance to the circle
(sphere) r = 1 over the disk (ball) of radius 3, full march).

tumble: `tumble distance <mesh> --front r1 --json` on Gmsh meshes of `meshes/disk_r3.geo` and
`meshes/ball_r3.geo` (ASCII, as Gmsh writes them; made into --out), its initialisation plus
march over the nodes it accepted (every node), best of `--repeat` runs. scikit-fmm
(`skfmm.distance`, first and second order) on the Cartesian grid of the same spacing over the
square (cube) [−3, 3]^D from φ₀ = |x| − 1, its time over the grid's points, best of `--repeat`.
The error: the L2 norm of the field minus |x| − 1 over the disk (ball), for tumble by a
degree-2 quadrature of the P1 field (as `tests/fmm_accuracy.rs`), for scikit-fmm by the grid
points inside r ≤ 3 times the cell's measure. Needs `pip install gmsh meshio scikit-fmm
matplotlib` and a release build.

    python3 scripts/bench_fmm.py --out out/bench_fmm [--image docs/images/performance_fmm.png]
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The mesh sizes of each dimension's runs (the specification's are 0.1 and 0.05 in 2D, 0.2 and
# 0.1 in 3D), and scikit-fmm's grid spacings for the error against time.
MESHES = {2: [0.05, 0.025, 0.0125], 3: [0.2, 0.1]}
GRIDS = {2: [0.1, 0.05, 0.025, 0.0125, 0.00625], 3: [0.2, 0.1, 0.05, 0.025]}


def mesh_file(dim, h, out):
    """The Gmsh mesh of the specification's disk (ball) at size h, made once into `out`."""
    name = os.path.join(out, f"{'disk' if dim == 2 else 'ball'}_r3_h{h}.msh")
    if not os.path.exists(name):
        geo = os.path.join(ROOT, "meshes", "disk_r3.geo" if dim == 2 else "ball_r3.geo")
        subprocess.run(["gmsh", f"-{dim}", geo, "-setnumber", "h", str(h), "-format", "msh41", "-o", name],
                       check=True, stdout=subprocess.DEVNULL)
    return name


def rule(dim):
    """Degree-2 quadrature on the reference simplex: barycentric points and weights."""
    if dim == 2:
        a, b = 2 / 3, 1 / 6
        return np.array([[a, b, b], [b, a, b], [b, b, a]]), np.full(3, 1 / 3)
    a, b = 0.5854101966249685, 0.1381966011250105
    return np.array([[a, b, b, b], [b, a, b, b], [b, b, a, b], [b, b, b, a]]), np.full(4, 0.25)


def mesh_error(vtu, dim):
    """L2 norm over the mesh of the P1 field `distance` minus |x| − 1."""
    import meshio

    m = meshio.read(vtu)
    kind = "triangle" if dim == 2 else "tetra"
    cells = np.concatenate([c.data for c in m.cells if c.type == kind]).astype(np.int64)
    x = m.points[:, :dim][cells]  # cells × (D+1) × D
    u = m.point_data["distance"][cells]
    edges = x[:, 1:, :] - x[:, :1, :]
    measure = np.abs(np.linalg.det(edges)) / math.factorial(dim)
    bary, w = rule(dim)
    q = np.einsum("qk,ckd->cqd", bary, x)
    uh = np.einsum("qk,ck->cq", bary, u)
    err = (uh - (np.linalg.norm(q, axis=2) - 1.0)) ** 2
    return math.sqrt(float((err @ w * measure).sum()))


def run_tumble(args, dim, h):
    """(nodes, best seconds, L2 error) of tumble's full march on the mesh of size h."""
    mesh = mesh_file(dim, h, args.out)
    vtu = os.path.join(args.out, f"tumble_{dim}d_h{h}.vtu")
    best, nodes = math.inf, 0
    for _ in range(args.repeat):
        out = subprocess.run([args.tumble, "distance", mesh, "--front", "r1", "-o", vtu, "--json"],
                             check=True, capture_output=True, text=True).stdout
        stats = json.loads(out)
        best = min(best, stats["init_seconds"] + stats["march_seconds"])
        nodes = stats["accepted"]
    return nodes, best, mesh_error(vtu, dim)


def run_skfmm(args, dim, h, order):
    """(grid points, best seconds, L2 error over r ≤ 3) of scikit-fmm on the grid of spacing h."""
    import skfmm

    n = int(round(6.0 / h)) + 1
    axis = np.linspace(-3.0, 3.0, n)
    grids = np.meshgrid(*([axis] * dim), indexing="ij")
    r = np.sqrt(sum(g * g for g in grids))
    phi = r - 1.0
    best = math.inf
    for _ in range(args.repeat):
        start = time.perf_counter()
        d = skfmm.distance(phi, dx=h, order=order)
        best = min(best, time.perf_counter() - start)
    inside = r <= 3.0
    error = math.sqrt(float((((d - phi) ** 2)[inside]).sum()) * h ** dim)
    return phi.size, best, error


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "bench_fmm"))
    parser.add_argument("--tumble", default=os.path.join(ROOT, "target", "release", "tumble"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--image")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    print(f"{'code':>14} {'D':>2} {'h':>8} {'nodes':>9} {'ms':>9} {'µs/node':>8} {'L2 error':>10}")
    for dim in args.dims:
        for h in MESHES[dim]:
            nodes, seconds, error = run_tumble(args, dim, h)
            rows.append(("tumble", dim, h, nodes, seconds, error))
            print(f"{'tumble':>14} {dim:2d} {h:8.5f} {nodes:9d} {seconds * 1e3:9.2f} {seconds / nodes * 1e6:8.3f} "
                  f"{error:10.3e}", flush=True)
        for order in (1, 2):
            for h in GRIDS[dim]:
                nodes, seconds, error = run_skfmm(args, dim, h, order)
                name = f"scikit-fmm o{order}"
                rows.append((name, dim, h, nodes, seconds, error))
                print(f"{name:>14} {dim:2d} {h:8.5f} {nodes:9d} {seconds * 1e3:9.2f} {seconds / nodes * 1e6:8.3f} "
                      f"{error:10.3e}", flush=True)
    # Time per node at the same spacing (scikit-fmm's first order), the ratio.
    for dim in args.dims:
        for h in MESHES[dim]:
            mine = [r for r in rows if r[0] == "tumble" and r[1] == dim and r[2] == h][0]
            peer = [r for r in rows if r[0] == "scikit-fmm o1" and r[1] == dim and r[2] == h]
            if peer:
                ratio = (mine[4] / mine[3]) / (peer[0][4] / peer[0][3])
                print(f"{dim}D h {h}: tumble's time per node {ratio:.2f}x scikit-fmm's (first order)")
    if args.image:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(args.dims), figsize=(6 * len(args.dims), 4.5))
        axes = np.atleast_1d(axes)
        for ax, dim in zip(axes, args.dims):
            for name, style in (("tumble", "o-"), ("scikit-fmm o1", "s--"), ("scikit-fmm o2", "^--")):
                pts = sorted((r[4], r[5]) for r in rows if r[0] == name and r[1] == dim)
                ax.loglog([p[0] * 1e3 for p in pts], [p[1] for p in pts], style, label=name)
            ax.set_xlabel("time of the full march (ms, best of the runs)")
            ax.set_ylabel("L2 error of the signed distance")
            ax.set_title(f"{dim}D: the distance to the {'circle' if dim == 2 else 'sphere'} r = 1 in r ≤ 3")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
        fig.tight_layout()
        fig.savefig(args.image, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
