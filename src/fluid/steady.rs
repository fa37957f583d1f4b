//! Steady incompressible flow with Taylor–Hood elements: find `u ∈ P2^D`, `p ∈ P1` with
//!
//! ```text
//! ν (∇u, ∇v) + ((u·∇)u, v) − (p, ∇·v) = (f, v)   for all v vanishing where u is prescribed,
//!                             −(q, ∇·u) = 0        for all q,
//! ```
//!
//! `u = g` on the velocity boundaries, and the natural condition `ν ∂u/∂n − p n = −p₀ n` on
//! pressure boundaries (which adds `−∫ p₀ v·n` to the right-hand side): `p₀ = 0` is the free ("do
//! nothing") outflow, and two pressures drive a flow by their difference.
//! The convection term is linearised by Newton's method from the Stokes solution: each iteration solves
//!
//! ```text
//! ν (∇u, ∇v) + ((w·∇)u + (u·∇)w, v) − (p, ∇·v) = (f, v) + ((w·∇)w, v)
//! ```
//!
//! for the new `u` given the previous `w`, until the largest velocity change falls below the
//! tolerance (relative to the largest velocity). Unknowns are ordered `u_x` (all P2 dofs), `u_y`
//! (`u_z`), then `p`; prescribed rows are replaced by identity rows; with no pressure boundary the
//! pressure's first dof is pinned to 0. Cells are assembled in parallel and the system is solved by
//! faer's sparse LU.

use super::quadrature::Quadrature;
use super::space::{p2_count, Local, P2Space};
use crate::math::{Point, Vector};
use crate::mesh::{MeshError, SimplexMesh};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::prelude::*;
use faer::sparse::linalg::lu::{factorize_symbolic_lu, NumericLu, SymbolicLu};
use faer::sparse::{Argsort, Pair, SparseColMat, SymbolicSparseColMat, Triplet};
use faer::Conj;
use rayon::prelude::*;
use std::sync::Arc;

/// What can go wrong in a fluid solve.
#[derive(Debug, thiserror::Error)]
pub enum FluidError {
    /// A marker the mesh does not have.
    #[error("{0}")]
    Mesh(#[from] MeshError),
    /// A boundary without a condition, or a condition on a marker no facet carries.
    #[error("{0}")]
    Boundary(String),
    /// The solution stopped being finite (named: the step, the field and where).
    #[error("{0}")]
    NotFinite(String),
    /// The linear solver failed (a singular system: a boundary without conditions, say).
    #[error("the linear solver failed: {0}")]
    Solve(String),
}

/// A Taylor–Hood solution: velocity at every P2 dof, pressure at every vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowField<const D: usize> {
    /// Velocity per P2 dof (vertices, then edge midpoints).
    pub velocity: Vec<Vector<D>>,
    /// Pressure per vertex.
    pub pressure: Vec<f64>,
}

/// Prescribed velocity on a boundary, a function of position and time (steady problems use
/// `t = 0`).
pub type VelocityData<const D: usize> = Arc<dyn Fn(&Point<D>, f64) -> Vector<D> + Send + Sync>;

/// A body force or any vector field given as a function of position.
pub type VectorField<'a, const D: usize> = &'a (dyn Fn(&Point<D>) -> Vector<D> + Sync);

/// Boundary conditions by facet marker; every boundary facet must get one.
#[derive(Clone, Default)]
pub struct BoundaryConditions<const D: usize> {
    /// Prescribed velocity (no-slip: zero; inflow: a profile) on the facets with each marker.
    pub velocity: Vec<(i32, VelocityData<D>)>,
    /// Prescribed pressure `p₀`, in the sense of the normal traction `ν ∂u/∂n − p n = −p₀ n`, on
    /// the facets with each marker (outflow: `p₀ = 0`).
    pub pressure: Vec<(i32, f64)>,
}

impl<const D: usize> BoundaryConditions<D> {
    /// Zero velocity on the facets marked `marker`.
    pub fn no_slip(mut self, marker: i32) -> Self {
        self.velocity
            .push((marker, Arc::new(|_: &Point<D>, _: f64| Vector::<D>::zeros())));
        self
    }

