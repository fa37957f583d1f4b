//! The steady incompressible flow system with Taylor–Hood elements: find `u ∈ P2^D`, `p ∈ P1` with
//!
//! ```text
//! ν (∇u, ∇v) + ((u·∇)u, v) − (p, ∇·v) = (f, v)   for all v vanishing where u is prescribed,
//!                             −(q, ∇·u) = 0        for all q,
//! ```
//!
//! `u = g` on the velocity boundaries, and the natural condition `ν ∂u/∂n − p n = −p₀ n` on
//! pressure boundaries (which adds `−∫ p₀ v·n` to the right-hand side): `p₀ = 0` is the free ("do
//! nothing") outflow, and two pressures drive a flow by their difference. A Stokes problem is one
//! symmetric solve; Navier–Stokes is solved by Newton's method ([`super::newton`]), whose
//! linearisations this module assembles and solves.
//!
//! Unknowns are ordered `u_x` (all P2 dofs), `u_y` (`u_z`), then `p`; the rows of the prescribed
//! velocities, and of the pressure's pin without a pressure boundary, are replaced by identity
//! rows ([`super::boundary`]). Cells are assembled in parallel into a matrix structure computed
//! once. A Stokes system (and Newton's first step, from rest) is symmetric and solved by `LDLᵀ`,
//! the others by LU, both without pivoting on the symmetric pattern ([`crate::linalg::saddle`])
//! and refined by GMRES; once Newton is close, a step is solved by GMRES preconditioned with the
//! last LU.
//!
//! Cost: the structure, the slots of every cell's entries and the elimination order once per
//! solve; an assembly is a pass over the cells, `n² D²` velocity entries each (`n² D` for Stokes;
//! `n = (D + 1)(D + 2)/2` P2 functions); a solve is a factorisation with a few GMRES iterations,
//! or GMRES alone.

use super::boundary::BoundaryConditions;
use super::error::FluidError;
use super::field::{FlowField, VectorField};
use super::newton::{Newton, CONTINUATION_LEVELS, GMRES_ITERATIONS};
use super::quadrature::Quadrature;
use super::space::{p2_count, Local, P2Space};
use crate::linalg::{csc_mul, gmres, PivotedLu, Saddle};
use crate::math::Vector;
use crate::mesh::SimplexMesh;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::Par;
use rayon::prelude::*;

/// A steady flow problem.
pub struct SteadyProblem<'a, const D: usize> {
    /// The kinematic viscosity `ν = μ/ρ`
    /// ([`Fluid::kinematic_viscosity`](super::Fluid::kinematic_viscosity)).
    pub kinematic_viscosity: f64,
    /// The density `ρ`: the solve needs only `ν`, its messages give the user's dynamic viscosity
    /// `μ = ρ ν`.
    pub density: f64,
    /// Body force per unit mass.
    pub force: VectorField<'a, D>,
    /// Boundary conditions.
    pub boundary: &'a BoundaryConditions<D>,
    /// Navier–Stokes (`true`) or Stokes (`false`).
    pub convection: bool,
}

/// Solves a steady problem; returns the flow and the number of Newton steps (0 for Stokes).
///
/// A Stokes problem is one symmetric solve (`LDLᵀ` refined by GMRES). Navier–Stokes is solved by
/// Newton's method from rest, damped by a line search, with the viscosity doubled to find a start
/// where it does not converge ([`super::newton`]): it stops when the velocity change relative to
/// the largest velocity is below `tolerance`, within `max_iterations` steps per start.
pub fn solve_steady<const D: usize>(
    mesh: &SimplexMesh<D>,
    space: &P2Space<D>,
    problem: &SteadyProblem<D>,
    tolerance: f64,
    max_iterations: usize,
) -> Result<(FlowField<D>, usize), FluidError> {
    problem.boundary.check(mesh)?;
    if problem.boundary.velocity.is_empty() && problem.boundary.pressure.is_empty() {
        return Err(FluidError::Boundary(
            "a steady flow periodic in every direction has no velocity nor pressure condition, and its mean velocity \
             is not determined: give a wall or run it unsteady"
                .into(),
        ));
    }
    let mut system = System::new(mesh, space, problem)?;
    if !problem.convection {
        system.assemble(mesh, space, problem, None);
        let mut x = vec![0.0; system.size];
        system.solve_symmetric(&mut x)?;
        return Ok((system.flow(&x)?, 0));
    }
    let run = Newton {
        mesh,
        space,
        tolerance,
        max_iterations,
    };
    let (x, steps) = run
        .continued(&mut system, problem, CONTINUATION_LEVELS)
        .map_err(|e| match e {
            FluidError::NotConverged(m) => FluidError::NotConverged(format!(
                "{m}, with the viscosity doubled up to {} times to find a start: the flow may have no steady state \
                 at this Reynolds number; run it unsteady",
                CONTINUATION_LEVELS
            )),
            e => e,
        })?;
    Ok((system.flow(&x)?, steps))
}

