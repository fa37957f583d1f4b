//! The first layer of the march: exact distances on the cells that touch or cross the front, and
//! (in signed mode) the side of the front each of those cells lies on.

use super::curved::Curved;
use super::heap::NodeHeap;
use super::{DistanceField, FmmError, FmmOptions, FmmStats, Front};
use crate::math::{self, Feature, Point, Vector};
use crate::mesh::{SimplexMesh, NONE};
use crate::shape::Shape;
use std::collections::HashMap;

pub(super) const FAR: u8 = 0;
pub(super) const TRIAL: u8 = 1;
pub(super) const ACCEPTED: u8 = 2;

/// What the front is made of, for exact distances.
pub(super) enum Geometry<'a, const D: usize> {
    /// Facets' node coordinates, for each facet the facets sharing a node with it (compressed
    /// rows: `list[offsets[f]..offsets[f + 1]]`), and the facets' curved patches if the front is
    /// read as a smooth body.
    Facets(Vec<[Point<D>; D]>, FacetNeighbours, Option<Curved<D>>),
    /// An analytic shape (one "element": itself).
    Shape(&'a dyn Shape<D>),
}

impl<const D: usize> Geometry<'_, D> {
    /// Exact distance from `x` to front element `e`: to the straight facet, or to the analytic
    /// shape.
    #[inline]
    fn straight(&self, x: &Point<D>, e: u32) -> f64 {
        match self {
            Geometry::Facets(f, _, _) => math::distance_to_facet(x, &f[e as usize]),
            Geometry::Shape(s) => s.signed_distance(x).abs(),
        }
    }

    /// The front element closest to `x` found by descending from `start` to facets sharing a node
    /// (those sharing an edge tried first, the first improvement taken) while the distance
    /// decreases, and its distance. A node inheriting its neighbour's facet may
    /// not be closest to that very facet where the front curves towards it; the descent reaches the
    /// closest one on a smooth front. Moving through shared nodes rather than edges matters when
    /// the closest point of the current facet is a vertex: the closer facet may share only that
    /// vertex.
    ///
    /// On a curved front the descent runs on the straight facets and the distance returned is to
    /// the last facet's patch: one patch evaluation instead of one per facet tried (with one per
    /// facet, closest-point mode on the h = 0.2 ball took 3.6 times as long). The closest patch
    /// can be a neighbour's only near a shared edge, where the two patches meet; closest-point
    /// mode on curved fronts is at the P1 interpolation floor (1.00–1.03x, `tests/fmm_accuracy.rs`).
    #[inline]
    pub fn descend(&self, x: &Point<D>, start: u32) -> (f64, u32) {
        let (mut best, mut e) = (self.straight(x, start), start);
        if let Geometry::Facets(f, neighbours, curved) = self {
            'descent: loop {
                for &g in neighbours.of(e) {
                    let d = self.straight(x, g);
                    if d < best {
                        (best, e) = (d, g);
                        continue 'descent;
                    }
                }
                break;
            }
            if let Some(curved) = curved {
                best = curved.distance(x, &f[e as usize], e);
            }
        }
        (best, e)
    }

    /// The unit gradient at `x` of the unsigned distance to element `e` (the direction from its
    /// closest point; for a shape, by central differences), zero on the front.
    pub fn direction(&self, x: &Point<D>, e: u32) -> Vector<D> {
        let g = match self {
            Geometry::Facets(f, _, _) => x - math::closest_point_on_facet(x, &f[e as usize]),
            Geometry::Shape(s) => {
                let step = 1e-6 * (1.0 + x.norm());
                Vector::<D>::from_fn(|k, _| {
                    let mut dx = Vector::<D>::zeros();
                    dx[k] = step;
                    s.signed_distance(&(x + dx)).abs() - s.signed_distance(&(x - dx)).abs()
                })
            }
        };
        let n = g.norm();
        if n > 0.0 {
            g / n
        } else {
            Vector::<D>::zeros()
        }
    }

    /// The closest element found by descending from the nearest of `starts` (the smaller index on
    /// ties, so the result does not depend on the order of `starts`): distance and element.
    pub fn closest_from(&self, x: &Point<D>, starts: &[u32]) -> (f64, u32) {
        let (mut best, mut closest) = (f64::INFINITY, NONE);
        for &start in starts {
            let d = self.straight(x, start);
            if d < best || (d == best && start < closest) {
                (best, closest) = (d, start);
            }
        }
        if closest == NONE {
            return (best, closest);
        }
        self.descend(x, closest)
    }
}

