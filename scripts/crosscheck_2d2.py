"""Schäfer–Turek 2D-2 computed by scikit-fem, to check tumble's flow solver against an independent
implementation of the same discretisation.

Same mesh (straight cells), Taylor–Hood P2/P1, the same monolithic BDF2 step as tumble's
`scheme = "monolithic"`:

    (3u⁺ − 4u + u⁻)/(2Δt) − νΔu⁺ + ∇p⁺ = −(u*·∇)u*,   ∇·u⁺ = 0,   u* = 2u − u⁻,

one constant saddle-point matrix factored once (SciPy's SuperLU), the flow starting from rest with
the inflow switched on at once, and the force on the cylinder by the volume formula

    F_a = −[(∂_t u, v_a) + ν(∇u, ∇v_a) + ((u·∇)u, v_a) − (p, ∇·v_a)],

v_a the P2 function equal to e_a at the cylinder's dofs and zero elsewhere, written here as the sum
of the momentum residual's rows at those dofs. c_D and c_L are 2F/(U² L) with U = 1, L = 0.1.

    pip install scikit-fem meshio
    python3 scripts/crosscheck_2d2.py meshes/schafer_turek_2d_medium.msh 5e-4 10 out.csv
    cargo run --release -- run scripts/crosscheck_2d2.toml

The script prints the maxima over the last fifth of the run; tumble prints them over its last half
(the flow is periodic from t ≈ 8 on this mesh). About 15 minutes on 2 cores.
"""

import sys

import meshio
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl
from skfem import Basis, BilinearForm, ElementTriP1, ElementTriP2, ElementVector, LinearForm, MeshTri, asm
from skfem.helpers import ddot, div, dot, grad, mul

NU = 1e-3
HEIGHT = 0.41
U_MAX = 1.5


@BilinearForm
def laplace(u, v, w):
    return ddot(grad(u), grad(v))


@BilinearForm
def mass(u, v, w):
    return dot(u, v)


@BilinearForm
def divergence(u, q, w):
    return div(u) * q


@LinearForm
def convection(v, w):
    u = w["w"]
    return dot(mul(grad(u), u), v)


def load(path):
    """The triangles of a Gmsh file, unused points dropped."""
    msh = meshio.read(path)
    cells = np.vstack([c.data for c in msh.cells if c.type == "triangle"])
    used = np.unique(cells)
    index = -np.ones(len(msh.points), dtype=int)
    index[used] = np.arange(len(used))
    return MeshTri(msh.points[used, :2].T.copy(), index[cells].T.copy())


def main(path, dt, t_end, csv):
    mesh = load(path)
    basis = Basis(mesh, ElementVector(ElementTriP2()), intorder=5)
    pbasis = basis.with_element(ElementTriP1())
    stiffness, m, b = asm(laplace, basis), asm(mass, basis), asm(divergence, basis, pbasis)
    nu_, np_ = stiffness.shape[0], b.shape[0]

    def facets(test):
        return mesh.facets_satisfying(test, boundaries_only=True)

    inlet = basis.get_dofs(facets(lambda x: x[0] < 1e-9)).all()
    walls = basis.get_dofs(facets(lambda x: (x[1] < 1e-9) | (x[1] > HEIGHT - 1e-9))).all()
    cylinder = basis.get_dofs(facets(lambda x: np.hypot(x[0] - 0.2, x[1] - 0.2) < 0.06))
    fixed = np.unique(np.concatenate([inlet, walls, cylinder.all()]))
    # The parabola is a P2 function, so its projection is exact.
    profile = basis.project(lambda x: np.array([4 * U_MAX * x[1] * (HEIGHT - x[1]) / HEIGHT**2, 0 * x[0]]))
    prescribed = np.zeros(nu_ + np_)
    prescribed[inlet] = profile[inlet]

    saddle = sp.bmat([[1.5 / dt * m + NU * stiffness, -b.T], [-b, None]]).tocsr()
    free = np.setdiff1d(np.arange(nu_ + np_), fixed)
    lifted = saddle[free][:, fixed] @ prescribed[fixed]
    lu = spl.splu(saddle[free][:, free].tocsc(), permc_spec="COLAMD")
    print(f"{mesh.t.shape[1]} triangles, {nu_} velocity and {np_} pressure unknowns")

    older = np.zeros(nu_)
    current = np.zeros(nu_)
    steps = int(round(t_end / dt))
    history = []
    for k in range(1, steps + 1):
        extrapolated = 2 * current - older
        rhs = np.zeros(nu_ + np_)
        rhs[:nu_] = m @ ((4 * current - older) / (2 * dt)) - asm(convection, basis, w=basis.interpolate(extrapolated))
        x = prescribed.copy()
        x[free] = lu.solve(rhs[free] - lifted)
        new, pressure = x[:nu_], x[nu_:]
        if k * dt > t_end / 2:
            acceleration = (3 * new - 4 * current + older) / (2 * dt)
            residual = (
                m @ acceleration
                + NU * (stiffness @ new)
                + asm(convection, basis, w=basis.interpolate(new))
                - b.T @ pressure
            )
            force = [-residual[cylinder.all(c)].sum() for c in ("u^1", "u^2")]
            history.append((k * dt, 20 * force[0], 20 * force[1]))
        older, current = current, new
    np.savetxt(csv, history, delimiter=",", header="time,drag_coefficient,lift_coefficient", comments="")
    last = np.array([h for h in history if h[0] >= 0.8 * t_end])
    print(f"over t in [{0.8 * t_end:g}, {t_end:g}]: c_D max {last[:, 1].max():.8f}, c_L max {last[:, 2].max():.8f}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: crosscheck_2d2.py MESH DT T_END OUT.csv")
    main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4])
