"""Render one frame of a `tumble run` output directory as a PNG: a 2D flow field on the mesh's
triangles with the bodies' outlines drawn over it.

    pip install meshio matplotlib
    tumble run cases/falling_tripole.toml
    python3 scripts/render_frame.py out/falling_tripole --time 1.0 --window 0 2 4.5 11 --width 3 \
        --limit 50 -o docs/images/falling_tripole.png

The directory's `flow.pvd` lists, per output time, the fluid (`flow_NNNNNN.vtu`: the mesh's
vertices and triangles with point data `velocity`, `pressure`, `vorticity`) and, in a run with
bodies, the bodies (`bodies_NNNNNN.vtu`: their boundary segments). The frame drawn is the one
whose time is nearest to `--time` (default: the last). The field is the vorticity (a scalar in 2D;
colour scale symmetric about 0) or the speed `|velocity|`, interpolated linearly on each triangle.
`--window x0 x1 y0 y1` crops the picture to a part of the domain.
"""

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402
import meshio  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from PIL import Image  # noqa: E402


def frames(pvd: Path) -> list[tuple[float, dict[str, Path]]]:
    """The output times of a `.pvd` file, each with its files by kind (`flow`, `bodies`)."""
    by_time: dict[float, dict[str, Path]] = {}
    for data in ET.parse(pvd).getroot().iter("DataSet"):
        name = data.get("file")
        kind = name.split("_")[0]
        by_time.setdefault(float(data.get("timestep")), {})[kind] = pvd.parent / name
    return sorted(by_time.items())


def nearest(frame_list, time):
    """The frame whose time is nearest to `time`; the last one without a time."""
    if time is None:
        return frame_list[-1]
    return min(frame_list, key=lambda f: abs(f[0] - time))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the output directory of `tumble run`")
    parser.add_argument("--time", type=float, help="the time to draw (nearest frame; default: last)")
    parser.add_argument("--field", choices=["vorticity", "speed"], default="vorticity")
    parser.add_argument(
        "--limit", type=float, help="colour scale: ±limit (vorticity) or [0, limit] (speed); default: the 99th percentile"
    )
    parser.add_argument(
        "--window", type=float, nargs=4, metavar=("X0", "X1", "Y0", "Y1"), help="draw only this part of the domain"
    )
    parser.add_argument("--width", type=float, default=4.0, help="figure width in inches (default 4)")
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("-o", "--output", type=Path, required=True, help="the PNG to write")
    args = parser.parse_args()

    pvd = args.run / "flow.pvd"
    if not pvd.exists():
        sys.exit(f"{pvd}: no such file (this draws the fluid of a run with a [fluid] table)")
    time, files = nearest(frames(pvd), args.time)
    if "flow" not in files:
        sys.exit(f"{pvd}: no flow_*.vtu at t = {time:g}")

    flow = meshio.read(files["flow"])
    triangles = flow.get_cells_type("triangle").astype(np.int64)  # vtkio may store connectivity as floats
    if len(triangles) == 0:
        sys.exit(f"{files['flow']}: no triangles (only 2D runs can be drawn)")
    x, y = flow.points[:, 0], flow.points[:, 1]
    if args.field == "vorticity":
        values = np.asarray(flow.point_data["vorticity"]).reshape(len(x), -1)[:, -1]
        limit = args.limit or np.percentile(np.abs(values), 99) or 1.0
        colours, vmin, vmax, label = "RdBu_r", -limit, limit, "vorticity"
    else:
        values = np.linalg.norm(np.asarray(flow.point_data["velocity"])[:, :2], axis=1)
        limit = args.limit or np.percentile(values, 99) or 1.0
        colours, vmin, vmax, label = "viridis", 0.0, limit, "speed"

    (x0, x1, y0, y1) = args.window or (x.min(), x.max(), y.min(), y.max())
    height = args.width * (y1 - y0) / (x1 - x0)
    fig, ax = plt.subplots(figsize=(args.width + 1.2, height + 0.6))
    mesh = mtri.Triangulation(x, y, triangles)
    image = ax.tripcolor(mesh, values, shading="gouraud", cmap=colours, vmin=vmin, vmax=vmax, rasterized=True)
    if "bodies" in files:
        bodies = meshio.read(files["bodies"])
        for block in bodies.cells:
            if block.type == "line":
                segments = bodies.points[block.data.astype(np.int64)][:, :, :2]
                ax.add_collection(LineCollection(segments, colors="black", linewidths=1.0))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_title(f"t = {time:g}", fontsize=10)
    ax.tick_params(labelsize=8)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label(label, fontsize=9)
    bar.ax.tick_params(labelsize=8)
    fig.savefig(args.output, dpi=args.dpi, bbox_inches="tight")
    # A palette of 224 colours fitted to the picture and 32 greys (for the anti-aliased text) keeps
    # the file about half its RGB size, small enough to commit.
    picture = Image.open(args.output).convert("RGB")
    greys = [level for k in range(32) for level in (k * 255 // 31,) * 3]
    palette = Image.new("P", (1, 1))
    palette.putpalette(picture.quantize(colors=224).getpalette()[: 224 * 3] + greys)
    picture.quantize(palette=palette, dither=Image.Dither.NONE).save(args.output, optimize=True)
    print(f"{args.output}: {args.field} at t = {time:g} from {files['flow'].name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
