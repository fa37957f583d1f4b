//! The march: accept the smallest tentative value, update the neighbours of the accepted node.

use super::init::{State, ACCEPTED};
use super::update::Face;
use crate::math::{Point, Vector};
use crate::mesh::{OrderedStars, LINK_POSITIONS};

/// Runs the march from the initialised nodes until the heap is empty or its smallest value exceeds
/// `d_max`, in the numbering of the mesh's [`OrderedStars`], as the state is.
pub(super) fn march<const D: usize>(mesh: &OrderedStars<D>, state: &mut State<D>, d_max: f64, closest_point: bool) {
    // The linear values start as the initialised ones, and the initialised nodes' gradients point
    // away from the front, for the second-order values of their neighbours.
    if !closest_point {
        state.linear = state.value.clone();
        state.gradient = vec![Vector::<D>::zeros(); state.value.len()];
        for &v in &state.initialised {
            let i = v as usize;
            if state.value[i] > 0.0 {
                state.gradient[i] = state.geometry.direction(&mesh.points[i], state.closest[i]);
            }
        }
    }
    let mut stencil = Stencil::default();
    for i in 0..state.initialised.len() {
        let a = state.initialised[i];
        if state.enclosed.binary_search(&a).is_err() {
            relax(mesh, state, &mut stencil, a, d_max, closest_point);
        }
    }
    while let Some((key, v)) = state.heap.peek() {
        if key > d_max {
            break;
        }
        state.heap.pop();
        if let Some((_, next)) = state.heap.peek() {
            mesh.prefetch(next);
        }
        state.status[v as usize] = ACCEPTED;
        state.accepted.push(v);
        relax(mesh, state, &mut stencil, v, d_max, closest_point);
    }
}

