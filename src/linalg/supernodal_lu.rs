//! LU factorisation without pivoting on the supernodal structure of a Cholesky factor
//!
//! For a matrix whose pattern is symmetric but whose values are not (Newton's linearisation of
//! Navier–Stokes), the elimination order and the fill of a Cholesky factorisation serve an LU
//! without pivoting as well: `L` has the Cholesky factor's pattern and `U` its transpose's. So the
//! structure comes from faer's symbolic Cholesky (a fill-reducing order, supernodes), and `U`'s rows are
//! stored as the columns of `Uᵀ`, in panels of the same shape as `L`'s: supernode `s`, holding the
//! columns `b..e`, has a `(e − b + r) × (e − b)` column-major panel in each of `lower` and `upper`,
//! `r` the rows of its pattern below `e`.
//!
//! The left-looking supernodal algorithm: for each supernode `s` in order,
//! 1. every supernode `d` whose rows reach `s`'s columns subtracts its contribution: with `L_d` and
//!    `Uᵀ_d` restricted to those rows and below, `L_s −= L_d (Uᵀ_d,mid)ᵀ` and
//!    `Uᵀ_s −= Uᵀ_d,below (L_d,mid)ᵀ` (one dense product each, scattered into `s`'s rows);
//! 2. the diagonal block is factorised in place, `A_ss = L_ss U_ss` (kept in `lower`'s top block:
//!    `L_ss` below the diagonal, unit diagonal implied, `U_ss` on and above);
//! 3. the panels below become `L_bs = A_bs U_ss⁻¹` and `Uᵀ_sb = (L_ss⁻¹ A_sb)ᵀ`.
//!
//! Without pivoting a pivot can be zero (a saddle point's pressure eliminated before its velocity
//! neighbours) or tiny; such a pivot is replaced by `±δ` with the expected sign ([`Pivots`]), and
//! the factorisation is then an approximation, for GMRES to repair as its preconditioner.
//!
//! **Cost**: twice the storage and twice the floating-point work of a Cholesky factorisation on
//! the same structure (`Σ_j |L_{*j}|²` multiply–adds for each triangle), nearly all of it in
//! faer's dense products; [`SupernodalLu::places`], which maps each matrix entry to its place in
//! the panels, is done once per pattern. A solve reads `L` and `Uᵀ` once (`4 nnz(L)` flops).

use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_unit_lower_triangular_in_place};
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::sparse::linalg::cholesky::supernodal::SymbolicSupernodalCholesky;
use faer::{Accum, MatMut, MatRef, Par};

/// Marks "no local row" in the scratch map.
const NONE: u32 = u32::MAX;

/// Dense diagonal blocks up to this size are factorised by plain loops, larger ones recursively
/// in halves (the off-diagonal quarters by faer's triangular solves and products).
const BLOCK: usize = 32;

/// How small pivots are replaced: a pivot of magnitude at most `epsilon` becomes `±delta`, with
/// the sign expected for its unknown.
#[derive(Clone, Copy, Debug)]
pub struct Pivots {
    /// The magnitude at or below which a pivot is replaced.
    pub epsilon: f64,
    /// The magnitude of the pivot that replaces it.
    pub delta: f64,
}

impl Pivots {
    /// The pivot to use for `value` (expected negative if `negative`) and whether it was replaced.
    fn checked(self, value: f64, negative: bool) -> (f64, bool) {
        if value.abs() > self.epsilon {
            (value, false)
        } else if negative {
            (-self.delta, true)
        } else {
            (self.delta, true)
        }
    }
}

/// The LU factors of a matrix with a symmetric pattern, in a Cholesky factor's supernodal
/// structure (unknowns in its elimination order).
pub struct SupernodalLu {
    /// Supernode `s` holds the unknowns `begin[s]..begin[s + 1]`.
    begin: Vec<usize>,
    /// The rows below supernode `s`'s diagonal block, ascending: `rows[row_ptr[s]..row_ptr[s + 1]]`.
    rows: Vec<u32>,
    row_ptr: Vec<usize>,
    /// The start of supernode `s`'s panel in `lower` and in `upper`.
    panel_ptr: Vec<usize>,
    /// The supernodes whose rows reach supernode `s`'s columns:
    /// `updaters[updater_ptr[s]..updater_ptr[s + 1]]`.
    updaters: Vec<u32>,
    updater_ptr: Vec<usize>,
    /// The supernode of each unknown.
    supernode_of: Vec<u32>,
    /// Whether each unknown's pivot is expected negative.
    negative: Vec<bool>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    /// Scratch: the local row of each unknown in the supernode being factorised, a dense
    /// product and the rows it lands in.
    local: Vec<u32>,
    product: Vec<f64>,
    targets: Vec<u32>,
    par: Par,
}

