//! Using a distance field: its value and gradient anywhere (P1 interpolation), and where it is
//! smallest on a marked boundary.

use super::DistanceField;
use crate::math::{self, Point, Vector};
use crate::mesh::SimplexMesh;

impl<const D: usize> DistanceField<D> {
    /// The P1 interpolant at `x`, or `None` outside the mesh.
    pub fn value_at(&self, mesh: &SimplexMesh<D>, x: &Point<D>) -> Option<f64> {
        let found = mesh.locate(x)?;
        Some(
            mesh.cell(found.cell)
                .iter()
                .zip(&found.weights)
                .map(|(&v, w)| w * self.values[v as usize])
                .sum(),
        )
    }

    /// The (constant) gradient of the P1 field in cell `c`: `Σ_k u_k ∇λ_k`, where `∇λ_1…∇λ_D` are
    /// the rows of the inverse edge matrix and `∇λ_0 = −Σ ∇λ_k`.
    pub fn gradient_in_cell(&self, mesh: &SimplexMesh<D>, c: u32) -> Vector<D> {
        let p = mesh.cell_points(c);
        let cell = mesh.cell(c);
        let Some(inv) = math::edge_matrix(&p[..D + 1]).try_inverse() else {
            return Vector::<D>::zeros();
        };
        let u0 = self.values[cell[0] as usize];
        let du = Vector::<D>::from_fn(|k, _| self.values[cell[k + 1] as usize] - u0);
        inv.transpose() * du
    }

    /// The unit normal to the level sets at `x` (the normalised gradient), or `None` outside the
    /// mesh or where the gradient vanishes.
    pub fn normal_at(&self, mesh: &SimplexMesh<D>, x: &Point<D>) -> Option<Vector<D>> {
        let found = mesh.locate(x)?;
        self.gradient_in_cell(mesh, found.cell).try_normalize(1e-300)
    }

    /// Where the field is smallest on the facets carrying `markers`, and its value there (the
    /// specification's `minmax`): the node of those facets with the smallest value; in closest-point
    /// mode, refined to the exact closest point between the marked facets at that node and the front
    /// facets closest to their nodes (a point on a facet, not only a vertex). `None` if no such facet
    /// or no node of them was reached.
    pub fn argmin_on(&self, mesh: &SimplexMesh<D>, markers: &[i32]) -> Option<(Point<D>, f64)> {
        let marked = |f: usize| markers.contains(&mesh.facet_markers()[f]);
        let mut best: Option<(u32, f64)> = None;
        for (f, facet) in mesh.facets().iter().enumerate() {
            if !marked(f) {
                continue;
            }
            for &v in facet {
                let value = self.values[v as usize];
                if self.reached[v as usize] && best.is_none_or(|(b, bv)| value < bv || (value == bv && v < b)) {
                    best = Some((v, value));
                }
            }
        }
        let (node, value) = best?;
        let Some(closest) = self.closest.as_ref().filter(|_| !self.front_facets.is_empty()) else {
            return Some((mesh.points()[node as usize], value));
        };
        let sign = if value < 0.0 { -1.0 } else { 1.0 };
        let mut refined = (mesh.points()[node as usize], value.abs());
        for (f, facet) in mesh.facets().iter().enumerate() {
            if !marked(f) || !facet.contains(&node) {
                continue;
            }
            let points: [Point<D>; D] = std::array::from_fn(|j| mesh.points()[facet[j] as usize]);
            for &v in facet {
                let g = closest[v as usize];
                if g == crate::mesh::NONE {
                    continue;
                }
                let (p, q) = math::closest_points_facets(&points, &self.front_facets[g as usize]);
                let d = (p - q).norm();
                if d < refined.1 {
                    refined = (p, d);
                }
            }
        }
        Some((refined.0, sign * refined.1))
    }
}
