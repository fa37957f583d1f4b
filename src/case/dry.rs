//! Running a dry case (bodies, walls and contact, no fluid): the time loop and its output
//! directory.
//!
//! | file | content |
//! |---|---|
//! | `series.pvd`, `bodies_NNNNNN.vtu` | the bodies' boundaries (segments in 2D, triangles in 3D), point data `body` and `velocity`, every `output.every` steps |
//! | `fields.pvd`, `fields_NNNNNN.vtu` | with `output.fields = true`: each body's distance-field lattice moved with it, point data `distance`, `body` |
//! | `domain.vtu` | the domain mesh with the wall distance `wall_distance` (if the case has walls) |
//! | `bodies.csv` | one row per body every `output.csv_every` steps: `time,body,x,y,angle,vx,vy,omega,fx,fy,torque` (2D) or `time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz` (3D); `f`, `t` the contact force and torque |
//! | `checkpoint.cbor` | with `output.checkpoint_every`, or when the run is stopped: the whole state, from which `tumble run --restart` continues ([`super::checkpoint`]) |
//! | `summary.json` | case, status (`running` until the end, then `completed`, `failed` or `interrupted` with the error), steps, times per phase, `final_tilt`, `repose_angle`, final state |
//!
//! Every file is written whole (temporary file, then rename); `bodies.csv` is renamed into place at
//! the end, or when the run fails or is stopped, so such a run keeps every row it computed.

use super::checkpoint::{Kind, RunState};
use super::control::Control;
use super::inflow::{self, Inflow};
use super::output::{final_tilt, BodyFiles, FinalBody, SavedOutputs, Traffic};
use super::run::{built, drive, Finished, Output, RunSummary, Seconds, Stepper};
use super::{checkpoint, repose_angle, Case, CaseError};
use crate::io::{write_mesh_vtu, Field, OutputError};
use crate::math::shown;
use crate::sim::{Dim, Kinematics, RigidBody, Simulation};
use serde::Serialize;
use std::path::Path;

/// Seconds spent per phase.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DryPhaseSeconds {
    /// Building the bodies' geometries and fields and the walls' field.
    pub setup: f64,
    /// Broad phase.
    pub broad_phase: f64,
    /// Gap evaluation on the distance fields.
    pub distance: f64,
    /// Force laws.
    pub forces: f64,
    /// Time integration.
    pub integration: f64,
    /// Writing files.
    pub output: f64,
}

/// What `summary.json` holds for a dry case.
#[derive(Debug, Clone, Serialize)]
pub struct DrySummary {
    /// The case, how the run ended, steps, time, warnings.
    #[serde(flatten)]
    pub run: RunSummary,
    /// Bodies present at the end.
    pub bodies: usize,
    /// Bodies that entered and left.
    #[serde(flatten)]
    pub traffic: Traffic,
    /// The contact springs' stable time step (see [`Simulation::stable_time_step`]).
    pub stable_time_step: f64,
    /// The force law.
    pub law: String,
    /// The broad-phase method.
    pub broad_phase: String,
    /// The most contacts at one step.
    pub max_contacts: usize,
    /// The smallest gap of a contact within range, body to body or body to wall, over the run
    /// (negative: an overlap); `null` if no contact came within range.
    pub min_gap: Option<f64>,
    /// The largest speed of a body over the run, at the ends of steps.
    pub max_speed: f64,
    /// The largest speed of a body at the end (a pile has come to rest when it is small against
    /// `max_speed`).
    pub final_speed: f64,
    /// Seconds per phase.
    pub seconds: DryPhaseSeconds,
    /// Contact seconds (broad phase + distance + forces) per step.
    pub contact_seconds_per_step: f64,
    /// The largest tilt of a body's first axis from level at the end (radians, see
    /// [`final_tilt`]); `null` without gravity.
    pub final_tilt: Option<f64>,
    /// The slope of the bodies' heap against the horizontal at the end, degrees (see
    /// [`super::repose_angle`]): of the bodies the `[[inflow]]` tables released when there are
    /// any, else of all; `null` without gravity or with fewer than 30 bodies.
    pub repose_angle: Option<f64>,
    /// The bodies at the end.
    pub final_state: Vec<FinalBody>,
}

