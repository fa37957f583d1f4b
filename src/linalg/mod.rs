//! Sparse linear algebra: storage, direct factorisations, Krylov methods, algebraic multigrid, written for the
//! systems of finite elements but knowing nothing of them (any module may use it; it uses nothing
//! of the crate but [`crate::math`] and [`crate::memory`], whose budget each factorisation checks
//! between its symbolic and numeric phases).
//!
//! Each file holds one method, its algorithm and its cost in the module docs:
//!
//! | module | method | use it for |
//! |---|---|---|
//! | [`sparse`] | compressed rows ([`Csr`]) and products, built once from triplets; `y = A x` for faer's compressed columns ([`csc_mul`]) | matrix–vector products of constant matrices (mass times history, divergence, gradient) |
//! | [`spd`] | an SPD system with prescribed unknowns ([`SpdSolver`]), by its Cholesky factor or by AMG-preconditioned CG, chosen by fill and memory ([`SpdMethod`]) | constant SPD matrices solved at every time step |
//! | [`cholesky`] | sparse Cholesky `L Lᵀ` of an SPD matrix with prescribed (Dirichlet) unknowns eliminated symmetrically ([`CholeskySolver`]); simplicial or supernodal (faer's numeric kernels, AMD order); solves at a few unknowns along the elimination tree | the direct path of [`SpdSolver`] |
//! | [`tree_split`] | the triangular solves of a simplicial factor on two threads, over two halves of its elimination tree, several right-hand sides in one sweep | behind [`CholeskySolver`]'s solves |
//! | [`iterative`] | conjugate gradients preconditioned by a V-cycle, `K` right-hand sides interleaved, prescribed unknowns eliminated ([`iterative::AmgCg`]) | the path of [`SpdSolver`] whose memory is linear |
//! | [`patch`] | the response to loads at a few unknowns on the unknowns a few graph layers around them, by Jacobi-preconditioned CG ([`Patch`]) | the rigid bodies' constraint on the iterative path |
//! | [`amg`] | smoothed-aggregation algebraic multigrid, Chebyshev smoothing, dense coarsest level | the preconditioner of [`iterative`] |
//! | [`saddle`] | `LDLᵀ` (symmetric) or `LU` (non-symmetric values) of a saddle-point matrix `[A Bᵀ; B 0]` on its symmetric pattern, one AMD order on the nodes' graph, no pivoting (tiny pivots regularised) | Stokes and Newton systems, as the preconditioner of [`gmres`](mod@gmres) |
//! | [`supernodal_lu`] | left-looking supernodal `LU` without pivoting in the structure of a symbolic Cholesky factor | behind [`saddle`]'s `LU` |
//! | [`pivoted_lu`] | faer's sparse LU with partial pivoting, its symbolic analysis kept ([`PivotedLu`]) | the fallback where no pivoting fails |
//! | [`gmres`](mod@gmres) | right-preconditioned GMRES (Arnoldi with modified Gram–Schmidt, Givens rotations), no restart | refining a factorisation that regularised, or reusing one of a nearby matrix |
//!
//! The pattern is faer's: a symbolic phase done once per matrix structure (ordering, elimination
//! tree, supernodes, the places of the entries) and a numeric phase done whenever the values
//! change, which allocates nothing. Indices are `u32` where they are stored per entry.
//! Verified in `tests/linalg.rs` (exact discrete solutions) and by the unit tests of each module.

pub mod amg;
pub mod cholesky;
pub mod gmres;
pub mod iterative;
pub mod patch;
pub mod pivoted_lu;
pub mod saddle;
pub mod sparse;
pub mod spd;
pub mod supernodal_lu;
pub mod tree_split;

pub use cholesky::{CholeskySolver, Reach};
pub use gmres::{gmres, restarted_gmres};
pub use iterative::TOLERANCE;
pub use patch::Patch;
pub use pivoted_lu::PivotedLu;
pub use saddle::Saddle;
pub use sparse::{csc_mul, Csr};
pub use spd::{SpdMethod, SpdSolver};
pub use supernodal_lu::{Pivots, SupernodalLu};

/// Why a factorisation could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FactorError {
    /// The factor would not fit the memory budget ([`crate::memory`]).
    #[error(transparent)]
    Memory(#[from] crate::memory::MemoryError),
    /// The analysis or the numeric phase refused the matrix (what faer said).
    #[error("{0}")]
    Failed(String),
}

impl From<String> for FactorError {
    fn from(message: String) -> Self {
        FactorError::Failed(message)
    }
}
