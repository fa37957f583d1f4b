//! Bodies released during a run (`[[inflow]]`, [`super::schema::InflowSpec`]): each table is a
//! template body and a list of release times; at the start of each step the bodies that are due
//! and whose place is free join the simulation.

use super::schema::{BodySpec, InflowSpec};
use super::{Case, CaseError};
use crate::body::{Dim, Kinematics, RigidBody};
use crate::contact::ContactModel;
use crate::math::Vector;
use crate::mesh::SimplexMesh;
use crate::sim::{Simulation, SimulationState};

/// The most bodies one `[[inflow]]` table may release.
const MOST: usize = 1_000_000;

/// One `[[inflow]]` table, built.
#[derive(Debug, Clone)]
pub(super) struct Inflow<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    name: String,
    /// The body every release copies (at the box's centre).
    template: RigidBody<D>,
    spread: Vector<D>,
    /// The release times, ascending.
    times: Vec<f64>,
    /// Bodies released so far.
    released: usize,
}

/// The `n`-th point of Roberts' `R_d` sequence in `[0, 1)^D`: `frac(0.5 + (n + 1) α)`, with
/// `α_a = φ_D^{−(a+1)}` and `φ_D` the root of `x^{D+1} = x + 1` (the golden ratio in 1D).
fn recurrence<const D: usize>(n: usize) -> Vector<D> {
    let mut phi = 2.0f64;
    for _ in 0..30 {
        phi = (1.0 + phi).powf(1.0 / (D as f64 + 1.0));
    }
    Vector::<D>::from_fn(|a, _| (0.5 + (n as f64 + 1.0) * phi.powi(-(a as i32 + 1))).fract())
}

impl<const D: usize> Inflow<D>
where
    Dim<D>: Kinematics<D>,
{
    /// Body `n` of the table: the template named `<name>_<n>` at its place in the release box.
    fn body(&self, n: usize) -> RigidBody<D> {
        let mut b = self.template.clone();
        b.name = format!("{}_{n}", self.name);
        let r = recurrence::<D>(n);
        b.position += self.spread.component_mul(&(r * 2.0 - Vector::<D>::repeat(1.0)));
        b
    }

    /// The template, for the simulation's stable time step and its walls' reach.
    pub(super) fn template(&self) -> &RigidBody<D> {
        &self.template
    }

    /// Into `out`, the bodies due at the time of `sim` (a step's start) whose place is free:
    /// inside the domain (every boundary point, when there are walls) and out of the contact
    /// range of every body present or released before it (bounding spheres farther apart than
    /// the range), so that no contact force kicks it at release. The first that does not fit
    /// waits, and the table's later ones with it.
    fn release(&mut self, sim: &Simulation<D>, out: &mut Vec<RigidBody<D>>) {
        let due = sim.time * (1.0 + 1e-12) + 1e-300;
        let range = sim.contact.model.range;
        while self.released < self.times.len() && self.times[self.released] <= due {
            let mut b = self.body(self.released);
            // Its velocity is the lab's; in a following frame the mesh (and `position`) moves.
            b.velocity -= sim.frame_motion().1;
            let clear =
                |o: &RigidBody<D>| (o.position - b.position).norm() > o.geometry.radius + b.geometry.radius + range;
            let inside = sim.walls.as_ref().is_none_or(|w| {
                w.contains(&b.position) && b.geometry.surface.points.iter().all(|p| w.contains(&b.to_world(p)))
            });
            if !(inside && sim.bodies.iter().chain(out.iter()).all(clear)) {
                break;
            }
            out.push(b);
            self.released += 1;
        }
    }

    /// The release number of the body called `name`, when this table released it.
    fn number(&self, name: &str) -> Option<usize> {
        release_number(&self.name, name)
    }

    /// For a run continued from a checkpoint: counts the table's bodies among `names` (the
    /// bodies present or gone) as released, and returns those of `present` it released, built.
    fn resume<'a>(&mut self, names: impl Iterator<Item = &'a str>, present: &[&str]) -> Vec<RigidBody<D>> {
        self.released = names
            .filter_map(|name| self.number(name))
            .map(|n| n + 1)
            .max()
            .unwrap_or(0);
        present
            .iter()
            .filter_map(|name| self.number(name))
            .map(|n| self.body(n))
            .collect()
    }
}

