//! Factorisations of a saddle-point matrix on its symmetric pattern
//!
//! ```text
//! [ A  Bᵀ ] [u]   [f]
//! [ B  0  ] [p] = [g]
//! ```
//!
//! with the prescribed unknowns (identity rows) eliminated symmetrically: their columns move to
//! the right-hand side. The velocity block `A` is symmetric for Stokes, not for Newton's
//! linearisation of Navier–Stokes (`ν ∇u + (w·∇)u + (u·∇)w`), but its pattern is symmetric
//! either way. So one elimination order serves both: AMD on the graph of the nodes, with faer's
//! symbolic supernodal Cholesky, computed once ([`Saddle::new`]). A symmetric matrix is
//! factorised as `LDLᵀ` by faer ([`Saddle::factorize_symmetric`]), any other as `LU` without
//! pivoting in the same structure ([`Saddle::factorize`], [`super::supernodal_lu`]).
//!
//! faer's sparse LU pivots by rows and orders its columns for `AᵀA`, whose pattern is far fuller:
//! on the Schäfer–Turek medium mesh, 6.3 million entries in its `L + U` against 1.8 million in
//! each of `L` and `Uᵀ` here, and 130–170 ms for its numeric factorisation against 30–40 ms.
//!
//! Neither factorisation pivots. Every velocity pivot is expected positive and every pressure
//! pivot negative (a pressure eliminated after its velocity neighbours gets `−b A⁻¹ bᵀ < 0`). A
//! pivot below `ε` (a pressure eliminated before all its velocity neighbours), or in `LDLᵀ` of the
//! wrong sign, is replaced by `±δ`, as faer does for quasi-definite matrices. That makes the
//! factorisation an approximation where it regularises, so [`Saddle::apply`] is meant as the
//! preconditioner of GMRES on the full system ([`super::gmres`](mod@super::gmres)), which brings the residual down
//! to the tolerance (in one iteration on the Schäfer–Turek meshes).

use super::supernodal_lu::{Pivots, SupernodalLu};
use super::FactorError;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::perm::PermRef;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LdltRef, SymbolicCholesky, SymbolicCholeskyRaw,
    SymmetricOrdering,
};
use faer::sparse::linalg::{amd, SupernodalThreshold};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{ColMut, Conj, Par, Side};

/// Marks an unknown that is not in the reduced system, or an entry that is not in a factor.
const NONE: u32 = u32::MAX;

/// The factorisations of the saddle-point matrices with one pattern.
pub struct Saddle {
    /// The full index of each reduced (free) unknown, and the reduced index of each full one
    /// ([`NONE`] if prescribed).
    free: Vec<u32>,
    reduced: Vec<u32>,
    /// The reduced matrix's lower triangle: its pattern, where each entry of the full matrix goes
    /// in it (or [`NONE`]), and its values.
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    lower_place: Vec<u32>,
    lower: Vec<f64>,
    /// The positions in the full matrix of the reduced system's diagonal entries.
    diagonal: Vec<u32>,
    /// The entries of prescribed columns in free rows: (reduced row, full column, position in
    /// the full matrix), and their values at the last factorisation.
    lift: Vec<(u32, u32, u32)>,
    lift_values: Vec<f64>,
    /// The expected sign of each reduced unknown's pivot.
    signs: Vec<i8>,
    symbolic: SymbolicCholesky<usize>,
    /// `LDLᵀ`'s values and faer's scratch space.
    ldlt: Vec<f64>,
    scratch: MemBuffer,
    /// The LU and where each entry of the full matrix goes in it (built at the first use).
    lu: Option<(SupernodalLu, Vec<u32>)>,
    /// Which factorisation [`Saddle::apply`] uses.
    factored: Option<Kind>,
    /// The reduced unknowns, in reduced and in elimination order.
    work: Vec<f64>,
    ordered: Vec<f64>,
    par: Par,
}

