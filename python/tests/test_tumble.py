"""The Python module against exact distances, against the Rust library's own run of the same case
(bit for bit), and with bad input. Run from the repository: `pytest python/tests`."""

import csv
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tumble

ROOT = pathlib.Path(__file__).resolve().parents[2]


def disk():
    return tumble.Mesh.read_gmsh(ROOT / "meshes" / "disk_r3_h0.1.msh")


def test_the_distance_to_a_circle_is_exact_to_its_chords():
    mesh = disk()
    assert mesh.dim == 2 and mesh.points.shape == (3496, 2) and mesh.cells.shape == (6801, 3)
    field = tumble.DistanceField(mesh, [mesh.facet_tag("r1")], max_distance=1.2)
    reached = field.reached
    assert reached.dtype == np.bool_ and reached.sum() == 1837
    x = mesh.points[reached]
    error = np.abs(field.values[reached] - (np.hypot(x[:, 0], x[:, 1]) - 1.0))
    # The chords of the circle r = 1 at h = 0.1 lie within h²/(8r) of it.
    assert error.max() <= 1.25e-3
    assert np.all(field.values[~reached] == 1.2)
    d = field.at(np.array([[0.0, 0.8], [1.2, 0.0], [9.0, 0.0]]))
    assert abs(d[0] + 0.2) < 2e-3 and abs(d[1] - 0.2) < 2e-3 and math.isnan(d[2])
    point, value = field.argmin([mesh.facet_tag("r2")])
    assert abs(value - 1.0) < 7e-4 and abs(np.hypot(*point) - 2.0) < 7e-4


def test_strided_and_contiguous_points_give_the_same_bits():
    mesh = disk()
    field = tumble.DistanceField(mesh, [mesh.facet_tag("r1")], max_distance=1.2)
    points = np.random.default_rng(1).uniform(-2.0, 2.0, size=(200, 2))
    fortran = np.asfortranarray(points)
    assert not fortran.flags.c_contiguous
    assert np.array_equal(field.at(points), field.at(fortran))


def test_a_3d_box_gives_the_distance_to_its_floor():
    mesh = tumble.Mesh.box_([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [4, 4, 4])
    assert mesh.dim == 3 and mesh.points.shape == (125, 3)
    field = tumble.DistanceField(mesh, [mesh.facet_tag("zmin")], signed=False)
    assert np.array_equal(field.values, mesh.points[:, 2])


def test_a_mesh_from_arrays_and_its_errors():
    points = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    facets = np.array([[0, 1], [1, 2], [2, 3], [3, 0]], dtype=np.uint32)
    tags = np.array([1, 2, 2, 2], dtype=np.int32)
    good = np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32)
    mesh = tumble.Mesh(points, good, facets, tags)
    field = tumble.DistanceField(mesh, [1], signed=False)
    assert np.array_equal(field.values, points[:, 1])
    with pytest.raises(tumble.TumbleError, match="cell 0.*inverted"):
        tumble.Mesh(points, np.array([[0, 2, 1], [0, 2, 3]], dtype=np.uint32), facets, tags)
    with pytest.raises(tumble.TumbleError, match="cell 1"):
        tumble.Mesh(points, np.array([[0, 1, 2], [0, 2, 7]], dtype=np.uint32), facets, tags)
    nan = points.copy()
    nan[2, 1] = np.nan
    with pytest.raises(tumble.TumbleError, match="node 2"):
        tumble.Mesh(nan, good, facets, tags)
    with pytest.raises(ValueError, match="facet_tags: has 3 tags for 4 facets"):
        tumble.Mesh(points, good, facets, tags[:3])
    with pytest.raises(tumble.TumbleError, match="no/such/file.msh"):
        tumble.Mesh.read_gmsh("no/such/file.msh")
    with pytest.raises(ValueError, match="no marker named 'r9'"):
        disk().facet_tag("r9")
    with pytest.raises(ValueError, match=r"points: has shape \[1, 3\], expected \(N, 2\)"):
        field.at(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="point 0 has a non-finite coordinate"):
        field.at(np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match="max_distance"):
        tumble.DistanceField(mesh, [1], max_distance=-1.0)


