//! A mesh's nodes identified across periodic faces: for each periodic direction, two marked
//! faces (`xmin` and `xmax` of a box, or a Gmsh mesh's physical groups meshed with its
//! `Periodic` constraint) whose nodes match one to one under the translation by the period.
//!
//! Each node on a `hi` face is paired with the node of the `lo` face at its position less the
//! period (a k-d tree query, within a millionth of the shortest edge), and every node gets a
//! master, the image it is identified with, followed through the directions (a corner of a box
//! periodic along x and y has three images and one master, the one at the lowest corner). What
//! the pairing needs is checked, and a mesh that does not give it is refused naming the node,
//! facet or cell: each face in one plane normal to its axis, the `hi` face's nodes and facets
//! images of the `lo` face's (Gmsh's `Periodic` meshes them so; an independent meshing of the
//! two faces does not), and no cell spanning half a period or more (so that two nodes of a
//! cell, or two edges that are not images of each other, are never identified: three cells
//! across the period at least). Cost: `O(n log n)` in the faces' nodes, once per mesh.

use super::{MeshError, SimplexMesh};
use crate::math::{Periodicity, Point};
use kiddo::{ImmutableKdTree, SquaredEuclidean};
use std::collections::HashSet;

/// One periodic direction of a mesh: its coordinate axis and the names of its two faces, the
/// lower `lo` and the upper `hi` along the axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodicFaces {
    /// The axis, 0 to `D − 1`.
    pub axis: usize,
    /// The lower face's marker name.
    pub lo: String,
    /// The upper face's marker name.
    pub hi: String,
}

impl PeriodicFaces {
    /// The direction of a box's `axis` between its faces `<axis>min` and `<axis>max` (the names
    /// of [`super::generate::axis_box`]).
    pub fn of_box(axis: usize) -> Self {
        let name = ["x", "y", "z"][axis];
        PeriodicFaces {
            axis,
            lo: format!("{name}min"),
            hi: format!("{name}max"),
        }
    }
}

/// The nodes of a mesh identified across its periodic faces (the module's pairing).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeImages<const D: usize> {
    master: Vec<u32>,
    period: Periodicity<D>,
    faces: Vec<PeriodicFaces>,
}

impl<const D: usize> NodeImages<D> {
    /// No periodic direction: every node its own master.
    pub fn none(mesh: &SimplexMesh<D>) -> Self {
        NodeImages {
            master: (0..mesh.num_points() as u32).collect(),
            period: Periodicity::none(),
            faces: Vec::new(),
        }
    }

    /// The node each node is identified with (itself when it is on no `hi` face).
    pub fn masters(&self) -> &[u32] {
        &self.master
    }

    /// The periods.
    pub fn period(&self) -> &Periodicity<D> {
        &self.period
    }

    /// The periodic directions' faces.
    pub fn faces(&self) -> &[PeriodicFaces] {
        &self.faces
    }

    /// Whether the mesh has a periodic direction.
    pub fn any(&self) -> bool {
        !self.faces.is_empty()
    }
}

