#!/usr/bin/env bash
# Regenerates the committed test meshes from their .geo files (needs `pip install gmsh`; the tests
# themselves do not). Each geometry is saved as msh 4.1 ASCII, 4.1 binary and 2.2 ASCII.
set -euo pipefail
cd "$(dirname "$0")"
for geo in disk_r3 ball_r3; do
    dim=2; [ "$geo" = ball_r3 ] && dim=3
    gmsh -"$dim" "$geo.geo" -format msh41 -o "$geo.msh" > /dev/null
    gmsh -"$dim" "$geo.geo" -format msh41 -bin -o "$geo.bin.msh" > /dev/null
    gmsh -"$dim" "$geo.geo" -format msh22 -o "$geo.v22.msh" > /dev/null
done
