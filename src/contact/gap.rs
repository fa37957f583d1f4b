//! Gaps and contact points between two bodies from their body-frame distance fields.
//!
//! The nodes `p` of `∂B_j` are mapped into body `i`'s frame in one affine step,
//! `q = R_iᵀ R_j p + R_iᵀ (G_j − G_i)`, and `D_i(q)` is read off `i`'s lattice; nodes farther from
//! `G_i` than `R_i + cut` are skipped (their distance to `B_i` exceeds `cut`). The smallest value
//! is the gap seen from `i`, at the point `x_j ∈ ∂B_j` closest to `B_i`; the same from `j` gives
//! `x_i`. The normal is the mean of the two fields' unit gradients `∇D_j` and `−∇D_i` at the
//! midpoint of `x_i` and `x_j`, where their tilts from the nodes' offsets cancel to first order; it
//! is robust under overlap, where `x_i − x_j` flips.

use super::Contact;
use crate::body::{Dim, Kinematics, RigidBody};
use crate::math::{Point, Vector};
use nalgebra::SMatrix;

/// One node of a body's boundary seen from another body's field (or the wall field).
#[derive(Debug, Clone, Copy)]
pub(super) struct Probe<const D: usize> {
    /// The node's index on its body's surface.
    pub node: u32,
    /// The field's value there.
    pub value: f64,
    /// The node in the field's frame.
    pub local: Point<D>,
}

/// Reusable buffers of the patch search, one set per thread, so that a contact step allocates
/// nothing per pair.
#[derive(Debug, Default)]
pub struct Scratch<const D: usize> {
    pub(super) near: Vec<Probe<D>>,
    pub(super) walls: Vec<Point<D>>,
    pub(super) pairs: Vec<(Probe<D>, Point<D>)>,
    seen: Vec<bool>,
    stack: Vec<usize>,
    members: Vec<usize>,
}

/// The map from `b`'s frame to `a`'s: `(R_aᵀ R_b, R_aᵀ (G_b − G_a))`.
fn relative<const D: usize>(a: &RigidBody<D>, b: &RigidBody<D>) -> (SMatrix<f64, D, D>, Vector<D>)
where
    Dim<D>: Kinematics<D>,
{
    let ra = a.matrix().transpose();
    (ra * b.matrix(), ra * (b.position - a.position))
}

/// Calls `visit` for every node of `∂b` within `cut` of `a`'s bounding sphere whose value
/// `D_a` may be at most `cut`, with `D_a` there (and for some farther ones): `b`'s node clusters
/// ([`crate::body::Clusters`]) are skipped whole when their bounding sphere lies beyond `a`'s
/// bounding sphere plus `cut`, or when `D_a` at the centre `c`, less `√D r` (the interpolant's
/// Lipschitz constant times the radius), exceeds `cut`: no node of theirs can come within `cut`.
/// Clusters come in order, nodes ascending within each, not in node order.
fn probe_nodes<const D: usize>(a: &RigidBody<D>, b: &RigidBody<D>, cut: f64, mut visit: impl FnMut(Probe<D>))
where
    Dim<D>: Kinematics<D>,
{
    let (m, t) = relative(a, b);
    let reach = a.geometry.radius + cut;
    let lipschitz = (D as f64).sqrt();
    let (field, clusters, points) = (&a.geometry.field, &b.geometry.clusters, &b.geometry.surface.points);
    for c in 0..clusters.len() {
        let (centre, r) = (m * clusters.centres[c] + t, clusters.radii[c]);
        if centre.norm() - r > reach || field.value_on_lattice(&centre).is_some_and(|v| v - lipschitz * r > cut) {
            continue;
        }
        for &k in clusters.nodes(c) {
            let q = m * points[k as usize] + t;
            if q.norm_squared() > reach * reach {
                continue;
            }
            visit(Probe {
                node: k,
                value: field.value(&q),
                local: q,
            });
        }
    }
}

/// The node of `∂b` closest to `a` (smallest `D_a`) if within `cut`.
fn closest_node<const D: usize>(a: &RigidBody<D>, b: &RigidBody<D>, cut: f64) -> Option<Probe<D>>
where
    Dim<D>: Kinematics<D>,
{
    let mut best: Option<Probe<D>> = None;
    probe_nodes(a, b, cut, |p| {
        // The smallest value, the lowest node among equals (the probes come cluster by cluster).
        if p.value <= cut && best.is_none_or(|b| p.value < b.value || (p.value == b.value && p.node < b.node)) {
            best = Some(p);
        }
    });
    best
}

/// The unit gradient of `a`'s field at a local point, in the world frame.
fn world_normal<const D: usize>(a: &RigidBody<D>, local: &Point<D>) -> Vector<D>
where
    Dim<D>: Kinematics<D>,
{
    let g = a.geometry.field.smooth_gradient(local);
    (a.matrix() * g)
        .try_normalize(1e-300)
        .unwrap_or_else(Vector::<D>::zeros)
}