impl SupernodalLu {
    /// The factors' structure from faer's symbolic supernodal Cholesky; `negative` marks the
    /// unknowns (in its elimination order) whose pivots are expected negative. `storage` is a
    /// buffer to hold `L` (resized): memory the caller has touched already costs no page faults.
    pub fn new(
        symbolic: &SymbolicSupernodalCholesky<usize>,
        negative: Vec<bool>,
        mut storage: Vec<f64>,
        par: Par,
    ) -> Self {
        let n = symbolic.nrows();
        let supernodes = symbolic.n_supernodes();
        let mut begin = symbolic.supernode_begin().to_vec();
        begin.push(n);
        let mut rows = Vec::with_capacity(symbolic.row_idx().len());
        let mut row_ptr = Vec::with_capacity(supernodes + 1);
        row_ptr.push(0);
        for s in 0..supernodes {
            rows.extend(symbolic.supernode(s).pattern().iter().map(|&r| r as u32));
            row_ptr.push(rows.len());
        }
        let panel_ptr = symbolic.col_ptr_for_val().to_vec();
        let mut supernode_of = vec![0u32; n];
        for s in 0..supernodes {
            supernode_of[begin[s]..begin[s + 1]].fill(s as u32);
        }
        // Supernode d reaches every supernode its rows fall in (ascending, as its rows are).
        let (rows_of, supernode) = (&rows, &supernode_of);
        let reached = |d: usize| {
            let mut last = NONE;
            rows_of[row_ptr[d]..row_ptr[d + 1]].iter().filter_map(move |&r| {
                let s = supernode[r as usize];
                (s != last).then(|| {
                    last = s;
                    s as usize
                })
            })
        };
        let mut count = vec![0usize; supernodes + 1];
        for d in 0..supernodes {
            for s in reached(d) {
                count[s + 1] += 1;
            }
        }
        for s in 0..supernodes {
            count[s + 1] += count[s];
        }
        let updater_ptr = count.clone();
        let mut updaters = vec![0u32; updater_ptr[supernodes]];
        for d in 0..supernodes {
            for s in reached(d) {
                updaters[count[s]] = d as u32;
                count[s] += 1;
            }
        }
        let len = panel_ptr[supernodes];
        SupernodalLu {
            begin,
            rows,
            row_ptr,
            panel_ptr,
            updaters,
            updater_ptr,
            supernode_of,
            negative,
            lower: {
                storage.clear();
                storage.resize(len, 0.0);
                storage
            },
            upper: vec![0.0; len],
            local: vec![NONE; n],
            product: Vec::new(),
            targets: Vec::new(),
            par,
        }
    }

    /// The number of values in each of `L` and `Uᵀ`.
    pub fn len(&self) -> usize {
        self.lower.len()
    }

    /// Whether there are no unknowns.
    pub fn is_empty(&self) -> bool {
        self.lower.is_empty()
    }

