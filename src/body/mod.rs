//! Rigid bodies: a shared geometry (boundary surface, body-frame distance field, mass properties per
//! unit density) and a state (pose and velocities).
//!
//! A body's distance field is computed once, in the body's own frame, on a lattice covering the
//! body and a band around it (the specification's "bounding sphere mesh", section 4.3), by
//! [`distance_to_range`] with the body's boundary as the front. A world point `x` is evaluated as
//! `D_i(R_iᵀ (x − G_i))`, so moving the body never recomputes anything. Bodies of the same shape
//! share one [`BodyGeometry`] (an `Arc`).
//!
//! The body frame has its origin at the centre of mass `G` (the centroid of the region the
//! boundary encloses) and the axes of the shape's own frame.

mod clusters;
mod curvature;
mod kinematics;
mod lattice;
mod surface;

pub use clusters::Clusters;
pub use curvature::node_curvatures;
pub use kinematics::{Angular, Dim, Inertia, Kinematics, Rotation};
pub use lattice::LatticeField;
pub use surface::Surface;

use crate::fmm::{distance_to_range, FmmError, FmmOptions, Front};
use crate::math::{Point, Vector};
use crate::mesh::generate::{axis_box, check_lattice_size};
use crate::mesh::{MeshError, Moments, SimplexMesh};
use crate::shape::Shape;
use nalgebra::SMatrix;
use std::sync::Arc;