/// The closest points of bodies `i` and `j` if their gap is at most `cut`: one contact.
pub fn closest_contact<const D: usize>(
    i: u32,
    j: u32,
    bi: &RigidBody<D>,
    bj: &RigidBody<D>,
    cut: f64,
) -> Option<Contact<D>>
where
    Dim<D>: Kinematics<D>,
{
    let on_j = closest_node(bi, bj, cut)?;
    let on_i = closest_node(bj, bi, cut)?;
    let xj = bj.to_world(&bj.geometry.surface.points[on_j.node as usize]);
    let xi = bi.to_world(&bi.geometry.surface.points[on_i.node as usize]);
    let mid = (xi + xj) * 0.5;
    let normal = (world_normal(bj, &bj.to_body(&mid)) - world_normal(bi, &bi.to_body(&mid)))
        .try_normalize(1e-300)
        .or_else(|| (bi.position - bj.position).try_normalize(1e-300))
        .unwrap_or_else(Vector::<D>::zeros);
    Some(Contact {
        i,
        j,
        point_i: xi,
        point_j: xj,
        gap: on_i.value.min(on_j.value),
        normal,
        shift: Vector::<D>::zeros(),
    })
}

/// One contact per connected patch of `∂B_j`'s nodes within `cut` of `B_i` (connected along the
/// surface's edges). The patch's gap is its smallest `D_i`; its point on `∂B_j` is the centre of
/// pressure `Σ w_k x_k / Σ w_k` of its nodes, `w_k = a_k (cut − d_k)²` with `a_k` the node's share
/// of the surface,
/// which moves continuously as nodes enter and leave the patch and is the middle of a flat face
/// lying on another; the normal is `−∇D_i` there, and the point on `∂B_i` is one gap further along
/// it.
pub fn patch_contacts<const D: usize>(
    i: u32,
    j: u32,
    bi: &RigidBody<D>,
    bj: &RigidBody<D>,
    cut: f64,
    scratch: &mut Scratch<D>,
    out: &mut Vec<Contact<D>>,
) where
    Dim<D>: Kinematics<D>,
{
    patches(i, j, (bi, bj), (cut, false), scratch, out);
}

/// [`patch_contacts`], with the gaps refined below each patch's lowest node if `refine` (the
/// lubrication films', [`lowest_gap`]).
pub(super) fn patches<const D: usize>(
    i: u32,
    j: u32,
    (bi, bj): (&RigidBody<D>, &RigidBody<D>),
    (cut, refine): (f64, bool),
    scratch: &mut Scratch<D>,
    out: &mut Vec<Contact<D>>,
) where
    Dim<D>: Kinematics<D>,
{
    let mut near = std::mem::take(&mut scratch.near);
    near.clear();
    probe_nodes(bi, bj, cut, |p| {
        if p.value <= cut {
            near.push(p);
        }
    });
    near.sort_unstable_by_key(|p| p.node);
    let surface = &bj.geometry.surface;
    for_each_patch(
        &near,
        |v| surface.neighbours(v),
        scratch,
        |best, members| {
            let areas = &surface.node_areas;
            let centre = centre_of_pressure(
                members
                    .iter()
                    .map(|&k| (near[k].local, near[k].value, areas[near[k].node as usize])),
                cut,
            )
            .unwrap_or(best.local);
            let xj = bi.to_world(&centre);
            let normal = -world_normal(bi, &centre);
            let gap = if refine {
                // In `i`'s frame: the normal from `j` towards `i` and the relative curvature at
                // the lowest node.
                let local_normal = bi.matrix().transpose() * normal;
                let (m, _) = relative(bi, bj);
                let on_i = best.local + local_normal * best.value;
                let k =
                    bi.geometry.curvature_near(&on_i) + m * bj.geometry.curvatures[best.node as usize] * m.transpose();
                let ring = ring_of(&near, surface.neighbours(best.node));
                lowest_gap((&best.local, best.value), ring, &local_normal, &k)
            } else {
                best.value
            };
            out.push(Contact {
                i,
                j,
                point_i: xj + normal * gap,
                point_j: xj,
                gap,
                normal,
                shift: Vector::<D>::zeros(),
            });
        },
    );
    scratch.near = near;
}

/// The probes of `near` (sorted by node) at the nodes `neighbours`: their points and values.
pub(super) fn ring_of<'a, const D: usize>(
    near: &'a [Probe<D>],
    neighbours: &'a [u32],
) -> impl Iterator<Item = (Point<D>, f64)> + 'a {
    neighbours.iter().filter_map(|&v| {
        let k = near.binary_search_by_key(&v, |p| p.node).ok()?;
        Some((near[k].local, near[k].value))
    })
}