/// The kind of the last factorisation.
#[derive(Clone, Copy)]
enum Kind {
    Ldlt,
    Lu,
}

impl Saddle {
    /// The elimination order and symbolic factorisation for matrices with the pattern `a`
    /// (structurally symmetric), whose rows `fixed` are identity rows (prescribed unknowns).
    /// The unknowns belong to `nodes` nodes: the velocity components `u_0` of every node, then
    /// `u_1`, … (`first_pressure = D nodes`), then the pressures of the first nodes. `Err` names
    /// what faer refused.
    ///
    /// The order is AMD's on the graph of the nodes (the pattern of the `u_0` block), each node's
    /// free velocities then its pressure taking its place: a fifth of the entries to order, and
    /// a pressure eliminated right after its own node's velocities, so its pivot is rarely
    /// zero.
    pub fn new(
        a: SymbolicSparseColMatRef<'_, usize>,
        fixed: &[bool],
        nodes: usize,
        first_pressure: usize,
        par: Par,
    ) -> Result<Self, FactorError> {
        let n = a.ncols();
        let mut reduced = vec![NONE; n];
        let mut free = Vec::with_capacity(n);
        for (k, r) in reduced.iter_mut().enumerate() {
            if !fixed[k] {
                *r = free.len() as u32;
                free.push(k as u32);
            }
        }
        // The reduced lower triangle, column by column: the reduced numbering keeps the order,
        // so each column's rows come out sorted.
        let m = free.len();
        let mut col_ptr = Vec::with_capacity(m + 1);
        let mut row_idx = Vec::new();
        let mut lower_place = vec![NONE; a.compute_nnz()];
        let mut diagonal = Vec::with_capacity(m);
        let mut lift = Vec::new();
        col_ptr.push(0);
        for j in 0..n {
            for (k, i) in a.col_range(j).zip(a.row_idx_of_col(j)) {
                match (reduced[i], reduced[j]) {
                    (NONE, _) => {}
                    (ri, NONE) => lift.push((ri, j as u32, k as u32)),
                    (ri, rj) if ri >= rj => {
                        lower_place[k] = row_idx.len() as u32;
                        row_idx.push(ri as usize);
                        if ri == rj {
                            diagonal.push(k as u32);
                        }
                    }
                    _ => {}
                }
            }
            if reduced[j] != NONE {
                col_ptr.push(row_idx.len());
            }
        }
        if row_idx.len() >= NONE as usize {
            return Err(FactorError::Failed(format!(
                "{} entries in the lower triangle: more than 32-bit positions can hold",
                row_idx.len()
            )));
        }
        let pattern = SymbolicSparseColMatRef::new_checked(m, m, &col_ptr, None, &row_idx);
        let (forward, inverse) = node_order(a, &reduced, nodes, first_pressure)?;
        let order = PermRef::new_checked(&forward, &inverse, m);
        // Supernodal whatever the size: the LU works on supernodes.
        let params = CholeskySymbolicParams {
            supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SUPERNODAL,
            ..Default::default()
        };
        let symbolic = factorize_symbolic_cholesky(pattern, Side::Lower, SymmetricOrdering::Custom(order), params)
            .map_err(|e| format!("{e:?}"))?;
        // LU keeps L (in the LDLᵀ's storage) and U, each the size of the Cholesky factor.
        let entries = symbolic.len_val() as f64;
        crate::memory::reserve(2.0 * 8.0 * entries, || {
            format!("the factors of the flow's {m} × {m} system ({entries:.3e} entries each, L and U)")
        })?;
        let signs = free
            .iter()
            .map(|&k| if (k as usize) < first_pressure { 1 } else { -1 })
            .collect();
        let scratch = MemBuffer::new(
            symbolic
                .factorize_numeric_ldlt_scratch::<f64>(par, Default::default())
                .or(symbolic.solve_in_place_scratch::<f64>(1, par)),
        );
        Ok(Saddle {
            free,
            reduced,
            lower: vec![0.0; row_idx.len()],
            col_ptr,
            row_idx,
            lower_place,
            diagonal,
            lift_values: vec![0.0; lift.len()],
            lift,
            signs,
            symbolic,
            ldlt: Vec::new(),
            scratch,
            lu: None,
            factored: None,
            work: vec![0.0; m],
            ordered: vec![0.0; m],
            par,
        })
    }