def ellipse_world():
    """cases/dry_ellipse_wall.toml, set up through the module."""
    box = tumble.Mesh.box_([0.0, 0.0], [2.0, 2.0], [32, 32])
    world = tumble.World(
        2,
        range=0.03,
        stiffness=1e-6,
        wall_stiffness=1e-6,
        domain=box,
        wall_tags=[1, 2, 3, 4],
        gravity=[0.0, -981.0],
        drag_linear=20.0,
        drag_angular=20.0,
    )
    assert world.add_ellipsoid([0.25, 0.125], 1.25, [1.0, 0.2246], [math.pi / 4.0]) == 0
    return world


def test_the_ellipse_on_the_floor_is_the_rust_run_bit_for_bit(tmp_path):
    subprocess.run(
        ["cargo", "run", "--release", "--quiet", "--", "run", "cases/dry_ellipse_wall.toml", "--out", str(tmp_path), "--quiet"],
        cwd=ROOT,
        check=True,
    )
    with open(tmp_path / "bodies.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 20001
    world = ellipse_world()
    done = 0
    for k in [1, 2, 500, 5000, 20000]:
        world.step(1e-4, k - 1 - done)
        # Row k's force is the one its step began with: at the state of row k - 1.
        forces, torques = world.contact_forces()
        world.step(1e-4, 1)
        done = k
        state = world.body(0)
        row = rows[k]
        ours = [*state["position"], state["orientation"][0], *state["velocity"], state["angular_velocity"][0], *forces[0], torques[0]]
        theirs = [float(row[c]) for c in ["x", "y", "angle", "vx", "vy", "omega", "fx", "fy", "torque"]]
        assert ours == theirs, f"row {k}: {ours} against {theirs}"
    # At rest, flat, at the gap where the wall force holds the weight π a b ρ g.
    state = world.body(0)
    assert abs(state["orientation"][0]) < 1e-3 and np.hypot(*state["velocity"]) < 1e-6
    forces, _ = world.contact_forces()
    assert abs(forces[0, 1] / (math.pi * 0.25 * 0.125 * 1.25 * 981.0) - 1.0) < 1e-3


def test_bad_worlds_and_bodies():
    with pytest.raises(ValueError, match="range: must be a positive number, got NaN"):
        tumble.World(2, range=float("nan"), stiffness=1e-6)
    with pytest.raises(ValueError, match="the domain is a 2D mesh"):
        tumble.World(3, range=0.03, stiffness=1e-6, domain=disk(), wall_tags=[13])
    with pytest.raises(ValueError, match="law: unknown 'hooke'"):
        tumble.World(2, range=0.03, stiffness=1e-6, law="hooke")
    world = tumble.World(2, range=0.05, stiffness=1e-4, domain=disk(), wall_tags=[13])
    with pytest.raises(tumble.TumbleError, match="no body"):
        world.step(1e-3)
    with pytest.raises(ValueError, match="sizes: component 1 is -0.05"):
        world.add_ellipsoid([0.1, -0.05], 1.0, [0.5, 0.5])
    with pytest.raises(ValueError, match="position: has 3 numbers, expected 2"):
        world.add_ellipsoid([0.1, 0.05], 1.0, [0.5, 0.5, 0.0])
    assert world.add_ellipsoid([0.1, 0.05], 1.0, [0.5, 0.5]) == 0 and world.num_bodies == 1
    with pytest.raises(ValueError, match="index: is 1, the world has 1 bodies"):
        world.body(1)
    with pytest.raises(ValueError, match="velocity: component 0 is inf"):
        world.set_body(0, position=[9.0, 0.0], velocity=[math.inf, 0.0])
    assert list(world.body(0)["position"]) == [0.5, 0.5], "a refused state changes nothing"
    world.set_body(0, position=[9.0, 0.0])
    with pytest.raises(tumble.TumbleError, match="body0"):
        world.contact_forces()


def test_a_polygon_a_union_and_a_mesh_body_come_to_rest_on_the_floor():
    box = tumble.Mesh.box_([0.0, 0.0], [2.0, 2.0], [32, 32])
    # The two disks touch the floor at two places: the "patches" law gives each its force (with
    # "glowinski", one force at the closer lobe, and the pair rocks).
    world = tumble.World(2, range=0.03, stiffness=1e-6, domain=box, wall_tags=[1, 2, 3, 4],
                         gravity=[0.0, -981.0], drag_linear=20.0, drag_angular=20.0, law="patches")
    square = np.array([[-0.1, -0.1], [0.1, -0.1], [0.1, 0.1], [-0.1, 0.1]])
    assert world.add_polygon(square, 1.25, [0.4, 0.115]) == 0
    # Two tangent disks side by side, their centres given about (5, 5): the frame is theirs.
    assert world.add_spheres(np.array([[4.92, 5.0], [5.08, 5.0]]), [0.08, 0.08], 1.25, [1.0, 0.095]) == 1
    assert world.add_mesh_body(tumble.Mesh.box_([-0.1, -0.1], [0.1, 0.1], [4, 4]), 1.25, [1.6, 0.115]) == 2
    world.step(1e-4, 15000)
    forces, torques = world.contact_forces()
    weights = np.array([0.04, 2.0 * math.pi * 0.08**2, 0.04]) * 1.25 * 981.0
    # At rest, level, each carried by the floor: the wall force is its weight.
    assert np.all(np.abs(forces[:, 1] / weights - 1.0) < 2e-3), forces[:, 1] / weights
    for i in range(3):
        state = world.body(i)
        assert np.hypot(*state["velocity"]) < 1e-5 and abs(state["orientation"][0]) < 1e-3, state


def test_a_dumbbell_of_balls_rests_on_the_floor_in_3d():
    box = tumble.Mesh.box_([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [8, 8, 8])
    world = tumble.World(3, range=0.04, stiffness=1e-6, domain=box, wall_tags=[1, 2, 3, 4, 5, 6],
                         gravity=[0.0, 0.0, -981.0], drag_linear=20.0, drag_angular=20.0, lattice_step=0.02,
                         law="patches")
    r = 0.1
    world.add_spheres(np.array([[-r, 0.0, 0.0], [r, 0.0, 0.0]]), [r, r], 1.25, [0.5, 0.5, r + 0.02])
    world.step(1e-4, 14000)
    forces, torques = world.contact_forces()
    state = world.body(0)
    # The union has no exact surface: its level set on the lattice (h = r/5) encloses a little
    # less than the two balls.
    exact = 2.0 * 4.0 / 3.0 * math.pi * r**3 * 1.25
    assert abs(state["mass"] / exact - 1.0) < 0.05, state["mass"] / exact
    assert forces.shape == (1, 3) and torques.shape == (1, 3)
    assert abs(forces[0, 2] / (state["mass"] * 981.0) - 1.0) < 1e-3, forces[0, 2] / (state["mass"] * 981.0)
    assert abs(np.linalg.norm(state["orientation"]) - 1.0) < 1e-12
    assert np.linalg.norm(state["velocity"]) < 1e-4


def test_bad_shapes():
    world = tumble.World(2, range=0.03, stiffness=1e-6)
    with pytest.raises(ValueError, match="edges 0–1 and 2–3 meet"):
        world.add_polygon(np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]), 1.0, [0.5, 0.5])
    with pytest.raises(ValueError, match="radii: radius 1 is 0"):
        world.add_spheres(np.array([[0.0, 0.0], [0.1, 0.0]]), [0.1, 0.0], 1.0, [0.5, 0.5])
    with pytest.raises(ValueError, match="body: is a 3D mesh in a 2D world"):
        world.add_mesh_body(tumble.Mesh.box_([0, 0, 0], [1, 1, 1], [1, 1, 1]), 1.0, [0.5, 0.5])
    world3 = tumble.World(3, range=0.03, stiffness=1e-6)
    with pytest.raises(ValueError, match="a polygon is a 2D shape"):
        world3.add_polygon(np.zeros((3, 2)), 1.0, [0.5, 0.5, 0.5])