    /// Where each entry `(i, j)` of the matrix (elimination order, in the pattern) is stored: a
    /// position in `lower`, or in `upper` plus [`SupernodalLu::len`]; `None` entries are skipped
    /// (`u32::MAX` in the result). The entries are taken supernode by supernode (the one of
    /// `min(i, j)` holds the entry), so each row's place in a panel is a lookup, not a search.
    pub fn places(&mut self, entries: &[Option<(u32, u32)>]) -> Vec<u32> {
        let supernodes = self.begin.len() - 1;
        let owner = |&(i, j): &(u32, u32)| self.supernode_of[i.min(j) as usize] as usize;
        let mut start = vec![0usize; supernodes + 1];
        for entry in entries.iter().flatten() {
            start[owner(entry) + 1] += 1;
        }
        for s in 0..supernodes {
            start[s + 1] += start[s];
        }
        let mut cursor = start.clone();
        let mut by_owner = vec![0u32; start[supernodes]];
        for (k, entry) in entries.iter().enumerate() {
            if let Some(entry) = entry {
                let s = owner(entry);
                by_owner[cursor[s]] = k as u32;
                cursor[s] += 1;
            }
        }
        let len = self.len();
        let mut places = vec![NONE; entries.len()];
        for s in 0..supernodes {
            let (b, e) = (self.begin[s], self.begin[s + 1]);
            let pattern = &self.rows[self.row_ptr[s]..self.row_ptr[s + 1]];
            let height = e - b + pattern.len();
            for (k, &r) in pattern.iter().enumerate() {
                self.local[r as usize] = (e - b + k) as u32;
            }
            for &k in &by_owner[start[s]..start[s + 1]] {
                let (i, j) = entries[k as usize].expect("an entry");
                let (i, j) = (i as usize, j as usize);
                let row = |r: usize| if r < e { r - b } else { self.local[r] as usize };
                // The diagonal block holds both triangles in `lower`; below it, `(i, j)` with
                // `i > j` is L's, with `i < j` U's (stored as `Uᵀ[j, i]`).
                let place = if i.max(j) < e || i > j {
                    self.panel_ptr[s] + (j - b) * height + row(i)
                } else {
                    len + self.panel_ptr[s] + (i - b) * height + row(j)
                };
                places[k as usize] = place as u32;
            }
            for &r in pattern {
                self.local[r as usize] = NONE;
            }
        }
        places
    }

    /// Factorises the matrix whose entries are `(place, value)` ([`SupernodalLu::places`]; entries
    /// at one place add up). Returns how many pivots were replaced.
    pub fn factorize(&mut self, entries: impl Iterator<Item = (usize, f64)>, pivots: Pivots) -> usize {
        let len = self.len();
        self.lower.fill(0.0);
        self.upper.fill(0.0);
        for (place, value) in entries {
            if place < len {
                self.lower[place] += value;
            } else {
                self.upper[place - len] += value;
            }
        }
        (0..self.begin.len() - 1)
            .map(|s| self.factorize_supernode(s, pivots))
            .sum()
    }

    /// Updates supernode `s`'s panels by the supernodes that reach it, then factorises them.
    fn factorize_supernode(&mut self, s: usize, pivots: Pivots) -> usize {
        let (b, e) = (self.begin[s], self.begin[s + 1]);
        let width = e - b;
        let pattern = &self.rows[self.row_ptr[s]..self.row_ptr[s + 1]];
        let height = width + pattern.len();
        for (i, &r) in pattern.iter().enumerate() {
            self.local[r as usize] = (width + i) as u32;
        }
        let (lower_done, lower_rest) = self.lower.split_at_mut(self.panel_ptr[s]);
        let (upper_done, upper_rest) = self.upper.split_at_mut(self.panel_ptr[s]);
        let lower_s = &mut lower_rest[..height * width];
        let upper_s = &mut upper_rest[..height * width];
        for &d in &self.updaters[self.updater_ptr[s]..self.updater_ptr[s + 1]] {
            let d = d as usize;
            let d_width = self.begin[d + 1] - self.begin[d];
            let d_pattern = &self.rows[self.row_ptr[d]..self.row_ptr[d + 1]];
            let d_height = d_width + d_pattern.len();
            let first = d_pattern.partition_point(|&r| (r as usize) < b);
            let mid = d_pattern[first..].partition_point(|&r| (r as usize) < e);
            let reach = d_pattern.len() - first;
            let panel = self.panel_ptr[d]..self.panel_ptr[d] + d_height * d_width;
            let l_d = MatRef::from_column_major_slice(&lower_done[panel.clone()], d_height, d_width)
                .subrows(d_width + first, reach);
            let u_d =
                MatRef::from_column_major_slice(&upper_done[panel], d_height, d_width).subrows(d_width + first, reach);
            // The rows of `s`'s panels that `d`'s rows from `first` on land in.
            self.targets.clear();
            self.targets
                .extend(d_pattern[first..].iter().enumerate().map(|(i, &r)| {
                    if i < mid {
                        r - b as u32
                    } else {
                        self.local[r as usize]
                    }
                }));
            // L_s[targets, mid] −= L_d[first.., :] (Uᵀ_d[mid, :])ᵀ: the whole diagonal block
            // (both triangles) and L below it.
            subtract_product(
                lower_s,
                height,
                &self.targets,
                &self.targets[..mid],
                l_d,
                u_d.subrows(0, mid),
                &mut self.product,
                self.par,
            );
            if reach > mid {
                // Uᵀ_s[targets below, mid] −= Uᵀ_d[below, :] (L_d[mid, :])ᵀ.
                subtract_product(
                    upper_s,
                    height,
                    &self.targets[mid..],
                    &self.targets[..mid],
                    u_d.subrows(mid, reach - mid),
                    l_d.subrows(0, mid),
                    &mut self.product,
                    self.par,
                );
            }
        }
        let (mut top, mut l_below) =
            MatMut::from_column_major_slice_mut(lower_s, height, width).split_at_row_mut(width);
        let replaced = factorize_dense(top.rb_mut(), &self.negative[b..e], pivots, self.par);
        // L_bs = A_bs U_ss⁻¹, i.e. U_ssᵀ L_bsᵀ = A_bsᵀ (U_ssᵀ: the top's upper triangle, transposed).
        solve_lower_triangular_in_place(top.rb().transpose(), l_below.rb_mut().transpose_mut(), self.par);
        // Uᵀ_sb = (L_ss⁻¹ A_sb)ᵀ.
        let u_below = MatMut::from_column_major_slice_mut(upper_s, height, width)
            .split_at_row_mut(width)
            .1;
        solve_unit_lower_triangular_in_place(top.rb(), u_below.transpose_mut(), self.par);
        for &r in pattern {
            self.local[r as usize] = NONE;
        }
        replaced
    }

