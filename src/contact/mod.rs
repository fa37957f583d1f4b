//! Contact between rigid bodies and with the walls: detection from distance fields, the
//! repulsive force laws of the specification (section 2 of the main seed) and of Glowinski with
//! their optional dashpot, and the collision law (restitution, friction, rolling resistance).
//!
//! One step of [`ContactSolver::forces`]:
//! 1. bounding spheres `(G_i, R_i)` → broad phase with margin `ρ` → candidate pairs;
//! 2. the wall field at `G_i` → bodies within `R_i + ρ` of a wall;
//! 3. per candidate pair, in parallel: the gap and contact points from the body-frame fields
//!    (module `gap`); per body near a wall: the same with the wall field (module `wall`);
//! 4. per contact, the [`Law`]'s force `F` on `i` (and `−F` on `j`), with torques `(a − G) × F` about
//!    each body's centre of mass at the law's application points `a`: a repulsive law's from the
//!    gap (and its dashpot's from the bodies' velocities, [`ContactModel::damping`]), the
//!    collision law's from the gap, the velocities and each contact's springs
//!    ([`collision`], whose [`Memory`] the solver keeps from step to step);
//! 5. with a lubrication film, steps 3 and 4 again with the film's cut `h_c` for its own patches,
//!    and the film's resistance against the bodies' approach at each ([`lubrication`]); in a
//!    fluid, its step starts from what the fluid does around each body ([`surroundings`]).
//!
//! Forces are summed serially in the order of the contacts, which does not depend on the number of
//! threads, so neither do the results.

pub mod collision;
mod dashpot;
mod gap;
mod host;
mod law;
pub mod lubrication;
mod model;
pub mod shear;
pub mod surroundings;
mod wall;

pub use collision::{Collision, Memory};
pub use gap::{closest_contact, patch_contacts, Scratch};
pub use host::{HostContact, HostError, COLLISION_ON_A_HOST_MESH};
pub use law::{Detection, Law};
pub use lubrication::Lubrication;
pub use model::{ContactError, ContactModel, ContactParameters};
pub use shear::Shear;
pub use surroundings::Surroundings;
pub use wall::Walls;

use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::broad::{BoundingSphere, BroadError, BroadPhase, PeriodicPairs};
use crate::math::{Periodicity, Point, Vector};
use rayon::prelude::*;
use std::borrow::Cow;
use std::time::Instant;

/// The `j` of a contact with a wall.
pub const WALL: u32 = u32::MAX;

/// One contact: the gap between body `i` and body `j` (or a wall) and where it is measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact<const D: usize> {
    /// The body the force is computed for.
    pub i: u32,
    /// The other body, or [`WALL`].
    pub j: u32,
    /// The point of `∂B_i` closest to `B_j` (world frame).
    pub point_i: Point<D>,
    /// The point of `∂B_j` (or of the wall) closest to `B_i`.
    pub point_j: Point<D>,
    /// The signed gap (negative under overlap).
    pub gap: f64,
    /// Unit normal from `B_j` towards `B_i`.
    pub normal: Vector<D>,
    /// In a periodic domain, the shift that takes `B_j` to its image next to `B_i`, where
    /// `point_j` lies (zero for a wall and without periodic directions): `j`'s lever arms are
    /// taken from `G_j + shift` ([`Contact::other`]).
    pub shift: Vector<D>,
}

impl<const D: usize> Contact<D> {
    /// Body `j` as this contact sees it: moved by [`Contact::shift`] to its image next to `i`
    /// ([`image_of`]). Not for a wall.
    pub fn other<'a>(&self, bodies: &'a [RigidBody<D>]) -> Cow<'a, RigidBody<D>>
    where
        Dim<D>: Kinematics<D>,
    {
        image_of(&bodies[self.j as usize], &self.shift)
    }
}

/// Body `b` moved by `shift`, its image across periodic faces: borrowed when the shift is zero,
/// a copy (one string's allocation) for the few pairs that meet across a periodic face.
pub fn image_of<'a, const D: usize>(b: &'a RigidBody<D>, shift: &Vector<D>) -> Cow<'a, RigidBody<D>>
where
    Dim<D>: Kinematics<D>,
{
    if *shift == Vector::<D>::zeros() {
        return Cow::Borrowed(b);
    }
    let mut image = b.clone();
    image.position += shift;
    Cow::Owned(image)
}

