"""A Python finite-element host that uses tumble for contact: the specification's case 4.2.3, two
disks of radius 0.125 near the floor and near each other in the box [0, 2]², settling in a viscous
fluid (ρ_b 1.01, ρ_f 1, μ 0.1, CGS, g = 981; contact range ρ = 0.03).

The host, scikit-fem, owns the fluid, on a mesh that fits the disks and moves with them (the
specification's way):
- the mesh: tumble's generator (`Mesh.box_with_balls`, the disks' insides left out), handed to
  scikit-fem as arrays;
- the fluid: unsteady Stokes flow, ρ_f ∂u/∂t = ∇·σ, ∇·u = 0, Taylor–Hood P2–P1, backward Euler
  at the mesh's moving nodes, no-slip on the box and the rigid velocity of each disk on its
  boundary. The disks settle at Reynolds numbers below 0.1, so convection is left out, as in
  `cases/two_disks_floor.toml`'s run (`stokes = true`);
- the coupling: each step's flow is linear in the disks' new velocities U = (u_0, v_0, ω_0, u_1,
  v_1, ω_1): u = u_rest + Σ U_m u_m, with u_rest the flow of the still disks driven by the last
  step's velocity and u_m the flow of a unit rigid velocity of one disk (seven solves, one
  factorisation). The fluid's force and torque on the disks are then F_rest − R U, R the resistance
  matrix, read from the residual of the flow's equations at the disks' velocity dofs (the
  consistent boundary traction). The disks' equations are advanced implicitly in U,
  (M/Δt + R) U = M/Δt U_old + F_rest + F_gravity + F_contact, stable whatever the density ratio
  (1.01 here; an explicit coupling is unstable through the fluid's added mass);
- the mesh motion: the displacement of the mesh's nodes is the harmonic extension (P1) of the
  disks' rigid displacement, zero on the box;
- the contact: tumble's host-mesh mode on the same mesh as it moves (`tumble.HostContact`, the
  disks' facets tagged 1 and 2, the box's sides 3 to 6): the contact forces and torques go into
  the disks' equations.

Output: `bodies.csv` in `tumble run`'s columns (a row per disk and step: position, angle,
velocities, the contact force and torque, the fluid's force and torque). Run from the repository's top directory, with the module installed (`pip install
./python scikit-fem`):

    python3 hosts/python/two_disks.py --out out/host_two_disks [--h 0.01] [--steps 50] [--dt 0.001]
"""

import argparse
import csv
import math
import os

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from skfem import Basis, BilinearForm, ElementTriP1, ElementTriP2, ElementVector, MeshTri, condense, solve
from skfem.helpers import ddot, div, dot, grad, sym_grad

import tumble

RADIUS = 0.125
BODY_DENSITY, FLUID_DENSITY, VISCOSITY, GRAVITY = 1.01, 1.0, 0.1, 981.0
RANGE, STIFFNESS = 0.03, 1e-4


def rigid(centre, velocity, x):
    """The rigid velocity (u, v, ω) of a body with centre `centre` at points x (2, n)."""
    u, v, w = velocity
    return np.array([u - w * (x[1] - centre[1]), v + w * (x[0] - centre[0])])


