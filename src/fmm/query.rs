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

    /// The node of the facets carrying `markers` where the field is smallest, and its value (the
    /// specification's `minmax`); `None` if no such facet or no node of them was reached.
    pub fn argmin_on(&self, mesh: &SimplexMesh<D>, markers: &[i32]) -> Option<(Point<D>, f64)> {
        let mut best: Option<(u32, f64)> = None;
        for (f, facet) in mesh.facets().iter().enumerate() {
            if !markers.contains(&mesh.facet_markers()[f]) {
                continue;
            }
            for &v in facet {
                let value = self.values[v as usize];
                if self.reached[v as usize] && best.is_none_or(|(b, bv)| value < bv || (value == bv && v < b)) {
                    best = Some((v, value));
                }
            }
        }
        best.map(|(v, value)| (mesh.points()[v as usize], value))
    }
}
