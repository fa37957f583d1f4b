//! The bodies of a case: `[[bodies]]` tables turned into [`RigidBody`]s.

use super::super::schema::{self, AngularSpec, BodySpec, ShapeSpec};
use super::super::{Case, CaseError};
use crate::body::{default_lattice_step, BodyError, BodyGeometry, Dim, Kinematics, RigidBody};
use crate::contact::ContactModel;
use crate::math::{Periodicity, Point, Vector};
use crate::mesh::SimplexMesh;
use std::collections::HashMap;
use std::sync::Arc;

impl Case {
    /// The bodies, each checked against the domain's size (when there is a domain) before its
    /// lattice is built, and its lattice against the memory budget.
    pub(in crate::case) fn bodies<const D: usize>(
        &self,
        specs: &[(String, BodySpec)],
        contact: &ContactModel,
        resolution: Option<f64>,
        (domain, period): (Option<&SimplexMesh<D>>, &Periodicity<D>),
    ) -> Result<Vec<RigidBody<D>>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        // A body that fits in the domain has a diameter of at most the domain's diagonal, and so
        // reaches at most that far from any point of its convex hull.
        let diagonal = domain.map(|m| {
            let (lo, hi) = m.bounding_box();
            (hi - lo).norm()
        });
        let fits = |field: String, extent: f64| match diagonal {
            Some(diagonal) if extent > diagonal => Err(self.invalid(
                field,
                format!(
                    "the body reaches {extent} from its centre, more than the domain's diagonal \
                     ({diagonal}): it cannot fit in the domain"
                ),
            )),
            _ => Ok(()),
        };
        let mut shared: HashMap<String, Arc<BodyGeometry<D>>> = HashMap::new();
        let mut names: HashMap<String, &str> = HashMap::new();
        let mut bodies = Vec::new();
        for (k, (at, spec)) in specs.iter().enumerate() {
            let field = |key: &str| format!("{at}.{key}");
            let name = spec.name.clone().unwrap_or_else(|| format!("body{k}"));
            if let Some(first) = names.insert(name.clone(), at) {
                return Err(self.invalid(field("name"), format!("'{name}' is also the name of {first}")));
            }
            let density = self.positive(&field("density"), spec.density)?;
            let (shape, feature, extent) = self.shape::<D>(&spec.shape, &field("shape"))?;
            if shape.is_some() {
                fits(field("shape"), extent)?;
            }
            let h = resolution.unwrap_or(default_lattice_step(contact.range, feature));
            let key = format!("{:?} h={h:e}", spec.shape);
            let geometry = match shared.get(&key) {
                Some(g) => g.clone(),
                None => {
                    let built = match shape {
                        Some(s) => BodyGeometry::from_shape(s.as_ref(), h, contact.band()),
                        None => {
                            let file = match &spec.shape {
                                ShapeSpec::Mesh { file } => file.as_str(),
                                _ => "",
                            };
                            let path = self.relative(file);
                            let mesh = self.read_mesh::<D>(&path, &field("shape.file"))?;
                            let points = mesh.points();
                            let centre = points.iter().fold(Point::<D>::zeros(), |s, p| s + p) / points.len() as f64;
                            let extent = points.iter().map(|p| (p - centre).norm()).fold(0.0, f64::max);
                            fits(field("shape.file"), extent)?;
                            BodyGeometry::from_mesh(&mesh, h, contact.band())
                        }
                    };
                    let g = Arc::new(built.map_err(|cause| match cause {
                        BodyError::Mesh(e) if e.is_size_limit() => {
                            let (key, spacing, hint) = match resolution {
                                Some(_) => (
                                    "contact.resolution".to_string(),
                                    format!("{h:e}"),
                                    "a larger `contact.resolution` makes it smaller",
                                ),
                                None => (
                                    field("shape"),
                                    format!("{h:e} = min(range/4, size/20)"),
                                    "is the body's size meant? `contact.resolution` sets the spacing",
                                ),
                            };
                            self.invalid(
                                key,
                                format!(
                                    "body '{name}': {e}; this lattice holds its distance field, spacing {spacing}, \
                                     over the body and 2·range (or the film's cut) around it: {hint}"
                                ),
                            )
                        }
                        cause => CaseError::Body {
                            file: self.path.clone(),
                            body: name.clone(),
                            cause: Box::new(cause),
                        },
                    })?);
                    shared.insert(key, g.clone());
                    g
                }
            };
            let mut body = RigidBody::new(
                &name,
                geometry,
                density,
                self.vector::<D>(&field("position"), &spec.position)?,
            );
            let rotation: Vec<f64> = match (D, spec.angle, &spec.rotation) {
                (2, a, None) => vec![a.unwrap_or(0.0)],
                (3, None, r) => r.clone().unwrap_or_else(|| vec![0.0; 3]),
                (2, _, Some(_)) => return Err(self.invalid(field("rotation"), "2D bodies take `angle` (radians)")),
                _ => return Err(self.invalid(field("angle"), "3D bodies take `rotation` (a rotation vector)")),
            };
            body.rotation = <Dim<D> as Kinematics<D>>::rotation_from(&rotation)
                .filter(|_| rotation.iter().all(|x| x.is_finite()))
                .ok_or_else(|| self.invalid(field("rotation"), format!("expected finite numbers, got {rotation:?}")))?;
            if let Some(v) = &spec.velocity {
                body.velocity = self.vector::<D>(&field("velocity"), v)?;
            }
            if let Some(w) = &spec.angular_velocity {
                let components = match w {
                    AngularSpec::Scalar(x) => vec![*x],
                    AngularSpec::Vector(v) => v.clone(),
                };
                body.angular_velocity = <Dim<D> as Kinematics<D>>::angular_from(&components)
                    .filter(|_| components.iter().all(|x| x.is_finite()))
                    .ok_or_else(|| {
                        self.invalid(
                            field("angular_velocity"),
                            format!(
                                "expected {} finite number{}, got {components:?}",
                                if D == 2 { 1 } else { 3 },
                                if D == 2 { "" } else { "s" }
                            ),
                        )
                    })?;
            }
            // Copies from one entry: their places and rotations, on a grid or scattered.
            let (key, placed): (&str, Vec<(Point<D>, Vec<f64>)>) = match (&spec.grid, &spec.scatter) {
                (None, None) => {
                    bodies.push(body);
                    continue;
                }
                (Some(_), Some(_)) => return Err(self.invalid(field("scatter"), "give either `grid` or `scatter`")),
                (Some(grid), None) => {
                    let (offsets, turn) = self.grid::<D>(grid, &field("grid"))?;
                    let at = |(n, offset): (usize, Vector<D>)| {
                        let turned = rotation.iter().zip(&turn).map(|(r, t)| r + n as f64 * t).collect();
                        (body.position + offset, turned)
                    };
                    ("grid", offsets.into_iter().enumerate().map(at).collect())
                }
                (None, Some(scatter)) => {
                    let gap = scatter.gap.unwrap_or(contact.range);
                    let centres = self.scatter::<D>(scatter, &field("scatter"), (&body, gap), period)?;
                    ("scatter", centres.into_iter().map(|c| (c, rotation.clone())).collect())
                }
            };
            for (n, (position, turned)) in placed.into_iter().enumerate() {
                let mut copy = body.clone();
                copy.name = format!("{name}_{n}");
                if let Some(first) = names.insert(copy.name.clone(), at) {
                    return Err(self.invalid(field(key), format!("the copy '{}' has the name of {first}", copy.name)));
                }
                copy.position = position;
                copy.rotation = <Dim<D> as Kinematics<D>>::rotation_from(&turned)
                    .ok_or_else(|| self.invalid(field("grid.turn"), "the copies' rotations are not finite"))?;
                bodies.push(copy);
            }
        }
        Ok(bodies)
    }

    /// The centres of a scatter's copies of `body` (its position the box's centre), their
    /// bounding spheres `gap` apart through `period`'s images: random sequential addition,
    /// `O(count²)` distance tests; an error if a thousand draws per copy place too few (the box
    /// too full for the count and the gap).
    pub(in crate::case) fn scatter<const D: usize>(
        &self,
        scatter: &schema::ScatterSpec,
        field: &str,
        (body, gap): (&RigidBody<D>, f64),
        period: &Periodicity<D>,
    ) -> Result<Vec<Point<D>>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        const MOST: usize = 1_000_000;
        if scatter.count == 0 || scatter.count > MOST {
            return Err(self.invalid(
                format!("{field}.count"),
                format!("expected 1 to {MOST} copies, got {}", scatter.count),
            ));
        }
        let spread = self.vector::<D>(&format!("{field}.spread"), &scatter.spread)?;
        if spread.iter().any(|s| s.is_nan() || *s < 0.0) {
            return Err(self.invalid(format!("{field}.spread"), "expected half-sides of at least 0"));
        }
        if !(gap.is_finite() && gap >= 0.0) {
            return Err(self.invalid(format!("{field}.gap"), format!("must be a number ≥ 0, got {gap}")));
        }
        let reach = 2.0 * body.geometry.radius + gap;
        let mut rng = crate::broad::sets::SplitMix(scatter.seed.unwrap_or(1));
        let mut centres: Vec<Point<D>> = Vec::with_capacity(scatter.count);
        let mut draws = 0usize;
        while centres.len() < scatter.count {
            if draws >= 1000 * scatter.count {
                return Err(self.invalid(
                    field,
                    format!(
                        "placed {} of {} copies {gap} apart in {draws} draws: the box position ± spread is too \
                         full for them; a larger spread, a smaller count or a smaller gap places them",
                        centres.len(),
                        scatter.count
                    ),
                ));
            }
            draws += 1;
            let x = body.position + Vector::<D>::from_fn(|a, _| spread[a] * (2.0 * rng.uniform() - 1.0));
            if centres.iter().all(|c| period.nearest(&(x - c)).norm() >= reach) {
                centres.push(x);
            }
        }
        Ok(centres)
    }

    /// The offsets of a grid's copies (the first axis fastest) and its turn per copy (as many
    /// components as a rotation: 1 in 2D, 3 in 3D).
    pub(in crate::case) fn grid<const D: usize>(
        &self,
        grid: &schema::GridSpec,
        field: &str,
    ) -> Result<(Vec<Vector<D>>, Vec<f64>), CaseError> {
        const MOST: usize = 10_000_000;
        let total = grid.count.iter().try_fold(1usize, |n, &c| n.checked_mul(c));
        if grid.count.len() != D || grid.count.contains(&0) || total.is_none_or(|n| n > MOST) {
            return Err(self.invalid(
                format!("{field}.count"),
                format!(
                    "expected {D} counts of at least 1, at most {MOST} copies in all, got {:?}",
                    grid.count
                ),
            ));
        }
        let spacing = self.vector::<D>(&format!("{field}.spacing"), &grid.spacing)?;
        let components = if D == 2 { 1 } else { 3 };
        let turn = match &grid.turn {
            None => vec![0.0; components],
            Some(AngularSpec::Scalar(x)) => vec![*x],
            Some(AngularSpec::Vector(v)) => v.clone(),
        };
        if turn.len() != components || turn.iter().any(|x| !x.is_finite()) {
            return Err(self.invalid(
                format!("{field}.turn"),
                format!("expected {components} finite number(s), got {turn:?}"),
            ));
        }
        let mut offsets = Vec::with_capacity(total.unwrap_or(0));
        let mut index = [0usize; D];
        loop {
            offsets.push(Vector::<D>::from_fn(|a, _| index[a] as f64 * spacing[a]));
            let Some(a) = (0..D).find(|&a| index[a] + 1 < grid.count[a]) else {
                break;
            };
            index[a] += 1;
            index[..a].fill(0);
        }
        Ok((offsets, turn))
    }
}
