"""The library guide's walkthrough (docs/library.md, "Walkthrough"), in Python: the steps of
examples/walkthrough.rs, printing the same text (examples/walkthrough.out).

Run from the repository's top directory, with the module installed (`pip install ./python`):
`python3 examples/python/walkthrough.py`.
"""

import math

import numpy as np

import tumble

# 1. The distance to the circle r = 1 (facets named "r1") within 1.2 of it.
mesh = tumble.Mesh.read_gmsh("meshes/disk_r3_h0.1.msh")
print(f"mesh: {mesh.points.shape[0]} nodes, {mesh.cells.shape[0]} triangles")
field = tumble.DistanceField(mesh, [mesh.facet_tag("r1")], max_distance=1.2)
d = field.at(np.array([[0.0, 0.8], [1.2, 0.0]]))
print(f"distance: {field.reached.sum()} nodes in the band; d(0, 0.8) = {d[0]:.6f}, d(1.2, 0) = {d[1]:.6f}")

# 2. The ellipse (semi-axes 0.25, 0.125, density 1.25) at 45 degrees, 0.9 rho above the floor of
#    the box [0, 2]^2, its four sides (tags 1 to 4) the walls; 2 s in steps of 1e-4.
floor = tumble.Mesh.box_([0.0, 0.0], [2.0, 2.0], [32, 32])
world = tumble.World(2, range=0.03, stiffness=1e-6, domain=floor, wall_tags=[1, 2, 3, 4],
                     gravity=[0.0, -981.0], drag_linear=20.0, drag_angular=20.0)
world.add_ellipsoid([0.25, 0.125], 1.25, [1.0, 0.2246], [math.pi / 4])
world.step(1e-4, 20000)
forces, _ = world.contact_forces()
body = world.body(0)
print(f"ellipse at t = 2: y = {body['position'][1]:.6f}, angle = {body['orientation'][0]:.6f}, "
      f"wall force {forces[0][1]:.4f}, weight {body['mass'] * 981.0:.4f}")

# 3. Three disks of radius 0.125 in the unit circle (tags 1, 2, 3; the circle 4), two 0.01 apart
#    and one 0.012 above the wall, on a mesh that conforms to them (h = 0.01).
centres = np.array([[-0.3, 0.1], [-0.04, 0.1], [0.0, -0.863]])
host_mesh = tumble.Mesh.balls(np.vstack([centres, [[0.0, 0.0]]]), [0.125, 0.125, 0.125, 1.0], 0.01)
host = tumble.HostContact(host_mesh, [1, 2, 3], range=0.03, stiffness=1e-6, wall_tags=[4])
host.find_contacts(host_mesh, centres)
contacts = host.contacts()
for i, j, gap in zip(contacts["i"], contacts["j"], contacts["gap"]):
    other = "the wall" if j < 0 else f"disk {j}"
    print(f"contact: disk {i} and {other}, gap {gap:.6f}")
forces, _ = host.forces()
for k, f in enumerate(forces):
    print(f"force on disk {k}: ({f[0]:.4f}, {f[1]:.4f})")
loads = host.node_loads()
print(f"node loads: {np.count_nonzero(np.any(loads != 0.0, axis=1))} nodes")