def test_a_saved_world_continues_bit_for_bit_on_any_thread_count():
    first = ellipse_world()
    first.step(1e-4, 3000)
    state = first.save()
    first.step(1e-4, 3000)
    box = tumble.Mesh.box_([0.0, 0.0], [2.0, 2.0], [32, 32])
    second = tumble.World(2, range=0.03, stiffness=1e-6, domain=box, wall_tags=[1, 2, 3, 4],
                          gravity=[0.0, -981.0], drag_linear=20.0, drag_angular=20.0, threads=1)
    second.add_ellipsoid([0.25, 0.125], 1.25, [1.0, 0.2246], [math.pi / 4.0])
    second.restore(state)
    second.step(1e-4, 3000)
    for key in ["position", "orientation", "velocity", "angular_velocity"]:
        assert first.body(0)[key].tobytes() == second.body(0)[key].tobytes(), key
    with pytest.raises(ValueError, match="state: is not a saved world state"):
        second.restore(b"nonsense")
    with pytest.raises(ValueError, match="threads: is 0"):
        tumble.World(2, range=0.03, stiffness=1e-6, threads=0)


def test_run_gives_the_summary_and_the_history_of_a_case(tmp_path):
    result = tumble.run(ROOT / "cases" / "dry_ellipse_wall.toml", tmp_path / "run")
    assert result["summary"]["steps"] == 20000 and result["summary"]["status"] == "completed"
    ellipse = result["bodies"]["ellipse"]
    assert ellipse["time"].shape == (20001,) and ellipse["time"][-1] == pytest.approx(2.0)
    # The same numbers as the World set up by hand (test above), at the last step.
    world = ellipse_world()
    world.step(1e-4, 20000)
    state = world.body(0)
    assert ellipse["x"][-1] == state["position"][0] and ellipse["angle"][-1] == state["orientation"][0]
    with pytest.raises(tumble.TumbleError, match="no/such/case.toml"):
        tumble.run("no/such/case.toml", tmp_path / "none")