class Fluid:
    """Stokes flow on one position of the mesh: Taylor–Hood, the disks' and the box's dofs."""

    def __init__(self, points, cells, groups, dt):
        """The flow on the mesh of `points` and `cells`; `groups` are scikit-fem's facet indices of
        the two disks and of the box (`facet_groups`, the same for every position)."""
        self.mesh = MeshTri(points.T.copy(), cells.T.copy())
        self.velocity = Basis(self.mesh, ElementVector(ElementTriP2()), intorder=4)
        self.pressure = Basis(self.mesh, ElementTriP1(), intorder=4)
        self.body_dofs = [self.velocity.get_dofs(facets=g).all() for g in groups[:2]]
        self.wall_dofs = self.velocity.get_dofs(facets=groups[2]).all()
        # Each velocity dof's component (0: x, 1: y).
        self.component = np.empty(self.velocity.N, dtype=int)
        for c in (0, 1):
            self.component[self.velocity.nodal_dofs[c]] = c
            self.component[self.velocity.facet_dofs[c]] = c

        @BilinearForm
        def viscous(u, v, _):
            return 2.0 * VISCOSITY * ddot(sym_grad(u), sym_grad(v))

        @BilinearForm
        def divergence(u, q, _):
            return div(u) * q

        @BilinearForm
        def mass(u, v, _):
            return FLUID_DENSITY / dt * dot(u, v)

        self.mass = mass.assemble(self.velocity)
        a = viscous.assemble(self.velocity) + self.mass
        b = divergence.assemble(self.velocity, self.pressure)
        self.matrix = sp.bmat([[a, -b.T], [-b, None]], format="csr")
        n = self.velocity.N
        # Dirichlet: every velocity dof on a boundary, and one pressure (the level is free).
        self.fixed = np.concatenate([self.wall_dofs, *self.body_dofs, [n]])
        self.free = np.setdiff1d(np.arange(self.matrix.shape[0]), self.fixed)
        self.factor = spla.splu(self.matrix[self.free][:, self.free].tocsc())

    def solve(self, fixed_values, memory):
        """The flow with the velocity dofs on the boundary at `fixed_values` (a full vector, read at
        the fixed dofs) and the last step's velocity `memory`; its residual at every dof."""
        rhs = np.zeros(self.matrix.shape[0])
        rhs[: self.velocity.N] = self.mass @ memory
        sol = np.zeros(self.matrix.shape[0])
        sol[self.fixed] = fixed_values[self.fixed]
        sol[self.free] = self.factor.solve(rhs[self.free] - self.matrix[self.free] @ sol)
        return sol, self.matrix @ sol - rhs

    def modes(self, centres, k):
        """The dofs of disk k and the values of its three unit rigid velocities there (3, n)."""
        dofs = self.body_dofs[k]
        x = self.velocity.doflocs[:, dofs]
        return dofs, np.array([rigid(centres[k], mode, x)[self.component[dofs], np.arange(len(dofs))] for mode in np.eye(3)])

    def step(self, centres, memory):
        """The flow of the still disks (`memory` the last velocity), the six unit flows, and the
        forces: `F_rest` (6) and `R` (6 × 6), the fluid's force on the disks being F_rest − R U."""
        n_all = self.matrix.shape[0]
        rest, residual = self.solve(np.zeros(n_all), memory)
        force_rest = np.zeros(6)
        unit, r = [], np.zeros((6, 6))
        for k in (0, 1):
            dofs, values = self.modes(centres, k)
            force_rest[3 * k : 3 * k + 3] = -values @ residual[dofs]
            for mode in values:
                fixed = np.zeros(n_all)
                fixed[dofs] = mode
                unit.append(self.solve(fixed, np.zeros(self.velocity.N)))
        for n, (_, residual_n) in enumerate(unit):
            for k in (0, 1):
                dofs, values = self.modes(centres, k)
                r[3 * k : 3 * k + 3, n] = values @ residual_n[dofs]
        return rest, [sol for sol, _ in unit], force_rest, r


def facet_groups(points, cells, facets, facet_tags):
    """scikit-fem's facet indices of the disks' facets (tags 1 and 2) and of the box's (3 to 6):
    they depend on the cells only, so they are found once."""
    mesh = MeshTri(points.T.copy(), cells.T.copy())
    index = {tuple(sorted(f)): k for k, f in enumerate(mesh.facets.T)}
    of = lambda tags: np.array([index[tuple(sorted(f))] for f in facets[np.isin(facet_tags, tags)]])
    return [of([1]), of([2]), of([3, 4, 5, 6])]


def harmonic_extension(mesh, boundary_nodes, boundary_displacement):
    """The displacement of every node: harmonic (P1), given on the boundary nodes."""
    basis = Basis(mesh, ElementTriP1())

    @BilinearForm
    def laplace(u, v, _):
        return ddot(grad(u), grad(v))

    a = laplace.assemble(basis)
    out = np.zeros((mesh.p.shape[1], 2))
    for c in (0, 1):
        x = np.zeros(mesh.p.shape[1])
        x[boundary_nodes] = boundary_displacement[:, c]
        out[:, c] = solve(*condense(a, x=x, D=boundary_nodes))
    return out


NAMES = ("left", "right")
COLUMNS = ["time", "body", "x", "y", "angle", "vx", "vy", "omega", "fx", "fy", "torque", "hx", "hy", "htorque"]


