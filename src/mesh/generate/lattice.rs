//! Kuhn (Freudenthal) subdivision of a box: each grid cube is split into `D!` simplices that share
//! its main diagonal, one per ordering of the axes. All cubes use the same diagonal direction, so the
//! mesh is conforming. In 2D the triangles are right isosceles (on a square grid), so no angle is
//! obtuse; in 3D every tetrahedron is congruent (mean-ratio quality 0.72 on a cubic grid).

use crate::math::{self, Point};
use crate::mesh::{oriented_face, MeshError, MeshParts, SimplexMesh};
use std::collections::BTreeMap;

/// The permutations of `0..D` (2 or 6 of them).
fn permutations<const D: usize>() -> Vec<[usize; D]> {
    let mut out = Vec::new();
    let mut p = [0usize; D];
    fn rec<const D: usize>(k: usize, used: &mut [bool; 3], p: &mut [usize; D], out: &mut Vec<[usize; D]>) {
        if k == D {
            out.push(*p);
            return;
        }
        for a in 0..D {
            if !used[a] {
                used[a] = true;
                p[k] = a;
                rec(k + 1, used, p, out);
                used[a] = false;
            }
        }
    }
    rec(0, &mut [false; 3], &mut p, &mut out);
    out
}

/// Nodes and cells (flat, positively oriented) of the Kuhn subdivision of the box `[lo, hi]` into
/// `n[a]` intervals along each axis `a`. Node `(i_0, …, i_{D−1})` has index
/// `i_0 + (n_0 + 1)(i_1 + (n_1 + 1) i_2)`.
pub fn kuhn_lattice<const D: usize>(lo: Point<D>, hi: Point<D>, n: [usize; D]) -> (Vec<Point<D>>, Vec<u32>) {
    math::assert_dim::<D>();
    let stride: Vec<usize> = (0..D)
        .scan(1usize, |s, a| {
            let here = *s;
            *s *= n[a] + 1;
            Some(here)
        })
        .collect();
    let n_points: usize = n.iter().map(|k| k + 1).product();
    let mut points = Vec::with_capacity(n_points);
    for idx in 0..n_points {
        points.push(Point::<D>::from_fn(|a, _| {
            let i = (idx / stride[a]) % (n[a] + 1);
            lo[a] + (hi[a] - lo[a]) * i as f64 / n[a] as f64
        }));
    }
    // One simplex per axis ordering σ: corner, corner + e_σ0, corner + e_σ0 + e_σ1, …
    let simplices: Vec<Vec<usize>> = permutations::<D>()
        .into_iter()
        .map(|sigma| {
            let mut offsets = vec![0usize];
            let mut o = 0;
            for &a in &sigma {
                o += stride[a];
                offsets.push(o);
            }
            // Orientation: the determinant of the unit steps is the sign of σ.
            let unit: Vec<Point<D>> = (0..=D)
                .map(|k| Point::<D>::from_fn(|a, _| if sigma[..k].contains(&a) { 1.0 } else { 0.0 }))
                .collect();
            if math::signed_measure(&unit) < 0.0 {
                offsets.swap(0, 1);
            }
            offsets
        })
        .collect();
    let n_cubes: usize = n.iter().product();
    let mut cells = Vec::with_capacity(n_cubes * simplices.len() * (D + 1));
    for cube in 0..n_cubes {
        let mut corner = 0;
        let mut rest = cube;
        for a in 0..D {
            corner += (rest % n[a]) * stride[a];
            rest /= n[a];
        }
        for s in &simplices {
            cells.extend(s.iter().map(|&o| (corner + o) as u32));
        }
    }
    (points, cells)
}

/// Peak bytes per node of a lattice mesh with one distance field on it (its nodes, cells,
/// adjacency, facets and the fast marching's state), measured with `/usr/bin/time` on body
/// lattices of 1e5 to 2e6 nodes: 2D ≈ 420, 3D 1 500–1 900.
const BYTES_PER_NODE: [f64; 2] = [450.0, 1900.0];

/// Refuses a lattice of `n` intervals per axis whose node or cell numbers do not fit the `u32`
/// indices, or whose memory (see [`crate::memory`]) exceeds the budget, before anything is
/// allocated. Counts are in `f64`, so that no product overflows.
pub fn check_lattice_size<const D: usize>(n: &[usize; D]) -> Result<(), MeshError> {
    let nodes: f64 = n.iter().map(|&k| k as f64 + 1.0).product();
    let cells: f64 = n.iter().map(|&k| k as f64).product::<f64>() * if D == 2 { 2.0 } else { 6.0 };
    let shape = || {
        n.iter()
            .map(|&k| match k.checked_add(1) {
                Some(m) if m < 1_000_000_000 => m.to_string(),
                _ => format!("{:.1e}", k as f64 + 1.0),
            })
            .collect::<Vec<_>>()
            .join(" × ")
    };
    crate::memory::reserve(nodes * BYTES_PER_NODE[D - 2], || {
        format!("a lattice of {} nodes", shape())
    })?;
    if nodes > u32::MAX as f64 || cells > u32::MAX as f64 {
        return Err(MeshError::TooLarge(format!(
            "a lattice of {} nodes ({nodes:.3e} nodes, {cells:.3e} cells) has more than the 2³² − 1 \
             that 32-bit indices can number",
            shape()
        )));
    }
    Ok(())
}

/// The box `[lo, hi]` split into `n[a]` intervals along each axis (`D!` simplices per interval
/// product), with its faces marked `xmin`, `xmax`, `ymin`, `ymax` (and `zmin`, `zmax`) = markers
/// 1 to 2D, and its cells marked 1 (`domain`). The rectangle is `axis_box::<2>`.
pub fn axis_box<const D: usize>(lo: Point<D>, hi: Point<D>, n: [usize; D]) -> Result<SimplexMesh<D>, MeshError> {
    let ordered = (0..D).all(|a| hi[a] > lo[a]);
    if n.contains(&0) || !ordered {
        return Err(MeshError::Invalid(format!(
            "a box needs lo < hi and at least one interval per axis (got lo {:?}, hi {:?}, n {n:?})",
            lo.as_slice(),
            hi.as_slice()
        )));
    }
    check_lattice_size(&n)?;
    let (points, cells) = kuhn_lattice(lo, hi, n);
    let mut facets = Vec::new();
    let mut facet_markers = Vec::new();
    let tol = |a: usize| 1e-9 * (hi[a] - lo[a]);
    for cell in cells.chunks_exact(D + 1) {
        for k in 0..=D {
            let face = oriented_face(&points, cell, k);
            for a in 0..D {
                for (side, plane) in [(0, lo[a]), (1, hi[a])] {
                    if face.iter().all(|&v| (points[v as usize][a] - plane).abs() < tol(a)) {
                        facets.push(face);
                        facet_markers.push(1 + 2 * a as i32 + side);
                    }
                }
            }
        }
    }
    let facet_names: BTreeMap<i32, String> = (0..D)
        .flat_map(|a| {
            let axis = ["x", "y", "z"][a];
            [
                (1 + 2 * a as i32, format!("{axis}min")),
                (2 + 2 * a as i32, format!("{axis}max")),
            ]
        })
        .collect();
    let n_cells = cells.len() / (D + 1);
    SimplexMesh::new(MeshParts {
        points,
        cells,
        cell_markers: vec![1; n_cells],
        facets,
        facet_markers,
        facet_names,
        cell_names: BTreeMap::from([(1, "domain".to_string())]),
    })
}