/// Seconds spent in each phase of the contact computation, summed over steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContactTimes {
    /// Broad phase (bounding spheres, pairs, bodies near walls).
    pub broad: f64,
    /// Gap evaluation on the distance fields.
    pub distance: f64,
    /// Force laws and their accumulation.
    pub forces: f64,
}

/// Reusable state of the contact computation: the broad phase, buffers and per-body wall hints.
pub struct ContactSolver<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// The parameters.
    pub model: ContactModel,
    broad: PeriodicPairs<D>,
    spheres: Vec<BoundingSphere<D>>,
    centres: Vec<(Point<D>, f64)>,
    /// The candidate pairs and the shift of `j`'s image ([`PeriodicPairs`]).
    pairs: Vec<(u32, u32, Vector<D>)>,
    near_wall: Vec<u32>,
    hints: Vec<u32>,
    /// The contacts found by the last call to [`forces`](Self::forces).
    pub contacts: Vec<Contact<D>>,
    /// The lubrication films of the last call: one per patch of nodes within the film's cut
    /// (empty without [`ContactModel::lubrication`]).
    pub films: Vec<Contact<D>>,
    /// The films' force on each body at the last call (zero without a film).
    pub film_force: Vec<Vector<D>>,
    /// The films' torque on each body at the last call.
    pub film_torque: Vec<Angular<D>>,
    /// What the fluid around each body does over a step, for the film's step (set by a
    /// coupling that resolves the fluid; empty: dry, [`surroundings`]).
    pub surroundings: Vec<Surroundings<D>>,
    /// The pairs (`(i, WALL)` for a wall) whose film reaches the law's range within the step,
    /// left out of [`Self::film_force`] by [`Self::film_forces`] and stepped
    /// with the law by [`Self::law_forces`] instead; sorted.
    pub deferred: Vec<(u32, u32)>,
    /// The deferred films' force and torque summed over the law's sub-steps so far.
    deferred_sum: Vec<(Vector<D>, Angular<D>)>,
    /// Scratch: the films' pushes along their normals.
    pushes: Vec<lubrication::Push<D>>,
    /// Scratch: one sub-step's force and torque of the deferred films.
    substep: (Vec<Vector<D>>, Vec<Angular<D>>),
    /// The collision law's springs of the last call's contacts, sorted by `(i, j)`, and a
    /// buffer for the next.
    memory: Vec<Memory<D>>,
    effects: Vec<Option<collision::Effect<D>>>,
    /// The first body whose centre of mass was outside the domain at the last call.
    pub outside: Option<u32>,
    /// The walls' velocity in the frame the bodies' velocities are measured in: zero in the lab;
    /// in a frame that follows a body, minus the frame's (the walls slide past the bodies). The
    /// collision law's friction and damping, the dashpot and the film take the bodies' velocity
    /// relative to it.
    pub wall_velocity: Vector<D>,
    /// Time spent, per phase.
    pub times: ContactTimes,
    /// The fastest body point's speed over all the bodies, given by a caller that holds only
    /// some of them (a rank of [`crate::sim::Distributed`]); `None`: the fastest of the bodies
    /// given, as on one process. The collision law's reach a step ahead depends on it.
    pub fastest: Option<f64>,
}