    /// `w ← (LU)⁻¹ w`, `w` in elimination order.
    pub fn solve_in_place(&self, w: &mut [f64]) {
        let supernodes = self.begin.len() - 1;
        let panel = |s: usize| {
            let (b, e) = (self.begin[s], self.begin[s + 1]);
            let pattern = &self.rows[self.row_ptr[s]..self.row_ptr[s + 1]];
            let height = e - b + pattern.len();
            (
                b,
                e - b,
                pattern,
                height,
                self.panel_ptr[s]..self.panel_ptr[s] + height * (e - b),
            )
        };
        // L y = w, supernode by supernode, column by column.
        for s in 0..supernodes {
            let (b, width, pattern, height, range) = panel(s);
            let lower = &self.lower[range];
            for j in 0..width {
                let column = &lower[j * height..(j + 1) * height];
                let y = w[b + j];
                for (wi, &l) in w[b + j + 1..b + width].iter_mut().zip(&column[j + 1..width]) {
                    *wi -= l * y;
                }
                for (&r, &l) in pattern.iter().zip(&column[width..]) {
                    w[r as usize] -= l * y;
                }
            }
        }
        // U x = y, backwards: the rows below first, then the diagonal block.
        for s in (0..supernodes).rev() {
            let (b, width, pattern, height, range) = panel(s);
            let (lower, upper) = (&self.lower[range.clone()], &self.upper[range]);
            for j in 0..width {
                let below: f64 = pattern
                    .iter()
                    .zip(&upper[j * height + width..(j + 1) * height])
                    .map(|(&r, &u)| u * w[r as usize])
                    .sum();
                w[b + j] -= below;
            }
            for j in (0..width).rev() {
                let column = &lower[j * height..j * height + width];
                let x = w[b + j] / column[j];
                w[b + j] = x;
                for (wi, &u) in w[b..b + j].iter_mut().zip(&column[..j]) {
                    *wi -= u * x;
                }
            }
        }
    }
}

/// `target[rows, columns] −= a bᵀ` on a column-major panel of `height` rows, the product formed
/// densely in `product`, then scattered.
#[allow(clippy::too_many_arguments)]
fn subtract_product(
    target: &mut [f64],
    height: usize,
    rows: &[u32],
    columns: &[u32],
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    product: &mut Vec<f64>,
    par: Par,
) {
    let (m, n) = (rows.len(), columns.len());
    if product.len() < m * n {
        product.resize(m * n, 0.0);
    }
    let c = &mut product[..m * n];
    matmul(
        MatMut::from_column_major_slice_mut(c, m, n),
        Accum::Replace,
        a,
        b.transpose(),
        1.0,
        par,
    );
    for (&column, values) in columns.iter().zip(c.chunks_exact(m)) {
        let out = &mut target[column as usize * height..];
        for (&row, &v) in rows.iter().zip(values) {
            out[row as usize] -= v;
        }
    }
}