/// What can go wrong building a body.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// An argument out of range.
    #[error("{0}")]
    Invalid(String),
    /// Building the lattice.
    #[error("the body's lattice: {0}")]
    Mesh(#[from] MeshError),
    /// Computing the distance field.
    #[error("the body's distance field: {0}")]
    Fmm(#[from] FmmError),
}

/// The spacing of the lattice that holds a body's distance field when none is given:
/// `min(ρ/4, s/20)`, with `ρ` the contact range and `s` the body's smallest size (a radius, a
/// semi-axis, half a side), so that the field resolves both the range and the body.
pub fn default_lattice_step(range: f64, smallest_size: f64) -> f64 {
    (range / 4.0).min(smallest_size / 20.0)
}

/// The geometry shared by all bodies of one shape, in the body frame (origin at the centroid).
#[derive(Debug, Clone)]
pub struct BodyGeometry<const D: usize> {
    /// The boundary, whose nodes are where the other bodies' fields are evaluated.
    pub surface: Surface<D>,
    /// The surface's nodes in small clusters with bounding spheres, which a contact search skips
    /// whole when they are out of reach.
    pub clusters: Clusters<D>,
    /// The signed distance to `surface` (negative inside) on a lattice reaching at least `band`
    /// beyond the body; `band` outside the lattice.
    pub field: LatticeField<D>,
    /// Area (volume), centroid (the origin, up to round-off) and second moments of the region.
    pub moments: Moments<D>,
    /// `max |p|` over the boundary nodes: the radius of the bounding sphere about `G`.
    pub radius: f64,
    /// The surface's curvature tensor at each node (body frame; positive where convex), fitted
    /// once ([`node_curvatures`]).
    pub curvatures: Vec<SMatrix<f64, D, D>>,
    /// Where the shape's own origin is in the body frame (`−G` in the shape's frame).
    pub shape_origin: Point<D>,
}

impl<const D: usize> BodyGeometry<D> {
    /// The geometry of an analytic shape: its surface is its exact [`Shape::boundary`] where it
    /// has one (the primitives), otherwise the zero level set of the P1 interpolant of its signed
    /// distance on a lattice of spacing `h` (so its distance to the true boundary is `O(h² κ)`);
    /// its field is the exact distance to that surface at the nodes of a lattice of spacing `h`
    /// reaching `band` beyond the shape (closest-point mode).
    pub fn from_shape(shape: &dyn Shape<D>, h: f64, band: f64) -> Result<Self, BodyError> {
        check_spacing(h, band)?;
        // The field's lattice is the largest thing built (its surface has a node per lattice step
        // along the boundary): its size is checked before the surface is made.
        let (_, n) = lattice_cover::<D>(shape.bounding_radius() + band + 2.0 * h, h);
        check_lattice_size(&[n; D])?;
        if let Some((points, facets)) = shape.boundary(h) {
            return Self::from_surface(Surface::new(points, facets), h, band);
        }
        let reach = shape.bounding_radius() + band + 2.0 * h;
        let (lo, n) = lattice_cover(reach, h);
        let mesh = axis_box::<D>(lo, lo + Vector::<D>::repeat(h * n as f64), [n; D])?;
        let phi: Vec<f64> = mesh.points().iter().map(|x| shape.signed_distance(x)).collect();
        let surface = Surface::level_set(&mesh, &phi);
        if surface.facets.is_empty() {
            return Err(BodyError::Invalid(format!(
                "the shape has no boundary on a lattice of spacing {h}: is it smaller than the spacing?"
            )));
        }
        Self::from_surface(surface, h, band)
    }

    /// The geometry of a body meshed on its own (a Gmsh mesh, say): its boundary facets are the
    /// surface and its cells give the moments.
    pub fn from_mesh(mesh: &SimplexMesh<D>, h: f64, band: f64) -> Result<Self, BodyError> {
        check_spacing(h, band)?;
        let mut index = vec![u32::MAX; mesh.num_points()];
        let mut points = Vec::new();
        let mut facets = Vec::new();
        for &face in mesh.boundary() {
            let nodes = mesh.face_nodes(face);
            facets.push(nodes.map(|v| {
                if index[v as usize] == u32::MAX {
                    index[v as usize] = points.len() as u32;
                    points.push(mesh.points()[v as usize]);
                }
                index[v as usize]
            }));
        }
        Self::from_surface(Surface::new(points, facets), h, band)
    }

    /// The geometry of a closed outward-oriented surface.
    pub fn from_surface(mut surface: Surface<D>, h: f64, band: f64) -> Result<Self, BodyError> {
        check_spacing(h, band)?;
        let moments = surface.moments();
        if moments.measure.is_nan() || moments.measure <= 0.0 {
            return Err(BodyError::Invalid(format!(
                "the body's boundary encloses no positive {} ({}): is it closed and outward-oriented?",
                if D == 2 { "area" } else { "volume" },
                moments.measure
            )));
        }
        let g = moments.centroid;
        for p in &mut surface.points {
            *p -= g;
        }
        let moments = Moments {
            centroid: Point::<D>::zeros(),
            ..moments
        };
        let radius = surface.points.iter().map(|p| p.norm()).fold(0.0, f64::max);
        let mean_area = surface.node_areas.iter().sum::<f64>() / surface.points.len().max(1) as f64;
        let clusters = Clusters::new(&surface.points, mean_area);
        let reach = radius + band + 2.0 * h;
        let (lo, n) = lattice_cover(reach, h);
        let mesh = axis_box::<D>(lo, lo + Vector::<D>::repeat(h * n as f64), [n; D])?;
        let front = Front::Surface {
            points: &surface.points,
            facets: &surface.facets,
        };
        let options = FmmOptions {
            max_distance: None,
            default_value: None,
            signed: true,
            closest_point: true,
            curved_front: false,
        };
        let values = distance_to_range(&mesh, &front, &options)?.values;
        let field = LatticeField {
            lo,
            h,
            n: [n; D],
            values,
            outside: band,
        };
        let curvatures = curvature::node_curvatures(&surface);
        Ok(BodyGeometry {
            curvatures,
            surface,
            clusters,
            field,
            moments,
            radius,
            shape_origin: -g,
        })
    }

    /// The curvature tensor at the surface node nearest to `x` (body frame): the clusters whose
    /// bounding sphere lies farther than the best node so far are skipped whole.
    pub fn curvature_near(&self, x: &Point<D>) -> SMatrix<f64, D, D> {
        let clusters = &self.clusters;
        let (mut best, mut node) = (f64::INFINITY, None);
        for c in 0..clusters.len() {
            if (clusters.centres[c] - x).norm() - clusters.radii[c] > best {
                continue;
            }
            for &k in clusters.nodes(c) {
                let d = (self.surface.points[k as usize] - x).norm();
                if d < best {
                    (best, node) = (d, Some(k as usize));
                }
            }
        }
        node.map_or_else(SMatrix::<f64, D, D>::zeros, |k| self.curvatures[k])
    }
}

fn check_spacing(h: f64, band: f64) -> Result<(), BodyError> {
    if !(h > 0.0 && h.is_finite() && band > 0.0 && band.is_finite()) {
        return Err(BodyError::Invalid(format!(
            "a body needs a positive lattice spacing and band, got h = {h}, band = {band}"
        )));
    }
    Ok(())
}

/// The lower corner and interval count of a cubic lattice of spacing `h` covering `[−reach, reach]`
/// on every axis, symmetric about the origin (an even number of intervals), so that a shape
/// symmetric about its origin gets a level set that is symmetric but for the cells' diagonals.
/// A count beyond `usize` saturates, and the lattice's size check refuses it.
fn lattice_cover<const D: usize>(reach: f64, h: f64) -> (Point<D>, usize) {
    let half = (reach / h).ceil().max(1.0);
    (Point::<D>::repeat(-half * h), (2.0 * half) as usize)
}

/// A rigid body: its geometry, mass properties and state.
#[derive(Debug, Clone)]
pub struct RigidBody<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// A name for messages and output.
    pub name: String,
    /// The shared geometry.
    pub geometry: Arc<BodyGeometry<D>>,
    /// Density.
    pub density: f64,
    /// Mass `ρ |B|`.
    pub mass: f64,
    /// Inertia about `G` in the body frame.
    pub inertia: Inertia<D>,
    /// The centre of mass `G` in the world frame.
    pub position: Point<D>,
    /// The rotation `R` from the body frame to the world frame.
    pub rotation: Rotation<D>,
    /// The velocity of `G`.
    pub velocity: Vector<D>,
    /// The angular velocity (world frame).
    pub angular_velocity: Angular<D>,
}