    /// Velocity `g(x, t)` on the facets marked `marker`.
    pub fn velocity(mut self, marker: i32, g: impl Fn(&Point<D>, f64) -> Vector<D> + Send + Sync + 'static) -> Self {
        self.velocity.push((marker, Arc::new(g)));
        self
    }

    /// Traction-free outflow on the facets marked `marker`: pressure 0.
    pub fn outflow(self, marker: i32) -> Self {
        self.pressure(marker, 0.0)
    }

    /// Pressure `p0` on the facets marked `marker` (a pressure drop between an inlet and an
    /// outlet is two such conditions).
    pub fn pressure(mut self, marker: i32, p0: f64) -> Self {
        self.pressure.push((marker, p0));
        self
    }

    /// Checks that every boundary facet of `mesh` has a condition and that every marker named
    /// exists: an error names the facet or the marker.
    pub fn check(&self, mesh: &SimplexMesh<D>) -> Result<(), FluidError> {
        let named = |m: i32| self.pressure.iter().any(|(k, _)| *k == m) || self.velocity.iter().any(|(k, _)| *k == m);
        for m in self
            .velocity
            .iter()
            .map(|(k, _)| *k)
            .chain(self.pressure.iter().map(|(k, _)| *k))
        {
            if !mesh.facet_markers().contains(&m) {
                return Err(FluidError::Boundary(format!(
                    "a boundary condition names marker {}, which no facet carries",
                    mesh.facet_marker_label(m)
                )));
            }
        }
        // The marker of every marked facet, by its sorted nodes.
        let markers: std::collections::HashMap<[u32; D], i32> = mesh
            .facets()
            .iter()
            .zip(mesh.facet_markers())
            .map(|(f, &m)| {
                let mut key = *f;
                key.sort_unstable();
                (key, m)
            })
            .collect();
        for &face in mesh.boundary() {
            let nodes = mesh.face_nodes(face);
            let mut key = nodes;
            key.sort_unstable();
            match markers.get(&key) {
                Some(&m) if named(m) => {}
                Some(&m) => {
                    return Err(FluidError::Boundary(format!(
                        "the boundary facets marked {} have no condition",
                        mesh.facet_marker_label(m)
                    )))
                }
                None => {
                    return Err(FluidError::Boundary(format!(
                        "the boundary facet with nodes {nodes:?} (cell {}) has no marker, hence no condition",
                        face.cell
                    )))
                }
            }
        }
        Ok(())
    }
}

/// The P2 field `velocity` and its gradient `G[d][e] = ∂_e u_d` at a point of a cell with P2 dofs
/// `dofs`, given the basis values `phi` and gradients `grad` there.
pub fn velocity_in_cell<const D: usize>(
    velocity: &[Vector<D>],
    dofs: &[u32],
    phi: &[f64; 10],
    grad: &[Vector<D>; 10],
) -> (Vector<D>, nalgebra::SMatrix<f64, D, D>) {
    let mut v = Vector::<D>::zeros();
    let mut g = nalgebra::SMatrix::<f64, D, D>::zeros();
    for (k, &dof) in dofs.iter().enumerate() {
        let u = velocity[dof as usize];
        v += u * phi[k];
        g += u * grad[k].transpose();
    }
    (v, g)
}

/// A steady flow problem.
pub struct SteadyProblem<'a, const D: usize> {
    /// Kinematic viscosity ν.
    pub viscosity: f64,
    /// Body force per unit mass.
    pub force: VectorField<'a, D>,
    /// Boundary conditions.
    pub boundary: &'a BoundaryConditions<D>,
    /// Navier–Stokes (`true`) or Stokes (`false`).
    pub convection: bool,
}

