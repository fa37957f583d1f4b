//! The walls: the distance field `D_Ω` of the domain mesh's wall markers, computed once, unsigned,
//! in closest-point mode (each node knows its closest wall facet).
//!
//! A point `x` inside the mesh is located (walking from a hint) and its wall distance is the exact
//! distance to the nearest of the wall facets reached by descent from those its cell's nodes point
//! to: the projection on that facet is the wall's contact point, exact for straight walls and in
//! corners. This replaces the
//! specification's minimum of `D_i` over the wall's nodes, whose error is half the wall's mesh
//! size. A point outside the mesh (a body overlapping a wall) gets minus its distance to the nearest
//! wall facet.
//!
//! The marked facets that are not walls are the domain's openings (an inlet, an outlet): a point
//! outside the mesh nearer to an opening than to any wall has left through it and is beyond the
//! walls' reach, and a body whose centre has done so has left the domain
//! ([`Walls::opening_crossed`]).
//!
//! In a periodic domain ([`Walls::with_period`]) the periodic faces are neither walls nor
//! openings, and a point beyond one is the point wrapped into the cell.

use super::gap::{centre_of_pressure, for_each_patch, lowest_gap, ring_of, Probe, Scratch};
use super::{keep_nearest_from, Contact, Detection, WALL};
use crate::body::{Dim, Kinematics, RigidBody};
use crate::fmm::topology::FacetNeighbours;
use crate::fmm::{distance_to_range, FmmError, FmmOptions, Front};
use crate::math::{self, Periodicity, Point, Vector};
use crate::mesh::{SimplexMesh, NONE};
use rayon::prelude::*;
use std::collections::HashMap;

/// The domain's walls and their distance field.
#[derive(Debug)]
pub struct Walls<const D: usize> {
    mesh: SimplexMesh<D>,
    /// The field's values (`band` beyond the band).
    values: Vec<f64>,
    /// The wall facet closest to each node (`NONE` beyond the band).
    closest: Vec<u32>,
    /// The wall facets' corners.
    facets: Vec<[Point<D>; D]>,
    /// The wall facets sharing a node with each wall facet.
    neighbours: FacetNeighbours,
    /// The openings' facets (the marked facets that are not walls) and their markers.
    openings: Vec<[Point<D>; D]>,
    opening_markers: Vec<i32>,
    band: f64,
    /// The domain's periodic directions: a point is wrapped into the cell before it is located.
    period: Periodicity<D>,
}

impl<const D: usize> Walls<D> {
    /// The walls of `mesh` marked `names`, with a field computed up to `band` from them.
    pub fn new(mesh: SimplexMesh<D>, names: &[&str], band: f64) -> Result<Self, FmmError> {
        let markers = names
            .iter()
            .map(|n| mesh.facet_marker(n))
            .collect::<Result<Vec<i32>, _>>()?;
        Self::from_markers(mesh, &markers, band)
    }

    /// The walls of `mesh` whose facets carry `markers` (Gmsh's physical tags), as [`Self::new`].
    pub fn from_markers(mesh: SimplexMesh<D>, markers: &[i32], band: f64) -> Result<Self, FmmError> {
        let front = Front::Markers(markers.to_vec());
        let options = FmmOptions {
            max_distance: Some(band),
            default_value: Some(band),
            signed: false,
            closest_point: true,
            curved_front: false,
        };
        let field = distance_to_range(&mesh, &front, &options)?;
        mesh.locator_ready();
        let (openings, opening_markers) = mesh
            .facets()
            .iter()
            .zip(mesh.facet_markers())
            .filter(|(_, m)| !markers.contains(m))
            .map(|(f, &m)| (f.map(|v| mesh.points()[v as usize]), m))
            .unzip();
        let mut ids: HashMap<[u64; D], u32> = HashMap::new();
        let nodes: Vec<[u32; D]> = field
            .front_facets
            .iter()
            .map(|f| {
                f.map(|p| {
                    let next = ids.len() as u32;
                    *ids.entry(std::array::from_fn(|a| p[a].to_bits())).or_insert(next)
                })
            })
            .collect();
        let mut walls = Walls {
            closest: field.closest.unwrap_or_default(),
            values: field.values,
            facets: field.front_facets,
            neighbours: FacetNeighbours::new(&nodes),
            openings,
            opening_markers,
            mesh,
            band,
            period: Periodicity::none(),
        };
        walls.closest = walls.refined_closest();
        Ok(walls)
    }

