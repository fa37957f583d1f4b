//! The march: accept the smallest tentative value, update the neighbours of the accepted node.

use super::init::{State, ACCEPTED};
use super::update::Face;
use crate::math::{Point, Vector};
use crate::mesh::OrderedStars;

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
    stencil.gather(mesh, &state.status, &state.value, a);
    for k in 0..stencil.targets.len() {
        let v = stencil.targets[k];
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
        let (linear, through) = stencil.eikonal(k, &w, (pa, ta), points, &state.value);
        if linear < state.linear[i] {
            state.linear[i] = linear;
            // Beyond the band a value only needs to say so.
            let (candidate, direction) = if linear <= d_max {
                stencil.correct(through, &w, ta, &state.gradient)
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
/// ([`OrderedStars::star`]) in buffers reused from node to node.
#[derive(Debug, Default)]
struct Stencil<const D: usize> {
    /// The unaccepted neighbours of `a`, and for each the accepted neighbours of `a` it shares a
    /// cell with, as bits of their index in `known` (modulo 64).
    targets: Vec<u32>,
    near: Vec<u64>,
    /// The accepted neighbours of `a`.
    known: Vec<u32>,
    /// For each neighbour of `a` in its star's order, its index in `known` (accepted) or in
    /// `targets` (with [`TARGET`] added).
    place: Vec<u32>,
    /// The faces `(a, …)` of accepted nodes that a front can cross ([`Face::new`]), prepared once
    /// `a` has a target, those some target tries: 2D, the edges `(a, b)`, with the bit of `b` in
    /// `known`; 3D, the triangles `(a, b, c)` around `a` (the edges of its link), with the bits of
    /// `b` and `c`. A target tries the faces whose bits it has all of.
    faces: Vec<Face<D>>,
    bits: Vec<u64>,
    /// The link edges between accepted neighbours (3D), as indices in `known`.
    pairs: Vec<[u32; 2]>,
    /// The faces a target tries, listed without branching.
    tried: Vec<u32>,
    /// The edges `(a, b)` to the accepted neighbours in 3D, prepared when a target that no
    /// triangle reaches needs them.
    edges: Vec<Face<D>>,
    /// The other nodes of each face (`(b, c)`; `(b, b)` for an edge in 2D) and of each edge (3D),
    /// for their gradients.
    face_nodes: Vec<[u32; 2]>,
    edge_nodes: Vec<u32>,
    /// The bit of each edge's `b` in `known`: a target tries the edges to its own `near` nodes.
    edge_bits: Vec<u64>,
    /// The node being accepted.
    a: u32,
}

/// Marks an index in `Stencil::targets` in `Stencil::place`.
const TARGET: u32 = 1 << 31;

impl<const D: usize> Stencil<D> {
    /// The targets, the accepted neighbours and the faces around `a`, each once: the neighbours
    /// are `a`'s star, a target shares a cell with `a` and an accepted neighbour when the two
    /// span an edge of the link, and the faces are, in 2D, the edges to the accepted neighbours
    /// that share a cell with some target, in 3D the link's edges between accepted neighbours
    /// that both share a cell with some target.
    fn gather(&mut self, mesh: &OrderedStars<D>, status: &[u8], value: &[f64], a: u32) {
        self.targets.clear();
        self.near.clear();
        self.known.clear();
        self.place.clear();
        self.faces.clear();
        self.face_nodes.clear();
        self.bits.clear();
        self.pairs.clear();
        self.edges.clear();
        self.edge_nodes.clear();
        self.edge_bits.clear();
        self.a = a;
        let (neighbours, link) = mesh.star(a);
        for &u in neighbours {
            if status[u as usize] == ACCEPTED {
                self.place.push(self.known.len() as u32);
                self.known.push(u);
            } else {
                self.place.push(TARGET | self.targets.len() as u32);
                self.targets.push(u);
                self.near.push(0);
            }
        }
        if self.targets.is_empty() {
            return;
        }
        let points = &mesh.points;
        let node = |u: u32| (points[u as usize], value[u as usize]);
        let (pa, ta) = node(a);
        let bit = |i: u32| 1u64 << (i % 64);
        for &[p, q] in link {
            let (i, j) = (self.place[p as usize], self.place[q as usize]);
            match (i & TARGET == 0, j & TARGET == 0) {
                (true, true) if D == 3 => self.pairs.push([i, j]),
                (true, false) => self.near[(j & !TARGET) as usize] |= bit(i),
                (false, true) => self.near[(i & !TARGET) as usize] |= bit(j),
                _ => {}
            }
        }
        if D == 2 {
            let wanted = self.near.iter().fold(0, |all, &near| all | near);
            for (i, &b) in self.known.iter().enumerate() {
                if wanted & bit(i as u32) == 0 {
                    continue;
                }
                let (pb, tb) = node(b);
                if let Some(face) = Face::new(&[pa, pb], &[ta, tb]) {
                    self.faces.push(face);
                    self.face_nodes.push([b, b]);
                    self.bits.push(bit(i as u32));
                }
            }
            return;
        }
        for &[i, j] in &self.pairs {
            let bits = bit(i) | bit(j);
            if !self.near.iter().any(|&near| near & bits == bits) {
                continue;
            }
            let (b, c) = (self.known[i as usize], self.known[j as usize]);
            let ((pb, tb), (pc, tc)) = (node(b), node(c));
            if let Some(face) = Face::new(&[pa, pb, pc], &[ta, tb, tc]) {
                self.faces.push(face);
                self.face_nodes.push([b, c]);
                self.bits.push(bits);
            }
        }
    }

    /// The smallest valid linear update of target `k` at `w = x − x_a` (`a` at `pa` with value
    /// `ta`) and where it comes from.
    #[inline]
    fn eikonal(
        &mut self,
        k: usize,
        w: &Vector<D>,
        (pa, ta): (Point<D>, f64),
        points: &[Point<D>],
        value: &[f64],
    ) -> (f64, Through) {
        let mut through = (f64::INFINITY, u32::MAX);
        let near = self.near[k];
        self.tried.resize(self.faces.len(), 0);
        let mut n = 0;
        for (i, &bits) in self.bits.iter().enumerate() {
            self.tried[n] = i as u32;
            n += usize::from(bits & near == bits);
        }
        for &i in &self.tried[..n] {
            let t = self.faces[i as usize].value(w);
            if t < through.0 {
                through = (t, i);
            }
        }
        let alone = ta + w.norm();
        if through.0 < alone {
            return (through.0, Through::Face(through.1));
        }
        let mut best = (alone, Through::Node);
        if D == 3 && through.0 == f64::INFINITY {
            if self.edges.is_empty() {
                for (j, &b) in self.known.iter().enumerate() {
                    let (pb, tb) = (points[b as usize], value[b as usize]);
                    if let Some(edge) = Face::new(&[pa, pb], &[ta, tb]) {
                        self.edges.push(edge);
                        self.edge_nodes.push(b);
                        self.edge_bits.push(1u64 << (j % 64));
                    }
                }
            }
            for (i, edge) in self.edges.iter().enumerate() {
                if self.edge_bits[i] & near == 0 {
                    continue;
                }
                let t = edge.value(w);
                if t < best.0 {
                    best = (t, Through::Edge(i as u32));
                }
            }
        }
        best
    }

    /// The second-order value ([`Face::corrected`]) of the update `through` at `w = x − x_a`,
    /// and the direction of its characteristic.
    fn correct(&self, through: Through, w: &Vector<D>, ta: f64, gradient: &[Vector<D>]) -> (f64, Vector<D>) {
        let ga = &gradient[self.a as usize];
        match through {
            Through::Face(i) => {
                let [b, c] = self.face_nodes[i as usize];
                self.faces[i as usize].corrected(w, [ga, &gradient[b as usize], &gradient[c as usize]])
            }
            Through::Edge(i) => {
                let b = &gradient[self.edge_nodes[i as usize] as usize];
                self.edges[i as usize].corrected(w, [ga, b, b])
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
enum Through {
    /// A face of the stencil (its index).
    Face(u32),
    /// An edge `(a, b)` of the stencil (3D).
    Edge(u32),
    /// The accepted node alone.
    Node,
}