/// Solves a steady problem; returns the flow and the number of Newton iterations (0 for Stokes).
///
/// Newton starts from rest, so its first iteration is the Stokes solution. It stops when the
/// velocity change, relative to the largest velocity, is below `tolerance`, or below
/// `√tolerance` after falling at least tenfold: in Newton's quadratic regime the error left is
/// then about the square of the change, which saves the last, confirming iteration.
pub fn solve_steady<const D: usize>(
    mesh: &SimplexMesh<D>,
    space: &P2Space<D>,
    problem: &SteadyProblem<D>,
    tolerance: f64,
    max_iterations: usize,
) -> Result<(FlowField<D>, usize), FluidError> {
    problem.boundary.check(mesh)?;
    if !problem.convection {
        return Ok((solve_linear(mesh, space, problem, None, &mut None)?, 0));
    }
    let mut flow = FlowField {
        velocity: vec![Vector::<D>::zeros(); space.len()],
        pressure: vec![0.0; mesh.num_points()],
    };
    // Every Newton matrix has the same pattern: its structure and symbolic factorisation are
    // computed once.
    let mut pattern = None;
    let mut previous = f64::INFINITY;
    for iteration in 1..=max_iterations {
        let next = solve_linear(mesh, space, problem, Some(&flow), &mut pattern)?;
        let change = next
            .velocity
            .iter()
            .zip(&flow.velocity)
            .map(|(a, b)| (a - b).amax())
            .fold(0.0, f64::max);
        let scale = next.velocity.iter().map(|v| v.amax()).fold(f64::MIN_POSITIVE, f64::max);
        flow = next;
        let relative = change / scale;
        if relative <= tolerance || (relative <= tolerance.sqrt() && relative <= 0.1 * previous) {
            return Ok((flow, iteration));
        }
        previous = relative;
    }
    Err(FluidError::Solve(format!(
        "Newton's method did not converge in {max_iterations} iterations"
    )))
}

/// The pattern shared by the Newton matrices: the compressed columns, the order in which the
/// assembled entries fill them, the symbolic LU factorisation, and the numeric factor's storage
/// and scratch space, reused from one iteration to the next.
struct Pattern {
    columns: SymbolicSparseColMat<usize>,
    order: Argsort<usize>,
    lu: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
    scratch: MemBuffer,
}

/// The LU's parallelism: one thread in 2D, where faer's parallel supernodal LU spends more time
/// yielding between its threads than it gains (the Schäfer–Turek meshes: 25 % faster alone);
/// faer's global setting in 3D, where the supernodes are large (the sphere drag example: 1.5x
/// slower alone).
fn lu_par(dimension: usize) -> Par {
    if dimension == 2 {
        Par::Seq
    } else {
        faer::get_global_parallelism()
    }
}

