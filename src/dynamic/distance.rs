//! A narrow-band distance field on a mesh of either dimension.

use super::error::Error;
use super::mesh::Mesh;
use crate::fmm::{distance_to_range, DistanceField, FmmOptions, Front};
use crate::math::Point;
use crate::mesh::gmsh::AnyMesh;
use crate::SimplexMesh;

/// How [`Distance::new`] computes a field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DistanceOptions {
    /// `d_max`: nodes farther than this from the front are not computed (infinity: the whole
    /// mesh).
    pub max_distance: f64,
    /// The value beyond the band (on either side); `None` means `max_distance`.
    pub default_value: Option<f64>,
    /// Negative inside the front, which must then be closed.
    pub signed: bool,
    /// Exact distances to the closest front facet at each node.
    pub closest_point: bool,
    /// Read the facets as the discretisation of a smooth body ([`FmmOptions::curved_front`]).
    pub curved_front: bool,
}

impl Default for DistanceOptions {
    /// The whole mesh, signed, exact at each node.
    fn default() -> Self {
        DistanceOptions {
            max_distance: f64::INFINITY,
            default_value: None,
            signed: true,
            closest_point: true,
            curved_front: false,
        }
    }
}

#[derive(Debug)]
enum Field {
    D2(DistanceField<2>),
    D3(DistanceField<3>),
}

/// The distance to some tagged facets of a mesh, at its nodes; it keeps its mesh alive.
///
/// ```
/// use tumble::dynamic::{Distance, DistanceOptions, Mesh};
/// // A circle of radius 0.3 (tag 1) inside the unit circle (tag 2); the signed distance to the
/// // small one within 0.2 of it.
/// let mesh = Mesh::balls(2, &[0.0, 0.0, 0.0, 0.0], &[0.3, 1.0], 0.02)?;
/// let options = DistanceOptions { max_distance: 0.2, ..DistanceOptions::default() };
/// let field = Distance::new(&mesh, &[1], &options)?;
/// let mut d = [0.0; 2];
/// field.at(&[0.45, 0.0, 0.0, 0.2], &mut d)?;
/// // Exact at the nodes to the mesh's chords of the circle (within h²/(8r) = 1.5e-4), linear
/// // between them; negative inside.
/// assert!((d[0] - 0.15).abs() < 5e-4 && (d[1] + 0.1).abs() < 5e-4);
/// // The outer circle lies beyond the band: no node of it was reached.
/// assert!(field.argmin(&[2]).is_none());
/// # Ok::<(), tumble::dynamic::Error>(())
/// ```
#[derive(Debug)]
pub struct Distance {
    field: Field,
    mesh: Mesh,
}

impl Distance {
    /// The distance to the facets of `mesh` tagged with any of `tags`.
    pub fn new(mesh: &Mesh, tags: &[i32], options: &DistanceOptions) -> Result<Self, Error> {
        if tags.is_empty() {
            return Err(Error::argument("tags", "is empty: give the tags of the front's facets"));
        }
        let band = options.max_distance;
        if band.is_nan() || band <= 0.0 {
            return Err(Error::argument(
                "max_distance",
                format!("is {band}, expected a positive band width (infinity for the whole mesh)"),
            ));
        }
        let fmm = FmmOptions {
            max_distance: band.is_finite().then_some(band),
            default_value: options.default_value,
            signed: options.signed,
            closest_point: options.closest_point,
            curved_front: options.curved_front,
        };
        fn march<const D: usize>(m: &SimplexMesh<D>, tags: &[i32], o: &FmmOptions) -> Result<DistanceField<D>, Error> {
            distance_to_range(m, &Front::Markers(tags.to_vec()), o).map_err(Error::failed)
        }
        let field = match mesh.any() {
            AnyMesh::D2(m) => Field::D2(march(m, tags, &fmm)?),
            AnyMesh::D3(m) => Field::D3(march(m, tags, &fmm)?),
        };
        Ok(Distance {
            field,
            mesh: mesh.clone(),
        })
    }

    /// The mesh it is on.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// One value per node: the distance in the band, the default beyond it.
    pub fn values(&self) -> &[f64] {
        match &self.field {
            Field::D2(f) => &f.values,
            Field::D3(f) => &f.values,
        }
    }

    /// Whether the march reached each node (its value is a distance).
    pub fn reached(&self) -> &[bool] {
        match &self.field {
            Field::D2(f) => &f.reached,
            Field::D3(f) => &f.reached,
        }
    }

    /// The field's linear interpolant at the points `points` (`dim` coordinates each) into
    /// `values` (one per point); NaN at a point outside the mesh.
    pub fn at(&self, points: &[f64], values: &mut [f64]) -> Result<(), Error> {
        let d = self.mesh.dim();
        super::error::length("points", points, values.len() * d)?;
        if let Some(bad) = points.iter().position(|x| !x.is_finite()) {
            return Err(Error::argument(
                "points",
                format!("point {} has a non-finite coordinate {}", bad / d, points[bad]),
            ));
        }
        fn fill<const D: usize>(f: &DistanceField<D>, m: &SimplexMesh<D>, points: &[f64], values: &mut [f64]) {
            for (x, v) in points.chunks_exact(D).zip(values.iter_mut()) {
                *v = f.value_at(m, &Point::<D>::from_column_slice(x)).unwrap_or(f64::NAN);
            }
        }
        match (&self.field, self.mesh.any()) {
            (Field::D2(f), AnyMesh::D2(m)) => fill(f, m, points, values),
            (Field::D3(f), AnyMesh::D3(m)) => fill(f, m, points, values),
            _ => unreachable!("a field is made on a mesh of its own dimension"),
        }
        Ok(())
    }

    /// Where the field is smallest on the facets tagged with any of `tags` (`dim` coordinates)
    /// and its value there; `None` if no node of them is in the band.
    pub fn argmin(&self, tags: &[i32]) -> Option<(Vec<f64>, f64)> {
        match (&self.field, self.mesh.any()) {
            (Field::D2(f), AnyMesh::D2(m)) => f.argmin_on(m, tags).map(|(x, v)| (x.as_slice().to_vec(), v)),
            (Field::D3(f), AnyMesh::D3(m)) => f.argmin_on(m, tags).map(|(x, v)| (x.as_slice().to_vec(), v)),
            _ => unreachable!("a field is made on a mesh of its own dimension"),
        }
    }
}