def run(out, h, steps, dt, floor_gap=0.02, pair_gap=0.015, contact_range=RANGE):
    """Runs the case into the directory `out` on the mesh of size `h` for `steps` steps of `dt`,
    the disks starting `floor_gap` above the floor and `pair_gap` apart (which the mesh's lattice
    must resolve: both at least `h`), the contact acting within `contact_range`. Writes
    `bodies.csv` as `tumble run` does (a row per disk and step: position, angle, velocities, the
    contact force `f` and torque, the fluid's force `h` and torque) and returns its rows per disk,
    `{name: (steps + 1, 13) array}` of the numeric columns."""
    os.makedirs(out, exist_ok=True)
    centres = np.array(
        [[1.0 - RADIUS - pair_gap / 2, RADIUS + floor_gap], [1.0 + RADIUS + pair_gap / 2, RADIUS + floor_gap]]
    )
    cells_per_side = round(2.0 / h)
    mesh = tumble.Mesh.box_with_balls([0.0, 0.0], [2.0, 2.0], [cells_per_side] * 2, centres, [RADIUS, RADIUS])
    facets, tags = mesh.facets, mesh.facet_tags
    host = tumble.HostContact(mesh, [1, 2], range=contact_range, stiffness=STIFFNESS, wall_tags=[3, 4, 5, 6])
    mass = BODY_DENSITY * math.pi * RADIUS**2
    m = np.diag([mass, mass, 0.5 * mass * RADIUS**2] * 2)
    weight = np.array([0.0, -(BODY_DENSITY - FLUID_DENSITY) * math.pi * RADIUS**2 * GRAVITY, 0.0] * 2)
    groups = facet_groups(mesh.points, mesh.cells, facets, tags)
    body_nodes = [np.unique(facets[tags == t]) for t in (1, 2)]
    wall_nodes = np.unique(facets[tags >= 3])
    velocity, angles, hydro, contact_load = np.zeros(6), np.zeros(2), np.zeros(6), np.zeros(6)
    flow = None
    points = mesh.points
    history = {name: [] for name in NAMES}
    with open(os.path.join(out, "bodies.csv"), "w", newline="") as f:
        table = csv.writer(f)
        table.writerow(COLUMNS)
        for step in range(steps + 1):
            for k, name in enumerate(NAMES):
                row = [step * dt, *centres[k], angles[k], *velocity[3 * k : 3 * k + 3]]
                row += [*contact_load[3 * k : 3 * k + 3], *hydro[3 * k : 3 * k + 3]]
                history[name].append(row)
                table.writerow([f"{row[0]:g}", name] + [f"{x:.16e}" for x in row[1:]])
            f.flush()
            if step == steps:
                break
            # tumble: the contacts on the host's mesh as it is now, and their forces.
            current = mesh.with_points(points)
            host.find_contacts(current, centres)
            contact, torque = host.forces()
            contact_load = np.array([*contact[0], torque[0], *contact[1], torque[1]])
            # The host: the flow's response, and the disks' new velocities, implicitly.
            fluid = Fluid(points, current.cells, groups, dt)
            memory = np.zeros(fluid.velocity.N) if flow is None else flow[: fluid.velocity.N]
            rest, unit, force_rest, r = fluid.step(centres, memory)
            velocity = np.linalg.solve(m / dt + r, m @ velocity / dt + weight + force_rest + contact_load)
            hydro = force_rest - r @ velocity
            flow = rest + sum(u * sol for u, sol in zip(velocity, unit))
            # The disks move rigidly; the mesh follows, harmonically; the box stays.
            moved = []
            for k in (0, 1):
                u, v, w = velocity[3 * k : 3 * k + 3] * dt
                x = points[body_nodes[k]] - centres[k]
                c, s = math.cos(w), math.sin(w)
                moved.append(np.column_stack([c * x[:, 0] - s * x[:, 1], s * x[:, 0] + c * x[:, 1]]) - x + [u, v])
                centres[k] += [u, v]
                angles[k] += w
            fixed = np.concatenate([*body_nodes, wall_nodes])
            displacement = np.vstack([*moved, np.zeros((len(wall_nodes), 2))])
            points = points + harmonic_extension(fluid.mesh, fixed, displacement)
    return {name: np.array(rows) for name, rows in history.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/host_two_disks")
    parser.add_argument("--h", type=float, default=0.01)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--dt", type=float, default=0.001)
    args = parser.parse_args()
    history = run(args.out, args.h, args.steps, args.dt)
    for name, rows in history.items():
        t, x, y, _, vx, vy = rows[-1][:6]
        print(f"t = {t:.3f}: {name} disk at ({x:.6f}, {y:.6f}), velocity ({vx:.3e}, {vy:.3e})")


if __name__ == "__main__":
    main()