/// Runs `sim` (built from `case`) to the end time, writing into `out`, as [`super::run`] runs a
/// dry case it builds itself (`control.setup_seconds`: the seconds the build took): `out` is
/// cleared of an earlier run's files, or with `control.restart` the run continues from the
/// checkpoint `out` holds ([`super::checkpoint`]).
pub fn run_dry<const D: usize>(
    case: &Case,
    sim: &mut Simulation<D>,
    out: &Path,
    mut control: Control<'_>,
) -> Result<DrySummary, CaseError>
where
    Dim<D>: Kinematics<D>,
{
    let output = Output::open::<D>(case, out, Kind::Dry, &mut control)?;
    drive(case, output, control, || DryRun::new(case, sim, out)).map(|(summary, _)| summary)
}

/// [`super::run`]'s dry case in dimension `D`: the directory made ready, the case built, run.
pub(super) fn run<const D: usize>(case: &Case, out: &Path, mut control: Control<'_>) -> Result<Finished, CaseError>
where
    Dim<D>: Kinematics<D>,
{
    let output = Output::open::<D>(case, out, Kind::Dry, &mut control)?;
    let mut sim = built(case, &output, &mut control, || case.build::<D>())?;
    drive(case, output, control, || DryRun::new(case, &mut sim, out)).map(Finished::of)
}

/// A dry run in progress: the bodies, the bodies still to enter, the files and the statistics.
struct DryRun<'a, const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    case: &'a Case,
    sim: &'a mut Simulation<D>,
    out: &'a Path,
    dt: f64,
    inflows: Vec<Inflow<D>>,
    files: BodyFiles,
    /// The most contacts at one step so far.
    max_contacts: usize,
    /// The smallest contact gap within range so far.
    min_gap: Option<f64>,
    /// The largest speed of a body so far.
    max_speed: f64,
}

impl<'a, const D: usize> DryRun<'a, D>
where
    Dim<D>: Kinematics<D>,
{
    fn new(case: &'a Case, sim: &'a mut Simulation<D>, out: &'a Path) -> Result<Self, CaseError> {
        Ok(DryRun {
            dt: case.time()?.step,
            inflows: case.inflows_for(sim)?,
            case,
            sim,
            out,
            files: BodyFiles::new(
                out,
                "series.pvd",
                case.file.output.as_ref().and_then(|o| o.fields).unwrap_or(false),
                false,
            ),
            max_contacts: 0,
            min_gap: None,
            max_speed: 0.0,
        })
    }
}