/// Updates the unaccepted neighbours of the newly accepted node `a`. In closest-point mode the
/// candidate is the exact distance to the front facet closest to the node among `a`'s facet and
/// those reached from it by descent along the front; otherwise it is the smallest of the update
/// through `a` alone and the updates through the faces `(a, …)` of accepted nodes around `a`
/// (in 2D the edges `(a, b)` of the triangles it shares with `a`; in 3D triangles, and for a node
/// that no triangle reaches, the edges `(a, b)` of the cells it shares with `a`).
/// Faces without `a` were tried when their last node was accepted.
///
/// **Second-order values.** The candidates are compared by their linear values (`State::linear`);
/// when one improves on the node's best, its second-order value ([`Face::corrected`], with the
/// gradients of the face's nodes) becomes the node's value and key if it is lower, and the
/// direction of its characteristic the node's gradient. Correcting only the improving candidates
/// keeps the extra cost to one face evaluation per improvement, and candidates beyond the band
/// keep their linear values (they only need to say they are beyond): measured against linear
/// values alone, the 3D marches of the benchmark are 13 % (band) and 17 % (full) slower, the 2D
/// ones as fast; correcting every candidate cost 35–67 % in 3D for errors a few percent lower.
/// The initialised nodes' gradients point away from their closest front element; the front's own
/// nodes have none (zero), and a face takes the characteristic's direction for them.
///
/// **Virtual simplices (3D).** A node is updated through the faces `(a, b, c)` around `a` whose
/// other two nodes both share a cell with it, not only through the faces of the cells it shares
/// with `a`. The characteristic
/// reaching a node often crosses a face of its own star whose last node is still downwind (an
/// obtuse cell). With its own cells alone, a quarter of the nodes of Gmsh's balls got only edge
/// updates, which overestimate, and the 3D march's error stopped falling with the mesh size: 2.5 %
/// of the distance at every h. The faces used lie within two edges of the node, so the update
/// keeps its order, and its causality check keeps the march monotone. Asking only one of `b`, `c`
/// to share a cell with the node tries five times as many faces and prepares twice as many: the 3D
/// marches were 19–24 % slower. The edges, on the contrary, are only those of the node's own
/// cells: the virtual ones (to every accepted neighbour of `a`) overestimate, and without them
/// the ball's errors at h = 0.1 fell from 0.27x to 0.20x the specification's (full march) and
/// from 0.36x to 0.31x (band); with neither choice they were 0.22x and 0.34x. In 2D the same
/// holds for the edges: with the virtual ones (to every accepted neighbour of `a`) the generated
/// disks' march converged at order 1.80, without them at 1.89 (the error at h = 0.0125 2.24e-4
/// against 1.66e-4), and the 2D bands are 5–14 % faster.
fn relax<const D: usize>(
    mesh: &OrderedStars<D>,
    state: &mut State<D>,
    stencil: &mut Stencil<D>,
    a: u32,
    d_max: f64,
    closest_point: bool,
) {
    let points = &mesh.points;
    let (pa, ta) = (points[a as usize], state.value[a as usize]);
    let (neighbours, links) = mesh.star(a);
    stencil.gather(neighbours, &state.status);
    for k in 0..stencil.targets.len() {
        let slot = stencil.targets[k] as usize;
        let v = neighbours[slot];
        let x = points[v as usize];
        let i = v as usize;
        if closest_point {
            let (candidate, closest) = state.geometry.descend(&x, state.closest[a as usize]);
            if candidate < state.value[i] {
                state.value[i] = candidate;
                state.closest[i] = closest;
                state.offer(v, a);
            }
            continue;
        }
        let w = x - pa;
        let near = links[slot] & stencil.known;
        let (linear, through) = stencil.eikonal(
            near,
            state.linear[i],
            &w,
            (pa, ta),
            neighbours,
            links,
            points,
            &state.value,
        );
        if linear < state.linear[i] {
            state.linear[i] = linear;
            // Beyond the band a value only needs to say so.
            let (candidate, direction) = if linear <= d_max {
                stencil.correct(&through, &w, ta, &state.gradient[a as usize], &state.gradient)
            } else {
                (linear, Vector::<D>::zeros())
            };
            if candidate < state.value[i] {
                state.value[i] = candidate;
                state.gradient[i] = direction;
                state.closest[i] = state.closest[a as usize];
                state.offer(v, a);
            }
        }
    }
}

/// The neighbourhood of the node `a` being accepted, gathered once per acceptance from its star
/// ([`OrderedStars::star`]), in buffers reused from node to node. Positions are those of `a`'s
/// star; a target's accepted neighbours that share a cell with `a` are its link neighbours among
/// `known` (`links[target] & known`), and the link edges between those are the triangles
/// `(a, b, c)` it is updated through (3D).
#[derive(Debug)]
struct Stencil<const D: usize> {
    /// The positions of `a`'s unaccepted neighbours.
    targets: Vec<u32>,
    /// The positions of `a`'s accepted neighbours, as bits (the first
    /// [`LINK_POSITIONS`]).
    known: u64,
    /// The edges `(a, b)` prepared for this acceptance, by the position of `b`: `ready` has its
    /// bit once prepared, `edges` the face ([`Face::new`]) or `None` if no front crosses it. An
    /// edge serves the targets on both sides of it, so it is prepared once, when one asks.
    ready: u64,
    edges: Vec<Option<Face<D, 1>>>,
}

impl<const D: usize> Default for Stencil<D> {
    fn default() -> Self {
        Stencil {
            targets: Vec::new(),
            known: 0,
            ready: 0,
            edges: vec![None; LINK_POSITIONS],
        }
    }
}

impl<const D: usize> Stencil<D> {
    /// The targets and the accepted neighbours of `a`, whose star's nodes are `neighbours`.
    fn gather(&mut self, neighbours: &[u32], status: &[u8]) {
        self.targets.clear();
        self.known = 0;
        self.ready = 0;
        for (p, &u) in neighbours.iter().enumerate() {
            if status[u as usize] == ACCEPTED {
                if p < LINK_POSITIONS {
                    self.known |= 1 << p;
                }
            } else {
                self.targets.push(p as u32);
            }
        }
    }

