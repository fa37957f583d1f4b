//! Analytic shapes with an exact signed distance (negative inside): used as non-conforming fronts
//! for the distance fields, to build body meshes, and as exact references in tests.

mod ellipsoid;

pub use ellipsoid::Ellipsoid;

use crate::math::Point;

/// A shape given by its signed distance function.
pub trait Shape<const D: usize>: Send + Sync {
    /// Signed distance from `x` to the shape's boundary: negative inside, positive outside.
    fn signed_distance(&self, x: &Point<D>) -> f64;
    /// The radius of a ball about the origin that contains the shape (not necessarily the
    /// smallest): it sizes the lattice a body's distance field is computed on.
    fn bounding_radius(&self) -> f64;
    /// The boundary as a closed polyline with nodes on it, counter-clockwise, about `h` apart, when
    /// the shape can give it exactly (2D primitives); `None` otherwise, and the body then uses the
    /// zero level set of the signed distance on a lattice. Exact corners and mirror-symmetric
    /// nodes matter for bodies resting flat on each other.
    fn polyline(&self, _h: f64) -> Option<Vec<Point<D>>> {
        None
    }
}

/// Nodes about `h` apart along the closed polygon `corners`, each corner included.
fn subdivide<const D: usize>(corners: &[Point<D>], h: f64) -> Vec<Point<D>> {
    let mut out = Vec::new();
    for (k, a) in corners.iter().enumerate() {
        let b = corners[(k + 1) % corners.len()];
        let n = ((b - a).norm() / h).ceil().max(1.0) as usize;
        out.extend((0..n).map(|i| a + (b - a) * (i as f64 / n as f64)));
    }
    out
}

/// A 2D point as a `D`-dimensional one (`D` = 2 where it is used).
fn planar<const D: usize>(x: f64, y: f64) -> Point<D> {
    Point::<D>::from_fn(|k, _| [x, y, 0.0][k])
}

/// A disk (2D) or a ball (3D).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ball<const D: usize> {
    /// Centre.
    pub centre: Point<D>,
    /// Radius.
    pub radius: f64,
}

impl<const D: usize> Shape<D> for Ball<D> {
    /// `|x − c| − r`.
    fn signed_distance(&self, x: &Point<D>) -> f64 {
        (x - self.centre).norm() - self.radius
    }
    fn bounding_radius(&self) -> f64 {
        self.centre.norm() + self.radius
    }
    /// In 2D, `⌈2πr/h⌉` equally spaced points of the circle.
    fn polyline(&self, h: f64) -> Option<Vec<Point<D>>> {
        (D == 2).then(|| {
            let n = (2.0 * std::f64::consts::PI * self.radius / h).ceil().max(8.0) as usize;
            (0..n)
                .map(|k| {
                    let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                    self.centre + planar::<D>(self.radius * a.cos(), self.radius * a.sin())
                })
                .collect()
        })
    }
}

/// A rectangle (2D) or box (3D) centred at the origin, with the given half-widths along the axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cuboid<const D: usize> {
    /// Half-widths, all positive.
    pub half: [f64; D],
}

impl<const D: usize> Shape<D> for Cuboid<D> {
    /// With `q = |x| − half` per axis: `|max(q, 0)| + min(max_i q_i, 0)`: the distance to the
    /// nearest face, edge or corner outside, minus the distance to the nearest face inside.
    fn signed_distance(&self, x: &Point<D>) -> f64 {
        let q = Point::<D>::from_fn(|i, _| x[i].abs() - self.half[i]);
        q.sup(&Point::<D>::zeros()).norm() + q.max().min(0.0)
    }
    fn bounding_radius(&self) -> f64 {
        self.half.iter().map(|h| h * h).sum::<f64>().sqrt()
    }
    /// In 2D, the four sides subdivided.
    fn polyline(&self, h: f64) -> Option<Vec<Point<D>>> {
        (D == 2).then(|| {
            let (a, b) = (self.half[0], self.half[D - 1]);
            subdivide(&[planar(-a, -b), planar(a, -b), planar(a, b), planar(-a, b)], h)
        })
    }
}

/// A simple polygon (2D), its vertices listed in either orientation.
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    /// The vertices, the last joined to the first.
    pub vertices: Vec<Point<2>>,
}

impl Shape<2> for Polygon {
    /// The distance to the nearest edge, negative when `x` is inside (by the even–odd rule).
    fn signed_distance(&self, x: &Point<2>) -> f64 {
        let n = self.vertices.len();
        let mut d2 = f64::INFINITY;
        let mut inside = false;
        for i in 0..n {
            let (a, b) = (self.vertices[i], self.vertices[(i + 1) % n]);
            d2 = d2.min((x - crate::math::closest_point_on_segment(x, &a, &b)).norm_squared());
            if (a.y > x.y) != (b.y > x.y) && x.x < a.x + (x.y - a.y) * (b.x - a.x) / (b.y - a.y) {
                inside = !inside;
            }
        }
        if inside {
            -d2.sqrt()
        } else {
            d2.sqrt()
        }
    }
    fn bounding_radius(&self) -> f64 {
        self.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max)
    }
    /// The edges subdivided, counter-clockwise.
    fn polyline(&self, h: f64) -> Option<Vec<Point<2>>> {
        let n = self.vertices.len();
        let twice_area: f64 = (0..n)
            .map(|k| {
                let (a, b) = (self.vertices[k], self.vertices[(k + 1) % n]);
                a.x * b.y - a.y * b.x
            })
            .sum();
        let mut corners = self.vertices.clone();
        if twice_area < 0.0 {
            corners.reverse();
        }
        Some(subdivide(&corners, h))
    }
}

/// The union of shapes: `min` of their signed distances, which is the exact distance outside the
/// union (and a bound inside it where the parts overlap).
pub struct Union<const D: usize> {
    /// The parts.
    pub parts: Vec<Box<dyn Shape<D>>>,
}

impl<const D: usize> Shape<D> for Union<D> {
    fn signed_distance(&self, x: &Point<D>) -> f64 {
        self.parts
            .iter()
            .map(|p| p.signed_distance(x))
            .fold(f64::INFINITY, f64::min)
    }
    fn bounding_radius(&self) -> f64 {
        self.parts.iter().map(|p| p.bounding_radius()).fold(0.0, f64::max)
    }
}