impl<const D: usize> RigidBody<D>
where
    Dim<D>: Kinematics<D>,
{
    /// A body at rest at `position` with the identity rotation.
    pub fn new(name: &str, geometry: Arc<BodyGeometry<D>>, density: f64, position: Point<D>) -> Self {
        let mass = density * geometry.moments.measure;
        let inertia = <Dim<D> as Kinematics<D>>::inertia(&geometry.moments.second, density);
        RigidBody {
            name: name.to_string(),
            geometry,
            density,
            mass,
            inertia,
            position,
            rotation: <Dim<D> as Kinematics<D>>::identity(),
            velocity: Vector::<D>::zeros(),
            angular_velocity: <Dim<D> as Kinematics<D>>::zero(),
        }
    }

    /// The rotation matrix `R`.
    pub fn matrix(&self) -> SMatrix<f64, D, D> {
        <Dim<D> as Kinematics<D>>::matrix(&self.rotation)
    }

    /// A body-frame point in the world frame: `G + R p`.
    pub fn to_world(&self, p: &Point<D>) -> Point<D> {
        self.position + self.matrix() * p
    }

    /// A world point in the body frame: `Rᵀ (x − G)`.
    pub fn to_body(&self, x: &Point<D>) -> Point<D> {
        self.matrix().transpose() * (x - self.position)
    }

    /// The body's signed distance field at the world point `x`, `D_i(R_iᵀ (x − G_i))`.
    pub fn distance(&self, x: &Point<D>) -> f64 {
        self.geometry.field.value(&self.to_body(x))
    }

    /// The point of the body's surface closest to the world point `x` and the outward unit normal
    /// there, by two projections along the field's gradient, `y ← y − D(y) ∇D(y)/|∇D(y)|` from
    /// `y = x` (the second corrects the first's error from the gradient's change, `O(D² κ)`).
    /// `None` where the field has no gradient (outside its lattice, or at a medial point).
    pub fn surface_point(&self, x: &Point<D>) -> Option<(Point<D>, Vector<D>)> {
        let field = &self.geometry.field;
        let mut y = self.to_body(x);
        let mut normal = Vector::<D>::zeros();
        for _ in 0..2 {
            normal = field.smooth_gradient(&y).try_normalize(1e-3)?;
            y -= normal * field.value(&y);
        }
        let normal = field.smooth_gradient(&y).try_normalize(1e-3).unwrap_or(normal);
        let m = self.matrix();
        Some((self.position + m * y, m * normal))
    }

    /// The velocity of the body's material point at world position `x`: `v + ω × (x − G)`.
    pub fn point_velocity(&self, x: &Point<D>) -> Vector<D> {
        self.velocity + <Dim<D> as Kinematics<D>>::spin(&self.angular_velocity, &(x - self.position))
    }

    /// `|v| + |ω| R` (`R` the bounding radius): no point of the body moves faster.
    pub fn fastest_point_speed(&self) -> f64 {
        self.velocity.norm() + <Dim<D> as Kinematics<D>>::magnitude(&self.angular_velocity) * self.geometry.radius
    }

    /// Kinetic energy `½ m |v|² + ½ ωᵀ I ω`.
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self.mass * self.velocity.norm_squared()
            + <Dim<D> as Kinematics<D>>::rotational_energy(&self.inertia, &self.rotation, &self.angular_velocity)
    }
}