/// The march's working arrays.
pub(super) struct State<'a, const D: usize> {
    /// Unsigned tentative or accepted value of each node (infinite if never touched).
    pub value: Vec<f64>,
    pub status: Vec<u8>,
    /// Side of the front: −1 inside, +1 outside (and for unsigned fields).
    pub sign: Vec<i8>,
    /// Closest front element of each node, or NONE.
    pub closest: Vec<u32>,
    /// The smallest linear update of each node so far (the march compares its candidates by it,
    /// and keeps the second-order value of the best in `value`); empty in closest-point mode.
    pub linear: Vec<f64>,
    /// The unit gradient of each node's unsigned value (zero where unknown: on the front, or not
    /// reached), for the march's second-order face values; empty in closest-point mode.
    pub gradient: Vec<Vector<D>>,
    pub heap: NodeHeap,
    /// The initialised nodes, in increasing order of value.
    pub initialised: Vec<u32>,
    /// Initialised nodes whose neighbours are all initialised (the nodes of a front of mesh
    /// facets: every cell around them touches the front), sorted: the march does not relax them.
    pub enclosed: Vec<u32>,
    /// The accepted nodes after the initialised ones, in order.
    pub accepted: Vec<u32>,
    pub geometry: Geometry<'a, D>,
}

impl<'a, const D: usize> State<'a, D> {
    fn new(n: usize, geometry: Geometry<'a, D>) -> Self {
        State {
            value: vec![f64::INFINITY; n],
            status: vec![FAR; n],
            sign: vec![1; n],
            closest: vec![NONE; n],
            linear: Vec::new(),
            gradient: Vec::new(),
            heap: NodeHeap::new(n),
            initialised: Vec::new(),
            enclosed: Vec::new(),
            accepted: Vec::new(),
            geometry,
        }
    }

    fn freeze(&mut self, v: u32, value: f64, sign: i8, closest: u32) {
        let i = v as usize;
        if self.status[i] != ACCEPTED {
            self.initialised.push(v);
        }
        self.status[i] = ACCEPTED;
        self.value[i] = value;
        self.sign[i] = sign;
        self.closest[i] = closest;
    }

    /// Makes `v` a trial node with its current value, on the side of `a` that updated it.
    pub fn offer(&mut self, v: u32, a: u32) {
        let i = v as usize;
        self.status[i] = TRIAL;
        self.sign[i] = self.sign[a as usize];
        self.heap.push_or_decrease(v, self.value[i]);
    }

    pub fn finish(
        self,
        d_max: f64,
        default: f64,
        options: &FmmOptions,
        init_seconds: f64,
        march_seconds: f64,
    ) -> DistanceField<D> {
        let reached: Vec<bool> = self
            .status
            .iter()
            .zip(&self.value)
            .map(|(&s, &v)| s == ACCEPTED && v <= d_max)
            .collect();
        let values = reached
            .iter()
            .zip(self.value.iter().zip(&self.sign))
            .map(|(&r, (&v, &s))| if r { f64::from(s) * v } else { default })
            .collect();
        let accepted = reached.iter().filter(|&&r| r).count();
        let mut order = self.initialised.clone();
        order.extend(&self.accepted);
        let closest = options.closest_point.then(|| {
            self.closest
                .iter()
                .zip(&reached)
                .map(|(&c, &r)| if r { c } else { NONE })
                .collect()
        });
        DistanceField {
            values,
            reached,
            closest,
            order,
            front_facets: match self.geometry {
                Geometry::Facets(f, _, _) => f,
                Geometry::Shape(_) => Vec::new(),
            },
            max_distance: d_max,
            stats: FmmStats {
                accepted,
                initialised: self.initialised.len(),
                init_seconds,
                march_seconds,
            },
        }
    }
}