/// `n` when `body` is `<table>_<n>`, the name table `table` gives its `n`-th release.
fn release_number(table: &str, body: &str) -> Option<usize> {
    body.strip_prefix(table)?.strip_prefix('_')?.parse().ok()
}

/// Whether one of the tables released the body called `name`.
pub(super) fn released_by<const D: usize>(inflows: &[Inflow<D>], name: &str) -> bool
where
    Dim<D>: Kinematics<D>,
{
    inflows.iter().any(|i| i.number(name).is_some())
}

/// For a run continued from a checkpoint: the tables count their bodies in `state` (present or
/// gone) as released, and those still present are built again into `bodies`, for
/// [`Simulation::restore`] to find by name.
pub(super) fn resume<const D: usize>(inflows: &mut [Inflow<D>], state: &SimulationState, bodies: &mut Vec<RigidBody<D>>)
where
    Dim<D>: Kinematics<D>,
{
    let gone = state.exits.iter().map(|e| e.name.as_str());
    let present: Vec<&str> = state.bodies.iter().map(|b| b.name.as_str()).collect();
    for i in inflows {
        bodies.extend(i.resume(gone.clone().chain(present.iter().copied()), &present));
    }
}

/// The bodies of all `inflows` due now in `sim` whose places are free ([`Inflow::release`]).
pub(super) fn release<const D: usize>(inflows: &mut [Inflow<D>], sim: &Simulation<D>) -> Vec<RigidBody<D>>
where
    Dim<D>: Kinematics<D>,
{
    let mut out = Vec::new();
    for i in inflows {
        i.release(sim, &mut out);
    }
    out
}

/// The most bytes the rows of the bodies `inflows` will release take in `bodies.csv` by `end`,
/// written every `period` of time, `row(name)` bytes each: each counted from its release time on,
/// as if none left.
pub(super) fn rows_to_come<const D: usize>(
    inflows: &[Inflow<D>],
    (end, period): (f64, f64),
    row: impl Fn(&str) -> f64,
) -> f64
where
    Dim<D>: Kinematics<D>,
{
    inflows
        .iter()
        .map(|i| {
            i.times
                .iter()
                .enumerate()
                .skip(i.released)
                .map(|(n, t)| ((end - t) / period).max(0.0) * row(&format!("{}_{n}", i.name)))
                .sum::<f64>()
        })
        .sum()
}