def test_run_warns_as_tumble_run_does(tmp_path):
    # A step above the contact springs' stable one (summary's stable_time_step): a warning from
    # the run driver, which every front end gives alike.
    text = (ROOT / "cases" / "dry_disk_wall.toml").read_text()
    case = tmp_path / "coarse.toml"
    case.write_text(text.replace("step = 1.0e-4", "step = 5.0e-3").replace("end = 1.0", "end = 0.05"))
    with pytest.warns(tumble.TumbleWarning) as caught:
        result = tumble.run(case, tmp_path / "python")
    warned = [str(w.message) for w in caught]
    summary = result["summary"]
    assert summary["time_step"] > summary["stable_time_step"]
    assert len(warned) == 1 and warned[0].startswith("time step 5e-3 exceeds the contact springs' stable step")
    assert summary["warnings"] == warned
    # The command line prints the same lines on stderr.
    binary = ROOT / "target" / "release" / "tumble"
    command = [str(binary)] if binary.exists() else ["cargo", "run", "--release", "--quiet", "--"]
    cli = subprocess.run(
        command + ["run", str(case), "--out", str(tmp_path / "cli"), "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    printed = [line for line in cli.stderr.splitlines() if line.startswith("warning: ")]
    assert printed == ["warning: " + w for w in warned], cli.stderr


def test_a_moved_mesh_is_the_mesh_built_at_the_new_points():
    mesh = disk()
    points = mesh.points
    # A rigid shift and a small shear keep every cell positive.
    moved = points + np.array([0.3, -0.2]) + 0.05 * points[:, [1]] * np.array([[1.0, 0.0]])
    fast = mesh.with_points(moved)
    tags = [mesh.facet_tag("r1")]
    cells = mesh.cells
    assert np.array_equal(fast.points, moved) and np.array_equal(fast.cells, cells)
    field = tumble.DistanceField(fast, tags, max_distance=1.2)
    original = tumble.DistanceField(mesh, tags, max_distance=1.2)
    assert field.reached.sum() > 1000
    # The shear is small: the distances move by at most its size near the circle.
    assert np.abs(field.values - original.values)[field.reached & original.reached].max() < 0.06
    inverted = points.copy()
    inverted[cells[0, 0]] = inverted[cells[0, 1]] + (inverted[cells[0, 1]] - inverted[cells[0, 2]]) * 2
    with pytest.raises(tumble.TumbleError, match="inverted"):
        mesh.with_points(inverted)
    with pytest.raises(ValueError, match="points: has shape"):
        mesh.with_points(points[:10, :1])


def three_disks():
    """Three disks of radius 0.125 in the unit circle: two 0.01 apart, one 0.012 above the wall."""
    r = 0.125
    centres = np.array([[-0.3, 0.1], [-0.3 + 2 * r + 0.01, 0.1], [0.0, -(1 - r - 0.012)]])
    mesh = tumble.Mesh.balls(np.vstack([centres, [[0.0, 0.0]]]), [r, r, r, 1.0], 0.01)
    return r, centres, mesh


def test_host_contact_forces_follow_glowinskis_law_and_the_node_loads_balance():
    r, centres, mesh = three_disks()
    rho, eps = 0.03, 1e-6
    host = tumble.HostContact(mesh, [1, 2, 3], range=rho, stiffness=eps, wall_tags=[4], threads=1)
    assert (host.dim, host.num_bodies) == (2, 3)
    assert host.find_contacts(mesh, centres) == 2
    c = host.contacts()
    assert list(c["i"]) == [0, 2] and list(c["j"]) == [1, -1]
    # The gaps are measured from the nodes: within (h/2)²/r of the exact ones.
    assert abs(c["gap"][0] - 0.01) < 1e-4 and abs(c["gap"][1] - 0.012) < 1e-4
    forces, torques = host.forces()
    # Glowinski's law: (ρ − d)² (R_i + R_j + d)/ε between disks, (ρ − d)² 2 (R + d)/ε_W at the
    # wall, along the contact's normal.
    d = c["gap"]
    pair = (rho - d[0]) ** 2 * (2 * r + d[0]) / eps
    wall = (rho - d[1]) ** 2 * 2 * (r + d[1]) / eps
    np.testing.assert_allclose(forces[0], pair * c["normal"][0], rtol=1e-9)
    np.testing.assert_allclose(forces[1], -pair * c["normal"][0], rtol=1e-9)
    np.testing.assert_allclose(forces[2], wall * c["normal"][1], rtol=1e-9)
    assert forces[0][0] < 0 and forces[2][1] > 0 and np.abs(torques).max() < 1e-3 * pair * r
    loads = host.node_loads()
    assert loads.shape == mesh.points.shape
    for k in range(3):
        on_body = np.abs(np.hypot(*(mesh.points - centres[k]).T) - r) < 1e-9
        np.testing.assert_allclose(loads[on_body].sum(axis=0), forces[k], rtol=1e-12, atol=1e-12 * pair)
    # The walls take the reaction: the loads sum to zero.
    assert np.abs(loads.sum(axis=0)).max() < 1e-12 * pair

    # The host moves its mesh (a translation here): the same contacts and forces.
    shift = np.array([0.5, 0.25])
    moved = mesh.with_points(mesh.points + shift)
    assert host.find_contacts(moved, centres + shift) == 2
    again, _ = host.forces()
    np.testing.assert_allclose(again, forces, rtol=1e-9, atol=1e-9 * pair)


def test_host_contact_refuses_bad_input_with_its_name():
    r, centres, mesh = three_disks()
    with pytest.raises(ValueError, match="body_tags: the mesh has no facet tagged 9"):
        tumble.HostContact(mesh, [1, 2, 9], range=0.03, stiffness=1e-6)
    with pytest.raises(ValueError, match="body 1: tag 1 is also body 0"):
        tumble.HostContact(mesh, [1, 1], range=0.03, stiffness=1e-6)
    with pytest.raises(ValueError, match="range"):
        tumble.HostContact(mesh, [1], range=-1.0, stiffness=1e-6)
    with pytest.raises(ValueError, match="law"):
        tumble.HostContact(mesh, [1], range=0.03, stiffness=1e-6, law="sticky")
    host = tumble.HostContact(mesh, [1, 2, 3], range=0.03, stiffness=1e-6, wall_tags=[4])
    with pytest.raises(ValueError, match="centres"):
        host.find_contacts(mesh, centres[:2])
    bad = centres.copy()
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match="centres: component 2 is NaN"):
        host.find_contacts(mesh, bad)
    with pytest.raises(ValueError, match="mesh"):
        host.find_contacts(tumble.Mesh.box_([0, 0], [1, 1], [4, 4]), centres)
    with pytest.raises(ValueError, match="radii"):
        tumble.Mesh.balls(np.array([[0.0, 0.0], [0.0, 0.0]]), [0.5, 0.52], 0.1)


def test_the_python_walkthrough_prints_the_guides_output():
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "python" / "walkthrough.py")],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    assert run.stdout == (ROOT / "examples" / "walkthrough.out").read_text()