pub(super) fn initialise<'a, const D: usize>(
    mesh: &SimplexMesh<D>,
    front: &Front<'a, D>,
    options: &FmmOptions,
) -> Result<State<'a, D>, FmmError> {
    let mut state = match front {
        Front::Markers(markers) => from_facets(mesh, markers, options.signed, options.curved_front)?,
        Front::Shape(shape) => from_shape(mesh, *shape)?,
        Front::Surface { points, facets } => from_surface(mesh, points, facets, options.signed, options.curved_front)?,
    };
    if !options.signed {
        state.sign.fill(1);
    }
    let value = &state.value;
    state
        .initialised
        .sort_by(|&a, &b| value[a as usize].total_cmp(&value[b as usize]).then(a.cmp(&b)));
    Ok(state)
}

/// A front of mesh facets.
fn from_facets<'a, const D: usize>(
    mesh: &SimplexMesh<D>,
    markers: &[i32],
    signed: bool,
    curved: bool,
) -> Result<State<'a, D>, FmmError> {
    let facets: Vec<u32> = (0..mesh.facets().len() as u32)
        .filter(|&f| markers.contains(&mesh.facet_markers()[f as usize]))
        .collect();
    if facets.is_empty() {
        return Err(FmmError::EmptyFront(format!("no facet carries marker(s) {markers:?}")));
    }
    let geometry: Vec<[Point<D>; D]> = facets
        .iter()
        .map(|&f| std::array::from_fn(|j| mesh.points()[mesh.facets()[f as usize][j] as usize]))
        .collect();
    let nodes: Vec<[u32; D]> = facets.iter().map(|&f| mesh.facets()[f as usize]).collect();
    let around = NodeFacets::new(&nodes);

    // Cells touching the front (containing a front node), each once, and the position of each
    // cell in that list plus one (0: not touching). Zeroed memory comes from the allocator.
    let mut position = vec![0u32; mesh.num_cells()];
    let mut touching: Vec<u32> = Vec::new();
    for &v in &around.nodes {
        for &c in mesh.cells_of_node(v) {
            if position[c as usize] == 0 {
                touching.push(c);
                position[c as usize] = touching.len() as u32;
            }
        }
    }

    let side = if signed {
        sides(mesh, &facets, &geometry, &around, &touching, &position)?
    } else {
        vec![1; touching.len()]
    };
    drop(position);

    let neighbours = FacetNeighbours::around(&around);
    let curved = curved.then(|| Curved::new(&nodes, &geometry));
    let mut state = State::new(mesh.num_points(), Geometry::Facets(geometry, neighbours, curved));
    for (k, &v) in around.nodes.iter().enumerate() {
        state.freeze(v, 0.0, 1, around.of(k as u32)[0]);
    }
    let mut candidates: Vec<u32> = Vec::with_capacity(64);
    for (&c, &s) in touching.iter().zip(&side) {
        let cell = mesh.cell(c);
        for &u in cell {
            if state.status[u as usize] == ACCEPTED {
                continue;
            }
            // Start from one facet of each front node sharing a cell with u (the nodes frozen at 0
            // so far) and descend along the front from each to the closest facet.
            candidates.clear();
            for &v in mesh.star(u).0 {
                let i = v as usize;
                if state.status[i] == ACCEPTED && state.value[i] == 0.0 {
                    candidates.push(state.closest[i]);
                }
            }
            candidates.sort_unstable();
            candidates.dedup();
            let x = mesh.points()[u as usize];
            let (best, closest) = state.geometry.closest_from(&x, &candidates);
            state.freeze(u, best, s, closest);
        }
    }
    state.enclosed = around.nodes;
    Ok(state)
}

