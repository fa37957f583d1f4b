//! The fluid solver against exact values: quadrature exactness, and the steady Stokes problem with
//! a manufactured solution converging at the Taylor–Hood orders (velocity O(h³), pressure O(h²)
//! in L2) in 2D and 3D.

use std::f64::consts::PI;
use tumble::fluid::{solve_stokes, P2Space, Quadrature};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::axis_box;

/// ∫ λ_0^a λ_1^b λ_2^c (λ_3^d) over the simplex / its measure = D! a! b! c! d! / (a+b+c+d+D)!.
#[test]
fn quadrature_is_exact_to_its_degree() {
    fn fact(n: usize) -> f64 {
        (1..=n).map(|k| k as f64).product()
    }
    fn check<const D: usize>(degree: usize) {
        let rule = Quadrature::<D>::exact_to(degree);
        assert!((rule.weights.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        for a in 0..=degree {
            for b in 0..=degree - a {
                let c = degree - a - b;
                let e = [a, b, if D == 2 { c } else { 0 }, if D == 3 { c } else { 0 }];
                let exact = fact(D) * e.iter().map(|&k| fact(k)).product::<f64>() / fact(e.iter().sum::<usize>() + D);
                let got: f64 = rule
                    .points
                    .iter()
                    .zip(&rule.weights)
                    .map(|(l, w)| w * (0..4).map(|k| l[k].powi(e[k] as i32)).product::<f64>())
                    .sum();
                assert!(
                    (got - exact).abs() < 1e-14,
                    "D = {D}, exponents {e:?}: {got} vs {exact}"
                );
            }
        }
    }
    for degree in 1..=8 {
        check::<2>(degree);
        check::<3>(degree);
    }
}

/// `u_a = Π_{b≠a} sin(π x_b)` (divergence-free: `u_a` does not depend on `x_a`),
/// `p = Π_b cos(π x_b)`, so `f = ν (D − 1) π² u + ∇p`.
fn manufactured<const D: usize>(n: usize, nu: f64) -> (f64, f64, usize) {
    let u = |x: &Point<D>| Vector::<D>::from_fn(|a, _| (0..D).filter(|&b| b != a).map(|b| (PI * x[b]).sin()).product());
    let p = |x: &Point<D>| (0..D).map(|b| (PI * x[b]).cos()).product::<f64>();
    let grad_p = move |x: &Point<D>| {
        Vector::<D>::from_fn(|a, _| {
            (0..D)
                .map(|b| {
                    if b == a {
                        -PI * (PI * x[b]).sin()
                    } else {
                        (PI * x[b]).cos()
                    }
                })
                .product()
        })
    };
    let f = move |x: &Point<D>| u(x) * (nu * (D as f64 - 1.0) * PI * PI) + grad_p(x);
    let mesh = axis_box::<D>(Point::<D>::zeros(), Point::<D>::repeat(1.0), [n; D]).unwrap();
    let space = P2Space::new(&mesh);
    let walls: Vec<i32> = (1..=2 * D as i32).collect();
    let sol = solve_stokes(&mesh, &space, nu, &f, &walls, &u).unwrap();
    let (eu, ep) = sol.l2_errors(&mesh, &space, &u, &p);
    (eu, ep, D * space.len() + mesh.num_points())
}

fn orders(errors: &[(f64, f64, usize)]) -> Vec<(f64, f64)> {
    errors
        .windows(2)
        .map(|w| ((w[0].0 / w[1].0).log2(), (w[0].1 / w[1].1).log2()))
        .collect()
}

#[test]
fn stokes_2d_converges_at_taylor_hood_orders() {
    let errors: Vec<(f64, f64, usize)> = [8, 16, 32].iter().map(|&n| manufactured::<2>(n, 0.7)).collect();
    let o = orders(&errors);
    println!("2D: {errors:?}\norders {o:?}");
    for (ou, op) in o {
        assert!(ou > 2.85 && op > 1.85, "orders {ou} {op}");
    }
    assert!(errors[2].0 < 1e-4);
}

#[test]
fn stokes_3d_converges_at_taylor_hood_orders() {
    let errors: Vec<(f64, f64, usize)> = [4, 8].iter().map(|&n| manufactured::<3>(n, 0.7)).collect();
    let o = orders(&errors);
    println!("3D: {errors:?}\norders {o:?}");
    let (ou, op) = o[0];
    assert!(ou > 2.7 && op > 1.7, "orders {ou} {op}");
}
