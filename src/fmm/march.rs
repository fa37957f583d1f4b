//! The march: accept the smallest tentative value, update the nodes of its cells.

use super::init::{State, ACCEPTED, TRIAL};
use super::update::face_update;
use crate::math::Point;
use crate::mesh::SimplexMesh;

/// Runs the march from the initialised nodes until the heap is empty or its smallest value exceeds
/// `d_max`.
pub(super) fn march<const D: usize>(mesh: &SimplexMesh<D>, state: &mut State<D>, d_max: f64, closest_point: bool) {
    for i in 0..state.initialised.len() {
        let a = state.initialised[i];
        relax(mesh, state, a, closest_point);
    }
    while let Some((key, v)) = state.heap.peek() {
        if key > d_max {
            break;
        }
        state.heap.pop();
        state.status[v as usize] = ACCEPTED;
        state.accepted.push(v);
        relax(mesh, state, v, closest_point);
    }
}

/// Updates the unaccepted nodes of every cell of the newly accepted node `a`, through every face
/// of accepted nodes of that cell that contains `a` (the others were tried when their last node was
/// accepted). In closest-point mode the candidate is the exact distance to the front facet closest
/// to the node among `a`'s facet and those reached from it by descent along the front.
fn relax<const D: usize>(mesh: &SimplexMesh<D>, state: &mut State<D>, a: u32, closest_point: bool) {
    let points = mesh.points();
    let (pa, ta) = (points[a as usize], state.value[a as usize]);
    for &c in mesh.cells_of_node(a) {
        let cell = mesh.cell(c);
        let mut known = [0u32; 3];
        let mut n_known = 0;
        for &u in cell {
            if u != a && state.status[u as usize] == ACCEPTED {
                known[n_known] = u;
                n_known += 1;
            }
        }
        for &v in cell {
            if state.status[v as usize] == ACCEPTED {
                continue;
            }
            let x = points[v as usize];
            let (candidate, closest) = if closest_point {
                state.geometry.descend(&x, state.closest[a as usize])
            } else {
                (
                    eikonal(&x, pa, ta, &known[..n_known], points, &state.value),
                    state.closest[a as usize],
                )
            };
            if candidate < state.value[v as usize] {
                let i = v as usize;
                state.value[i] = candidate;
                state.status[i] = TRIAL;
                state.sign[i] = state.sign[a as usize];
                state.closest[i] = closest;
                state.heap.push_or_decrease(v, candidate);
            }
        }
    }
}

/// The smallest valid update of `x` through the faces `{a} ∪ S`, `S` ⊆ `known` (up to two nodes).
#[inline]
fn eikonal<const D: usize>(
    x: &Point<D>,
    pa: Point<D>,
    ta: f64,
    known: &[u32],
    points: &[Point<D>],
    value: &[f64],
) -> f64 {
    let mut best = ta + (x - pa).norm();
    let node = |u: u32| (points[u as usize], value[u as usize]);
    for (i, &b) in known.iter().enumerate() {
        let (pb, tb) = node(b);
        if let Some(t) = face_update(x, &[pa, pb], &[ta, tb]) {
            best = best.min(t);
        }
        for &c in &known[i + 1..] {
            let (pc, tc) = node(c);
            if let Some(t) = face_update(x, &[pa, pb, pc], &[ta, tb, tc]) {
                best = best.min(t);
            }
        }
    }
    best
}