/// The facets of a front around each of its nodes, in compressed rows.
pub(crate) struct NodeFacets<const D: usize> {
    /// The front's nodes, ascending.
    nodes: Vec<u32>,
    /// The facets of `nodes[k]`, ascending: `facets[offsets[k]..offsets[k + 1]]`.
    offsets: Vec<u32>,
    facets: Vec<u32>,
    /// For each facet, the positions of its nodes in `nodes`.
    local: Vec<[u32; D]>,
}

impl<const D: usize> NodeFacets<D> {
    /// The rows of `facets` (given by their nodes): one sort of (node, facet) pairs.
    fn new(facets: &[[u32; D]]) -> Self {
        let mut pairs: Vec<u64> = facets
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.iter().map(move |&v| u64::from(v) << 32 | i as u64))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let (mut nodes, mut offsets) = (Vec::new(), Vec::new());
        let mut list = Vec::with_capacity(pairs.len());
        let mut local = vec![[NONE; D]; facets.len()];
        for &pair in &pairs {
            let (v, i) = ((pair >> 32) as u32, pair as u32);
            if nodes.last() != Some(&v) {
                offsets.push(list.len() as u32);
                nodes.push(v);
            }
            list.push(i);
            for (j, &u) in facets[i as usize].iter().enumerate() {
                if u == v {
                    local[i as usize][j] = nodes.len() as u32 - 1;
                }
            }
        }
        offsets.push(list.len() as u32);
        NodeFacets {
            nodes,
            offsets,
            facets: list,
            local,
        }
    }

    /// The facets around the node at position `k`, ascending.
    #[inline]
    fn of(&self, k: u32) -> &[u32] {
        &self.facets[self.offsets[k as usize] as usize..self.offsets[k as usize + 1] as usize]
    }

    /// The node at place `j` of facet `i`.
    #[inline]
    fn node(&self, i: usize, j: usize) -> u32 {
        self.nodes[self.local[i][j] as usize]
    }

    /// The one other facet sharing ridge `skip` of facet `i` (the facet without its node `skip`: a
    /// node in 2D, an edge in 3D), or, where the front is not closed there, the ridge named
    /// (`node v`, `edge [a, b]`) with the number of facets sharing it.
    fn partner(&self, i: usize, skip: usize) -> Result<u32, (String, usize)> {
        let mut ridge = (0..D).filter(|&j| j != skip).map(|j| self.of(self.local[i][j]));
        let first = ridge.next().expect("D >= 2");
        let second = ridge.next();
        let mut others = first
            .iter()
            .filter(|&&g| g as usize != i && second.is_none_or(|s| s.binary_search(&g).is_ok()));
        match (others.next(), others.count()) {
            (Some(&g), 0) => Ok(g),
            (found, more) => {
                let what = if D == 2 {
                    format!("node {}", self.node(i, 1 - skip))
                } else {
                    let (a, b) = (self.node(i, (skip + 1) % 3), self.node(i, (skip + 2) % 3));
                    format!("edge {:?}", [a.min(b), a.max(b)])
                };
                Err((what, 1 + usize::from(found.is_some()) + more))
            }
        }
    }
}

/// For each front facet, the other facets sharing a node with it, in compressed rows.
#[derive(Debug)]
pub(crate) struct FacetNeighbours {
    offsets: Vec<u32>,
    list: Vec<u32>,
}

impl FacetNeighbours {
    /// The neighbours of `facets` (given by their nodes).
    pub(crate) fn new<const D: usize>(facets: &[[u32; D]]) -> Self {
        Self::around(&NodeFacets::new(facets))
    }

