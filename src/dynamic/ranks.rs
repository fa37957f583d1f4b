//! A world split across the ranks of a host's communicator, of either dimension: the C ABI's and
//! other front ends' face of [`Distributed`].

use super::error::{finite, length, Error};
use super::motion::set_motion;
use super::setup::{thread_pool, within};
use super::world::{Any, BodyState, World};
use crate::body::{Dim, Kinematics, RigidBody};
use crate::math::Point;
use crate::sim::{Distributed, Exchange, Partition};

enum AnyRanks {
    D2(Distributed<2>),
    D3(Distributed<3>),
}

/// One rank's share of a [`World`] split across ranks ([`World::distribute`]): the bodies whose
/// centres lie in its part of the domain, and ghosts of the others within contact reach. Bodies
/// are named by their id, their index in the world every rank built.
pub struct RankWorld {
    any: AnyRanks,
    pool: Option<rayon::ThreadPool>,
    /// A body was set since the last exchange: the other ranks' ghosts of it are stale.
    stale: bool,
}

impl World {
    /// This world split across the ranks of `exchange` (every rank built the same world, the
    /// same bodies in the same order, and calls this together): rank `r`'s part of the domain is
    /// the union of its `boxes_per_rank[r]` boxes, taken in rank order from `boxes`, each
    /// `lo` then `hi` (`2 dim` numbers). Each rank keeps the bodies whose centres its part
    /// holds (the lowest rank's, on a shared face) and ghosts of the others within contact
    /// reach ([`Distributed`]). The bodies move to the split world: this one is left without
    /// bodies, also when the split fails after the arguments were checked (a body outside every
    /// part, another rank's failure).
    pub fn distribute(
        &mut self,
        boxes_per_rank: &[usize],
        boxes: &[f64],
        exchange: Box<dyn Exchange>,
    ) -> Result<RankWorld, Error> {
        let dim = self.dim();
        let total: usize = boxes_per_rank.iter().sum();
        length("boxes", boxes, 2 * dim * total)?;
        finite("boxes", boxes)?;
        if boxes_per_rank.len() != exchange.size() {
            return Err(Error::argument(
                "boxes_per_rank",
                format!(
                    "gives {} ranks' parts, the communicator has {} ranks",
                    boxes_per_rank.len(),
                    exchange.size()
                ),
            ));
        }
        let pool = &self.pool;
        // The walls' field on the world's threads; the exchange on the caller's.
        let any = match &mut self.any {
            Any::D2(w) => {
                within(pool, || w.ready())?;
                let parts = partition(boxes_per_rank, boxes)?;
                let empty = empty_like(&w.sim);
                let sim = std::mem::replace(&mut w.sim, empty);
                AnyRanks::D2(Distributed::replicated(sim, parts, exchange).map_err(Error::failed)?)
            }
            Any::D3(w) => {
                within(pool, || w.ready())?;
                let parts = partition(boxes_per_rank, boxes)?;
                let empty = empty_like(&w.sim);
                let sim = std::mem::replace(&mut w.sim, empty);
                AnyRanks::D3(Distributed::replicated(sim, parts, exchange).map_err(Error::failed)?)
            }
        };
        Ok(RankWorld {
            any,
            pool: thread_pool(pool.as_ref().map(|p| p.current_num_threads()))?,
            stale: false,
        })
    }
}

/// A simulation with `sim`'s gravity, drag and contact model and nothing else, left in a world
/// that gave its bodies away.
fn empty_like<const D: usize>(sim: &crate::sim::Simulation<D>) -> crate::sim::Simulation<D>
where
    Dim<D>: Kinematics<D>,
{
    let contact = crate::contact::ContactSolver::new(
        sim.contact.model,
        crate::broad::sets::method::<D>("auto").expect("the automatic broad phase exists"),
    );
    crate::sim::Simulation::new(Vec::new(), None, sim.gravity, sim.drag, contact)
}

/// The partition of `boxes`, `boxes_per_rank[r]` of them rank `r`'s.
fn partition<const D: usize>(boxes_per_rank: &[usize], boxes: &[f64]) -> Result<Partition<D>, Error> {
    let mut at = boxes.chunks_exact(2 * D);
    let parts: Vec<Vec<(Point<D>, Point<D>)>> = boxes_per_rank
        .iter()
        .map(|&n| {
            (&mut at)
                .take(n)
                .map(|c| {
                    (
                        Point::<D>::from_column_slice(&c[..D]),
                        Point::<D>::from_column_slice(&c[D..]),
                    )
                })
                .collect()
        })
        .collect();
    Partition::new(&parts).map_err(|e| Error::argument("boxes", e))
}