    /// Each node's closest wall facet, made the nearest of those reached by descent from its own
    /// and from those of the nodes sharing a cell with it. Fast marching passes a node the closest
    /// facet of the upwind neighbours it was reached from, which on a coarse or stretched mesh
    /// near an edge of the walls (a floor meeting a side wall) can be the farther wall's: a slot's
    /// default mesh, cells of 1.25 × 0.083 × 0.625, gave a node 0.5 from the side wall and 0.625
    /// from the floor the floor's facet. Cost: a few descents a node within the band, once.
    fn refined_closest(&self) -> Vec<u32> {
        (0..self.mesh.num_points() as u32)
            .into_par_iter()
            .map_init(Vec::new, |tried: &mut Vec<u32>, v| {
                if self.closest[v as usize] == NONE {
                    return NONE;
                }
                let x = self.mesh.points()[v as usize];
                tried.clear();
                for &c in self.mesh.cells_of_node(v) {
                    for &u in self.mesh.cell(c) {
                        let f = self.closest[u as usize];
                        if f != NONE && !tried.contains(&f) {
                            tried.push(f);
                        }
                    }
                }
                self.nearest_by_descent(&x, tried.iter().copied()).1
            })
            .collect()
    }

    /// These walls in a domain periodic along `period`'s directions, whose faces carry the
    /// markers `faces` (neither walls nor openings): every query wraps its point into the cell
    /// and gives the wall's point next to the point as given.
    pub fn with_period(mut self, period: Periodicity<D>, faces: &[i32]) -> Self {
        self.period = period;
        let (openings, markers) = self
            .openings
            .iter()
            .zip(&self.opening_markers)
            .filter(|(_, m)| !faces.contains(m))
            .map(|(f, &m)| (*f, m))
            .unzip();
        (self.openings, self.opening_markers) = (openings, markers);
        self
    }

    /// The domain mesh.
    pub fn mesh(&self) -> &SimplexMesh<D> {
        &self.mesh
    }

    /// The field's node values (for output).
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The band the field was computed in.
    pub fn band(&self) -> f64 {
        self.band
    }

    /// The wall distance at `x` and the closest wall point, walking from the cell `hint` (updated to
    /// `x`'s cell). `(band, x)` beyond the band; negative outside the mesh, except beyond an
    /// opening (nearer to it than to any wall): `(band, x)` there too.
    pub fn query(&self, x: &Point<D>, hint: &mut u32) -> (f64, Point<D>) {
        let y = self.period.wrap(x);
        let back = x - y;
        let (d, w) = self.query_in_mesh(&y, hint).unwrap_or_else(|| {
            let (d, w, _) = self.nearest_facet(&y, &self.facets);
            if self.opening_nearer_than(&y, d).is_some() {
                return (self.band, y);
            }
            (-d, w)
        });
        (d, w + back)
    }

    /// [`query`](Self::query) for `x` inside the mesh (wrapped into the cell), `None` outside
    /// it: the distance to the nearest wall facet, capped at the band, so that the value is
    /// 1-Lipschitz in `x`.
    fn query_in_mesh(&self, x: &Point<D>, hint: &mut u32) -> Option<(f64, Point<D>)> {
        let found = self.mesh.locate_from(x, *hint)?;
        *hint = found.cell;
        // The nodes' closest facets need not hold x's projection (on a flat wall every facet
        // around a node is as close to it), nor lie on x's nearest wall (in a corner, a cell's
        // nodes nearest the floor and the one nearest the side wall may see x nearer the
        // floor's facet than the side wall's first facet): descend from each to facets sharing a
        // node while one is closer, and keep the nearest.
        let cell = self.mesh.cell(found.cell);
        let starts = cell.iter().enumerate().filter_map(|(k, &v)| {
            let f = self.closest[v as usize];
            (f != NONE && !cell[..k].iter().any(|&u| self.closest[u as usize] == f)).then_some(f)
        });
        let best = self.nearest_by_descent(x, starts);
        if best.1 == NONE {
            return Some((self.band, *x));
        }
        let w = math::closest_point_on_facet::<D>(x, &self.facets[best.1 as usize]);
        Some((best.0.min(self.band), w))
    }