    /// The neighbours of the facets of `around`.
    ///
    /// The rows of a facet's nodes are ascending, so one merge of them lists the other facets
    /// with the number of nodes each shares, in ascending order; they are then listed by that
    /// number, most first (those sharing an edge: the descent takes the first improvement).
    fn around<const D: usize>(around: &NodeFacets<D>) -> Self {
        let mut offsets = Vec::with_capacity(around.local.len() + 1);
        offsets.push(0u32);
        let mut list = Vec::new();
        let mut shared: Vec<(u32, usize)> = Vec::new();
        for (i, nodes) in around.local.iter().enumerate() {
            let mut rows: [&[u32]; D] = std::array::from_fn(|j| around.of(nodes[j]));
            shared.clear();
            loop {
                let g = rows.iter().filter_map(|r| r.first()).fold(u32::MAX, |g, &h| g.min(h));
                if g == u32::MAX {
                    break;
                }
                let mut n = 0;
                for r in &mut rows {
                    if r.first() == Some(&g) {
                        *r = &r[1..];
                        n += 1;
                    }
                }
                if g != i as u32 {
                    shared.push((g, n));
                }
            }
            for n in (1..=D).rev() {
                list.extend(shared.iter().filter(|s| s.1 == n).map(|s| s.0));
            }
            offsets.push(list.len() as u32);
        }
        FacetNeighbours { offsets, list }
    }

    /// The facets sharing a node with `f`, those sharing more nodes first.
    #[inline]
    pub(crate) fn of(&self, f: u32) -> &[u32] {
        &self.list[self.offsets[f as usize] as usize..self.offsets[f as usize + 1] as usize]
    }
}

/// The side (−1 inside, +1 outside) of every cell touching a closed front of facets, in the order
/// of `touching` (`position[c]` is cell `c`'s place there plus one, 0 if it does not touch).
///
/// The facets are first oriented outward ([`orient`]); a cell holding a facet lies on the side its
/// normal points to or away from; the other touching cells take the side of a touching neighbour
/// across a face that is not a front facet (around each front node the front splits the cells into
/// two connected groups, each next to a front facet). Each touching cell knows which of its faces
/// are front facets (a bit per local node opposite): no searching.
fn sides<const D: usize>(
    mesh: &SimplexMesh<D>,
    facets: &[u32],
    geometry: &[[Point<D>; D]],
    around: &NodeFacets<D>,
    touching: &[u32],
    position: &[u32],
) -> Result<Vec<i8>, FmmError> {
    let outward = orient(facets, geometry, around)?;
    let mut side = vec![0i8; touching.len()];
    let mut front_faces = vec![0u8; touching.len()];
    let mut queue = Vec::new();
    for (i, &f) in facets.iter().enumerate() {
        let normal = math::facet_area_normal(&geometry[i][..]) * outward[i];
        for c in mesh.facet_cells()[f as usize] {
            if c == NONE || position[c as usize] == 0 {
                continue;
            }
            let p = position[c as usize] as usize - 1;
            let opposite = mesh
                .cell(c)
                .iter()
                .position(|v| !mesh.facets()[f as usize].contains(v))
                .expect("a cell has a node off its facet");
            front_faces[p] |= 1 << opposite;
            let toward = (mesh.points()[mesh.cell(c)[opposite] as usize] - geometry[i][0]).dot(&normal);
            if side[p] == 0 {
                side[p] = if toward > 0.0 { 1 } else { -1 };
                queue.push(p);
            }
        }
    }
    while let Some(p) = queue.pop() {
        for k in 0..=D {
            let n = mesh.neighbour(touching[p], k);
            if front_faces[p] >> k & 1 == 1 || n == NONE || position[n as usize] == 0 {
                continue;
            }
            let q = position[n as usize] as usize - 1;
            if side[q] == 0 {
                side[q] = side[p];
                queue.push(q);
            }
        }
    }
    debug_assert!(side.iter().all(|&s| s != 0));
    Ok(side)
}