/// The factorisations' parallelism: one thread in 2D, where faer's parallel supernodal kernels
/// spend more time yielding between their threads than they gain (the Schäfer–Turek meshes: 25 %
/// faster alone); faer's global setting in 3D, where the supernodes are large (the sphere drag
/// example: 1.5x slower alone).
pub(super) fn lu_par(dimension: usize) -> Par {
    if dimension == 2 {
        Par::Seq
    } else {
        faer::get_global_parallelism()
    }
}

/// The relative residual to which a symmetric (Stokes) system is solved.
pub const SYMMETRIC_TOLERANCE: f64 = 1e-12;

/// Marks a local entry not added into the matrix (its row is prescribed: an identity row).
const DROPPED: u32 = u32::MAX;

/// The linearised system in compressed columns, assembled in place, and its factorisations.
///
/// Every matrix of a solve has the same entries: the cells in order, for each a `D × D` block per
/// pair of velocity dofs (its diagonal only for Stokes; Newton's first, Stokes, step has zeros
/// off it) and the divergence pairs. So the structure, the place of each cell's entries in it and
/// the elimination order are computed once; an assembly adds the cells' values into place, block of
/// cells by block of cells (computed in parallel, then added in order, so the sums do not depend
/// on the thread count).
pub(super) struct System<const D: usize> {
    pub(super) size: usize,
    n2: usize,
    /// Newton (`D × D` velocity blocks) rather than Stokes (diagonal blocks).
    cross_components: bool,
    n1: usize,
    /// The prescribed rows (identity rows) and their values.
    prescribed: Vec<(usize, f64)>,
    columns: SymbolicSparseColMat<usize>,
    /// Per cell, per local entry: its position in `values`, or [`DROPPED`].
    slots: Vec<u32>,
    /// The position of each prescribed row's diagonal entry.
    identity: Vec<u32>,
    values: Vec<f64>,
    rhs: Vec<f64>,
    /// One block of cells' local matrices and loads.
    local: Vec<f64>,
    loads: Vec<f64>,
    /// The factorisations without pivoting on the symmetric pattern (the structure computed
    /// once): `LDLᵀ` for Stokes, `LU` for Newton.
    saddle: Saddle,
    /// faer's LU with partial pivoting, for a matrix on which the saddle LU does not bring GMRES
    /// to its tolerance (none until the first is needed).
    lu: Option<PivotedLu>,
    /// Which of the two holds the last factorisation of a Newton Jacobian.
    last: Option<Factor>,
}

/// A factorisation [`System`] holds.
#[derive(Clone, Copy)]
enum Factor {
    Saddle,
    Pivoted,
}

/// The component pairs `(d, e)` of a velocity block: all of them if `cross_components`, else `d = e`.
fn components<const D: usize>(cross_components: bool) -> impl Iterator<Item = (usize, usize)> {
    (0..D).flat_map(move |d| (0..D).filter(move |&e| cross_components || d == e).map(move |e| (d, e)))
}

/// The number of local entries of a cell. In their order: the velocity blocks `(i, j, d, e)`
/// (row dof `i`, component `d`; column dof `j`, component `e`; only `d = e` unless `cross_components`, as
/// Stokes does not couple the components), then for each velocity dof `i`, vertex `m` and
/// component `d` the divergence entry `(q_m, u_i^d)` and its transpose.
fn local_count(dimension: usize, cross_components: bool) -> usize {
    let nb = p2_count(dimension);
    let blocks = if cross_components {
        dimension * dimension
    } else {
        dimension
    };
    nb * nb * blocks + 2 * nb * (dimension + 1) * dimension
}