/// Pairs the nodes of `mesh` across the periodic `faces` (the module's rules; an error names
/// what breaks them).
pub fn identify<const D: usize>(mesh: &SimplexMesh<D>, faces: &[PeriodicFaces]) -> Result<NodeImages<D>, MeshError> {
    let mut images = NodeImages::none(mesh);
    let tolerance = 1e-6 * mesh.shortest_edge();
    let points = mesh.points();
    // Each direction's map from a `hi` node to its `lo` image.
    let mut parent: Vec<u32> = images.master.clone();
    for f in faces {
        if f.axis >= D {
            return Err(MeshError::Invalid(format!(
                "a periodic direction along axis {} in a {D}D mesh",
                f.axis
            )));
        }
        if images.period.axis(f.axis).is_some() {
            return Err(MeshError::Invalid(format!(
                "two periodic directions along axis {}",
                ["x", "y", "z"][f.axis]
            )));
        }
        let (lo_marker, hi_marker) = (mesh.facet_marker(&f.lo)?, mesh.facet_marker(&f.hi)?);
        let nodes_of = |marker: i32| -> Vec<u32> {
            let mut v: Vec<u32> = mesh
                .facets_marked(marker)
                .flat_map(|k| mesh.facets()[k as usize])
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let (lo_nodes, hi_nodes) = (nodes_of(lo_marker), nodes_of(hi_marker));
        let plane = |nodes: &[u32], name: &str| -> Result<f64, MeshError> {
            let Some(&first) = nodes.first() else {
                return Err(MeshError::Invalid(format!("the periodic face '{name}' has no facets")));
            };
            let x = points[first as usize][f.axis];
            match nodes
                .iter()
                .find(|&&v| (points[v as usize][f.axis] - x).abs() > tolerance)
            {
                Some(&v) => Err(MeshError::Node {
                    node: v,
                    message: format!(
                        "on the periodic face '{name}' at {axis} = {}, where node {first} of the same face is at {x}: \
                         a periodic face lies in one plane normal to its axis {axis}",
                        points[v as usize][f.axis],
                        axis = ["x", "y", "z"][f.axis]
                    ),
                }),
                None => Ok(x),
            }
        };
        let (lo, hi) = (plane(&lo_nodes, &f.lo)?, plane(&hi_nodes, &f.hi)?);
        if hi <= lo {
            return Err(MeshError::Invalid(format!(
                "the periodic face '{}' (at {} = {hi}) is not above '{}' (at {lo})",
                f.hi,
                ["x", "y", "z"][f.axis],
                f.lo
            )));
        }
        let length = hi - lo;
        let keys: Vec<[f64; D]> = lo_nodes.iter().map(|&v| points[v as usize].into()).collect();
        let tree: ImmutableKdTree<f64, D> =
            ImmutableKdTree::new_from_slice(&keys).map_err(|e| MeshError::Invalid(e.to_string()))?;
        let mut hit = vec![false; lo_nodes.len()];
        for &v in &hi_nodes {
            let mut target: Point<D> = points[v as usize];
            target[f.axis] -= length;
            let key: [f64; D] = target.into();
            let found = tree.query(&key).nearest_one::<SquaredEuclidean<f64>>().execute();
            let image = lo_nodes[found.item as usize];
            if found.distance.sqrt() > tolerance {
                return Err(MeshError::Node {
                    node: v,
                    message: format!(
                        "on the periodic face '{}' has no image on '{}' at {:?} (the nearest node there, {image}, is {:.3e} away): \
                         the two faces need matching nodes (in Gmsh, mesh them with `Periodic`)",
                        f.hi,
                        f.lo,
                        target.as_slice(),
                        found.distance.sqrt()
                    ),
                });
            }
            hit[found.item as usize] = true;
            parent[v as usize] = image;
        }
        if let Some(k) = hit.iter().position(|h| !h) {
            return Err(MeshError::Node {
                node: lo_nodes[k],
                message: format!(
                    "on the periodic face '{}' is the image of no node of '{}': the two faces need matching nodes",
                    f.lo, f.hi
                ),
            });
        }
        let sorted = |nodes: [u32; D], map: &dyn Fn(u32) -> u32| {
            let mut n = nodes.map(map);
            n.sort_unstable();
            n
        };
        let lo_facets: HashSet<[u32; D]> = mesh
            .facets_marked(lo_marker)
            .map(|k| sorted(mesh.facets()[k as usize], &|v| v))
            .collect();
        if let Some(k) = mesh
            .facets_marked(hi_marker)
            .find(|&k| !lo_facets.contains(&sorted(mesh.facets()[k as usize], &|v| parent[v as usize])))
        {
            return Err(MeshError::Facet {
                facet: k,
                marker: f.hi.clone(),
                origin: String::new(),
                message: format!(
                    "its image is not a facet of '{}': the two faces need matching facets (in Gmsh, mesh them with `Periodic`)",
                    f.lo
                ),
            });
        }
        // Two edges whose ends are images of each other's are the same edge if each spans less
        // than half a period: then their offsets differ by less than a period.
        for c in 0..mesh.num_cells() as u32 {
            let x = mesh.cell(c).iter().map(|&v| points[v as usize][f.axis]);
            let (min, max) = x.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
            if max - min >= 0.5 * length {
                return Err(MeshError::Cell {
                    cell: c,
                    origin: String::new(),
                    message: format!(
                        "spans {:.3e} along {}, half the period {length} or more: a periodic direction needs three cells across at least",
                        max - min,
                        ["x", "y", "z"][f.axis]
                    ),
                });
            }
        }
        images.period = images.period.with_axis(f.axis, lo, length);
        images.faces.push(f.clone());
    }
    // Follow each node's images to the end: at most one step per direction, each lowering a
    // coordinate.
    for v in 0..images.master.len() {
        let mut m = v as u32;
        while parent[m as usize] != m {
            m = parent[m as usize];
        }
        images.master[v] = m;
    }
    Ok(images)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate::axis_box;
    use nalgebra::{Vector2, Vector3};

    fn faces(axes: &[usize]) -> Vec<PeriodicFaces> {
        axes.iter().map(|&a| PeriodicFaces::of_box(a)).collect()
    }

    #[test]
    fn a_box_periodic_along_two_axes_pairs_its_faces_nodes_by_the_periods() {
        let (lo, hi) = (Vector3::new(-1.0, 0.0, 0.0), Vector3::new(1.0, 3.0, 1.0));
        let mesh = axis_box(lo, hi, [4, 3, 5]).unwrap();
        let images = identify(&mesh, &faces(&[0, 1])).unwrap();
        let p = mesh.points();
        let mut slaves = 0;
        for (v, &m) in images.masters().iter().enumerate() {
            let d = p[v] - p[m as usize];
            if m as usize != v {
                slaves += 1;
                // A whole number of periods along x (2) and y (3), nothing along z.
                assert_eq!(d.z, 0.0);
                assert!(
                    (d.x / 2.0 - (d.x / 2.0).round()).abs() < 1e-12 && (d.y / 3.0 - (d.y / 3.0).round()).abs() < 1e-12
                );
                assert!(d.x >= 0.0 && d.y >= 0.0 && d.norm() > 0.5);
            }
            // A master is its own master and sits below both upper faces.
            let pm = p[m as usize];
            assert_eq!(images.masters()[m as usize], m);
            assert!(pm.x < 1.0 - 1e-12 && pm.y < 3.0 - 1e-12);
        }
        // Nodes on xmax or ymax: (5 × 4 − 4 × 3) planes of 6 nodes along z.
        assert_eq!(slaves, (5 * 4 - 4 * 3) * 6);
        assert_eq!(images.period().axis(0), Some((-1.0, 2.0)));
        assert_eq!(images.period().axis(1), Some((0.0, 3.0)));
        assert_eq!(images.period().axis(2), None);
    }

    #[test]
    fn faces_that_do_not_match_are_refused_naming_what_breaks() {
        let mesh = axis_box(Vector2::new(0.0, 0.0), Vector2::new(1.0, 1.0), [4, 4]).unwrap();
        // xmin and ymax are not images of each other along x.
        let wrong = [PeriodicFaces {
            axis: 0,
            lo: "xmin".into(),
            hi: "ymax".into(),
        }];
        let e = identify(&mesh, &wrong).unwrap_err().to_string();
        assert!(e.contains("one plane normal to its axis x"), "{e}");
        // Too few cells across the period.
        let coarse = axis_box(Vector2::new(0.0, 0.0), Vector2::new(1.0, 1.0), [2, 4]).unwrap();
        let e = identify(&coarse, &faces(&[0])).unwrap_err().to_string();
        assert!(e.contains("three cells across"), "{e}");
        let e = identify(
            &mesh,
            &[PeriodicFaces {
                axis: 0,
                lo: "left".into(),
                hi: "xmax".into(),
            }],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no marker named 'left'"), "{e}");
        // A face's node moved along the face: no image.
        let mut moved: Vec<_> = mesh.points().to_vec();
        let k = (0..moved.len())
            .find(|&v| moved[v].x == 1.0 && moved[v].y == 0.5)
            .unwrap();
        moved[k].y = 0.55;
        let e = identify(&mesh.with_points(moved).unwrap(), &faces(&[0]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("node {k}")) && e.contains("no image on 'xmin'"),
            "{e}"
        );
    }
}