/// For each front facet, ±1: the factor that makes its normal ([`math::facet_area_normal`] of its
/// nodes in the given order) point out of the region the front encloses.
///
/// The front must be closed: every ridge (a node in 2D, an edge in 3D) is shared by exactly two
/// facets. Facets sharing a ridge are consistently oriented when they induce opposite orientations
/// on it (a node is the end of one segment and the start of the next; an edge is traversed in
/// opposite directions); a breadth-first search over the ridges orients each connected component of
/// the front, and the component is then flipped if needed so that `Σ x_f · n_f > 0` (the
/// divergence theorem: its enclosed volume is positive with outward normals). Each component is taken
/// as the boundary of its own region.
fn orient<const D: usize>(
    facets: &[u32],
    geometry: &[[Point<D>; D]],
    around: &NodeFacets<D>,
) -> Result<Vec<f64>, FmmError> {
    let node = |i: usize, j: usize| around.node(i, j);
    // The facet across ridge `skip` of facet `i`, and whether the two are consistently oriented.
    let partner = |i: usize, skip: usize| -> Result<(usize, bool), FmmError> {
        let g = around
            .partner(i, skip)
            .map_err(|(what, n)| FmmError::OpenFront(format!("{what} belongs to {n} front facet(s), not 2")))?
            as usize;
        let place = |v: u32| {
            (0..D)
                .position(|j| node(g, j) == v)
                .expect("a partner shares the ridge")
        };
        let consistent = if D == 2 {
            // The shared node ends one segment and starts the other.
            place(node(i, 1 - skip)) != 1 - skip
        } else {
            // The edge s → t of facet i is t → s in g.
            let (s, t) = (node(i, (skip + 1) % 3), node(i, (skip + 2) % 3));
            (place(t) + 1) % 3 == place(s)
        };
        Ok((g, consistent))
    };
    let mut flip = vec![0.0f64; geometry.len()];
    let (mut component, mut queue) = (Vec::new(), Vec::new());
    for seed in 0..geometry.len() {
        if flip[seed] != 0.0 {
            continue;
        }
        flip[seed] = 1.0;
        component.clear();
        component.push(seed);
        queue.push(seed);
        while let Some(f) = queue.pop() {
            for skip in 0..D {
                let (g, consistent) = partner(f, skip)?;
                let wanted = if consistent { flip[f] } else { -flip[f] };
                if flip[g] == 0.0 {
                    flip[g] = wanted;
                    component.push(g);
                    queue.push(g);
                } else if flip[g] != wanted {
                    return Err(FmmError::OpenFront(format!(
                        "the front is not orientable around facet {} (a non-manifold or one-sided surface)",
                        facets[g]
                    )));
                }
            }
        }
        let enclosed: f64 = component
            .iter()
            .map(|&f| geometry[f][0].dot(&math::facet_area_normal(&geometry[f][..])) * flip[f])
            .sum();
        if enclosed < 0.0 {
            for &f in &component {
                flip[f] = -flip[f];
            }
        }
    }
    Ok(flip)
}

/// Angle-weighted pseudo-normals of a closed front (Bærentzen and Aanæs, "Signed distance
/// computation using the angle weighted pseudonormal", IEEE TVCG 11, 2005): the outward unit normal
/// `n_f` of each facet, the sum `n_f + n_g` of the two facets on an edge, and at a node the sum of
/// its facets' normals weighted by their angles there (in 2D, the two segments' normals). If `c`
/// is the point of the front closest to `x` and `N` the pseudo-normal of the feature `c` lies on,
/// `x` is inside exactly when `(x − c) · N < 0`.
struct PseudoNormals<'a, const D: usize> {
    facet: Vec<Vector<D>>,
    /// By the node's position in `around`.
    node: Vec<Vector<D>>,
    around: &'a NodeFacets<D>,
}

impl<'a, const D: usize> PseudoNormals<'a, D> {
    /// The pseudo-normals of `geometry`, each facet's normal multiplied by its factor in
    /// `outward` ([`orient`]).
    fn new(geometry: &[[Point<D>; D]], around: &'a NodeFacets<D>, outward: &[f64]) -> Self {
        let facet: Vec<Vector<D>> = geometry
            .iter()
            .zip(outward)
            .map(|(g, &o)| math::facet_area_normal(&g[..]).normalize() * o)
            .collect();
        let mut node = vec![Vector::<D>::zeros(); around.nodes.len()];
        for (i, g) in geometry.iter().enumerate() {
            for j in 0..D {
                let angle = if D == 2 {
                    1.0
                } else {
                    let (a, b) = (g[(j + 1) % 3] - g[j], g[(j + 2) % 3] - g[j]);
                    a.angle(&b)
                };
                node[around.local[i][j] as usize] += facet[i] * angle;
            }
        }
        PseudoNormals { facet, node, around }
    }