impl<const D: usize> System<D> {
    /// The structure of the problem's matrices and its elimination order.
    fn new(mesh: &SimplexMesh<D>, space: &P2Space<D>, problem: &SteadyProblem<D>) -> Result<Self, FluidError> {
        let n2 = space.len();
        let n1 = space.vertices;
        let size = D * n2 + n1;
        // Prescribed velocity rows: identity, right-hand side g at the dof; the pressure's pin, if
        // any, likewise with 0.
        let boundary = problem.boundary;
        let mut value_at = vec![None; size];
        let fixed = boundary.velocity_dofs(mesh, space)?;
        boundary.prescribe(mesh, space, &fixed, 0.0, |k, value| {
            for d in 0..D {
                value_at[d * n2 + k] = Some(value[d]);
            }
        })?;
        if let Some(v) = boundary.pressure_pin() {
            value_at[D * n2 + v] = Some(0.0);
        }
        let is_fixed: Vec<bool> = value_at.iter().map(Option::is_some).collect();
        let prescribed: Vec<(usize, f64)> = value_at
            .iter()
            .enumerate()
            .filter_map(|(row, v)| v.map(|v| (row, v)))
            .collect();
        // Every pair of unknowns of a cell is an entry, the prescribed rows' included (they stay
        // zero but keep the pattern symmetric), so each column is a union of the neighbour list
        // `N(k)` (the P2 dofs sharing a cell with dof `k`, sorted): velocity column `(e, k)` has
        // the rows `d n₂ + N(k)` for each component `d` it couples to, then the pressures
        // `D n₂ + v` for the vertices `v` of `N(k)` (its first entries, as vertices are the P2 dofs
        // below `n₁`); pressure column `v` has `d n₂ + N(v)` for every `d` (and its own diagonal
        // if pinned). An entry's position is then its column's start plus its block's plus the
        // rank of its row in a neighbour list.
        let cross_components = problem.convection;
        let blocks = if cross_components { D } else { 1 };
        let (neighbour_ptr, neighbour_list) = space.neighbours();
        let neighbours = |k: usize| &neighbour_list[neighbour_ptr[k]..neighbour_ptr[k + 1]];
        let vertices_among = |k: usize| neighbours(k).partition_point(|&v| (v as usize) < n1);
        let mut col_ptr = vec![0usize; size + 1];
        for e in 0..D {
            for k in 0..n2 {
                col_ptr[e * n2 + k + 1] = blocks * neighbours(k).len() + vertices_among(k);
            }
        }
        for v in 0..n1 {
            col_ptr[D * n2 + v + 1] = D * neighbours(v).len() + is_fixed[D * n2 + v] as usize;
        }
        for j in 0..size {
            col_ptr[j + 1] += col_ptr[j];
        }
        if col_ptr[size] >= DROPPED as usize {
            return Err(FluidError::Solve(format!(
                "{} matrix entries: more than 32-bit positions can hold",
                col_ptr[size]
            )));
        }
        let mut row_idx = Vec::with_capacity(col_ptr[size]);
        for e in 0..D {
            for k in 0..n2 {
                let components_to = if cross_components { 0..D } else { e..e + 1 };
                for d in components_to {
                    row_idx.extend(neighbours(k).iter().map(|&m| d * n2 + m as usize));
                }
                row_idx.extend(neighbours(k)[..vertices_among(k)].iter().map(|&v| D * n2 + v as usize));
            }
        }
        for v in 0..n1 {
            for d in 0..D {
                row_idx.extend(neighbours(v).iter().map(|&m| d * n2 + m as usize));
            }
            if is_fixed[D * n2 + v] {
                row_idx.push(D * n2 + v);
            }
        }
        let per_cell = local_count(D, cross_components);
        let cells = mesh.num_cells();
        let nb = p2_count(D);
        let mut slots = vec![DROPPED; cells * per_cell];
        slots.par_chunks_mut(per_cell).enumerate().for_each(|(c, out)| {
            let dofs = space.dofs(c as u32);
            // rank[a][b]: the place of dof a in N(dof b).
            let mut rank = [[0usize; 10]; 10];
            for (b, &db) in dofs.iter().enumerate() {
                let list = neighbours(db as usize);
                for (a, &da) in dofs.iter().enumerate() {
                    rank[a][b] = list.binary_search(&da).expect("dofs of one cell are neighbours");
                }
            }
            let mut out = out.iter_mut();
            let mut put = |row: usize, position: usize| {
                *out.next().expect("local_count entries") = if is_fixed[row] { DROPPED } else { position as u32 };
            };
            // The velocity blocks (i, j, d, e), in the order cell_system writes them.
            for (i, &di) in dofs.iter().enumerate() {
                for (j, &dj) in dofs.iter().enumerate() {
                    let length = neighbours(dj as usize).len();
                    for (d, e) in components::<D>(cross_components) {
                        let block = if cross_components { d } else { 0 };
                        put(
                            d * n2 + di as usize,
                            col_ptr[e * n2 + dj as usize] + block * length + rank[i][j],
                        );
                    }
                }
            }
            // The divergence pairs (q_m, u_i^d) and (u_i^d, q_m).
            for (i, &di) in dofs.iter().enumerate() {
                let length = neighbours(di as usize).len();
                for (m, &vertex) in dofs[..D + 1].iter().enumerate() {
                    let vertex_length = neighbours(vertex as usize).len();
                    for d in 0..D {
                        let (q, u) = (D * n2 + vertex as usize, d * n2 + di as usize);
                        put(q, col_ptr[u] + blocks * length + rank[m][i]);
                        put(u, col_ptr[q] + d * vertex_length + rank[i][m]);
                    }
                }
            }
            debug_assert_eq!(
                nb * nb * components::<D>(cross_components).count() + 2 * nb * (D + 1) * D,
                per_cell
            );
        });
        // The prescribed rows' diagonal entries.
        let identity = prescribed
            .iter()
            .map(|&(row, _)| {
                if row < D * n2 {
                    let (d, k) = (row / n2, row % n2);
                    let block = if cross_components { d } else { 0 };
                    let within = neighbours(k)
                        .binary_search(&(k as u32))
                        .expect("a dof is its own neighbour");
                    (col_ptr[row] + block * neighbours(k).len() + within) as u32
                } else {
                    (col_ptr[row + 1] - 1) as u32
                }
            })
            .collect();
        let row_idx_len = row_idx.len();
        let columns = SymbolicSparseColMat::new_checked(size, size, col_ptr, None, row_idx);
        let saddle = Saddle::new(columns.as_ref(), &is_fixed, n2, D * n2, lu_par(D))?;
        let block = (1 << 20) / per_cell;
        Ok(System {
            size,
            n2,
            cross_components,
            n1,
            prescribed,
            values: vec![0.0; row_idx_len],
            columns,
            slots,
            identity,
            rhs: vec![0.0; size],
            local: vec![0.0; block * per_cell],
            loads: vec![0.0; block * p2_count(D) * D],
            saddle,
            lu: None,
            last: None,
        })
    }

