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
//! | `summary.json` | case, status (`running` until the end, then `completed`, `failed` or `interrupted` with the error), steps, times per phase, `final_tilt`, final state |
//!
//! Every file is written whole (temporary file, then rename); `bodies.csv` is renamed into place at
//! the end, or when the run fails or is stopped, so such a run keeps every row it computed.

use super::checkpoint::{self, Kind, RunState, Saver, SpentSeconds};
use super::control::{Control, Plan, RunHeader};
use super::inflow;
use super::output::{body_row_bytes, final_tilt, prepare_output, step_count, FinalBody, Traffic, Writer};
use super::{Case, CaseError};
use crate::body::{Dim, Kinematics};
use crate::io::{write_mesh_vtu, Field, OutputError};
use crate::sim::Simulation;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

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
    /// The case, how the run ended, the error.
    #[serde(flatten)]
    pub run: RunHeader,
    /// Bodies present at the end.
    pub bodies: usize,
    /// Bodies that entered and left.
    #[serde(flatten)]
    pub traffic: Traffic,
    /// Steps done.
    pub steps: usize,
    /// Simulated time reached.
    pub time: f64,
    /// `Δt`.
    pub time_step: f64,
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
    /// The largest speed of a body at the end (a pile has come to rest when it is small).
    pub final_speed: f64,
    /// Wall-clock seconds of the whole run, setup included.
    pub wall_seconds: f64,
    /// Seconds per phase.
    pub seconds: DryPhaseSeconds,
    /// Contact seconds (broad phase + distance + forces) per step.
    pub contact_seconds_per_step: f64,
    /// The largest tilt of a body's first axis from level at the end (radians, see
    /// [`final_tilt`]); `null` without gravity.
    pub final_tilt: Option<f64>,
    /// The bodies at the end.
    pub final_state: Vec<FinalBody>,
}

