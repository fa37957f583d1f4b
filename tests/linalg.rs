//! The sparse linear algebra (`tumble::linalg`) against exact solutions: the SPD solver with
//! prescribed unknowns and its solves at a few unknowns on the 3-point Laplacian, whose discrete
//! solutions are the exact nodal values of the continuous ones, and the compressed-row products.

/// The 3-point Laplacian of [0, 1] on `n` nodes (the P1 stiffness matrix, spacing `h`), with
/// both ends flagged as prescribed: `(matrix, prescribed, h)`.
fn laplacian_1d(n: usize) -> (tumble::linalg::sparse::Csr, Vec<bool>, f64) {
    let h = 1.0 / (n - 1) as f64;
    let mut entries = Vec::new();
    for i in 0..n as u32 {
        entries.push((i, i, 2.0 / h));
        if i > 0 {
            entries.push((i, i - 1, -1.0 / h));
        }
        if i + 1 < n as u32 {
            entries.push((i, i + 1, -1.0 / h));
        }
    }
    let mut prescribed = vec![false; n];
    prescribed[0] = true;
    prescribed[n - 1] = true;
    (tumble::linalg::sparse::Csr::from_triplets(n, n, entries), prescribed, h)
}

/// The SPD solver with prescribed unknowns: the 3-point Laplacian `−u'' = 1` on [0, 1] with
/// `u(0) = a`, `u(1) = b` is exact for the quadratic solution `a + (b − a) x + x (1 − x)/2`, for
/// two right-hand sides at once (different boundary values), on both factorisations.
#[test]
fn spd_solver_eliminates_prescribed_values_symmetrically() {
    use tumble::linalg::SpdSolver;
    let n = 41;
    let (matrix, prescribed, h) = laplacian_1d(n);
    let ends = [(1.0, -2.0), (0.5, 3.0)];
    for supernodal in [false, true] {
        let mut solver = SpdSolver::new(&matrix, &prescribed, 2, supernodal).unwrap();
        let mut x = faer::Mat::<f64>::from_fn(n, 2, |i, c| match i {
            0 => ends[c].0,
            i if i == n - 1 => ends[c].1,
            _ => h,
        });
        solver.solve_in_place(x.as_mut());
        for (c, &(a, b)) in ends.iter().enumerate() {
            let worst = (0..n)
                .map(|i| {
                    let t = i as f64 * h;
                    (x[(i, c)] - (a + (b - a) * t + t * (1.0 - t) / 2.0)).abs()
                })
                .fold(0.0, f64::max);
            assert!(worst < 1e-12, "supernodal {supernodal}, column {c}: {worst:e}");
        }
    }
}

/// Solves at a few unknowns ([`SpdSolver::solve_at`]): on the 3-point Laplacian of [0, 1] with
/// `u(0) = u(1) = 0`, point loads `F_s` at nodes `s` give the exact nodal values of the Green's
/// function, `u(x) = Σ_s F_s min(x, s)(1 − max(x, s))`, at the loaded nodes, two right-hand sides
/// at once; the simplicial factor visits only part of itself, the supernodal one does a full solve.
#[test]
fn spd_solver_solves_at_a_few_unknowns() {
    use tumble::linalg::{Reach, SpdSolver};
    let (matrix, prescribed, h) = laplacian_1d(201);
    // Node 0 is prescribed: its load is ignored and its value is zero.
    let at = [17u32, 60, 0, 61, 150];
    let load = [[1.0, -2.0], [0.5, 0.0], [5.0, 5.0], [-0.25, 1.0], [2.0, 3.0]].map(tumble::math::Vector::<2>::from);
    for supernodal in [false, true] {
        let mut solver = SpdSolver::new(&matrix, &prescribed, 2, supernodal).unwrap();
        let mut reach = Reach::default();
        assert_eq!(solver.reach(&at, &mut reach), !supernodal);
        if !supernodal {
            assert!(reach.share() > 0.0 && reach.share() < 1.0, "{}", reach.share());
        }
        let mut out = [tumble::math::Vector::<2>::zeros(); 5];
        solver.solve_at(&mut reach, &at, &load, &mut out);
        for (&k, o) in at.iter().zip(&out) {
            let x = k as f64 * h;
            for c in 0..2 {
                let exact: f64 = at
                    .iter()
                    .zip(&load)
                    .map(|(&s, f)| {
                        let s = s as f64 * h;
                        f[c] * x.min(s) * (1.0 - x.max(s))
                    })
                    .sum();
                assert!(
                    (o[c] - exact).abs() < 1e-12,
                    "supernodal {supernodal}, node {k}: {} against {exact}",
                    o[c]
                );
            }
        }
    }
}

/// `Csr::restrict_into` keeps exactly the entries among the chosen indices, renumbered in their
/// order, and `mul_vectors` applies the matrix to each component: on the 3-point Laplacian, the
/// nodes 5, 6, 7 and 9 give the rows `[2, −1, 0, 0]`, `[−1, 2, −1, 0]`, `[0, −1, 2, 0]`,
/// `[0, 0, 0, 2]` (over `h`).
#[test]
fn csr_restricts_to_a_subset_and_multiplies_vectors() {
    use tumble::linalg::sparse::Csr;
    use tumble::math::Vector;
    let (matrix, _, h) = laplacian_1d(11);
    let at = [5u32, 6, 7, 9];
    let mut slot = vec![u32::MAX; 11];
    for (i, &k) in at.iter().enumerate() {
        slot[k as usize] = i as u32;
    }
    let mut block = Csr::default();
    matrix.restrict_into(&at, &slot, &mut block);
    let dense = [
        [2.0, -1.0, 0.0, 0.0],
        [-1.0, 2.0, -1.0, 0.0],
        [0.0, -1.0, 2.0, 0.0],
        [0.0, 0.0, 0.0, 2.0],
    ];
    let entries: Vec<(u32, u32, f64)> = block.entries().collect();
    let expected: Vec<(u32, u32, f64)> = (0..4u32)
        .flat_map(|r| (0..4u32).map(move |c| (r, c, dense[r as usize][c as usize] / h)))
        .filter(|e| e.2 != 0.0)
        .collect();
    assert_eq!(entries.len(), expected.len());
    for (e, x) in entries.iter().zip(&expected) {
        assert!(
            e.0 == x.0 && e.1 == x.1 && (e.2 - x.2).abs() < 1e-12,
            "{e:?} against {x:?}"
        );
    }
    let x = [[1.0, 0.5], [-2.0, 0.0], [0.25, 4.0], [3.0, -1.0]].map(Vector::<2>::from);
    let mut y = [Vector::<2>::zeros(); 4];
    block.mul_vectors(&x, &mut y);
    for (r, y) in y.iter().enumerate() {
        let exact: Vector<2> = (0..4).map(|c| x[c] * (dense[r][c] / h)).sum();
        assert!((y - exact).norm() < 1e-12, "row {r}: {y:?} against {exact:?}");
    }
}