    /// The nearest to `x` of the facets [`descend`](Self::descend) reaches from each of `starts`
    /// (the lowest index among equals), with its distance; `(∞, NONE)` without a start.
    fn nearest_by_descent(&self, x: &Point<D>, starts: impl Iterator<Item = u32>) -> (f64, u32) {
        starts
            .map(|f| self.descend(x, f))
            .fold((f64::INFINITY, NONE), |best, reached| {
                if reached.0 < best.0 || (reached.0 == best.0 && reached.1 < best.1) {
                    reached
                } else {
                    best
                }
            })
    }

    /// From facet `f`, the facets sharing a node while one is nearer to `x`: the last one and
    /// its distance.
    fn descend(&self, x: &Point<D>, f: u32) -> (f64, u32) {
        let mut best = (self.facet_distance(x, f), f);
        'descent: loop {
            for &g in self.neighbours.of(best.1) {
                let d = self.facet_distance(x, g);
                if d < best.0 {
                    best = (d, g);
                    continue 'descent;
                }
            }
            return best;
        }
    }

    fn facet_distance(&self, x: &Point<D>, f: u32) -> f64 {
        (x - math::closest_point_on_facet::<D>(x, &self.facets[f as usize])).norm()
    }

    /// Whether `x` is inside the domain mesh.
    pub fn contains(&self, x: &Point<D>) -> bool {
        self.mesh.locate(&self.period.wrap(x)).is_some()
    }

    /// The marker of the opening `x` has crossed: `Some` when `x` is outside the mesh and nearer
    /// to an opening than to any wall; `None` inside the mesh (walking from `hint`, updated) or
    /// beyond a wall.
    pub fn opening_crossed(&self, x: &Point<D>, hint: &mut u32) -> Option<i32> {
        let x = &self.period.wrap(x);
        if let Some(found) = self.mesh.locate_from(x, *hint) {
            *hint = found.cell;
            return None;
        }
        let wall = self.nearest_facet(x, &self.facets).0;
        self.opening_nearer_than(x, wall).map(|k| self.opening_markers[k])
    }

    /// The nearest opening facet to `x` (its index) if it is nearer than `wall`, the distance to
    /// the nearest wall facet.
    fn opening_nearer_than(&self, x: &Point<D>, wall: f64) -> Option<usize> {
        let (d, _, k) = self.nearest_facet(x, &self.openings);
        (d < wall).then_some(k)
    }

    /// The distance from `x` to the nearest of `facets`, its closest point there and the
    /// facet's index (`(∞, x, 0)` for none).
    fn nearest_facet(&self, x: &Point<D>, facets: &[[Point<D>; D]]) -> (f64, Point<D>, usize) {
        let mut best = (f64::INFINITY, *x, 0);
        for (k, f) in facets.iter().enumerate() {
            let p = math::closest_point_on_facet::<D>(x, f);
            let d = (x - p).norm();
            if d < best.0 {
                best = (d, p, k);
            }
        }
        best
    }

    /// The contacts of body `i` with the walls within `cut`, found as `detection` says
    /// ([`super::Law::detection`]): the closest boundary node, or one contact per connected patch
    /// of nodes within `cut` (or only the nearest patch) at the patch's centre of pressure (see
    /// [`super::patch_contacts`]), its gap refined below the patch's lowest node if `refine` (the
    /// lubrication films', `contact::gap::lowest_gap`). `hint` is a cell near the body, updated.
    pub fn contacts(
        &self,
        (i, body): (u32, &RigidBody<D>),
        (detection, cut, refine): (Detection, f64, bool),
        hint: &mut u32,
        scratch: &mut Scratch<D>,
        out: &mut Vec<Contact<D>>,
    ) where
        Dim<D>: Kinematics<D>,
    {
        let surface = &body.geometry.surface;
        let patches = detection != Detection::ClosestPoints;
        let first = out.len();
        let mut near = std::mem::take(&mut scratch.near);
        let mut walls = std::mem::take(&mut scratch.walls);
        let mut pairs = std::mem::take(&mut scratch.pairs);
        near.clear();
        walls.clear();
        pairs.clear();
        let mut best: Option<(Probe<D>, Point<D>)> = None;
        let rotation = body.matrix();
        let clusters = &body.geometry.clusters;
        for c in 0..clusters.len() {
            // A cluster whose centre is inside the mesh and farther than `cut + 2 r` from the walls
            // holds no node within `cut` (the distance is 1-Lipschitz; the second `r` covers a
            // nearest facet the search from the mesh's nodes misses on a curved wall).
            let (centre, r) = (body.position + rotation * clusters.centres[c], clusters.radii[c]);
            if self
                .query_in_mesh(&self.period.wrap(&centre), hint)
                .is_some_and(|(d, _)| d - 2.0 * r > cut)
            {
                continue;
            }
            for &k in clusters.nodes(c) {
                let x = body.position + rotation * surface.points[k as usize];
                let (d, w) = self.query(&x, hint);
                if d > cut {
                    continue;
                }
                let probe = Probe {
                    node: k,
                    value: d,
                    local: x,
                };
                if patches {
                    pairs.push((probe, w));
                } else if best.is_none_or(|(b, _)| d < b.value || (d == b.value && k < b.node)) {
                    best = Some((probe, w));
                }
            }
        }
        if patches {
            // The patch search wants the nodes in order.
            pairs.sort_unstable_by_key(|(p, _)| p.node);
            near.extend(pairs.iter().map(|&(p, _)| p));
            walls.extend(pairs.iter().map(|&(_, w)| w));
        }
        scratch.pairs = pairs;
        let normal_at = |p: &Probe<D>, w: &Point<D>| {
            ((p.local - w) * p.value.signum())
                .try_normalize(1e-300)
                .or_else(|| (body.position - w).try_normalize(1e-300))
                .unwrap_or_else(Vector::<D>::zeros)
        };
        let mut emit = |gap: f64, normal: Vector<D>, xi: Point<D>, xw: Point<D>| {
            out.push(Contact {
                i,
                j: WALL,
                point_i: xi,
                point_j: xw,
                gap,
                normal,
                shift: Vector::<D>::zeros(),
            });
        };
        if patches {
            for_each_patch(
                &near,
                |v| surface.neighbours(v),
                scratch,
                |p: Probe<D>, members: &[usize]| {
                    let k = near.binary_search_by_key(&p.node, |q| q.node).unwrap_or(0);
                    let area = |m: usize| surface.node_areas[near[m].node as usize];
                    let on_body =
                        centre_of_pressure(members.iter().map(|&m| (near[m].local, near[m].value, area(m))), cut);
                    let on_wall = centre_of_pressure(members.iter().map(|&m| (walls[m], near[m].value, area(m))), cut);
                    let normal = normal_at(&p, &walls[k]);
                    let gap = if refine {
                        // The body's curvature at its lowest node, in the world frame (the
                        // wall's counts as flat).
                        let curvature = rotation * body.geometry.curvatures[p.node as usize] * rotation.transpose();
                        let ring = ring_of(&near, surface.neighbours(p.node));
                        lowest_gap((&p.local, p.value), ring, &normal, &curvature)
                    } else {
                        p.value
                    };
                    emit(gap, normal, on_body.unwrap_or(p.local), on_wall.unwrap_or(walls[k]));
                },
            );
        } else if let Some((p, w)) = best {
            emit(p.value, normal_at(&p, &w), p.local, w);
        }
        if detection == Detection::NearestPatch {
            keep_nearest_from(out, first);
        }
        scratch.near = near;
        scratch.walls = walls;
    }
}