/// Runs `sim` (built from `case`) to the end time, writing into `out` (prepared by
/// [`prepare_output`]: an earlier run's files there are removed), or, with `control.restart`,
/// continues the run whose checkpoint `out` holds ([`super::checkpoint`]); `control` reports
/// progress and may stop the run at the end of a step. A run that fails or is stopped writes what
/// it computed and its `summary.json` (and, when stopped, a checkpoint), and returns the error.
pub fn run_dry<const D: usize>(
    case: &Case,
    sim: &mut Simulation<D>,
    out: &Path,
    mut control: Control<'_>,
) -> Result<DrySummary, CaseError>
where
    Dim<D>: Kinematics<D>,
{
    let start = Instant::now();
    let time = case.time()?;
    let dt = time.step;
    let steps = step_count(time.end, dt);
    let output = case.file.output.clone().unwrap_or_default();
    let every = output.every.unwrap_or((steps / 100).max(1));
    let csv_every = output.csv_every.unwrap_or(1).max(1);
    let checkpoint_every = output.checkpoint_every.unwrap_or(0);
    let mut inflows = case.inflows_for(sim)?;
    let mut failure: Option<CaseError> = None;
    let t = Instant::now();
    let (mut writer, first, (mut max_contacts, mut min_gap), spent, restarts) = if control.restart {
        let checkpoint = checkpoint::open(out, case, (D, dt, steps), Kind::Dry)?;
        let RunState::Dry {
            state,
            max_contacts,
            min_gap,
        } = &checkpoint.run
        else {
            return Err(checkpoint::unfit(out, "it is not of a dry run").into());
        };
        inflow::resume(&mut inflows, state, &mut sim.bodies);
        sim.restore(state).map_err(|e| checkpoint::unfit(out, e))?;
        checkpoint.trim(out)?;
        let writer = Writer::resume(out, "series.pvd", &checkpoint.outputs)?;
        let first = checkpoint.step + 1;
        let progress = (*max_contacts, *min_gap);
        (writer, first, progress, checkpoint.spent, checkpoint.restarts + 1)
    } else {
        prepare_output(out, &RunHeader::running::<D>(case))?;
        let mut writer = Writer::new(out, "series.pvd", output.fields.unwrap_or(false))?;
        failure = (|| {
            if let Some(w) = &sim.walls {
                write_mesh_vtu(
                    &out.join("domain.vtu"),
                    w.mesh(),
                    vec![Field::scalar("wall_distance", w.values())],
                    vec![],
                )?;
            }
            writer.rows(sim, None)?;
            if every > 0 {
                writer.snapshot(sim)?;
            }
            Ok::<(), OutputError>(())
        })()
        .err()
        .map(CaseError::from);
        (writer, 1, (0, None), SpentSeconds::default(), 0)
    };
    let mut output_seconds = spent.output + t.elapsed().as_secs_f64();
    if failure.is_none() {
        let mut plan = Plan::new(
            (steps + 1 - first, dt, time.end),
            (every, csv_every),
            out,
            writer.row_bytes(),
        );
        let period = dt * csv_every as f64;
        plan.add_bytes(inflow::rows_to_come(&inflows, (time.end, period), |name| {
            body_row_bytes::<D>(false, name)
        }));
        failure = control.approve(case, &plan).err();
    }
    let setup_seconds = control.setup_seconds;
    let saver = Saver {
        restarts,
        spent,
        before_start: setup_seconds,
        setup: setup_seconds,
        ..Saver::of::<D>(case, out, dt, start)
    };
    // The checkpoint of the state now, with the outputs as they stand.
    let save = |sim: &Simulation<D>, writer: &mut Writer, (max_contacts, min_gap), output_seconds: f64| {
        let state = RunState::Dry {
            state: sim.state(),
            max_contacts,
            min_gap,
        };
        saver.save((sim.steps, sim.time), writer.saved()?, output_seconds, state)
    };

    for s in first..=steps {
        if failure.is_some() {
            break;
        }
        if control.stop_requested() {
            failure = Some(case.interrupted(sim.steps, sim.time));
            // The checkpoint, then the state the run stopped at ends the series and the rows.
            let last = (|| {
                save(sim, &mut writer, (max_contacts, min_gap), output_seconds)?;
                if sim.steps % csv_every != 0 {
                    writer.rows(sim, None)?;
                }
                if every > 0 && sim.steps % every != 0 {
                    writer.snapshot(sim)?;
                }
                Ok::<(), OutputError>(())
            })();
            if let Err(e) = last {
                failure = Some(e.into());
            }
            break;
        }
        for b in inflow::release(&mut inflows, sim) {
            sim.insert(b);
        }
        if let Err(cause) = sim.step(dt).map(|()| {
            sim.leave();
        }) {
            failure = Some(CaseError::Sim {
                file: case.path.clone(),
                cause: Box::new(cause),
            });
            break;
        }
        sim.time = s as f64 * dt;
        max_contacts = max_contacts.max(sim.contact.contacts.len());
        let range = sim.contact.model.range;
        for c in sim.contact.contacts.iter().filter(|c| c.gap <= range) {
            min_gap = Some(min_gap.map_or(c.gap, |g: f64| g.min(c.gap)));
        }
        let t = Instant::now();
        // The outputs due at this step, the checkpoint, then those due because the run ends
        // here (which a longer run would not write: a run continued from the checkpoint drops
        // them).
        let written = (|| {
            writer.exits(sim)?;
            let (rows, snapshot) = (s % csv_every == 0, every > 0 && s % every == 0);
            if rows {
                writer.rows(sim, None)?;
            }
            if snapshot {
                writer.snapshot(sim)?;
            }
            if checkpoint_every > 0 && (s % checkpoint_every == 0 || s == steps) {
                save(sim, &mut writer, (max_contacts, min_gap), output_seconds)?;
            }
            if s == steps && !rows {
                writer.rows(sim, None)?;
            }
            if s == steps && every > 0 && !snapshot {
                writer.snapshot(sim)?;
            }
            Ok::<(), OutputError>(())
        })();
        output_seconds += t.elapsed().as_secs_f64();
        if let Err(e) = written {
            failure = Some(e.into());
        }
        control.report(s, steps);
    }
    if let Err(e) = writer.finish() {
        failure.get_or_insert(e.into());
    }

    let times = sim.contact.times;
    let summary = DrySummary {
        run: RunHeader {
            restarts,
            ..RunHeader::new::<D>(case, failure.as_ref())
        },
        bodies: sim.bodies.len(),
        traffic: Traffic::of(sim),
        steps: sim.steps,
        time: sim.time,
        time_step: dt,
        stable_time_step: sim.stable_time_step(),
        law: sim.contact.model.law.name().into(),
        broad_phase: sim.contact.broad_name().into(),
        max_contacts,
        min_gap,
        final_speed: sim.bodies.iter().map(|b| b.velocity.norm()).fold(0.0, f64::max),
        wall_seconds: spent.wall + setup_seconds + start.elapsed().as_secs_f64(),
        seconds: DryPhaseSeconds {
            setup: spent.setup + setup_seconds,
            broad_phase: times.broad,
            distance: times.distance,
            forces: times.forces,
            integration: sim.integration_seconds,
            output: output_seconds,
        },
        contact_seconds_per_step: (times.broad + times.distance + times.forces) / sim.steps.max(1) as f64,
        final_tilt: final_tilt(&sim.bodies, &sim.gravity),
        final_state: sim.bodies.iter().map(|b| FinalBody::of(b, sim)).collect(),
    };
    let written = crate::io::write_json(&out.join("summary.json"), &summary);
    match (failure, written) {
        (Some(e), _) => Err(e),
        (None, Err(e)) => Err(e.into()),
        (None, Ok(())) => Ok(summary),
    }
}