def test_a_two_lobed_body_rests_on_both_lobes_with_the_patches_law_in_3d():
    # Two balls of radius 0.15 in the unit ball, made one body by giving the second's facets the
    # first's tag; each lobe 0.088 from the wall, within the range 0.1.
    lobes = np.array([[-0.3, 0.0, -0.7], [0.3, 0.0, -0.7]])
    two = tumble.Mesh.balls(np.vstack([lobes, [[0.0, 0.0, 0.0]]]), [0.15, 0.15, 1.0], 0.06)
    tags = two.facet_tags.copy()
    tags[tags == 2] = 1
    mesh = tumble.Mesh(two.points, two.cells, two.facets, tags)
    centre = lobes.mean(axis=0, keepdims=True)
    counts = {}
    for law in ["patches", "glowinski"]:
        host = tumble.HostContact(mesh, [1], range=0.1, stiffness=1e-4, wall_tags=[3], law=law)
        counts[law] = host.find_contacts(mesh, centre)
        forces, torques = host.forces()
        # The torque about the centre against the force times the lobes' half-distance 0.3.
        lever = np.abs(torques[0]).max() / (np.linalg.norm(forces[0]) * 0.3)
        if law == "patches":
            # Nearly balanced: the lobes' gaps differ by the mesh (0.0883 and 0.0888, lobes 2.2
            # lattice steps in radius), their forces by 9 %, so the torque is 4.8 %.
            assert forces[0][2] > 0 and abs(forces[0][0]) < 0.05 * forces[0][2]
            assert lever < 0.1
        else:
            # One lobe carries the body: 92 %.
            assert lever > 0.5
    assert counts == {"patches": 2, "glowinski": 1}