    /// The pivot thresholds for the matrix `values`: `ε = 10⁻¹³ s`, `δ = 10⁻⁸ s` with `s` the
    /// largest diagonal entry of the reduced system; and the lifted columns' values saved.
    fn prepare(&mut self, values: &[f64]) -> Pivots {
        for (value, &(_, _, k)) in self.lift_values.iter_mut().zip(&self.lift) {
            *value = values[k as usize];
        }
        let scale = self
            .diagonal
            .iter()
            .map(|&k| values[k as usize].abs())
            .fold(0.0, f64::max);
        Pivots {
            epsilon: 1e-13 * scale,
            delta: 1e-8 * scale,
        }
    }

    /// Factorises the matrix `values` (in the storage order of the pattern given to
    /// [`Saddle::new`]), which must be symmetric, as `LDLᵀ`. `Err` names what faer refused.
    pub fn factorize_symmetric(&mut self, values: &[f64]) -> Result<(), String> {
        let pivots = self.prepare(values);
        for (&place, &v) in self.lower_place.iter().zip(values) {
            if place != NONE {
                self.lower[place as usize] = v;
            }
        }
        self.ldlt.resize(self.symbolic.len_val(), 0.0);
        let pattern =
            SymbolicSparseColMatRef::new_checked(self.free.len(), self.free.len(), &self.col_ptr, None, &self.row_idx);
        let regularization = LdltRegularization {
            dynamic_regularization_signs: Some(&self.signs),
            dynamic_regularization_delta: pivots.delta,
            dynamic_regularization_epsilon: pivots.epsilon,
        };
        self.factored = None;
        self.symbolic
            .factorize_numeric_ldlt(
                &mut self.ldlt,
                SparseColMatRef::new(pattern, &self.lower),
                Side::Lower,
                regularization,
                self.par,
                MemStack::new(&mut self.scratch),
                Default::default(),
            )
            .map_err(|e| format!("{e:?}"))?;
        self.factored = Some(Kind::Ldlt);
        Ok(())
    }

    /// Factorises the matrix `values` (in the storage order of the pattern given to
    /// [`Saddle::new`], `a`) as `LU` without pivoting. Returns how many pivots were replaced.
    pub fn factorize(&mut self, a: SparseColMatRef<'_, usize, f64>) -> usize {
        let pivots = self.prepare(a.val());
        let (lu, place) = self.lu.get_or_insert_with(|| {
            let SymbolicCholeskyRaw::Supernodal(supernodal) = self.symbolic.raw() else {
                unreachable!("the symbolic factorisation is forced supernodal")
            };
            let (forward, inverse) = self.symbolic.perm().expect("a fill-reducing ordering").arrays();
            let negative = forward.iter().map(|&r| self.signs[r] < 0).collect();
            // L takes over the LDLᵀ's values (the same size): a Newton solve's first step is Stokes.
            let mut lu = SupernodalLu::new(supernodal, negative, std::mem::take(&mut self.ldlt), self.par);
            let order = |k: usize| inverse[self.reduced[k] as usize] as u32;
            let mut entries = vec![None; a.compute_nnz()];
            for j in (0..a.ncols()).filter(|&j| self.reduced[j] != NONE) {
                for (k, i) in a.col_range(j).zip(a.row_idx_of_col(j)) {
                    if self.reduced[i] != NONE {
                        entries[k] = Some((order(i), order(j)));
                    }
                }
            }
            let place = lu.places(&entries);
            (lu, place)
        });
        self.factored = Some(Kind::Lu);
        lu.factorize(
            place
                .iter()
                .zip(a.val())
                .filter(|(&p, _)| p != NONE)
                .map(|(&p, &v)| (p as usize, v)),
            pivots,
        )
    }