    /// Assembles Stokes (`w = None`) or the Newton linearisation about `w` into `values` and
    /// `rhs`.
    pub(super) fn assemble(
        &mut self,
        mesh: &SimplexMesh<D>,
        space: &P2Space<D>,
        problem: &SteadyProblem<D>,
        w: Option<&FlowField<D>>,
    ) {
        let nb = p2_count(D);
        let cross_components = self.cross_components;
        let per_cell = local_count(D, cross_components);
        let n2 = self.n2;
        let nu = problem.kinematic_viscosity;
        let rule = Quadrature::<D>::exact_to(if w.is_some() { 5 } else { 4 });
        self.values.fill(0.0);
        self.rhs.fill(0.0);
        problem.boundary.add_pressure_load(mesh, space, &mut self.rhs[..D * n2]);
        let cells = mesh.num_cells();
        let block = self.local.len() / per_cell;
        for start in (0..cells).step_by(block) {
            let count = block.min(cells - start);
            self.local[..count * per_cell]
                .par_chunks_mut(per_cell)
                .zip(self.loads[..count * nb * D].par_chunks_mut(nb * D))
                .enumerate()
                .for_each(|(k, (out, load))| {
                    cell_system(
                        mesh,
                        space,
                        (start + k) as u32,
                        nu,
                        problem.force,
                        w,
                        &rule,
                        cross_components,
                        out,
                        load,
                    )
                });
            let slots = &self.slots[start * per_cell..(start + count) * per_cell];
            for (&slot, &value) in slots.iter().zip(&self.local[..count * per_cell]) {
                if slot != DROPPED {
                    self.values[slot as usize] += value;
                }
            }
            for k in 0..count {
                let dofs = space.dofs((start + k) as u32);
                for (i, &dof) in dofs.iter().enumerate() {
                    for d in 0..D {
                        self.rhs[d * n2 + dof as usize] += self.loads[(k * nb + i) * D + d];
                    }
                }
            }
        }
        for (&slot, &(row, value)) in self.identity.iter().zip(&self.prescribed) {
            self.values[slot as usize] = 1.0;
            self.rhs[row] = value;
        }
    }