/// LU without pivoting of a dense block in place (`L` strictly below the diagonal, `U` on and
/// above it), replacing small pivots (`negative` marks those expected negative); returns how many
/// were replaced.
fn factorize_dense(mut a: MatMut<'_, f64>, negative: &[bool], pivots: Pivots, par: Par) -> usize {
    let n = a.nrows();
    if n <= BLOCK {
        let mut replaced = 0;
        for k in 0..n {
            let (pivot, changed) = pivots.checked(a[(k, k)], negative[k]);
            a[(k, k)] = pivot;
            replaced += changed as usize;
            for i in k + 1..n {
                a[(i, k)] /= pivot;
            }
            for j in k + 1..n {
                let u = a[(k, j)];
                if u != 0.0 {
                    for i in k + 1..n {
                        let l = a[(i, k)];
                        a[(i, j)] -= l * u;
                    }
                }
            }
        }
        return replaced;
    }
    let half = n / 2;
    let (mut a11, mut a12, mut a21, mut a22) = a.split_at_mut(half, half);
    let replaced = factorize_dense(a11.rb_mut(), &negative[..half], pivots, par);
    solve_unit_lower_triangular_in_place(a11.rb(), a12.rb_mut(), par);
    solve_lower_triangular_in_place(a11.rb().transpose(), a21.rb_mut().transpose_mut(), par);
    matmul(a22.rb_mut(), Accum::Add, a21.rb(), a12.rb(), -1.0, par);
    replaced + factorize_dense(a22, &negative[half..], pivots, par)
}

#[cfg(test)]
mod tests {
    use super::{Pivots, SupernodalLu, BLOCK};
    use faer::perm::PermRef;
    use faer::sparse::linalg::cholesky::{
        factorize_symbolic_cholesky, CholeskySymbolicParams, SymbolicCholesky, SymbolicCholeskyRaw, SymmetricOrdering,
    };
    use faer::sparse::linalg::SupernodalThreshold;
    use faer::sparse::{SparseColMat, SymbolicSparseColMatRef, Triplet};
    use faer::{Par, Side};

    /// faer's supernodal symbolic Cholesky of the lower triangle `pattern` in `ordering`.
    fn analyse(
        pattern: SymbolicSparseColMatRef<'_, usize>,
        ordering: SymmetricOrdering<'_, usize>,
    ) -> SymbolicCholesky<usize> {
        let params = CholeskySymbolicParams {
            supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SUPERNODAL,
            ..Default::default()
        };
        factorize_symbolic_cholesky(pattern, Side::Lower, ordering, params).expect("analyses")
    }

    /// Factorises the matrix with the entries `(i, j, value)` (elimination order).
    fn factorize(lu: &mut SupernodalLu, entries: &[(usize, usize, f64)], pivots: Pivots) -> usize {
        let at: Vec<_> = entries.iter().map(|&(i, j, _)| Some((i as u32, j as u32))).collect();
        let places = lu.places(&at);
        lu.factorize(places.into_iter().zip(entries).map(|(p, e)| (p as usize, e.2)), pivots)
    }

