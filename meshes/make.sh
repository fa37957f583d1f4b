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
# Finer meshes of the specification's geometries for the distance-field accuracy tests (binary).
for h in 0.2 0.1 0.05; do
    gmsh -2 disk_r3.geo -setnumber h "$h" -format msh41 -bin -o "disk_r3_h$h.msh" > /dev/null
done
for h in 0.4 0.2; do
    gmsh -3 ball_r3.geo -setnumber h "$h" -format msh41 -bin -o "ball_r3_h$h.msh" > /dev/null
done
# h = 0.1 (528 000 tetrahedra, 25 MB) is not committed: the ignored test
# ball_h01_against_the_specification reads it from $TUMBLE_BALL_H01 when asked, e.g.
#   gmsh -3 ball_r3.geo -setnumber h 0.1 -format msh41 -bin -o /tmp/ball_r3_h0.1.msh
# Schäfer–Turek 2D channel (binary): coarse, medium, fine (1 008, 4 541, 11 346 triangles).
gmsh -2 schafer_turek_2d.geo -setnumber h 0.08 -setnumber hc 0.01 -format msh41 -bin -o schafer_turek_2d_coarse.msh > /dev/null
gmsh -2 schafer_turek_2d.geo -setnumber h 0.04 -setnumber hc 0.004 -format msh41 -bin -o schafer_turek_2d_medium.msh > /dev/null
gmsh -2 schafer_turek_2d.geo -setnumber h 0.025 -setnumber hc 0.0025 -format msh41 -bin -o schafer_turek_2d_fine.msh > /dev/null
# The comparison with scikit-fem (docs/performance.md) runs the same family (hc = h/10, reach 0.4), not
# committed: h = 0.08, 0.064, 0.05, 0.032, 0.02, 0.018 (1 168 to 21 799 triangles), e.g.
#   gmsh -2 schafer_turek_2d.geo -setnumber h 0.064 -setnumber hc 0.0064 -format msh41 -bin -o st_0.064.msh
# Closed channel 2 × 12 for Stokes sedimentation, refined to hb around the disk's path (binary):
# 2 052, 3 316, 7 382 and 22 212 triangles.
for hb in 0.04 0.02 0.01 0.005; do
    gmsh -2 channel_box.geo -setnumber hb "$hb" -setnumber bx0 0.78 -setnumber bx1 1.22 -setnumber by0 5.78 \
        -setnumber by1 6.22 -setnumber grow 0.5 -format msh41 -bin -o "stokes_sedimentation_$hb.msh" > /dev/null
done
# Closed channel 2 × 6 for a disk settling from (1, 4) to the bottom, refined to hb along its path
# (binary): 14 184 and 43 235 triangles.
for hb in 0.025 0.0125; do
    gmsh -2 channel_box.geo -setnumber W 2 -setnumber H 6 -setnumber h 0.1 -setnumber hb "$hb" -setnumber bx0 0.75 \
        -setnumber bx1 1.25 -setnumber by0 0 -setnumber by1 4.3 -setnumber grow 0.5 -format msh41 -bin \
        -o "disk_sedimentation_$hb.msh" > /dev/null
done
# Closed channel 2 × 8 for two disks drafting, kissing and tumbling, refined to hb in
# [0.5, 1.5] × [3, 7.6] (binary): 35 851 triangles at 0.02 (committed); 82 255 at 0.0125 (the
# finer run of docs/validation.md, not committed: 4 MB).
for hb in 0.02; do
    gmsh -2 channel_box.geo -setnumber W 2 -setnumber H 8 -setnumber h 0.1 -setnumber hb "$hb" -setnumber bx0 0.5 \
        -setnumber bx1 1.5 -setnumber by0 3.0 -setnumber by1 7.6 -setnumber grow 0.5 -format msh41 -bin \
        -o "dkt_$hb.msh" > /dev/null
done
# Symmetric stenotic artery (the specification's section 4.7), h = d/10 (binary): 52 802 triangles.
gmsh -2 stenotic_artery.geo -setnumber h 8.5e-5 -format msh41 -bin -o stenotic_artery.msh > /dev/null
# ten Cate et al.'s 10 × 10 × 16 cm box, refined to hb = d/8 within 1.5 cm of the sphere's vertical
# path (x = y = 5), growing to 1 cm over 2.5 cm (ASCII, Gmsh's default): 122 914 tetrahedra, 498 000
# velocity unknowns. `tumble bench solver --mesh` measures it beside the boxes.
gmsh -3 ten_cate.geo -setnumber hb 0.1875 -setnumber h 1 -format msh41 -o ten_cate_0.1875.msh > /dev/null
# Gondret et al.'s bouncing sphere at St = 27 (cases/gondret_st27.toml; lengths in mm):
# a 72 x 72 x 105 box, d/6 along the path and d/8 over the plate (75 258 tetrahedra).
gmsh -3 gondret.geo -setnumber d 6 -setnumber H 105 -format msh41 -o gondret_st27.msh > /dev/null
# A sphere of d = 4 mm thrown at a plate in liquids of every viscosity (scripts/restitution.py):
# a 32 x 32 x 32 box, d/6 along the path and d/8 over the plate (37 354 tetrahedra).
gmsh -3 gondret.geo -setnumber d 4 -setnumber W 32 -setnumber H 32 -setnumber grow 8 -format msh41 -o bounce.msh > /dev/null
# The other Gondret cases (cases/gondret_st{100,152,192,742}.toml): d = 4, 3, 6 and 5 mm, each
# box 12 d wide and tall enough for its release height (78 137, 107 727, 60 267, 78 471 tetrahedra).
gmsh -3 gondret.geo -setnumber d 4 -setnumber H 72 -format msh41 -o gondret_st100.msh > /dev/null
gmsh -3 gondret.geo -setnumber d 3 -setnumber H 81 -format msh41 -o gondret_st152.msh > /dev/null
gmsh -3 gondret.geo -setnumber d 6 -setnumber H 75 -format msh41 -o gondret_st192.msh > /dev/null
gmsh -3 gondret.geo -setnumber d 5 -setnumber H 90 -format msh41 -o gondret_st742.msh > /dev/null
# A sphere of radius 1 settling onto the bottom of a cylinder of radius 30, and two approaching
# each other on the axis of a taller one as they fall (scripts/sphere_wall.py): a/4 within 2 of
# the axis (between the heights 14 and 46 for the pair), growing to 3 over 6 (111 554 and
# 207 504 tetrahedra).
gmsh -3 sphere_wall.geo -setnumber R 30 -format msh41 -o sphere_wall_r30.msh > /dev/null
gmsh -3 sphere_wall.geo -setnumber R 30 -setnumber H 60 -setnumber za 14 -setnumber zb 46 -format msh41 \
    -o sphere_pair_r30.msh > /dev/null
# The unit cell of a square array of cylinders at the volume fraction 0.1, its sides meshed as
# images of each other (Periodic Curve), ASCII as Gmsh writes it by default: 3 228 triangles.
gmsh -2 periodic_cylinder.geo -o periodic_cylinder.msh > /dev/null
# The unit cell of a simple cubic array of spheres at the volume fraction 0.027, each pair of
# opposite faces meshed as images of each other (Periodic Surface), ASCII: 12 141 tetrahedra.
gmsh -3 periodic_sphere.geo -o periodic_sphere.msh > /dev/null