    /// `v ← M⁻¹ v`, `M` the last matrix factorised (the identity without one): the prescribed
    /// unknowns keep their values, the others solve the reduced system with the prescribed
    /// columns moved to the right-hand side.
    pub fn apply(&mut self, v: &mut [f64]) {
        let Some(kind) = self.factored else {
            return;
        };
        for (w, &k) in self.work.iter_mut().zip(&self.free) {
            *w = v[k as usize];
        }
        for (&(i, j, _), &a) in self.lift.iter().zip(&self.lift_values) {
            self.work[i as usize] -= a * v[j as usize];
        }
        match kind {
            Kind::Ldlt => LdltRef::new(&self.symbolic, &self.ldlt).solve_in_place_with_conj(
                Conj::No,
                ColMut::from_slice_mut(&mut self.work).as_mat_mut(),
                self.par,
                MemStack::new(&mut self.scratch),
            ),
            Kind::Lu => {
                let (lu, _) = self.lu.as_ref().expect("factorised");
                let (forward, _) = self.symbolic.perm().expect("a fill-reducing ordering").arrays();
                for (o, &r) in self.ordered.iter_mut().zip(forward) {
                    *o = self.work[r];
                }
                lu.solve_in_place(&mut self.ordered);
                for (&o, &r) in self.ordered.iter().zip(forward) {
                    self.work[r] = o;
                }
            }
        }
        for (&w, &k) in self.work.iter().zip(&self.free) {
            v[k as usize] = w;
        }
    }
}

/// The elimination order of the reduced unknowns (`reduced`: the reduced index of each unknown,
/// or [`NONE`]) by AMD on the graph of the nodes: `(forward, inverse)`, `forward[k]` the reduced
/// unknown eliminated `k`-th.
fn node_order(
    a: SymbolicSparseColMatRef<'_, usize>,
    reduced: &[u32],
    nodes: usize,
    first_pressure: usize,
) -> Result<(Vec<usize>, Vec<usize>), String> {
    let components = first_pressure / nodes.max(1);
    // The nodes' graph: the rows below `nodes` of the first `nodes` columns.
    let mut col_ptr = Vec::with_capacity(nodes + 1);
    let mut row_idx = Vec::new();
    col_ptr.push(0);
    for k in 0..nodes {
        row_idx.extend(a.row_idx_of_col(k).filter(|&i| i < nodes));
        col_ptr.push(row_idx.len());
    }
    let graph = SymbolicSparseColMatRef::new_checked(nodes, nodes, &col_ptr, None, &row_idx);
    let (mut node_forward, mut node_inverse) = (vec![0usize; nodes], vec![0usize; nodes]);
    let mut scratch = MemBuffer::try_new(amd::order_scratch::<usize>(nodes, row_idx.len()))
        .map_err(|_| "out of memory for the ordering".to_string())?;
    amd::order(
        &mut node_forward,
        &mut node_inverse,
        graph,
        amd::Control::default(),
        MemStack::new(&mut scratch),
    )
    .map_err(|e| format!("{e:?}"))?;
    let pressures = a.ncols() - first_pressure;
    let mut forward = Vec::with_capacity(a.ncols());
    for &node in &node_forward {
        let unknowns = (0..components).map(|d| d * nodes + node);
        let pressure = (node < pressures).then_some(first_pressure + node);
        forward.extend(
            unknowns
                .chain(pressure)
                .filter(|&k| reduced[k] != NONE)
                .map(|k| reduced[k] as usize),
        );
    }
    let mut inverse = vec![0usize; forward.len()];
    for (k, &r) in forward.iter().enumerate() {
        inverse[r] = k;
    }
    Ok((forward, inverse))
}