    #[test]
    fn factorises_a_convection_diffusion_matrix_exactly() {
        // Upwind-free convection–diffusion on a 40 × 40 grid: the 5-point Laplacian plus a skew
        // part, diagonally dominant, so LU without pivoting is stable and no pivot is replaced.
        let side = 40;
        let n = side * side;
        let mut entries = Vec::new();
        for y in 0..side {
            for x in 0..side {
                let k = y * side + x;
                entries.push(Triplet::new(k, k, 4.2));
                for (dx, dy, skew) in [(1, 0, 0.3), (0, 1, -0.2)] {
                    if x + dx < side && y + dy < side {
                        let l = (y + dy) * side + x + dx;
                        entries.push(Triplet::new(k, l, -1.0 + skew));
                        entries.push(Triplet::new(l, k, -1.0 - skew));
                    }
                }
            }
        }
        let a = SparseColMat::try_new_from_triplets(n, n, &entries).expect("a valid matrix");
        let lower: Vec<_> = entries
            .iter()
            .filter(|t| t.row >= t.col)
            .map(|t| Triplet::new(t.row, t.col, 1.0))
            .collect();
        let pattern = SparseColMat::try_new_from_triplets(n, n, &lower).expect("a valid pattern");
        let symbolic = analyse(pattern.symbolic(), SymmetricOrdering::Amd);
        let SymbolicCholeskyRaw::Supernodal(supernodal) = symbolic.raw() else {
            panic!("forced supernodal")
        };
        let (forward, inverse) = symbolic.perm().expect("AMD").arrays();
        let mut lu = SupernodalLu::new(supernodal, vec![false; n], Vec::new(), Par::Seq);
        let widest = lu.begin.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        assert!(
            widest > BLOCK,
            "the widest supernode ({widest}) is factorised recursively"
        );
        assert!(lu.updaters.len() > n / 4, "{} updates", lu.updaters.len());
        let ordered: Vec<_> = entries
            .iter()
            .map(|t| (inverse[t.row], inverse[t.col], t.val))
            .collect();
        let pivots = Pivots {
            epsilon: 1e-13,
            delta: 1e-8,
        };
        assert_eq!(factorize(&mut lu, &ordered, pivots), 0, "no pivot replaced");
        let b: Vec<f64> = (0..n).map(|k| (k as f64 * 0.37).sin()).collect();
        let mut w: Vec<f64> = forward.iter().map(|&k| b[k]).collect();
        lu.solve_in_place(&mut w);
        let mut x = vec![0.0; n];
        for (&k, &wk) in forward.iter().zip(&w) {
            x[k] = wk;
        }
        let worst = b
            .iter()
            .enumerate()
            .map(|(i, bi)| {
                let ax: f64 = (0..n).map(|j| a.get(i, j).copied().unwrap_or(0.0) * x[j]).sum();
                (ax - bi).abs()
            })
            .fold(0.0, f64::max);
        assert!(worst < 1e-12, "largest residual {worst:.1e}");
    }

    #[test]
    fn a_zero_pivot_is_replaced_and_counted() {
        // [[0, 1], [1, 2]] eliminated in its own order: the first pivot (a "pressure", expected
        // negative) is zero and becomes −δ, so the factors are those of [[−δ, 1], [1, 2]]: the
        // solve is off by about δ, and exact for that matrix.
        let pattern = SparseColMat::try_new_from_triplets(
            2,
            2,
            &[
                Triplet::new(0, 0, 1.0),
                Triplet::new(1, 0, 1.0),
                Triplet::new(1, 1, 1.0),
            ],
        )
        .expect("a valid pattern");
        let (forward, inverse) = ([0usize, 1], [0usize, 1]);
        let identity = PermRef::new_checked(&forward, &inverse, 2);
        let symbolic = analyse(pattern.symbolic(), SymmetricOrdering::Custom(identity));
        let SymbolicCholeskyRaw::Supernodal(supernodal) = symbolic.raw() else {
            panic!("forced supernodal")
        };
        let mut lu = SupernodalLu::new(supernodal, vec![true, false], Vec::new(), Par::Seq);
        let entries = [(0, 0, 0.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)];
        // A large δ keeps the rounding (about ε/δ, from the multiplier 1/δ) well below δ.
        let delta = 1e-3;
        let pivots = Pivots { epsilon: 1e-13, delta };
        assert_eq!(factorize(&mut lu, &entries, pivots), 1, "one pivot replaced");
        // A x = (1, 3) has x = (1, 1); [[−δ, 1], [1, 2]] x = (1, 3) has x₀ = 1 / (1 + 2δ) and
        // x₁ = (3 − x₀) / 2.
        let mut x = vec![1.0, 3.0];
        lu.solve_in_place(&mut x);
        let x0 = 1.0 / (1.0 + 2.0 * delta);
        let x1 = (3.0 - x0) / 2.0;
        assert!((x[0] - x0).abs() < 1e-12 && (x[1] - x1).abs() < 1e-12, "{x:?}");
        assert!(
            (x[0] - 1.0).abs() > 1e-3,
            "the regularised solve differs from the exact one"
        );
    }
}
