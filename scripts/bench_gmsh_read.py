"""Reading Gmsh files: tumble against meshio on the same files, measured in the same run.

Gmsh's own Python API makes the meshes as users have them (MSH 4.1; ASCII, Gmsh's default, and
binary): a disk cut out of a square (triangles) and a ball cut out of a box (tetrahedra), at
three sizes each, about 1e4, 1e5 and 1e6 cells. For every file the script prints

- meshio's `meshio.read` (median of `--runs` reads, in this process);
- `tumble bench mesh` (median of `--runs` reads: parsing, then the mesh's adjacency, measures and
  quality, which meshio does not compute);
- for the largest ASCII files, the wall time of the whole `tumble mesh info` process.

    pip install gmsh meshio
    cargo build --release
    python3 scripts/bench_gmsh_read.py [--runs 3] [--dir out/mesh_bench]

The meshes are written once into `--dir` and reused (about 600 MB for all twelve; the 3D 1e6 mesh
takes Gmsh about a minute). The table is Markdown, for docs/performance.md.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import gmsh
import meshio

TUMBLE = os.path.join(os.path.dirname(__file__), "..", "target", "release", "tumble")

# Mesh sizes giving about 1e4, 1e5 and 1e6 cells.
SIZES_2D = {"1e4": 0.0165, "1e5": 0.0052, "1e6": 0.00165}
SIZES_3D = {"1e4": 0.085, "1e5": 0.04, "1e6": 0.0185}


def generate(dim, h, path, binary):
    """A disk (2D) or a ball (3D) of radius 0.2 cut out of the unit square or cube, at size h."""
    gmsh.initialize()
    gmsh.option.setNumber("General.Terminal", 0)
    gmsh.model.add("bench")
    occ = gmsh.model.occ
    if dim == 2:
        occ.cut([(2, occ.addRectangle(0, 0, 0, 1, 1))], [(2, occ.addDisk(0.5, 0.5, 0, 0.2, 0.2))])
    else:
        occ.cut([(3, occ.addBox(0, 0, 0, 1, 1, 1))], [(3, occ.addSphere(0.5, 0.5, 0.5, 0.2))])
    occ.synchronize()
    gmsh.model.addPhysicalGroup(dim, [t for _, t in gmsh.model.getEntities(dim)], name="fluid")
    gmsh.model.addPhysicalGroup(dim - 1, [t for _, t in gmsh.model.getEntities(dim - 1)], name="walls")
    gmsh.option.setNumber("Mesh.MeshSizeMin", h)
    gmsh.option.setNumber("Mesh.MeshSizeMax", h)
    gmsh.model.mesh.generate(dim)
    gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
    gmsh.option.setNumber("Mesh.Binary", 1 if binary else 0)
    gmsh.write(path)
    gmsh.finalize()


def meshio_seconds(path, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        meshio.read(path)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default="out/mesh_bench")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    print("| file | format | MB | cells | meshio s | tumble s | tumble MB/s | meshio / tumble |")
    print("|---|---|---|---|---|---|---|---|")
    info = []
    for dim, sizes in ((2, SIZES_2D), (3, SIZES_3D)):
        for label, h in sizes.items():
            for binary in (False, True):
                kind = "binary" if binary else "ASCII"
                path = os.path.join(args.dir, f"{'disk' if dim == 2 else 'ball'}_{label}_{kind.lower()}.msh")
                if not os.path.exists(path):
                    generate(dim, h, path, binary)
                theirs = meshio_seconds(path, args.runs)
                out = subprocess.run(
                    [TUMBLE, "bench", "mesh", "--json", "--runs", str(args.runs), path],
                    check=True, capture_output=True, text=True,
                ).stdout
                ours = json.loads(out)
                print(
                    f"| {os.path.basename(path)} | {dim}D {kind} | {ours['bytes'] / 1e6:.1f} | {ours['cells']} "
                    f"| {theirs:.3f} | {ours['median_s']:.3f} | {ours['mb_per_s']:.0f} "
                    f"| {theirs / ours['median_s']:.1f} |",
                    flush=True,
                )
                if label == "1e6" and not binary:
                    start = time.perf_counter()
                    subprocess.run([TUMBLE, "mesh", "info", path], check=True, capture_output=True)
                    info.append((os.path.basename(path), time.perf_counter() - start, theirs))
    print()
    for name, seconds, theirs in info:
        print(f"`tumble mesh info {name}`: {seconds:.2f} s for the whole process; meshio.read: {theirs:.2f} s")


if __name__ == "__main__":
    sys.exit(main())