/// One linear solve: Stokes, or the Newton linearisation about `w`; `pattern` is that of a matrix
/// assembled in the same order, computed here if `None` (assembly yields its entries in the same
/// order every time: cells in order, the same entries per cell).
fn solve_linear<const D: usize>(
    mesh: &SimplexMesh<D>,
    space: &P2Space<D>,
    problem: &SteadyProblem<D>,
    w: Option<&FlowField<D>>,
    pattern: &mut Option<Pattern>,
) -> Result<FlowField<D>, FluidError> {
    let n2 = space.len();
    let n1 = mesh.num_points();
    let size = D * n2 + n1;
    let nb = p2_count(D);
    let nu = problem.viscosity;
    let rule = Quadrature::<D>::exact_to(if w.is_some() { 5 } else { 4 });
    type Part = (Vec<Triplet<usize, usize, f64>>, Vec<(usize, f64)>);
    let (mut triplets, rhs_parts): (Vec<_>, Vec<_>) = (0..mesh.num_cells() as u32)
        .into_par_iter()
        .map(|c| {
            let map = space.cell_map(mesh, c);
            let dofs = space.dofs(c);
            let vertices = mesh.cell(c);
            // a[i][j] per component pair (d, e): diffusion on d == e, convection terms.
            let mut a = [[[[0.0; 3]; 3]; 10]; 10];
            let mut b = [[[0.0; 3]; 10]; 4];
            let mut load = [Vector::<D>::zeros(); 10];
            for (l, wq) in rule.points.iter().zip(&rule.weights) {
                let Local {
                    x, phi, grad, measure, ..
                } = map.at(l);
                let wq = wq * measure;
                let mut fx = (problem.force)(&x);
                // The previous iterate and its gradient G[d][e] = ∂_e w_d.
                let (wv, wg) = match w {
                    Some(w) => {
                        let (v, g) = w.velocity_in_cell(dofs, &phi, &grad);
                        fx += g * v;
                        (v, g)
                    }
                    None => (Vector::<D>::zeros(), nalgebra::SMatrix::<f64, D, D>::zeros()),
                };
                for i in 0..nb {
                    load[i] += fx * (wq * phi[i]);
                    for j in 0..nb {
                        let diffusion = wq * nu * grad[i].dot(&grad[j]);
                        let transport = wq * wv.dot(&grad[j]) * phi[i];
                        for d in 0..D {
                            a[i][j][d][d] += diffusion + transport;
                            if w.is_some() {
                                for e in 0..D {
                                    a[i][j][d][e] += wq * phi[j] * wg[(d, e)] * phi[i];
                                }
                            }
                        }
                    }
                    for m in 0..=D {
                        for d in 0..D {
                            b[m][i][d] -= wq * l[m] * grad[i][d];
                        }
                    }
                }
            }
            let couplings = if w.is_some() { D * D } else { D };
            let mut t = Vec::with_capacity(couplings * nb * nb + 2 * D * (D + 1) * nb);
            for i in 0..nb {
                let row = dofs[i] as usize;
                for (j, block) in a[i][..nb].iter().enumerate() {
                    let col = dofs[j] as usize;
                    for (d, block_row) in block[..D].iter().enumerate() {
                        for (e, &value) in block_row[..D].iter().enumerate() {
                            if d == e || w.is_some() {
                                t.push(Triplet::new(d * n2 + row, e * n2 + col, value));
                            }
                        }
                    }
                }
                for (m, &vertex) in vertices.iter().enumerate() {
                    let q = D * n2 + vertex as usize;
                    for (d, &value) in b[m][i][..D].iter().enumerate() {
                        let u = d * n2 + row;
                        t.push(Triplet::new(q, u, value));
                        t.push(Triplet::new(u, q, value));
                    }
                }
            }
            let r = (0..nb)
                .flat_map(|i| (0..D).map(move |d| (d * n2 + dofs[i] as usize, load[i][d])))
                .collect();
            (t, r) as Part
        })
        .unzip();
    let mut rhs = vec![0.0; size];
    space.add_pressure_load(mesh, &problem.boundary.pressure, &mut rhs[..D * n2]);
    for part in rhs_parts {
        for (k, v) in part {
            rhs[k] += v;
        }
    }

    // Prescribed velocity rows: identity, right-hand side g at the dof.
    let coords = space.coordinates();
    let mut is_fixed = vec![false; size];
    for (marker, g) in &problem.boundary.velocity {
        for k in space.boundary_dofs(mesh, &[*marker])? {
            let value = g(&coords[k as usize], 0.0);
            for d in 0..D {
                let row = d * n2 + k as usize;
                is_fixed[row] = true;
                rhs[row] = value[d];
            }
        }
    }
    if problem.boundary.pressure.is_empty() {
        is_fixed[D * n2] = true;
        rhs[D * n2] = 0.0;
    }
    let mut entries: Vec<Triplet<usize, usize, f64>> = Vec::new();
    for part in triplets.iter_mut() {
        entries.extend(part.drain(..).filter(|t| !is_fixed[t.row]));
    }
    entries.extend((0..size).filter(|&k| is_fixed[k]).map(|k| Triplet::new(k, k, 1.0)));
    let failed = |e: &dyn std::fmt::Debug| FluidError::Solve(format!("{e:?}"));
    let pattern = match pattern {
        Some(p) => p,
        None => {
            let pairs: Vec<Pair<usize, usize>> = entries.iter().map(|t| Pair::new(t.row, t.col)).collect();
            let (columns, order) =
                SymbolicSparseColMat::try_new_from_indices(size, size, &pairs).map_err(|e| failed(&e))?;
            let lu = factorize_symbolic_lu(columns.as_ref(), Default::default()).map_err(|e| failed(&e))?;
            let scratch = MemBuffer::new(
                lu.factorize_numeric_lu_scratch::<f64>(lu_par(D), Default::default())
                    .or(lu.solve_in_place_scratch::<f64>(1, lu_par(D))),
            );
            pattern.insert(Pattern {
                columns,
                order,
                lu,
                numeric: NumericLu::new(),
                scratch,
            })
        }
    };
    let values: Vec<f64> = entries.iter().map(|t| t.val).collect();
    let matrix = SparseColMat::<usize, f64>::new_from_argsort(pattern.columns.clone(), &pattern.order, &values)
        .map_err(|e| failed(&e))?;
    let Pattern {
        lu, numeric, scratch, ..
    } = pattern;
    let lu = lu
        .factorize_numeric_lu(
            numeric,
            matrix.as_ref(),
            lu_par(D),
            MemStack::new(scratch),
            Default::default(),
        )
        .map_err(|e| failed(&e))?;
    let mut x = Col::<f64>::from_fn(size, |k| rhs[k]);
    lu.solve_in_place_with_conj(Conj::No, x.as_mat_mut(), lu_par(D), MemStack::new(scratch));
    if (0..size).any(|k| !x[k].is_finite()) {
        return Err(FluidError::Solve(
            "the solution is not finite: is the system singular?".into(),
        ));
    }
    Ok(FlowField {
        velocity: (0..n2).map(|k| Vector::<D>::from_fn(|d, _| x[d * n2 + k])).collect(),
        pressure: (0..n1).map(|k| x[D * n2 + k]).collect(),
    })
}