impl<const D: usize> ContactSolver<D>
where
    Dim<D>: Kinematics<D>,
{
    /// A solver using the broad-phase method `broad` (see [`crate::broad::sets::method`]).
    pub fn new(model: ContactModel, broad: Box<dyn BroadPhase<D>>) -> Self {
        ContactSolver {
            model,
            broad: PeriodicPairs::new(broad, Periodicity::none()),
            spheres: Vec::new(),
            centres: Vec::new(),
            pairs: Vec::new(),
            near_wall: Vec::new(),
            hints: Vec::new(),
            contacts: Vec::new(),
            films: Vec::new(),
            film_force: Vec::new(),
            film_torque: Vec::new(),
            surroundings: Vec::new(),
            deferred: Vec::new(),
            deferred_sum: Vec::new(),
            pushes: Vec::new(),
            substep: (Vec::new(), Vec::new()),
            memory: Vec::new(),
            effects: Vec::new(),
            outside: None,
            wall_velocity: Vector::<D>::zeros(),
            times: ContactTimes::default(),
            fastest: None,
        }
    }

    /// The broad-phase method's name.
    pub fn broad_name(&self) -> &'static str {
        self.broad.name()
    }

    /// This solver with the domain periodic along `period`'s directions: a body meets the
    /// others' images across the periodic faces ([`PeriodicPairs`], [`Contact::shift`]). The
    /// bodies' centres may lie outside the cell; the walls wrap their queries themselves
    /// ([`Walls::with_period`]).
    pub fn with_period(mut self, period: Periodicity<D>) -> Self {
        self.broad.set_period(period);
        self
    }

    /// The periodic directions (none unless [`Self::with_period`]).
    pub fn period(&self) -> &Periodicity<D> {
        self.broad.period()
    }

    /// Each body's cell of the walls' mesh where its last wall query ended, where the next one
    /// starts (empty before the first step, and without walls). The only state of the solver that the next step's
    /// result depends on: the broad phase's pairs are sorted, so its own state never shows.
    pub fn wall_hints(&self) -> &[u32] {
        &self.hints
    }

    /// The walls' hints, to query the walls for the bodies in their order (or to drop a body's).
    pub fn hints_mut(&mut self) -> &mut Vec<u32> {
        &mut self.hints
    }

    /// Sets the walls' hints ([`Self::wall_hints`]), for a run continued from a checkpoint.
    pub fn set_wall_hints(&mut self, hints: &[u32]) {
        self.hints.clear();
        self.hints.extend_from_slice(hints);
    }

    /// The collision law's springs, one per contact of the last call, sorted by `(i, j)` (empty
    /// for the other laws): with the walls' hints, what the next step's result depends on.
    pub fn memory(&self) -> &[Memory<D>] {
        &self.memory
    }

    /// Sets the springs ([`Self::memory`]), for a run continued from a checkpoint.
    pub fn set_memory(&mut self, memory: Vec<Memory<D>>) {
        self.memory = memory;
        self.memory.sort_unstable_by_key(|m| (m.i, m.j));
    }

    /// Forgets body `k` (removed from the bodies): its wall hint and its contacts' springs; the
    /// bodies after it move down by one.
    pub fn remove_body(&mut self, k: usize) {
        if k < self.hints.len() {
            self.hints.remove(k);
        }
        if k < self.film_force.len() {
            self.film_force.remove(k);
        }
        if k < self.film_torque.len() {
            self.film_torque.remove(k);
        }
        if k < self.surroundings.len() {
            self.surroundings.remove(k);
        }
        let k = k as u32;
        self.memory.retain(|m| m.i != k && m.j != k);
        for m in &mut self.memory {
            m.i -= u32::from(m.i > k);
            if m.j != WALL {
                m.j -= u32::from(m.j > k);
            }
        }
    }

    /// Finds the contacts of `bodies` (and with `walls`) and writes each body's contact force and
    /// torque into `force` and `torque` (overwritten): the law's and the lubrication film's (the
    /// latter also into [`Self::film_force`] and [`Self::film_torque`]). `dt` is the step the
    /// forces will be held over: the collision law's springs stretch by the contacts' sliding
    /// and rolling over it, and the film does its work over the gap it crosses (0: forces looked
    /// at without a step).
    pub fn forces(
        &mut self,
        bodies: &[RigidBody<D>],
        walls: Option<&Walls<D>>,
        dt: f64,
        force: &mut [Vector<D>],
        torque: &mut [Angular<D>],
    ) -> Result<(), BroadError> {
        self.detect(bodies, walls, dt, (true, true))?;
        let t2 = Instant::now();
        self.add_law(bodies, dt, force, torque);
        self.add_films(bodies, dt, None);
        for (f, g) in force.iter_mut().zip(&self.film_force) {
            *f += g;
        }
        for (t, g) in torque.iter_mut().zip(&self.film_torque) {
            *t += *g;
        }
        self.times.forces += t2.elapsed().as_secs_f64();
        Ok(())
    }

    /// The collision law's (or the repulsive law's) force and torque into `force` and `torque`
    /// (overwritten), as [`Self::forces`] without the film, whose force and torque are left as
    /// they are: for a coupling that holds the film over the law's sub-steps
    /// ([`crate::sim::immersed`]); with them the films of the [`Self::deferred`] pairs over the
    /// sub-step `dt`, on the bodies' own momentum (a step that reaches the contact is an impact,
    /// where the fluid's share over a sub-step is small), summed for [`Self::end_substeps`].
    pub fn law_forces(
        &mut self,
        bodies: &[RigidBody<D>],
        walls: Option<&Walls<D>>,
        dt: f64,
        force: &mut [Vector<D>],
        torque: &mut [Angular<D>],
    ) -> Result<(), BroadError> {
        let deferred = !self.deferred.is_empty() && self.model.lubrication.is_some();
        self.detect(bodies, walls, dt, (true, deferred))?;
        let t2 = Instant::now();
        self.add_law(bodies, dt, force, torque);
        if let (true, Some(film)) = (deferred, &self.model.lubrication) {
            let n = bodies.len();
            let (f, t) = &mut self.substep;
            f.clear();
            f.resize(n, Vector::<D>::zeros());
            t.clear();
            t.resize(n, <Dim<D> as Kinematics<D>>::zero());
            lubrication::add_films(
                film,
                &self.films,
                (bodies, &[], &self.wall_velocity),
                dt,
                lubrication::Held::Only(&self.deferred),
                &mut self.pushes,
                f,
                t,
            );
            self.deferred_sum
                .resize(n, (Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero()));
            for k in 0..n {
                force[k] += f[k];
                torque[k] += t[k];
                self.deferred_sum[k].0 += f[k];
                self.deferred_sum[k].1 += t[k];
            }
        }
        self.times.forces += t2.elapsed().as_secs_f64();
        Ok(())
    }

    /// After `substeps` calls of [`Self::law_forces`] over a step: adds the deferred films' mean
    /// force and torque over them to [`Self::film_force`] and [`Self::film_torque`] (the films'
    /// whole force over the step, as the next step's surroundings read it) and forgets them.
    pub fn end_substeps(&mut self, substeps: usize) {
        let scale = 1.0 / substeps.max(1) as f64;
        for (k, (f, t)) in self.deferred_sum.iter().enumerate() {
            if let (Some(ff), Some(ft)) = (self.film_force.get_mut(k), self.film_torque.get_mut(k)) {
                *ff += f * scale;
                *ft += *t * scale;
            }
        }
        self.deferred_sum.clear();
        self.deferred.clear();
    }

    /// The law's force and torque on the contacts of the last detection into `force` and
    /// `torque` (overwritten).
    fn add_law(&mut self, bodies: &[RigidBody<D>], dt: f64, force: &mut [Vector<D>], torque: &mut [Angular<D>]) {
        match &self.model.collision {
            Some(law) => collision::collide(
                law,
                self.model.range,
                &self.contacts,
                (bodies, &self.wall_velocity),
                dt,
                &mut self.memory,
                &mut self.effects,
                force,
                torque,
            ),
            None => {
                self.centres.clear();
                self.centres
                    .extend(bodies.iter().map(|b| (b.position, b.geometry.radius)));
                accumulate(&self.model, &self.contacts, &self.centres, force, torque);
                if self.model.damping > 0.0 {
                    dashpot::add_damping(
                        &self.model,
                        &self.contacts,
                        (bodies, &self.wall_velocity),
                        force,
                        torque,
                    );
                }
            }
        }
    }

    /// The lubrication film's force and torque on every body alone, into [`Self::film_force`]
    /// and [`Self::film_torque`], held over a step `dt`; the law's contacts and springs are left
    /// as they are. For a coupling that puts the film into the fluid's solve and sub-steps the
    /// law ([`crate::sim::immersed`]), less the pairs whose film reaches the law's range within
    /// the step, left to the sub-steps ([`Self::deferred`]).
    pub fn film_forces(
        &mut self,
        bodies: &[RigidBody<D>],
        walls: Option<&Walls<D>>,
        dt: f64,
    ) -> Result<(), BroadError> {
        self.detect(bodies, walls, dt, (false, true))?;
        let t2 = Instant::now();
        self.deferred_sum.clear();
        let mut deferred = std::mem::take(&mut self.deferred);
        deferred.clear();
        let range = self.model.range;
        self.add_films(bodies, dt, Some((&mut deferred, range)));
        self.deferred = deferred;
        self.times.forces += t2.elapsed().as_secs_f64();
        Ok(())
    }

    /// The films' forces of the last detection into [`Self::film_force`] and
    /// [`Self::film_torque`] (zero without a film), less those `deferred` names.
    fn add_films(&mut self, bodies: &[RigidBody<D>], dt: f64, deferred: Option<(&mut Vec<(u32, u32)>, f64)>) {
        self.film_force.clear();
        self.film_force.resize(bodies.len(), Vector::<D>::zeros());
        self.film_torque.clear();
        self.film_torque.resize(bodies.len(), <Dim<D> as Kinematics<D>>::zero());
        if let Some(film) = &self.model.lubrication {
            lubrication::add_films(
                film,
                &self.films,
                (bodies, &self.surroundings, &self.wall_velocity),
                dt,
                lubrication::Held::Step(deferred),
                &mut self.pushes,
                &mut self.film_force,
                &mut self.film_torque,
            );
        }
    }

    /// Steps 1–3: the candidate pairs and the bodies near the walls, then the law's contacts
    /// (if `law`) and the films (if `film` and the model has one).
    fn detect(
        &mut self,
        bodies: &[RigidBody<D>],
        walls: Option<&Walls<D>>,
        dt: f64,
        (law, film): (bool, bool),
    ) -> Result<(), BroadError> {
        // The collision law looks a step ahead, as far as the fastest body point moves.
        let given = self.fastest;
        let fastest = || given.unwrap_or_else(|| bodies.iter().map(RigidBody::fastest_point_speed).fold(0.0, f64::max));
        let cut = self.model.reach(fastest, dt);
        let film_cut = self.model.film_reach(fastest, dt).filter(|_| film);
        // The broad phase and the walls look as far as the law or the film does.
        let search = cut.max(film_cut.unwrap_or(0.0));
        let detection = self.model.law.detection();
        let start = Instant::now();
        self.spheres.clear();
        self.spheres.extend(bodies.iter().map(|b| BoundingSphere {
            centre: b.position,
            radius: b.geometry.radius,
        }));
        self.broad.pairs(&self.spheres, search, &mut self.pairs)?;
        self.near_wall.clear();
        self.outside = None;
        if let Some(w) = walls {
            // One hint a body, kept only with walls (a box periodic every way has none to hint).
            self.hints.resize(bodies.len(), 0);
            for (k, b) in bodies.iter().enumerate() {
                let (d, _) = w.query(&b.position, &mut self.hints[k]);
                if d < 0.0 && self.outside.is_none() {
                    self.outside = Some(k as u32);
                }
                if d <= b.geometry.radius + search {
                    self.near_wall.push(k as u32);
                }
            }
        }
        let t1 = Instant::now();
        self.times.broad += (t1 - start).as_secs_f64();

        // Each thread folds its run of pairs into its own lists (the law's contacts, the films')
        // with its own scratch buffers; the lists are joined in order, so the contacts come in the
        // order of the pairs.
        let (mut contacts, mut films) = self
            .pairs
            .par_iter()
            .fold(
                || (Vec::new(), Vec::new(), Scratch::default()),
                |(mut out, mut films, mut scratch), &(i, j, shift)| {
                    let bi = &bodies[i as usize];
                    // Across a periodic face, `j`'s image next to `i`.
                    let image = image_of(&bodies[j as usize], &shift);
                    let bj = &*image;
                    let (first, first_film) = (out.len(), films.len());
                    match detection {
                        _ if !law => {}
                        Detection::ClosestPoints => out.extend(closest_contact(i, j, bi, bj, cut)),
                        Detection::NearestPatch => {
                            patch_contacts(i, j, bi, bj, cut, &mut scratch, &mut out);
                            keep_nearest_from(&mut out, first);
                        }
                        Detection::AllPatches => patch_contacts(i, j, bi, bj, cut, &mut scratch, &mut out),
                    }
                    if let Some(h) = film_cut {
                        gap::patches(i, j, (bi, bj), (h, true), &mut scratch, &mut films);
                    }
                    for c in out[first..].iter_mut().chain(films[first_film..].iter_mut()) {
                        c.shift = shift;
                    }
                    (out, films, scratch)
                },
            )
            .map(|(out, films, _)| (out, films))
            .reduce(
                || (Vec::new(), Vec::new()),
                |a, b| (concatenate(a.0, b.0), concatenate(a.1, b.1)),
            );
        if let Some(w) = walls {
            let hints = &self.hints;
            let (wall_contacts, wall_films) = self
                .near_wall
                .par_iter()
                .fold(
                    || (Vec::new(), Vec::new(), Scratch::default()),
                    |(mut out, mut films, mut scratch), &i| {
                        let body = (i, &bodies[i as usize]);
                        let mut hint = hints[i as usize];
                        if law {
                            w.contacts(body, (detection, cut, false), &mut hint, &mut scratch, &mut out);
                        }
                        if let Some(h) = film_cut {
                            w.contacts(
                                body,
                                (Detection::AllPatches, h, true),
                                &mut hint,
                                &mut scratch,
                                &mut films,
                            );
                        }
                        (out, films, scratch)
                    },
                )
                .map(|(out, films, _)| (out, films))
                .reduce(
                    || (Vec::new(), Vec::new()),
                    |a, b| (concatenate(a.0, b.0), concatenate(a.1, b.1)),
                );
            contacts.extend(wall_contacts);
            films.extend(wall_films);
        }
        if film {
            self.films = films;
        }
        if law {
            self.contacts = contacts;
        }
        self.times.distance += t1.elapsed().as_secs_f64();
        Ok(())
    }
}