    /// The side of the front `x` lies on (−1 inside, +1 outside), given its closest facet `e`; by
    /// the winding number (its cost is the number of facets) where the pseudo-normal is nearly
    /// tangent to `x − c`: a closest facet found by descent that is not the closest overall.
    fn side(&self, x: &Point<D>, geometry: &[[Point<D>; D]], e: u32) -> i8 {
        let i = e as usize;
        let (c, feature) = math::closest_feature_on_facet(x, &geometry[i]);
        let normal = match feature {
            Feature::Interior => self.facet[i],
            Feature::Edge(j) => {
                let g = self.around.partner(i, j).expect("a closed front") as usize;
                self.facet[i] + self.facet[g]
            }
            Feature::Vertex(j) => self.node[self.around.local[i][j] as usize],
        };
        let away = x - c;
        let along = away.dot(&normal);
        if along.abs() > 1e-3 * away.norm() * normal.norm() {
            if along < 0.0 {
                -1
            } else {
                1
            }
        } else if away == Vector::<D>::zeros() || math::winding_number(x, geometry).abs() <= 0.5 {
            1
        } else {
            -1
        }
    }
}

/// A polyline or surface of its own: the cells it crosses are found by locating samples of its
/// facets (spaced at half the size of the cells around them); those cells and one ring of cells
/// around them are initialised by descent along the surface from the facets that hit them; the
/// sides come from the closest facet's pseudo-normals ([`PseudoNormals`]).
fn from_surface<'a, const D: usize>(
    mesh: &SimplexMesh<D>,
    points: &[Point<D>],
    facets: &[[u32; D]],
    signed: bool,
    curved: bool,
) -> Result<State<'a, D>, FmmError> {
    if facets.is_empty() {
        return Err(FmmError::EmptyFront("the surface has no facets".into()));
    }
    if let Some((f, facet)) = facets
        .iter()
        .enumerate()
        .find(|(_, f)| f.iter().any(|&v| v as usize >= points.len()))
    {
        return Err(FmmError::Surface(format!(
            "facet {f} refers to node {:?}, the surface has {} nodes",
            facet,
            points.len()
        )));
    }
    if let Some(v) = points.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
        return Err(FmmError::Surface(format!("node {v} has non-finite coordinates")));
    }
    let geometry: Vec<[Point<D>; D]> = facets
        .iter()
        .map(|f| std::array::from_fn(|j| points[f[j] as usize]))
        .collect();
    let around = NodeFacets::new(facets);
    if signed {
        for i in 0..facets.len() {
            for skip in 0..D {
                around.partner(i, skip).map_err(|(what, n)| {
                    FmmError::OpenFront(format!("{what} of the surface belongs to {n} facet(s), not 2"))
                })?;
            }
        }
    }
    // Sample each facet at half the size of the cells around its nodes.
    let mean_size = (mesh.cell_measures().iter().sum::<f64>() / mesh.num_cells() as f64).powf(1.0 / D as f64);
    let size_at = |x: &Point<D>| {
        mesh.locate(x).map_or(mean_size, |c| {
            mesh.cell_measures()[c.cell as usize].powf(1.0 / D as f64)
        })
    };
    let (mut samples, mut owner) = (Vec::new(), Vec::new());
    for (f, g) in geometry.iter().enumerate() {
        let spacing = 0.5 * g.iter().map(size_at).fold(f64::INFINITY, f64::min);
        let longest = (0..D)
            .flat_map(|i| (i + 1..D).map(move |j| (i, j)))
            .map(|(i, j)| (g[i] - g[j]).norm())
            .fold(0.0, f64::max);
        let n = ((longest / spacing).ceil() as usize).clamp(1, 10_000);
        for i in 0..=n {
            for j in 0..=(if D == 3 { n - i } else { 0 }) {
                let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                let p = if D == 2 {
                    g[0] + (g[1] - g[0]) * u
                } else {
                    g[0] + (g[1] - g[0]) * u + (g[2] - g[0]) * v
                };
                samples.push(p);
                owner.push(f as u32);
            }
        }
    }
    // Cells hit by a sample, and the ring of cells sharing a node with them, each with a facet.
    let mut facet_of: HashMap<u32, u32> = HashMap::new();
    for (found, &f) in mesh.locate_many(&samples).iter().zip(&owner) {
        if let Some(c) = found {
            facet_of.entry(c.cell).or_insert(f);
        }
    }
    if facet_of.is_empty() {
        return Err(FmmError::EmptyFront("the surface does not cross the mesh".into()));
    }
    let mut hit: Vec<(u32, u32)> = facet_of.iter().map(|(&c, &f)| (c, f)).collect();
    hit.sort_unstable();
    for &(c, f) in &hit {
        for &v in mesh.cell(c) {
            for &ring in mesh.cells_of_node(v) {
                facet_of.entry(ring).or_insert(f);
            }
        }
    }
    let mut touching: Vec<u32> = facet_of.keys().copied().collect();
    touching.sort_unstable();

    let normals = if signed {
        let ids: Vec<u32> = (0..facets.len() as u32).collect();
        Some(PseudoNormals::new(
            &geometry,
            &around,
            &orient(&ids, &geometry, &around)?,
        ))
    } else {
        None
    };
    let neighbours = FacetNeighbours::around(&around);
    let curved = curved.then(|| Curved::new(facets, &geometry));
    let mut state = State::new(mesh.num_points(), Geometry::Facets(geometry, neighbours, curved));
    let mut starts: Vec<u32> = Vec::new();
    for &c in &touching {
        for &u in mesh.cell(c) {
            if state.status[u as usize] == ACCEPTED {
                continue;
            }
            starts.clear();
            starts.extend(mesh.cells_of_node(u).iter().filter_map(|c2| facet_of.get(c2)));
            starts.sort_unstable();
            starts.dedup();
            let x = mesh.points()[u as usize];
            let (best, closest) = state.geometry.closest_from(&x, &starts);
            let sign = match (&state.geometry, &normals) {
                (Geometry::Facets(g, _, _), Some(normals)) => normals.side(&x, g, closest),
                _ => 1,
            };
            state.freeze(u, best, sign, closest);
        }
    }
    Ok(state)
}