def test_the_collision_law_rebounds_at_its_restitution():
    # A steel disk thrown at the floor at 0.5 without gravity, law "collision" (e = 0.8 over
    # 1 ms), stepped at the law's t_c/20: it leaves at e times its impact speed (docs/theory.md).
    world = tumble.World(
        2, range=0.005, law="collision", restitution=0.8, duration=1e-3, friction=0.3,
        domain=tumble.Mesh.box_([0.0, 0.0], [2.0, 2.0], [20, 20]), wall_tags=[1, 2, 3, 4],
    )
    world.add_ellipsoid([0.1, 0.1], 7.8, [1.0, 0.2])
    world.set_body(0, velocity=[0.0, -0.5])
    world.step(5e-5, 4000)
    assert abs(world.body(0)["velocity"][1] / 0.5 / 0.8 - 1.0) < 0.01
    with pytest.raises(ValueError, match="stiffness: is not a parameter of the collision law"):
        tumble.World(2, range=0.005, law="collision", restitution=0.8, duration=1e-3, stiffness=1e-6)


def test_the_lubrication_film_slows_a_disk_sliding_along_the_floor_unless_told_not_to():
    # A steel disk sliding at 1 at the gap 0.002 over the floor through a film (μ = 0.05, cut
    # 0.02): the film's tangential part F = −λU, λ = 2√2 πμ (√(a/h) − √(a/h_c)), slows it as
    # exp(−λt/m) (docs/theory.md); with lubrication_tangential=False the film leaves it alone.
    mu, a, cut, gap = 0.05, 0.1, 0.02, 0.002

    def sliding(tangential):
        world = tumble.World(
            2, range=1e-4, law="collision", restitution=0.9, duration=1e-3, lubrication=(mu, cut, 1e-4),
            lubrication_tangential=tangential, lattice_step=1e-3,
            domain=tumble.Mesh.box_([0.0, 0.0], [2.0, 2.0], [40, 40]), wall_tags=[1, 2, 3, 4],
        )
        world.add_ellipsoid([a, a], 7.8, [1.0, a + gap])
        world.set_body(0, velocity=[1.0, 0.0])
        return world

    m = 7.8 * math.pi * a * a
    lam = 2.0 * math.sqrt(2.0) * math.pi * mu * (math.sqrt(a / gap) - math.sqrt(a / cut))
    dt = 0.01 * m / lam
    world = sliding(True)
    for _ in range(70):
        world.step(dt)
    speed = world.body(0)["velocity"][0]
    assert abs(speed / math.exp(-lam * 70 * dt / m) - 1.0) < 0.01, speed
    world = sliding(False)
    world.step(dt)
    assert world.body(0)["velocity"][0] == 1.0