/// Keeps, of the contacts from index `first` on, only the one with the smallest gap (the first of
/// equals).
pub(crate) fn keep_nearest_from<const D: usize>(contacts: &mut Vec<Contact<D>>, first: usize) {
    if let Some(k) = (first..contacts.len()).min_by(|&a, &b| contacts[a].gap.total_cmp(&contacts[b].gap)) {
        contacts.swap(first, k);
        contacts.truncate(first + 1);
    }
}

/// `a` followed by `b`.
fn concatenate<T>(mut a: Vec<T>, mut b: Vec<T>) -> Vec<T> {
    a.append(&mut b);
    a
}

/// The force and torque of every contact of a repulsive law on its bodies (its dashpot aside),
/// summed in the order of `contacts`:
/// `F` on `i` and `−F` on `j` (see [`ContactModel::force`]), with torques about the centres of mass
/// at the law's application points. `bodies[k]` is body `k`'s centre of mass and bounding radius;
/// `force` and `torque` are overwritten.
pub fn accumulate<const D: usize>(
    model: &ContactModel,
    contacts: &[Contact<D>],
    bodies: &[(Point<D>, f64)],
    force: &mut [Vector<D>],
    torque: &mut [Angular<D>],
) where
    Dim<D>: Kinematics<D>,
{
    force.fill(Vector::<D>::zeros());
    torque.fill(<Dim<D> as Kinematics<D>>::zero());
    for c in contacts {
        let (gi, ri) = bodies[c.i as usize];
        if c.j == WALL {
            let f = model.force(c, ri, None);
            let (a, _) = model.law.application_points(&c.point_i, &c.point_j);
            force[c.i as usize] += f;
            torque[c.i as usize] += <Dim<D> as Kinematics<D>>::torque(&(a - gi), &f);
        } else {
            let (gj, rj) = bodies[c.j as usize];
            let gj = gj + c.shift;
            let f = model.force(c, ri, Some(rj));
            let (ai, aj) = model.law.application_points(&c.point_i, &c.point_j);
            force[c.i as usize] += f;
            force[c.j as usize] -= f;
            torque[c.i as usize] += <Dim<D> as Kinematics<D>>::torque(&(ai - gi), &f);
            torque[c.j as usize] += <Dim<D> as Kinematics<D>>::torque(&(aj - gj), &(-f));
        }
    }
}