/// A front given by a shape: its signed distance at every node (in parallel); the nodes of the
/// cells where it changes sign are initialised with `|φ|`, and every node knows its side.
fn from_shape<'a, const D: usize>(mesh: &SimplexMesh<D>, shape: &'a dyn Shape<D>) -> Result<State<'a, D>, FmmError> {
    use rayon::prelude::*;
    let phi: Vec<f64> = mesh.points().par_iter().map(|x| shape.signed_distance(x)).collect();
    let mut state = State::new(mesh.num_points(), Geometry::Shape(shape));
    for (s, &p) in state.sign.iter_mut().zip(&phi) {
        *s = if p < 0.0 { -1 } else { 1 };
    }
    for c in 0..mesh.num_cells() as u32 {
        let cell = mesh.cell(c);
        let (lo, hi) = cell.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(phi[v as usize]), hi.max(phi[v as usize]))
        });
        if lo <= 0.0 && hi >= 0.0 {
            for &v in cell {
                let sign = state.sign[v as usize];
                state.freeze(v, phi[v as usize].abs(), sign, 0);
            }
        }
    }
    if state.initialised.is_empty() {
        return Err(FmmError::EmptyFront(
            "the shape's boundary does not cross the mesh".into(),
        ));
    }
    Ok(state)
}
