"""The Python finite-element host (`hosts/python/two_disks.py`, scikit-fem for the fluid, tumble
for the contact) on a coarse mesh: its fluid's resistance is symmetric and positive, its disks'
motion balances the forces it records, the contact forces come from tumble in pairs, and the
symmetric configuration moves symmetrically. The comparison at the specification's h = 0.01 with
tumble's own run is in hosts/README.md."""

import pathlib
import sys

import numpy as np

import tumble

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "hosts" / "python"))

import two_disks  # noqa: E402


def test_the_fluids_resistance_is_symmetric_and_positive():
    centres = np.array([[0.7, 1.0], [1.3, 1.0]])
    mesh = tumble.Mesh.box_with_balls([0, 0], [2, 2], [40, 40], centres, [0.125, 0.125])
    groups = two_disks.facet_groups(mesh.points, mesh.cells, mesh.facets, mesh.facet_tags)
    fluid = two_disks.Fluid(mesh.points, mesh.cells, groups, 1e-3)
    _, _, force_rest, r = fluid.step(centres, np.zeros(fluid.velocity.N))
    # The flow's dissipation U·R U = ∫ 2μ ε:ε + ρ/Δt |u|² > 0, and R is a Gram matrix.
    assert np.abs(r - r.T).max() < 1e-10 * np.abs(r).max()
    assert np.linalg.eigvalsh(r).min() > 0
    # At rest the fluid pushes nothing.
    assert np.abs(force_rest).max() == 0.0
    # The rotational resistance of a disk, 4πμr² in steady unbounded flow, plus the fluid the
    # spin drags in one step: between 1 and 20 times that.
    spin = 4 * np.pi * 0.1 * 0.125**2
    assert spin < r[2, 2] < 20 * spin


def test_the_python_host_moves_the_disks_as_its_forces_say(tmp_path):
    # Coarse (h = 0.05) and a wider range (0.08), so that the gaps hold a lattice step and both
    # contacts act: the wall pushes both disks up, their pair force pushes them apart.
    history = two_disks.run(tmp_path, 0.05, 4, 1e-3, floor_gap=0.06, pair_gap=0.06, contact_range=0.08)
    header = (tmp_path / "bodies.csv").read_text().splitlines()[0]
    assert header == "time,body,x,y,angle,vx,vy,omega,fx,fy,torque,hx,hy,htorque"  # tumble run's
    left, right = history["left"], history["right"]
    # The pair's force is equal and opposite (tumble gives it once per pair).
    assert np.all(left[1:, 7] < 0) and np.array_equal(left[1:, 7], -right[1:, 7])
    assert np.all(left[1:, 8] > 0) and np.all(right[1:, 8] > 0)
    # Each disk's momentum changes by its forces: M ΔU/Δt = weight + contact + fluid.
    mass = 1.01 * np.pi * 0.125**2
    weight = -(1.01 - 1.0) * np.pi * 0.125**2 * 981
    for rows in (left, right):
        dv = np.diff(rows[:, 4:6], axis=0) / 1e-3
        forces = rows[1:, 7:9] + rows[1:, 10:12] + [0.0, weight]
        assert np.abs(mass * dv - forces).max() < 1e-9 * np.abs(forces).max()
    # Mirror symmetry about x = 1: the horizontal speeds agree to the mesh's asymmetry.
    assert np.abs(left[1:, 4] + right[1:, 4]).max() < 0.02 * np.abs(left[1:, 4]).max()