    /// The smallest valid linear update at `w = x − x_a` (`a` at `pa` with value `ta`) of a
    /// target whose accepted neighbours sharing a cell with `a` are the positions `near`, and
    /// where it comes from: in 3D through the triangles `(a, b, c)` over the link edges between
    /// them and, if none is valid, the edges `(a, b)` to them; in 2D through the edges. An edge
    /// only counts if it improves on the target's `current` linear value (the others would be
    /// discarded): [`Face::value_below`] rejects most without a square root.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn eikonal(
        &mut self,
        near: u64,
        current: f64,
        w: &Vector<D>,
        (pa, ta): (Point<D>, f64),
        neighbours: &[u32],
        links: &[u64],
        points: &[Point<D>],
        value: &[f64],
    ) -> (f64, Through<D>) {
        let node = |p: u32| {
            let u = neighbours[p as usize];
            (u, points[u as usize], value[u as usize])
        };
        let mut best = (f64::INFINITY, Through::Node);
        if D == 3 {
            let mut rest = near;
            while rest != 0 {
                let p = rest.trailing_zeros();
                rest &= rest - 1;
                let mut pairs = links[p as usize] & rest;
                let (b, pb, tb) = node(p);
                while pairs != 0 {
                    let q = pairs.trailing_zeros();
                    pairs &= pairs - 1;
                    let (c, pc, tc) = node(q);
                    if let Some(face) = Face::new((&pa, ta), [(&pb, tb), (&pc, tc)]) {
                        let t = face.value(w);
                        if t < best.0 {
                            best = (t, Through::Face(face, [b, c]));
                        }
                    }
                }
            }
        }
        let alone = ta + w.norm();
        if best.0 < alone {
            return best;
        }
        let faces = best.0 < f64::INFINITY;
        let mut best = (alone, Through::Node);
        if D == 2 || !faces {
            let mut rest = near;
            while rest != 0 {
                let p = rest.trailing_zeros();
                rest &= rest - 1;
                let (b, pb, tb) = node(p);
                if self.ready & 1 << p == 0 {
                    self.ready |= 1 << p;
                    self.edges[p as usize] = Face::new((&pa, ta), [(&pb, tb)]);
                }
                if let Some(edge) = &self.edges[p as usize] {
                    let t = edge.value_below(w, best.0.min(current));
                    if t < best.0 {
                        best = (t, Through::Edge(p, b));
                    }
                }
            }
        }
        best
    }

    /// The second-order value ([`Face::corrected`]) of the update `through` at `w = x − x_a` (`a`
    /// with value `ta` and gradient `ga`), and the direction of its characteristic.
    fn correct(
        &self,
        through: &Through<D>,
        w: &Vector<D>,
        ta: f64,
        ga: &Vector<D>,
        gradient: &[Vector<D>],
    ) -> (f64, Vector<D>) {
        match through {
            Through::Face(face, [b, c]) => face.corrected(w, ga, [&gradient[*b as usize], &gradient[*c as usize]]),
            Through::Edge(p, b) => {
                let edge = self.edges[*p as usize].as_ref().expect("an edge that gave an update");
                edge.corrected(w, ga, [&gradient[*b as usize]])
            }
            Through::Node => {
                let r = w.norm();
                (ta + r, w / r)
            }
        }
    }
}

/// Where a node's update comes from.
#[derive(Debug, Clone, Copy)]
enum Through<const D: usize> {
    /// A triangle `(a, b, c)` (3D) and its other nodes.
    Face(Face<D, 2>, [u32; 2]),
    /// The edge `(a, b)` prepared at `b`'s position in the stencil, and `b`.
    Edge(u32, u32),
    /// The accepted node alone.
    Node,
}