/// The owned body of id `id`, or an error naming the rank.
fn owned<const D: usize>(d: &Distributed<D>, id: u64) -> Result<&RigidBody<D>, Error>
where
    Dim<D>: Kinematics<D>,
{
    d.index_of(id)
        .filter(|&k| d.is_owned(k))
        .map(|k| &d.sim.bodies[k])
        .ok_or_else(|| Error::argument("id", format!("is {id}, a body rank {} does not own", d.rank())))
}

/// Runs `$body` with `$d` the typed share and `$D` its dimension, on the world's threads.
macro_rules! on_pool {
    ($world:expr, $d:ident, $dim:ident => $body:expr) => {{
        let RankWorld { any, pool, .. } = $world;
        within(pool, || by_dim!(AnyRanks, any, $d, $dim => $body))
    }};
}

impl RankWorld {
    /// 2 or 3.
    pub fn dim(&self) -> usize {
        match &self.any {
            AnyRanks::D2(_) => 2,
            AnyRanks::D3(_) => 3,
        }
    }

    /// This rank's number.
    pub fn rank(&self) -> usize {
        by_dim!(AnyRanks, &self.any, d, D => d.rank())
    }

    /// The ids of the bodies this rank owns, in increasing order.
    pub fn owned_ids(&self) -> Vec<u64> {
        by_dim!(AnyRanks, &self.any, d, D => d.owned().map(|(id, _)| id).collect())
    }

    /// The ghosts this rank holds.
    pub fn num_ghosts(&self) -> usize {
        by_dim!(AnyRanks, &self.any, d, D => d.ghosts())
    }

    /// The state of body `id`, which this rank owns.
    pub fn body(&self, id: u64) -> Result<BodyState, Error> {
        by_dim!(AnyRanks, &self.any, d, D => Ok(BodyState::of(owned(d, id)?)))
    }

    /// Sets the given parts of the state of body `id`, which this rank owns (as
    /// [`World::set_body`]); the other ranks see it after [`Self::redistribute`], which must
    /// come before the next contact forces or step.
    pub fn set_body(
        &mut self,
        id: u64,
        position: Option<&[f64]>,
        orientation: Option<&[f64]>,
        velocity: Option<&[f64]>,
        angular_velocity: Option<&[f64]>,
    ) -> Result<(), Error> {
        by_dim!(AnyRanks, &mut self.any, d, D => {
            let mut b = owned(d, id)?.clone();
            set_motion(&mut b, position, orientation, velocity, angular_velocity)?;
            let k = d.index_of(id).expect("an owned body is held");
            d.sim.bodies[k] = b;
        });
        self.stale = true;
        Ok(())
    }

    /// The contact force (`dim` numbers a body) and torque (2D: 1; 3D: 3) on each body this rank
    /// owns, in the order of [`Self::owned_ids`], at the current state.
    pub fn contact_forces(&mut self) -> Result<(Vec<f64>, Vec<f64>), Error> {
        self.fresh()?;
        on_pool!(self, d, D => {
            d.contact_forces(0.0).map_err(Error::failed)?;
            let (mut forces, mut torques) = (Vec::new(), Vec::new());
            for (k, _) in d.sim.bodies.iter().enumerate().filter(|(k, _)| d.is_owned(*k)) {
                forces.extend(d.sim.force[k].iter().copied());
                torques.extend(<Dim<D> as Kinematics<D>>::angular_components(&d.sim.torque[k]));
            }
            Ok((forces, torques))
        })
    }

    /// Advances every rank's bodies by `steps` dry steps of `dt` ([`Distributed::step`]; every
    /// rank calls it together). After a failure on any rank, every rank returns an error and the
    /// split world is not to be stepped again.
    pub fn step(&mut self, dt: f64, steps: usize) -> Result<(), Error> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Error::argument("dt", format!("is {dt}, expected a positive number")));
        }
        self.fresh()?;
        let RankWorld { any, pool, .. } = self;
        by_dim!(AnyRanks, any, d, D => {
            for _ in 0..steps {
                // The computing on the world's threads, the exchange on the caller's (MPI's).
                let failure = within(pool, || d.step_own(dt)).err();
                d.redistribute_after(failure).map_err(Error::failed)?;
            }
            Ok(())
        })
    }

    /// After the host moved the bodies this rank owns ([`Self::set_body`]): the bodies go to the
    /// ranks that own their centres now and the ghosts are sent afresh (every rank calls it
    /// together).
    pub fn redistribute(&mut self) -> Result<(), Error> {
        by_dim!(AnyRanks, &mut self.any, d, D => d.redistribute().map_err(Error::failed))?;
        self.stale = false;
        Ok(())
    }

    /// An error if a body was set since the last exchange.
    fn fresh(&self) -> Result<(), Error> {
        if self.stale {
            return Err(Error::failed(
                "a body was set since the ranks last exchanged their bodies: call redistribute first (every rank together)",
            ));
        }
        Ok(())
    }
}