def test_the_lubrication_film_slows_an_approach_as_its_closed_form_integrates():
    # A steel disk coasting at 1 onto the floor through a film (μ = 6e-3, cut 0.02, roughness
    # 1e-4) beside the collision law: at the gap h its speed is 1 − Φ(h)/m, with the film's work
    # Φ(h) = C (2/√h − 3/√h_c + h/h_c^{3/2}), C = 3 √2 π μ a^{3/2} (docs/theory.md).
    mu, a, cut = 6e-3, 0.1, 0.02
    world = tumble.World(
        2, range=1e-4, law="collision", restitution=0.9, duration=1e-3, lubrication=(mu, cut, 1e-4),
        lattice_step=1e-3, domain=tumble.Mesh.box_([0.0, 0.0], [2.0, 2.0], [40, 40]), wall_tags=[1, 2, 3, 4],
    )
    world.add_ellipsoid([a, a], 7.8, [1.0, a + 0.021])
    world.set_body(0, velocity=[0.0, -1.0])
    while world.body(0)["position"][1] - a > 0.002:
        world.step(1e-4)
    h = world.body(0)["position"][1] - a
    c = 3.0 * math.sqrt(2.0) * math.pi * mu * a**1.5
    work = c * (2.0 / math.sqrt(h) - 3.0 / math.sqrt(cut) + h / cut**1.5)
    expected = 1.0 - work / (7.8 * math.pi * a * a)
    speed = -world.body(0)["velocity"][1]
    assert expected < 0.8 and abs((1.0 - speed) / (1.0 - expected) - 1.0) < 0.01
    with pytest.raises(ValueError, match="lubrication_roughness: must be below the cut"):
        tumble.World(2, range=1e-4, law="collision", restitution=0.9, duration=1e-3, lubrication=(mu, cut, cut))
    with pytest.raises(ValueError, match=r"lubrication_share: must be in \[0, 1\)"):
        tumble.World(
            2, range=1e-4, law="collision", restitution=0.9, duration=1e-3, lubrication=(mu, cut, 1e-4),
            lubrication_share=1.0,
        )
