//! A body's analytic shape from its `shape` table.

use super::super::schema::ShapeSpec;
use super::super::{Case, CaseError};
use crate::math::Point;
use crate::shape::{planar_shape, Ball, Cuboid, Ellipsoid, Polygon, Shape, Union};

impl Case {
    /// The analytic shape of `spec` (`None` for a mesh), its smallest feature size, and how far it
    /// reaches from a point of its convex hull (at least half its diameter, at most all of it).
    #[allow(clippy::type_complexity)]
    pub(in crate::case) fn shape<const D: usize>(
        &self,
        spec: &ShapeSpec,
        field: &str,
    ) -> Result<(Option<Box<dyn Shape<D>>>, f64, f64), CaseError> {
        let sizes = |key: &str, v: &[f64], scale: f64| -> Result<[f64; D], CaseError> {
            if v.len() != D || v.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
                return Err(self.invalid(
                    format!("{field}.{key}"),
                    format!("expected {D} positive numbers, got {v:?}"),
                ));
            }
            Ok(std::array::from_fn(|k| v[k] * scale))
        };
        Ok(match spec {
            ShapeSpec::Circle { radius } => {
                let r = self.positive(&format!("{field}.radius"), *radius)?;
                (
                    Some(Box::new(Ball {
                        centre: Point::<D>::zeros(),
                        radius: r,
                    })),
                    r,
                    r,
                )
            }
            ShapeSpec::Ellipse { semi_axes } => {
                let e = sizes("semi_axes", semi_axes, 1.0)?;
                (
                    Some(Box::new(Ellipsoid { semi_axes: e })),
                    e.iter().copied().fold(f64::INFINITY, f64::min),
                    e.iter().copied().fold(0.0, f64::max),
                )
            }
            ShapeSpec::Rectangle { sides } => {
                let half = sizes("sides", sides, 0.5)?;
                let cuboid = Cuboid { half };
                let extent = cuboid.bounding_radius();
                (
                    Some(Box::new(cuboid)),
                    half.iter().copied().fold(f64::INFINITY, f64::min),
                    extent,
                )
            }
            ShapeSpec::Polygon { vertices } => {
                if vertices.len() < 3 || vertices.iter().flatten().any(|x| !x.is_finite()) {
                    return Err(self.invalid(
                        format!("{field}.vertices"),
                        "expected at least 3 vertices [x, y] of finite numbers",
                    ));
                }
                let polygon = Polygon {
                    vertices: vertices.iter().map(|v| Point::<2>::new(v[0], v[1])).collect(),
                };
                if let Some((a, b)) = polygon.crossing() {
                    let n = vertices.len();
                    return Err(self.invalid(
                        format!("{field}.vertices"),
                        format!(
                            "edges {a}–{} and {b}–{} meet: a polygon must be simple (its edges meet only at \
                             their shared vertices), listed in order around it",
                            (a + 1) % n,
                            (b + 1) % n
                        ),
                    ));
                }
                let centre = polygon.vertices.iter().fold(Point::<2>::zeros(), |s, v| s + v) / vertices.len() as f64;
                let extent = polygon.vertices.iter().map(|v| (v - centre).norm()).fold(0.0, f64::max);
                let feature = polygon.bounding_radius() / 10.0;
                (
                    Some(
                        planar_shape::<D>(Box::new(polygon))
                            .ok_or_else(|| self.invalid(field, "a polygon is a 2D shape"))?,
                    ),
                    feature,
                    extent,
                )
            }
            ShapeSpec::Tripole { diameter, arm, bar } => {
                let r = self.positive(&format!("{field}.diameter"), *diameter)? / 2.0;
                let arm = self.positive(&format!("{field}.arm"), *arm)?;
                let half_bar = self.positive(&format!("{field}.bar"), bar.unwrap_or(r))? / 2.0;
                let mut parts: Vec<Box<dyn Shape<2>>> = Vec::new();
                for k in 0..3 {
                    let a = std::f64::consts::FRAC_PI_2 + k as f64 * 2.0 * std::f64::consts::PI / 3.0;
                    let (u, n) = (Point::<2>::new(a.cos(), a.sin()), Point::<2>::new(-a.sin(), a.cos()));
                    parts.push(Box::new(Ball {
                        centre: u * arm,
                        radius: r,
                    }));
                    parts.push(Box::new(Polygon {
                        vertices: vec![
                            n * half_bar,
                            n * half_bar + u * arm,
                            u * arm - n * half_bar,
                            -n * half_bar,
                        ],
                    }));
                }
                let union: Box<dyn Shape<2>> = Box::new(Union { parts });
                (
                    Some(planar_shape::<D>(union).ok_or_else(|| self.invalid(field, "the tripole is a 2D shape"))?),
                    half_bar.min(r),
                    arm + r,
                )
            }
            ShapeSpec::Spheres { centres, radius, radii } => {
                if centres.is_empty() || centres.iter().any(|c| c.len() != D || c.iter().any(|x| !x.is_finite())) {
                    return Err(self.invalid(
                        format!("{field}.centres"),
                        format!("expected a list of at least one centre of {D} finite numbers"),
                    ));
                }
                let radii: Vec<f64> = match (radius, radii) {
                    (Some(r), None) => vec![self.positive(&format!("{field}.radius"), *r)?; centres.len()],
                    (None, Some(radii)) if radii.len() == centres.len() => radii
                        .iter()
                        .enumerate()
                        .map(|(k, &r)| self.positive(&format!("{field}.radii[{k}]"), r))
                        .collect::<Result<_, _>>()?,
                    _ => {
                        return Err(self.invalid(
                            field,
                            format!(
                                "give either `radius` (one for all) or `radii` (one for each of the {} centres)",
                                centres.len()
                            ),
                        ))
                    }
                };
                let centres: Vec<Point<D>> = centres.iter().map(|c| Point::<D>::from_fn(|k, _| c[k])).collect();
                let mean = centres.iter().fold(Point::<D>::zeros(), |s, c| s + c) / centres.len() as f64;
                let extent = centres
                    .iter()
                    .zip(&radii)
                    .map(|(c, r)| (c - mean).norm() + r)
                    .fold(0.0, f64::max);
                let parts: Vec<Box<dyn Shape<D>>> = centres
                    .into_iter()
                    .zip(&radii)
                    .map(|(centre, &radius)| Box::new(Ball { centre, radius }) as Box<dyn Shape<D>>)
                    .collect();
                (
                    Some(Box::new(Union { parts })),
                    radii.iter().copied().fold(f64::INFINITY, f64::min),
                    extent,
                )
            }
            ShapeSpec::Mesh { .. } => (None, f64::INFINITY, 0.0),
        })
    }
}