    /// Solves the assembled system into `x` by faer's pivoting LU (factorising it; the symbolic
    /// part the first time).
    fn solve_lu(&mut self, x: &mut [f64]) -> Result<(), FluidError> {
        let lu = match &mut self.lu {
            Some(lu) => lu,
            None => self
                .lu
                .insert(PivotedLu::new(self.columns.as_ref(), lu_par(D)).map_err(FluidError::Solve)?),
        };
        if let Err(e) = lu.factorize(SparseColMatRef::new(self.columns.as_ref(), &self.values)) {
            self.lu = None;
            return Err(FluidError::Solve(e));
        }
        x.copy_from_slice(&self.rhs);
        lu.solve_in_place(x);
        Ok(())
    }

    /// `‖A x − b‖` for the assembled system: the residual of the nonlinear problem at the iterate
    /// the system was linearised about (Newton's `J(w) w − b(w)` is the residual at `w`).
    pub(super) fn residual(&self, x: &[f64]) -> f64 {
        let mut ax = vec![0.0; self.size];
        csc_mul(SparseColMatRef::new(self.columns.as_ref(), &self.values), x, &mut ax);
        ax.iter()
            .zip(&self.rhs)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    /// Solves the assembled system, which must be symmetric (Stokes), into `x`: by `LDLᵀ`
    /// ([`Saddle::factorize_symmetric`]), refined by GMRES on the full system with it as the
    /// preconditioner, to a residual of [`SYMMETRIC_TOLERANCE`] times the right-hand side's; by
    /// faer's LU if that fails.
    pub(super) fn solve_symmetric(&mut self, x: &mut [f64]) -> Result<(), FluidError> {
        let tolerance = SYMMETRIC_TOLERANCE * self.rhs.iter().map(|b| b * b).sum::<f64>().sqrt();
        self.last = self
            .saddle
            .factorize_symmetric(&self.values)
            .ok()
            .map(|()| Factor::Saddle);
        x.copy_from_slice(&self.rhs);
        self.saddle.apply(x);
        if self.gmres(x, tolerance).is_none() {
            self.solve_lu(x)?;
        }
        // A Newton step never reuses the Stokes factorisation.
        self.last = None;
        Ok(())
    }

    /// Factorises the assembled system (the saddle LU) and solves it from the guess in `x` by
    /// GMRES preconditioned with that factorisation, to a residual norm of `tolerance`; by
    /// faer's LU with partial pivoting if GMRES does not get there.
    pub(super) fn solve_factored(&mut self, x: &mut [f64], tolerance: f64) -> Result<(), FluidError> {
        self.saddle
            .factorize(SparseColMatRef::new(self.columns.as_ref(), &self.values));
        self.last = Some(Factor::Saddle);
        if self.gmres(x, tolerance).is_none() {
            self.solve_lu(x)?;
            self.last = Some(Factor::Pivoted);
        }
        Ok(())
    }

    /// Solves the assembled system from the guess in `x` by GMRES preconditioned with the last
    /// factorisation, to a residual norm of `tolerance`; `None` (and `x` unchanged) without a
    /// factorisation or when it takes more than [`GMRES_ITERATIONS`].
    pub(super) fn gmres(&mut self, x: &mut [f64], tolerance: f64) -> Option<usize> {
        let matrix = SparseColMatRef::new(self.columns.as_ref(), &self.values);
        let apply = |v: &[f64], out: &mut [f64]| csc_mul(matrix, v, out);
        match self.last? {
            Factor::Saddle => gmres(
                apply,
                |v| self.saddle.apply(v),
                &self.rhs,
                x,
                tolerance,
                GMRES_ITERATIONS,
            ),
            Factor::Pivoted => {
                let lu = self.lu.as_mut()?;
                gmres(
                    apply,
                    |v| lu.solve_in_place(v),
                    &self.rhs,
                    x,
                    tolerance,
                    GMRES_ITERATIONS,
                )
            }
        }
    }

    /// The flow of a solution vector (`u_x` at every P2 dof, `u_y` (`u_z`), then `p`); an error
    /// if it is not finite.
    pub(super) fn flow(&self, x: &[f64]) -> Result<FlowField<D>, FluidError> {
        if x.iter().any(|v| !v.is_finite()) {
            return Err(FluidError::Solve(
                "the solution is not finite: is the system singular?".into(),
            ));
        }
        let (n2, n1) = (self.n2, self.n1);
        Ok(FlowField {
            velocity: (0..n2).map(|k| Vector::<D>::from_fn(|d, _| x[d * n2 + k])).collect(),
            pressure: (0..n1).map(|k| x[D * n2 + k]).collect(),
        })
    }
}

/// One cell's local matrix (in the order of [`local_count`], with its cross-component blocks) and
/// load (per dof, per component): Stokes, or the Newton linearisation about `w`.
#[allow(clippy::too_many_arguments)]
fn cell_system<const D: usize>(
    mesh: &SimplexMesh<D>,
    space: &P2Space<D>,
    c: u32,
    nu: f64,
    force: VectorField<D>,
    w: Option<&FlowField<D>>,
    rule: &Quadrature<D>,
    cross_components: bool,
    out: &mut [f64],
    load: &mut [f64],
) {
    let nb = p2_count(D);
    let map = space.cell_map(mesh, c);
    let dofs = space.dofs(c);
    // a[i][j][d][e] per component pair (d, e): diffusion and transport on d == e, and the
    // Newton term `(u·∇)w`; b[m][i][d] = −∫ λ_m ∂_d φ_i.
    let mut a = [[[[0.0; D]; D]; 10]; 10];
    let mut b = [[[0.0; D]; 10]; 4];
    load.fill(0.0);
    for (l, wq) in rule.points.iter().zip(&rule.weights) {
        let Local {
            x, phi, grad, measure, ..
        } = map.at(l);
        let wq = wq * measure;
        let mut fx = force(&x);
        // The previous iterate and its gradient G[d][e] = ∂_e w_d.
        let (wv, wg) = match w {
            Some(w) => {
                let (v, g) = w.velocity_in_cell(dofs, &phi, &grad);
                fx += g * v;
                (v, g)
            }
            None => (Vector::<D>::zeros(), nalgebra::SMatrix::<f64, D, D>::zeros()),
        };
        // Per basis function: wq φ_i, wq ν ∇φ_i and w·∇φ_i.
        let mut weighted = [0.0; 10];
        let mut viscous = [Vector::<D>::zeros(); 10];
        let mut transport = [0.0; 10];
        for i in 0..nb {
            weighted[i] = wq * phi[i];
            viscous[i] = grad[i] * (wq * nu);
            transport[i] = wv.dot(&grad[i]);
            for d in 0..D {
                load[i * D + d] += fx[d] * weighted[i];
            }
        }
        for i in 0..nb {
            for j in 0..nb {
                let diagonal = viscous[i].dot(&grad[j]) + weighted[i] * transport[j];
                let mass = weighted[i] * phi[j];
                let block = &mut a[i][j];
                for d in 0..D {
                    block[d][d] += diagonal;
                    if w.is_some() {
                        for e in 0..D {
                            block[d][e] += mass * wg[(d, e)];
                        }
                    }
                }
            }
            for (m, bm) in b.iter_mut().enumerate().take(D + 1) {
                for d in 0..D {
                    bm[i][d] -= wq * l[m] * grad[i][d];
                }
            }
        }
    }
    // The entries in the order of `local_count`.
    let mut k = 0;
    for row in &a[..nb] {
        for block in &row[..nb] {
            for (d, block_d) in block.iter().enumerate() {
                for (e, &value) in block_d.iter().enumerate() {
                    if cross_components || d == e {
                        out[k] = value;
                        k += 1;
                    }
                }
            }
        }
    }
    for i in 0..nb {
        for bm in &b[..=D] {
            for &value in &bm[i] {
                out[k] = value;
                out[k + 1] = value;
                k += 2;
            }
        }
    }
}
