//! Quadrature on simplices: symmetric rules up to degree 5 (Dunavant's on triangles, Walkington's
//! on tetrahedra), Stroud's conical product rules above. For these, a Gauss–Legendre rule of `n`
//! points on `[0, 1]` per direction is mapped to the reference simplex by the collapse (Duffy
//! transform)
//!
//! ```text
//! 2D: x = (u, v (1 − u)),                      dx = (1 − u) du dv,
//! 3D: x = (u, v (1 − u), w (1 − u)(1 − v)),    dx = (1 − u)² (1 − v) du dv dw,
//! ```
//!
//! which integrates polynomials of degree `p` exactly when `2n − 1 ≥ p + D − 1`. Points are given
//! in barycentric coordinates and weights sum to 1 (multiply by the cell's measure).

/// A quadrature rule on the `D`-simplex.
#[derive(Debug, Clone, PartialEq)]
pub struct Quadrature<const D: usize> {
    /// Barycentric coordinates `(λ_0, …, λ_D)` of each point (the first `D + 1` entries).
    pub points: Vec<[f64; 4]>,
    /// Weights, summing to 1.
    pub weights: Vec<f64>,
}

/// Dunavant's symmetric rules on the triangle (D. A. Dunavant, "High degree efficient
/// symmetrical Gaussian quadrature rules for the triangle", IJNME 21, 1985), exact to `degree`
/// (at most 5): each orbit is a weight and the barycentric point `(1 − 2a, a, a)` with its
/// rotations (`a = 1/3`: the centroid alone).
fn dunavant<const D: usize>(degree: usize) -> Quadrature<D> {
    let s15 = 15f64.sqrt();
    let orbits: &[(f64, f64)] = match degree {
        0 | 1 => &[(1.0, 1.0 / 3.0)],
        2 => &[(1.0 / 3.0, 1.0 / 6.0)],
        3 | 4 => &[
            (0.223381589678011, 0.445948490915965),
            (0.109951743655322, 0.091576213509771),
        ],
        _ => &[
            (9.0 / 40.0, 1.0 / 3.0),
            ((155.0 - s15) / 1200.0, (6.0 - s15) / 21.0),
            ((155.0 + s15) / 1200.0, (6.0 + s15) / 21.0),
        ],
    };
    let mut rule = Quadrature {
        points: Vec::new(),
        weights: Vec::new(),
    };
    for &(weight, a) in orbits {
        let centre = [1.0 - 2.0 * a, a, a];
        let rotations = if a == 1.0 / 3.0 { 1 } else { 3 };
        for r in 0..rotations {
            rule.points
                .push([centre[r], centre[(r + 1) % 3], centre[(r + 2) % 3], 0.0]);
            rule.weights.push(weight);
        }
    }
    rule
}

/// Symmetric rules on the tetrahedron with positive weights, exact to `degree` (at most 5): the
/// centroid (degree 1), four points (degree 2), and for degrees 3 to 5 the 14-point rule of
/// Walkington ("Quadrature on simplices of arbitrary dimension", 2000), its orbits solved from
/// the moment equations to 40 digits and rounded to the nearest `f64`. An orbit `s31(a)` is the
/// point `(1 − 3a, a, a, a)` and its 4 permutations, `s22(c)` the point `(c, c, ½ − c, ½ − c)`
/// and its 6.
fn tetrahedron<const D: usize>(degree: usize) -> Quadrature<D> {
    let mut rule = Quadrature {
        points: Vec::new(),
        weights: Vec::new(),
    };
    let mut s31 = |weight: f64, a: f64| {
        for r in 0..4 {
            let mut point = [a; 4];
            point[r] = 1.0 - 3.0 * a;
            rule.points.push(point);
            rule.weights.push(weight);
        }
    };
    match degree {
        0 | 1 => {
            return Quadrature {
                points: vec![[0.25; 4]],
                weights: vec![1.0],
            }
        }
        2 => s31(0.25, (5.0 - 5f64.sqrt()) / 20.0),
        _ => {
            s31(0.073_493_043_116_361_96, 0.092_735_250_310_891_22);
            s31(0.112_687_925_718_015_85, 0.310_885_919_263_300_6);
            let (weight, c) = (0.042_546_020_777_081_466, 0.454_496_295_874_350_36);
            for (i, j) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
                let mut point = [0.5 - c; 4];
                point[i] = c;
                point[j] = c;
                rule.points.push(point);
                rule.weights.push(weight);
            }
        }
    }
    rule
}

impl<const D: usize> Quadrature<D> {
    /// A rule exact for polynomials of degree `degree`: up to degree 5, symmetric rules with
    /// positive weights, on triangles Dunavant's (1, 3, 6, 6 and 7 points for degrees 1, 2, 3, 4,
    /// 5, against Stroud's 4, 4, 9, 9 and 16), on tetrahedra 1, 4 and 14 points (against Stroud's
    /// 8, 8, 27, 64 and 64); otherwise Stroud's conical product.
    pub fn exact_to(degree: usize) -> Self {
        if D == 2 && degree <= 5 {
            return dunavant(degree);
        }
        if D == 3 && degree <= 5 {
            return tetrahedron(degree);
        }
        let n = (degree + D).div_ceil(2).max(1);
        let (x, w) = gauss_legendre(n);
        let mut points = Vec::new();
        let mut weights = Vec::new();
        let mut index = [0usize; 3];
        loop {
            let u: [f64; 3] = std::array::from_fn(|a| x[index[a]]);
            let (xi, jac): ([f64; 3], f64) = if D == 2 {
                ([u[0], u[1] * (1.0 - u[0]), 0.0], 1.0 - u[0])
            } else {
                (
                    [u[0], u[1] * (1.0 - u[0]), u[2] * (1.0 - u[0]) * (1.0 - u[1])],
                    (1.0 - u[0]).powi(2) * (1.0 - u[1]),
                )
            };
            let mut lambda = [0.0; 4];
            lambda[1..=D].copy_from_slice(&xi[..D]);
            lambda[0] = 1.0 - xi[..D].iter().sum::<f64>();
            points.push(lambda);
            // The reference simplex has measure 1/D!.
            weights.push((0..D).map(|a| w[index[a]]).product::<f64>() * jac * crate::math::factorial(D));
            // Next multi-index.
            let mut a = 0;
            loop {
                if a == D {
                    return Quadrature { points, weights };
                }
                index[a] += 1;
                if index[a] < n {
                    break;
                }
                index[a] = 0;
                a += 1;
            }
        }
    }
}

/// The `n`-point Gauss–Legendre rule on `[0, 1]`: nodes by Newton's method on the Legendre
/// polynomial `P_n` (three-term recurrence), weights `1 / ((1 − t²) P_n'(t)²)` on `[−1, 1]`, halved.
fn gauss_legendre(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut nodes = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    for i in 0..n {
        let mut t = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
        let mut derivative = 1.0;
        for _ in 0..100 {
            let (mut p0, mut p1) = (1.0, t);
            for k in 2..=n {
                let p2 = ((2 * k - 1) as f64 * t * p1 - (k - 1) as f64 * p0) / k as f64;
                p0 = p1;
                p1 = p2;
            }
            let (p, dp) = if n == 1 {
                (t, 1.0)
            } else {
                (p1, n as f64 * (t * p1 - p0) / (t * t - 1.0))
            };
            derivative = dp;
            let step = p / dp;
            t -= step;
            if step.abs() < 1e-16 {
                break;
            }
        }
        nodes.push(0.5 * (1.0 - t));
        weights.push(1.0 / ((1.0 - t * t) * derivative * derivative));
    }
    (nodes, weights)
}
