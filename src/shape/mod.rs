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
    /// The boundary as a closed polyline (2D) or triangulated surface (3D) with its nodes exactly
    /// on it, about `h` apart, and its facets oriented outward (see
    /// [`crate::math::facet_area_normal`]), when the shape can give one (the primitives); `None`
    /// otherwise, and a body then uses the zero level set of the signed distance on a lattice.
    /// Exact corners and symmetric nodes matter for bodies resting flat on each other or on a
    /// wall: they keep the contact's centre of pressure on the axis of symmetry.
    fn boundary(&self, _h: f64) -> Option<Boundary<D>> {
        None
    }
}

/// A closed polyline or triangulated surface: nodes and facets indexing them.
pub type Boundary<const D: usize> = (Vec<Point<D>>, Vec<[u32; D]>);

/// The closed polyline through `points` in order (counter-clockwise for outward facets).
fn closed_polyline<const D: usize>(points: Vec<Point<D>>) -> Boundary<D> {
    let n = points.len() as u32;
    let facets = (0..n).map(|k| std::array::from_fn(|a| (k + a as u32) % n)).collect();
    (points, facets)
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

/// A surface made of flat triangles `(a, b, c)`, each subdivided `m` times along its edges (`m²`
/// triangles) and its nodes mapped by `map`; nodes shared along edges are merged. Facets are
/// oriented away from the origin (the surfaces here are star-shaped about it). `D` is 3.
fn patches<const D: usize>(triangles: &[[[f64; 3]; 3]], m: usize, map: impl Fn([f64; 3]) -> [f64; 3]) -> Boundary<D> {
    let mut index: std::collections::HashMap<[i64; 3], u32> = std::collections::HashMap::new();
    let mut points: Vec<[f64; 3]> = Vec::new();
    let mut facets: Vec<[u32; 3]> = Vec::new();
    for [a, b, c] in triangles {
        let mut node = |i: usize, j: usize| -> u32 {
            let (u, v) = (i as f64 / m as f64, j as f64 / m as f64);
            let p: [f64; 3] = std::array::from_fn(|k| a[k] + (b[k] - a[k]) * u + (c[k] - a[k]) * v);
            let key = p.map(|x| (x * 1e9).round() as i64);
            *index.entry(key).or_insert_with(|| {
                points.push(map(p));
                (points.len() - 1) as u32
            })
        };
        for i in 0..m {
            for j in 0..m - i {
                facets.push([node(i, j), node(i + 1, j), node(i, j + 1)]);
                if i + j + 1 < m {
                    facets.push([node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)]);
                }
            }
        }
    }
    let point = |v: u32| nalgebra::Vector3::from(points[v as usize]);
    let facets = facets
        .into_iter()
        .map(|f| {
            let (p0, p1, p2) = (point(f[0]), point(f[1]), point(f[2]));
            let outward = (p1 - p0).cross(&(p2 - p0)).dot(&(p0 + p1 + p2)) > 0.0;
            let f = if outward { f } else { [f[0], f[2], f[1]] };
            std::array::from_fn(|k| f[k])
        })
        .collect();
    let points = points.iter().map(|p| Point::<D>::from_fn(|k, _| p[k])).collect();
    (points, facets)
}