impl<const D: usize> Stepper for DryRun<'_, D>
where
    Dim<D>: Kinematics<D>,
{
    type Summary = DrySummary;

    fn at(&self) -> (usize, f64) {
        (self.sim.steps, self.sim.time)
    }

    fn start(&mut self) -> Result<(), OutputError> {
        self.files.start()?;
        if let Some(w) = &self.sim.walls {
            write_mesh_vtu(
                &self.out.join("domain.vtu"),
                w.mesh(),
                vec![Field::scalar("wall_distance", w.values())],
                vec![],
            )?;
        }
        Ok(())
    }

    fn restore(&mut self, run: &RunState) -> Result<(), CaseError> {
        let RunState::Dry {
            state,
            max_contacts,
            min_gap,
            max_speed,
        } = run
        else {
            return Err(checkpoint::unfit(self.out, "it is not of a dry run").into());
        };
        inflow::resume(&mut self.inflows, state, &mut self.sim.bodies);
        self.sim.restore(state).map_err(|e| checkpoint::unfit(self.out, e))?;
        (self.max_contacts, self.min_gap, self.max_speed) = (*max_contacts, *min_gap, *max_speed);
        Ok(())
    }

    fn resume(&mut self, saved: &SavedOutputs) -> Result<(), OutputError> {
        self.files.resume(saved)
    }

    fn row_bytes(&self) -> f64 {
        self.files.row_bytes()
    }

    fn bytes_to_come(&self, end: f64, period: f64) -> f64 {
        self.files.bytes_to_come(&self.inflows, end, period)
    }

    fn step(&mut self, s: usize) -> Result<(), CaseError> {
        for b in inflow::release(&mut self.inflows, self.sim) {
            self.sim.insert(b);
        }
        self.sim.step(self.dt).map_err(|cause| CaseError::Sim {
            file: self.case.path.clone(),
            cause: Box::new(cause),
        })?;
        self.sim.leave();
        self.sim.time = s as f64 * self.dt;
        let contacts = &self.sim.contact.contacts;
        self.max_contacts = self.max_contacts.max(contacts.len());
        let range = self.sim.contact.model.range;
        for c in contacts.iter().filter(|c| c.gap <= range) {
            self.min_gap = Some(self.min_gap.map_or(c.gap, |g: f64| g.min(c.gap)));
        }
        let fastest = self.sim.bodies.iter().map(|b| b.velocity.norm()).fold(0.0, f64::max);
        self.max_speed = self.max_speed.max(fastest);
        Ok(())
    }

    fn write(&mut self, rows: bool, snapshot: bool) -> Result<(), OutputError> {
        let (sim, writer) = (&*self.sim, self.files.writer());
        writer.exits(sim)?;
        if rows {
            writer.rows(sim, None)?;
        }
        if snapshot {
            writer.snapshot(sim)?;
        }
        Ok(())
    }

    fn save(&mut self) -> Result<(SavedOutputs, RunState), OutputError> {
        let state = RunState::Dry {
            state: self.sim.state(),
            max_contacts: self.max_contacts,
            min_gap: self.min_gap,
            max_speed: self.max_speed,
        };
        Ok((self.files.writer().saved()?, state))
    }

    fn finish(&mut self) -> Result<(), OutputError> {
        self.files.finish()
    }

    fn warnings(&self) -> Vec<String> {
        let limit = self.sim.stable_time_step();
        let warning = match &self.sim.contact.model.collision {
            // The collision law's step is one of accuracy (t_c/20, less for a body its contacts
            // turn): a step a little above it, as a sampled ball's is, costs a little accuracy.
            Some(law) => (self.dt > 1.01 * limit).then(|| {
                format!(
                    "time step {:e} exceeds the collision law's step {limit:.3e} (t_c/20 = {:.3e}, less for a body \
                     its contacts turn): collisions are resolved by fewer steps and the restitution loses \
                     accuracy; lower time.step or lengthen contact.duration",
                    self.dt,
                    law.accurate_step()
                )
            }),
            None => (self.dt > limit).then(|| {
                format!(
                    "time step {:e} exceeds the contact springs' stable step {limit:.3e} (2 √(m/k)); the run may \
                     blow up: lower time.step or raise contact.stiffness",
                    self.dt
                )
            }),
        };
        warning.into_iter().collect()
    }

    fn summary(&self, run: RunSummary, seconds: Seconds) -> DrySummary {
        let sim = &*self.sim;
        let times = sim.contact.times;
        DrySummary {
            run,
            bodies: sim.bodies.len(),
            traffic: Traffic::of(sim),
            stable_time_step: sim.stable_time_step(),
            law: sim.contact.model.law.name().into(),
            broad_phase: sim.contact.broad_name().into(),
            max_contacts: self.max_contacts,
            min_gap: self.min_gap,
            max_speed: self.max_speed,
            final_speed: sim.bodies.iter().map(|b| b.velocity.norm()).fold(0.0, f64::max),
            seconds: DryPhaseSeconds {
                setup: seconds.setup,
                broad_phase: times.broad,
                distance: times.distance,
                forces: times.forces,
                integration: sim.integration_seconds,
                output: seconds.output,
            },
            contact_seconds_per_step: (times.broad + times.distance + times.forces) / sim.steps.max(1) as f64,
            final_tilt: final_tilt(&sim.bodies, &sim.gravity),
            repose_angle: {
                // The heap is the poured bodies when the case pours (a bed they land on is not
                // part of it), else every body.
                let heap: Vec<&RigidBody<D>> = sim
                    .bodies
                    .iter()
                    .filter(|b| self.inflows.is_empty() || inflow::released_by(&self.inflows, &b.name))
                    .collect();
                repose_angle(
                    &heap.iter().map(|b| b.position).collect::<Vec<_>>(),
                    &heap.iter().map(|b| b.geometry.radius).collect::<Vec<_>>(),
                    &sim.gravity,
                )
            },
            final_state: sim.bodies.iter().map(|b| FinalBody::of(b, sim)).collect(),
        }
    }

    fn report(s: &DrySummary) -> Vec<String> {
        vec![format!(
            "{}: {} bodies, {} steps to t = {}, {:.2} s ({:.3} ms of contact per step, {} law, {} broad phase)",
            s.run.header.case,
            s.bodies,
            s.run.steps,
            shown(s.run.time),
            s.run.wall_seconds,
            s.contact_seconds_per_step * 1e3,
            s.law,
            s.broad_phase,
        )]
    }
}