impl Case {
    /// The `[[inflow]]` tables for `sim`, built from this case ([`Self::simulation`]'s).
    pub(super) fn inflows_for<const D: usize>(&self, sim: &Simulation<D>) -> Result<Vec<Inflow<D>>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        if self.file.inflow.is_empty() {
            return Ok(Vec::new());
        }
        let resolution = self.file.contact.as_ref().and_then(|c| c.resolution);
        let end = self.time()?.end;
        let domain = sim.walls.as_ref().map(|w| w.mesh());
        self.inflows::<D>((&sim.contact.model, resolution, end), domain, &sim.bodies)
    }

    /// The case's `[[inflow]]` tables, built with the bodies' `range`, lattice `resolution` and
    /// `domain` (as [`Self::simulation`] builds the bodies) for a run that ends at `end`; an error
    /// names the key at fault. `bodies` are the case's own, whose names the released ones must
    /// not take.
    pub(super) fn inflows<const D: usize>(
        &self,
        (contact, resolution, end): (&ContactModel, Option<f64>, f64),
        domain: Option<&SimplexMesh<D>>,
        bodies: &[RigidBody<D>],
    ) -> Result<Vec<Inflow<D>>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        let mut inflows: Vec<Inflow<D>> = Vec::new();
        for (k, spec) in self.file.inflow.iter().enumerate() {
            let at = format!("inflow[{k}]");
            let name = spec.name.clone().unwrap_or_else(|| format!("inflow{k}"));
            if name.is_empty() || name.contains(',') {
                return Err(self.invalid(format!("{at}.name"), "a name without commas, not empty"));
            }
            if inflows.iter().any(|i| i.name == name) {
                return Err(self.invalid(format!("{at}.name"), format!("another [[inflow]] is called '{name}'")));
            }
            let prefix = format!("{name}_");
            if let Some(b) = bodies.iter().find(|b| b.name.starts_with(&prefix)) {
                return Err(self.invalid(
                    format!("{at}.name"),
                    format!(
                        "the bodies it releases are called {name}_0, {name}_1, …, and the body '{}' takes such a name",
                        b.name
                    ),
                ));
            }
            let InflowSpec {
                shape,
                density,
                position,
                angle,
                rotation,
                velocity,
                ..
            } = spec.clone();
            let template = BodySpec {
                name: Some(name.clone()),
                shape,
                density,
                position,
                angle,
                rotation,
                velocity,
                angular_velocity: None,
                grid: None,
                scatter: None,
            };
            let mut built = self.bodies::<D>(
                &[(at.clone(), template)],
                contact,
                resolution,
                (domain, &crate::math::Periodicity::none()),
            )?;
            let template = built.pop().expect("one spec, one body");
            let spread = match &spec.spread {
                None => Vector::<D>::zeros(),
                Some(s) => {
                    let s = self.vector::<D>(&format!("{at}.spread"), s)?;
                    if s.iter().any(|&x| x < 0.0) {
                        return Err(self.invalid(format!("{at}.spread"), "expected numbers ≥ 0"));
                    }
                    s
                }
            };
            let times = self.release_times(spec, &at, end)?;
            inflows.push(Inflow {
                name,
                template,
                spread,
                times,
                released: 0,
            });
        }
        Ok(inflows)
    }

    /// The release times of the inflow table `spec` (at key `at`) in a run that ends at `end`.
    fn release_times(&self, spec: &InflowSpec, at: &str, end: f64) -> Result<Vec<f64>, CaseError> {
        match (&spec.times, spec.rate) {
            (Some(times), None) if spec.start.is_none() && spec.count.is_none() => {
                let ordered = times.windows(2).all(|w| w[0] <= w[1]);
                if times.len() > MOST || !ordered || times.iter().any(|t| !(t.is_finite() && *t >= 0.0)) {
                    return Err(self.invalid(
                        format!("{at}.times"),
                        format!("expected at most {MOST} finite times ≥ 0, ascending"),
                    ));
                }
                Ok(times.clone())
            }
            (None, Some(rate)) => {
                let rate = self.positive(&format!("{at}.rate"), rate)?;
                let start = spec.start.unwrap_or(0.0);
                if !(start.is_finite() && start >= 0.0) {
                    return Err(self.invalid(format!("{at}.start"), format!("expected a time ≥ 0, got {start}")));
                }
                let fit = ((end - start) * rate).floor().max(0.0) + 1.0;
                let count = spec.count.map_or(fit, |c| (c as f64).min(fit));
                if count > MOST as f64 {
                    return Err(self.invalid(
                        format!("{at}.rate"),
                        format!("it releases {count} bodies before the end, more than {MOST}: set `count`"),
                    ));
                }
                Ok((0..count as usize).map(|n| start + n as f64 / rate).collect())
            }
            _ => Err(self.invalid(
                at,
                "give either `times` (a list of release times) or `rate` (with `start` and `count` if wanted)",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::release_number;

    /// A table's releases, and only them, by name (a bed called `base` beside a pour called `ball`).
    #[test]
    fn the_bodies_a_table_released() {
        assert_eq!(release_number("ball", "ball_0"), Some(0));
        assert_eq!(release_number("ball", "ball_417"), Some(417));
        for other in ["base_3", "balls_1", "ball", "ball_", "ball_x", "ball_-1", "ball1"] {
            assert_eq!(release_number("ball", other), None, "{other}");
        }
    }
}