impl<const D: usize> FlowField<D> {
    /// The velocity and its gradient at a point of a cell (see [`velocity_in_cell`]).
    pub fn velocity_in_cell(
        &self,
        dofs: &[u32],
        phi: &[f64; 10],
        grad: &[Vector<D>; 10],
    ) -> (Vector<D>, nalgebra::SMatrix<f64, D, D>) {
        velocity_in_cell(&self.velocity, dofs, phi, grad)
    }

    /// The (P1) pressure at `x`, or `None` outside the mesh.
    pub fn pressure_at(&self, mesh: &SimplexMesh<D>, x: &Point<D>) -> Option<f64> {
        let found = mesh.locate(x)?;
        Some(
            mesh.cell(found.cell)
                .iter()
                .zip(&found.weights)
                .map(|(&v, w)| w * self.pressure[v as usize])
                .sum(),
        )
    }

    /// The L2 norms of `u_h − u` and of `p_h − p` (each pressure taken with zero mean, as the
    /// pressure is defined up to a constant), by a quadrature exact to degree 6 on each cell.
    pub fn l2_errors(
        &self,
        mesh: &SimplexMesh<D>,
        space: &P2Space<D>,
        u: &dyn Fn(&Point<D>) -> Vector<D>,
        p: &dyn Fn(&Point<D>) -> f64,
    ) -> (f64, f64) {
        let rule = Quadrature::<D>::exact_to(6);
        let (mut volume, mut mean_h, mut mean) = (0.0, 0.0, 0.0);
        let mut samples = Vec::new();
        let mut eu = 0.0;
        for c in 0..mesh.num_cells() as u32 {
            let map = space.cell_map(mesh, c);
            let dofs = space.dofs(c);
            let vertices = mesh.cell(c);
            for (l, w) in rule.points.iter().zip(&rule.weights) {
                let Local { x, phi, measure, .. } = map.at(l);
                let w = w * measure;
                let uh: Vector<D> = (0..p2_count(D)).map(|i| self.velocity[dofs[i] as usize] * phi[i]).sum();
                eu += w * (uh - u(&x)).norm_squared();
                let ph: f64 = (0..=D).map(|k| self.pressure[vertices[k] as usize] * l[k]).sum();
                let pe = p(&x);
                volume += w;
                mean_h += w * ph;
                mean += w * pe;
                samples.push((w, ph, pe));
            }
        }
        let (mean_h, mean) = (mean_h / volume, mean / volume);
        let ep: f64 = samples
            .iter()
            .map(|(w, ph, pe)| w * ((ph - mean_h) - (pe - mean)).powi(2))
            .sum();
        (eu.sqrt(), ep.sqrt())
    }
}