#[cfg(test)]
mod tests {
    use super::Saddle;
    use crate::linalg::gmres::gmres;
    use faer::sparse::{SparseColMat, Triplet};
    use faer::Par;

    /// A Stokes-like matrix: `A` the 1D Laplacian on 8 unknowns (SPD), plus `c` times a skew
    /// part (convection), `B` three "pressures" each coupled to a pair of velocities, unknown 0
    /// prescribed (an identity row, its column kept, as the steady solver assembles it).
    fn saddle(c: f64) -> (SparseColMat<usize, f64>, Vec<bool>, Vec<f64>) {
        let (nu, np) = (8, 3);
        let mut entries = Vec::new();
        for i in 1..nu {
            entries.push(Triplet::new(i, i, 2.0));
            if i + 1 < nu {
                entries.push(Triplet::new(i, i + 1, -1.0 + c));
            }
            entries.push(Triplet::new(i, i - 1, -1.0 - c));
        }
        entries.push(Triplet::new(0, 0, 1.0));
        for q in 0..np {
            for (u, b) in [(2 * q + 1, 1.0), (2 * q + 2, -0.5)] {
                entries.push(Triplet::new(nu + q, u, b));
                entries.push(Triplet::new(u, nu + q, b));
            }
        }
        let n = nu + np;
        let matrix = SparseColMat::try_new_from_triplets(n, n, &entries).expect("a valid matrix");
        let mut fixed = vec![false; n];
        fixed[0] = true;
        let rhs = (0..n).map(|k| if k == 0 { 0.7 } else { (k as f64).sin() }).collect();
        (matrix, fixed, rhs)
    }

    fn residual(matrix: &SparseColMat<usize, f64>, x: &[f64], b: &[f64]) -> f64 {
        let a = matrix.to_dense();
        (0..b.len())
            .map(|i| ((0..x.len()).map(|j| a[(i, j)] * x[j]).sum::<f64>() - b[i]).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    /// Factorises the matrix (symmetric: `LDLᵀ`, else LU), checks the direct solve's relative
    /// residual against `direct`, then refines by GMRES to 10⁻¹³.
    fn solve_and_refine(c: f64, direct: std::ops::Range<f64>) {
        let (matrix, fixed, b) = saddle(c);
        let mut saddle = Saddle::new(matrix.symbolic(), &fixed, 8, 8, Par::Seq).expect("analyses");
        if c == 0.0 {
            saddle.factorize_symmetric(matrix.val()).expect("factorises");
        } else {
            saddle.factorize(matrix.as_ref());
        }
        let mut x = b.clone();
        saddle.apply(&mut x);
        assert_eq!(x[0], 0.7, "the prescribed value is kept");
        let norm = b.iter().map(|v| v * v).sum::<f64>().sqrt();
        let relative = residual(&matrix, &x, &b) / norm;
        assert!(direct.contains(&relative), "relative residual {relative}");
        let a = matrix.to_dense();
        let apply = |v: &[f64], out: &mut [f64]| {
            for (i, o) in out.iter_mut().enumerate() {
                *o = (0..v.len()).map(|j| a[(i, j)] * v[j]).sum();
            }
        };
        let iterations = gmres(apply, |v| saddle.apply(v), &b, &mut x, 1e-13 * norm, 10).expect("converges");
        assert!(iterations <= 2, "{iterations} iterations");
        let refined = residual(&matrix, &x, &b) / norm;
        assert!(refined <= 1e-13, "relative residual {refined}");
    }

    #[test]
    fn factorisations_precondition_gmres_to_round_off() {
        // Symmetric (LDLᵀ) or not (LU): the factorisation alone solves to within the pivots'
        // regularisation (a residual of about δ/‖A‖ relative at worst), and as GMRES's
        // preconditioner it converges at once, the prescribed value kept throughout.
        solve_and_refine(0.0, 0.0..1e-6);
        solve_and_refine(0.3, 0.0..1e-6);
    }
}
