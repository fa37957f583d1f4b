//! The memory budget (`TUMBLE_MEMORY_LIMIT`) stops a factorisation between its symbolic and
//! numeric phases with an error saying how much it would need, and the automatic choice of
//! solver then iterates instead. One test in its own binary: it
//! sets the process's environment, which no other test here reads concurrently.

use tumble::linalg::Csr;
use tumble::linalg::{FactorError, SpdMethod, SpdSolver};
use tumble::memory::MemoryError;

/// The 5-point Laplacian on an `m × m` grid (plus the identity), no unknown prescribed.
fn laplacian(m: usize) -> Csr {
    let mut entries = Vec::new();
    let id = |i: usize, j: usize| (i * m + j) as u32;
    for i in 0..m {
        for j in 0..m {
            entries.push((id(i, j), id(i, j), 5.0));
            for (di, dj) in [(1, 0), (0, 1)] {
                if i + di < m && j + dj < m {
                    entries.push((id(i, j), id(i + di, j + dj), -1.0));
                    entries.push((id(i + di, j + dj), id(i, j), -1.0));
                }
            }
        }
    }
    Csr::from_triplets(m * m, m * m, entries)
}

#[test]
fn a_factor_beyond_the_budget_is_refused_before_its_numeric_phase() {
    let small = laplacian(20);
    let large = laplacian(400);
    let resident = std::fs::read_to_string("/proc/self/statm").unwrap();
    let resident: f64 = resident.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap() * 4096.0;
    // 16 MB above what the process holds: the 400² grid's factor (≈ 8e6 entries, 64 MB) does not
    // fit, the 20² one does.
    std::env::set_var(
        "TUMBLE_MEMORY_LIMIT",
        format!("{}", (resident + 16.0 * 1048576.0) as u64),
    );
    assert!(SpdSolver::new(&small, &vec![false; 400], 1, false).is_ok());
    match SpdSolver::new(&large, &vec![false; 160_000], 1, false) {
        Err(FactorError::Memory(MemoryError::TooLarge {
            what,
            need,
            available,
            origin,
        })) => {
            assert!(what.contains("160000 × 160000"), "{what}");
            assert!(need > 40e6 && available < 17.0 * 1048576.0, "{need} {available}");
            assert!(origin.starts_with("TUMBLE_MEMORY_LIMIT = "), "{origin}");
        }
        Err(e) => panic!("expected a memory error, got {e}"),
        Ok(_) => panic!("expected a memory error, the factor was made"),
    }
    // The automatic choice takes the iterative path there, and solves to its tolerance: the
    // residual of the 400² system with a right-hand side of ones, relative to it.
    let mut solver = SpdSolver::with_method(&large, &vec![false; 160_000], (1, false), SpdMethod::Auto, None).unwrap();
    assert_eq!(solver.name(), "amg-cg");
    let b = vec![1.0; 160_000];
    let mut x = faer::Mat::<f64>::from_fn(160_000, 1, |i, _| b[i]);
    solver.solve_in_place(x.as_mut());
    let column: Vec<f64> = (0..160_000).map(|i| x[(i, 0)]).collect();
    let mut ax = vec![0.0; 160_000];
    large.mul(&column, &mut ax);
    let residual = ax.iter().zip(&b).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt() / 400.0;
    assert!(residual < 1e-8, "relative residual {residual:e}");
    assert!(
        solver.last_iterations() <= 20,
        "{} iterations",
        solver.last_iterations()
    );
    std::env::set_var("TUMBLE_MEMORY_LIMIT", "8 lots");
    assert!(matches!(
        SpdSolver::new(&small, &vec![false; 400], 1, false),
        Err(FactorError::Memory(MemoryError::BadLimit(_)))
    ));
    std::env::remove_var("TUMBLE_MEMORY_LIMIT");
}