/// The icosahedron's 20 faces, vertices on the unit sphere.
fn icosahedron() -> Vec<[[f64; 3]; 3]> {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let n = (1.0 + t * t).sqrt();
    let (a, b) = (1.0 / n, t / n);
    let v = [
        [-a, b, 0.0],
        [a, b, 0.0],
        [-a, -b, 0.0],
        [a, -b, 0.0],
        [0.0, -a, b],
        [0.0, a, b],
        [0.0, -a, -b],
        [0.0, a, -b],
        [b, 0.0, -a],
        [b, 0.0, a],
        [-b, 0.0, -a],
        [-b, 0.0, a],
    ];
    const FACES: [[usize; 3]; 20] = [
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    FACES.iter().map(|f| f.map(|k| v[k])).collect()
}

/// The unit sphere as a geodesic polyhedron (each face of the icosahedron subdivided and its nodes
/// projected on the sphere), scaled by `scale` (the semi-axes): nodes exactly on the sphere or
/// ellipsoid, edges at most about `h`. `D` is 3.
fn geodesic<const D: usize>(scale: [f64; 3], h: f64) -> Boundary<D> {
    // The icosahedron's edge is 1.05 on the unit sphere.
    let m = (1.05 * scale.iter().copied().fold(0.0, f64::max) / h).ceil().max(1.0) as usize;
    patches(&icosahedron(), m, |p| {
        let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        std::array::from_fn(|k| p[k] / n * scale[k])
    })
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
    /// `⌈2πr/h⌉` equally spaced points of the circle; a geodesic sphere in 3D.
    fn boundary(&self, h: f64) -> Option<Boundary<D>> {
        let (mut points, facets) = if D == 2 {
            let n = (2.0 * std::f64::consts::PI * self.radius / h).ceil().max(8.0) as usize;
            closed_polyline(
                (0..n)
                    .map(|k| {
                        let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                        planar::<D>(self.radius * a.cos(), self.radius * a.sin())
                    })
                    .collect(),
            )
        } else {
            geodesic::<D>([self.radius; 3], h)
        };
        for p in &mut points {
            *p += self.centre;
        }
        Some((points, facets))
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
    /// The four sides subdivided (2D); the six faces, each split into two triangles and
    /// subdivided (3D).
    fn boundary(&self, h: f64) -> Option<Boundary<D>> {
        if D == 2 {
            let (a, b) = (self.half[0], self.half[D - 1]);
            return Some(closed_polyline(subdivide(
                &[planar(-a, -b), planar(a, -b), planar(a, b), planar(-a, b)],
                h,
            )));
        }
        let c = |x: f64, y: f64, z: f64| [x * self.half[0], y * self.half[1], z * self.half[D - 1]];
        let quads = [
            [c(-1., -1., -1.), c(1., -1., -1.), c(1., 1., -1.), c(-1., 1., -1.)],
            [c(-1., -1., 1.), c(1., -1., 1.), c(1., 1., 1.), c(-1., 1., 1.)],
            [c(-1., -1., -1.), c(1., -1., -1.), c(1., -1., 1.), c(-1., -1., 1.)],
            [c(-1., 1., -1.), c(1., 1., -1.), c(1., 1., 1.), c(-1., 1., 1.)],
            [c(-1., -1., -1.), c(-1., 1., -1.), c(-1., 1., 1.), c(-1., -1., 1.)],
            [c(1., -1., -1.), c(1., 1., -1.), c(1., 1., 1.), c(1., -1., 1.)],
        ];
        let triangles: Vec<[[f64; 3]; 3]> = quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[3]], [q[2], q[3], q[1]]])
            .collect();
        let m = (2.0 * self.half.iter().copied().fold(0.0, f64::max) / h)
            .ceil()
            .max(1.0) as usize;
        Some(patches(&triangles, m, |p| p))
    }
}

/// A simple polygon (2D), its vertices listed in either orientation.
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    /// The vertices, the last joined to the first.
    pub vertices: Vec<Point<2>>,
}

impl Polygon {
    /// The first two edges that meet other than at a vertex they share, `(i, j)` with `i < j`
    /// (edge `k` joins vertices `k` and `k + 1`), or `None` for a simple polygon. Brute force over
    /// the pairs, `O(n²)`: polygons in case files have tens of vertices.
    pub fn crossing(&self) -> Option<(usize, usize)> {
        let v = &self.vertices;
        let n = v.len();
        let orient = |a: &Point<2>, b: &Point<2>, c: &Point<2>| ((b - a).perp(&(c - a))).signum();
        let on = |a: &Point<2>, b: &Point<2>, p: &Point<2>| {
            p.x >= a.x.min(b.x) && p.x <= a.x.max(b.x) && p.y >= a.y.min(b.y) && p.y <= a.y.max(b.y)
        };
        let meet = |a: &Point<2>, b: &Point<2>, c: &Point<2>, d: &Point<2>| {
            let (o1, o2, o3, o4) = (orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b));
            (o1 * o2 < 0.0 && o3 * o4 < 0.0)
                || (o1 == 0.0 && on(a, b, c))
                || (o2 == 0.0 && on(a, b, d))
                || (o3 == 0.0 && on(c, d, a))
                || (o4 == 0.0 && on(c, d, b))
        };
        for i in 0..n {
            for j in i + 1..n {
                let (a, b, c, d) = (&v[i], &v[(i + 1) % n], &v[j], &v[(j + 1) % n]);
                let adjacent = j == i + 1 || (i == 0 && j == n - 1);
                if adjacent {
                    // Consecutive edges share a vertex; they overlap only when one folds back
                    // along the other.
                    let (shared, p, q) = if j == i + 1 { (b, a, d) } else { (a, b, c) };
                    let (u, w) = (p - shared, q - shared);
                    if u.perp(&w) == 0.0 && u.dot(&w) > 0.0 {
                        return Some((i, j));
                    }
                } else if meet(a, b, c, d) {
                    return Some((i, j));
                }
            }
        }
        None
    }
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
    fn boundary(&self, h: f64) -> Option<Boundary<2>> {
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
        Some(closed_polyline(subdivide(&corners, h)))
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

/// A 2D shape as a `D`-dimensional one when `D` is 2, `None` otherwise: for code generic over
/// `D` that has a shape only 2D has (a polygon).
pub fn planar_shape<const D: usize>(shape: Box<dyn Shape<2>>) -> Option<Box<dyn Shape<D>>> {
    let any: Box<dyn std::any::Any> = Box::new(shape);
    any.downcast::<Box<dyn Shape<D>>>().ok().map(|b| *b)
}