/// The smallest gap of a patch, below its lowest node `x₀` (value `d₀`): the gap between two
/// smooth surfaces near their closest points is the paraboloid `h₀ + ½ (t − t*)ᵀ K (t − t*)` over
/// the tangent plane (normal `n`, relative curvature `K`, [`super::lubrication`]), and a node a
/// distance `s` beside the closest points reads `½ K s²` more than `h₀`: a node spacing of a
/// twentieth of the radius gives `h₀` a tenth of a per cent of the radius too large, which is
/// the whole film near the roughness. With `K` known, `d − ½ tᵀ K t = c + gᵀ t` is linear in `c`
/// and `g = −K t*` over the ring of nodes around `x₀` (`t` their offsets on the tangent plane),
/// fitted by least squares: `h₀ = c − ½ gᵀ K⁻¹ g`, kept between `d₀ − ½ k_max s_max²` (the
/// paraboloid below the ring, `k_max` bounded by `|K|`) and `d₀`. Too few nodes, or a singular
/// fit: `d₀`. Cost: two `D × D` inverses, no allocation.
pub(super) fn lowest_gap<const D: usize>(
    (lowest, value): (&Point<D>, f64),
    ring: impl Iterator<Item = (Point<D>, f64)>,
    normal: &Vector<D>,
    k: &SMatrix<f64, D, D>,
) -> f64 {
    // A tangent basis: the axes less their normal parts, orthonormalised, the one most along
    // the normal left out.
    let skip = normal.iamax();
    let mut basis = [Vector::<D>::zeros(); D];
    for (q, axis) in (0..D).filter(|&a| a != skip).enumerate() {
        let mut e = Vector::<D>::zeros();
        e[axis] = 1.0;
        e -= normal * normal[axis];
        for b in &basis[..q] {
            e -= b * b.dot(&e);
        }
        basis[q] = e.normalize();
    }
    let basis = &basis[..D - 1];
    // Normal equations of (c, g) in that basis, with the lowest node itself.
    let mut a = SMatrix::<f64, D, D>::zeros();
    let mut rhs = Vector::<D>::zeros();
    let mut reach: f64 = 0.0;
    let mut count = 0;
    for (x, d) in std::iter::once((*lowest, value)).chain(ring) {
        let offset = x - lowest;
        let t = offset - normal * normal.dot(&offset);
        reach = reach.max(t.norm());
        let mut row = Vector::<D>::zeros();
        row[0] = 1.0;
        for (q, b) in basis.iter().enumerate() {
            row[q + 1] = b.dot(&t);
        }
        let y = d - 0.5 * t.dot(&(k * t));
        a += row * row.transpose();
        rhs += row * y;
        count += 1;
    }
    if count < D + 1 {
        return value;
    }
    let Some(solution) = a.try_inverse().map(|inverse| inverse * rhs) else {
        return value;
    };
    // K and g on the tangent basis (the unused row and column of `D × D` identity's), and
    // `½ gᵀ K⁻¹ g`.
    let mut kt = SMatrix::<f64, D, D>::identity();
    let mut g = Vector::<D>::zeros();
    for (p, bp) in basis.iter().enumerate() {
        g[p] = solution[p + 1];
        for (q, bq) in basis.iter().enumerate() {
            kt[(p, q)] = bp.dot(&(k * bq));
        }
    }
    let Some(inverse) = kt.try_inverse() else {
        return value;
    };
    // |K| (Frobenius) bounds its largest eigenvalue.
    let largest = k.norm();
    let h0 = solution[0] - 0.5 * g.dot(&(inverse * g));
    if !h0.is_finite() {
        return value;
    }
    h0.clamp(value - 0.5 * largest * reach * reach, value)
}

/// `Σ w_k x_k / Σ w_k` with `w_k = a_k (cut − d_k)²` over `(x_k, d_k, a_k)`, `a_k` the node's
/// share of the surface (a quadrature of the pressure over the patch); `None` if every weight is
/// zero.
pub(super) fn centre_of_pressure<const D: usize>(
    points: impl Iterator<Item = (Point<D>, f64, f64)>,
    cut: f64,
) -> Option<Point<D>> {
    let (mut sum, mut weight) = (Point::<D>::zeros(), 0.0);
    for (x, d, a) in points {
        let w = a * (cut - d).max(0.0).powi(2);
        sum += x * w;
        weight += w;
    }
    (weight > 0.0).then(|| sum / weight)
}

/// Groups `near` (sorted by node) into connected components of the graph `neighbours` restricted
/// to `near`'s nodes, and calls `emit` with each component's smallest-value probe and its members
/// (indices into `near`), components in the order of their first node. `scratch`'s search buffers
/// are reused.
pub(super) fn for_each_patch<'s, const D: usize>(
    near: &[Probe<D>],
    neighbours: impl Fn(u32) -> &'s [u32],
    scratch: &mut Scratch<D>,
    mut emit: impl FnMut(Probe<D>, &[usize]),
) {
    let find = |v: u32| near.binary_search_by_key(&v, |p| p.node).ok();
    let Scratch {
        seen, stack, members, ..
    } = scratch;
    seen.clear();
    seen.resize(near.len(), false);
    stack.clear();
    for start in 0..near.len() {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        members.clear();
        let mut best = near[start];
        while let Some(k) = stack.pop() {
            members.push(k);
            if near[k].value < best.value {
                best = near[k];
            }
            for &w in neighbours(near[k].node) {
                if let Some(m) = find(w) {
                    if !seen[m] {
                        seen[m] = true;
                        stack.push(m);
                    }
                }
            }
        }
        emit(best, members);
    }
}
