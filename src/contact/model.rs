//! The contact parameters of a simulation, checked once ([`ContactModel::new`]) for every front end
//! (case files, [`crate::dynamic::World`], the C ABI, Python), and what follows from them: the
//! force of a repulsive law and the largest stable time step.

use super::collision::Collision;
use super::{Contact, Law, Lubrication};
use crate::math::Vector;

/// The contact parameters as a user gives them, each `None` when not given; the names are the
/// keys of a case's `[contact]` table. [`ContactModel::new`] checks them for the law.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactParameters {
    /// The force law.
    pub law: Law,
    /// `ρ`: the range of a repulsive law; where the collision law's contact begins.
    pub range: f64,
    /// `ε` of a repulsive law (required by them; not the collision law's).
    pub stiffness: Option<f64>,
    /// `ε_W` of a repulsive law (default `stiffness`).
    pub wall_stiffness: Option<f64>,
    /// The normal dashpot of a repulsive law (default 0).
    pub damping: Option<f64>,
    /// The collision law's restitution coefficient `e`, in (0, 1] (required by it).
    pub restitution: Option<f64>,
    /// The collision law's duration `t_c` (required by it).
    pub duration: Option<f64>,
    /// The collision law's Coulomb friction coefficient `μ` (default 0).
    pub friction: Option<f64>,
    /// The collision law's rolling resistance coefficient `μ_r` (default 0).
    pub rolling: Option<f64>,
    /// The lubrication film below the mesh, beside any law (default none).
    pub lubrication: Option<Lubrication>,
}

impl ContactParameters {
    /// `law` with range `range` and nothing else given.
    pub fn new(law: Law, range: f64) -> Self {
        ContactParameters {
            law,
            range,
            stiffness: None,
            wall_stiffness: None,
            damping: None,
            restitution: None,
            duration: None,
            friction: None,
            rolling: None,
            lubrication: None,
        }
    }

    /// A repulsive `law` of range `range` and stiffness `ε` (walls too).
    pub fn repulsive(law: Law, range: f64, stiffness: f64) -> Self {
        ContactParameters {
            stiffness: Some(stiffness),
            ..Self::new(law, range)
        }
    }

    /// The collision law beginning at gap `range`, with restitution `e` over `duration`.
    pub fn collision(range: f64, restitution: f64, duration: f64) -> Self {
        ContactParameters {
            restitution: Some(restitution),
            duration: Some(duration),
            ..Self::new(Law::Collision, range)
        }
    }
}

/// A contact parameter that does not fit its law: its name (a `[contact]` key) and what is
/// expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ContactError {
    /// The parameter.
    pub field: &'static str,
    /// What is wrong and what is expected.
    pub message: String,
}

/// The contact parameters of a simulation, checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactModel {
    /// The force law.
    pub law: Law,
    /// `ρ`, the range of a repulsive law (the safety zone's thickness); the gap at which the
    /// collision law's contact begins.
    pub range: f64,
    /// `ε`, a repulsive law's body–body stiffness parameter (force ∝ 1/ε); 0 for the collision law.
    pub stiffness: f64,
    /// `ε_W`, a repulsive law's body–wall stiffness parameter; 0 for the collision law.
    pub wall_stiffness: f64,
    /// A repulsive law's normal damping `c` (force per unit approach speed; 0: the specification's
    /// conservative force): every contact within range adds the dashpot `−c ((v_i − v_j)·n) n` at
    /// its application points (`v` the bodies' velocities there, zero for a wall). It stands in
    /// for the dissipation of the lubrication film between a body and a wall or another body,
    /// which a fluid mesh coarser than the film cannot resolve.
    pub damping: f64,
    /// The collision law's parameters (`None` for the repulsive laws).
    pub collision: Option<Collision>,
    /// The lubrication film added below the gap the fluid mesh resolves, beside the law
    /// ([`super::lubrication`]); `None`: no film.
    pub lubrication: Option<Lubrication>,
}

impl ContactModel {
    /// The model of `p`, or an error naming the first parameter that does not fit: `range`
    /// positive; for `spec`, `glowinski` and `patches` a positive `stiffness` (and
    /// `wall_stiffness`), `damping` ≥ 0 and none of the collision law's parameters; for
    /// `collision` a `restitution` in (0, 1], a positive `duration`, `friction` and `rolling` ≥ 0,
    /// and none of the repulsive laws' (its stiffness and damping follow from `e` and `t_c`);
    /// a film's viscosity and cut positive, its roughness positive and below the cut, its
    /// share in [0, 1).
    pub fn new(p: &ContactParameters) -> Result<ContactModel, ContactError> {
        let range = positive("range", p.range)?;
        let lubrication = p.lubrication.map(checked_film).transpose()?;
        if p.law == Law::Collision {
            for (field, given) in [
                ("stiffness", p.stiffness),
                ("wall_stiffness", p.wall_stiffness),
                ("damping", p.damping),
            ] {
                if given.is_some() {
                    return Err(ContactError {
                        field,
                        message: "is not a parameter of the collision law, whose spring and dashpot follow from \
                                  `restitution` and `duration`: remove it"
                            .into(),
                    });
                }
            }
            let restitution = required("restitution", p.restitution, "the collision law")?;
            if !(restitution > 0.0 && restitution <= 1.0) {
                return Err(ContactError {
                    field: "restitution",
                    message: format!("must be a number in (0, 1], got {restitution}"),
                });
            }
            let collision = Collision {
                restitution,
                duration: positive("duration", required("duration", p.duration, "the collision law")?)?,
                friction: non_negative("friction", p.friction.unwrap_or(0.0))?,
                rolling: non_negative("rolling", p.rolling.unwrap_or(0.0))?,
            };
            return Ok(ContactModel {
                law: p.law,
                range,
                stiffness: 0.0,
                wall_stiffness: 0.0,
                damping: 0.0,
                collision: Some(collision),
                lubrication,
            });
        }
        for (field, given) in [
            ("restitution", p.restitution),
            ("duration", p.duration),
            ("friction", p.friction),
            ("rolling", p.rolling),
        ] {
            if given.is_some() {
                return Err(ContactError {
                    field,
                    message: format!(
                        "is a parameter of the collision law (law = \"collision\"), not of '{}': remove it or \
                         change the law",
                        p.law.name()
                    ),
                });
            }
        }
        let stiffness = positive("stiffness", required("stiffness", p.stiffness, "a repulsive law")?)?;
        Ok(ContactModel {
            law: p.law,
            range,
            stiffness,
            wall_stiffness: match p.wall_stiffness {
                Some(x) => positive("wall_stiffness", x)?,
                None => stiffness,
            },
            damping: non_negative("damping", p.damping.unwrap_or(0.0))?,
            collision: None,
            lubrication,
        })
    }

    /// How far from the bodies and the walls their distance fields reach: `2ρ` (the collision
    /// law's look-ahead, [`Self::reach`]), or twice the film's cut if farther
    /// ([`Self::film_reach`]).
    pub fn band(&self) -> f64 {
        let film = self.lubrication.map_or(0.0, |l| l.cut);
        2.0 * self.range.max(film)
    }

    /// How far the films are looked for in a step `dt` of bodies whose points move at most at
    /// `fastest`: `h_c + 2 fastest dt`, at most `2 h_c`, so that a film the step enters is
    /// found and does its work over the gap the step crosses ([`super::lubrication`]); `None`
    /// without a film.
    pub fn film_reach(&self, fastest: impl FnOnce() -> f64, dt: f64) -> Option<f64> {
        self.lubrication.map(|l| l.cut + (2.0 * fastest() * dt).min(l.cut))
    }

    /// How far from each other contacts are found in a step `dt` of bodies whose points move at
    /// most at `fastest`: `ρ` for a repulsive law (beyond, its force is zero); for the collision
    /// law `ρ + 2 fastest dt`, at most `2ρ` (where the bodies' and the walls' fields end), so that
    /// a contact that begins within the step is found and takes its share of the force
    /// ([`super::collision`]).
    /// `fastest` is asked only by the collision law.
    pub fn reach(&self, fastest: impl FnOnce() -> f64, dt: f64) -> f64 {
        if self.collision.is_some() {
            self.range + (2.0 * fastest() * dt).min(self.range)
        } else {
            self.range
        }
    }

    /// The force of a repulsive law on body `c.i` of the contact `c` (out of range, and for the
    /// collision law, whose force depends on the motion: zero).
    pub fn force<const D: usize>(&self, c: &Contact<D>, radius_i: f64, radius_j: Option<f64>) -> Vector<D> {
        let eps = if radius_j.is_some() {
            self.stiffness
        } else {
            self.wall_stiffness
        };
        self.law.force(
            c.gap,
            &c.normal,
            (&c.point_i, &c.point_j),
            (radius_i, radius_j),
            self.range,
            eps,
        )
    }

    /// The largest stable time step of the explicit contact for a body of mass `mass` whose
    /// contact points move with the mass `moved` (≤ `mass`, the turn adding to the translation)
    /// and whose bounding radius is `radius`: `2 √(moved / k)` (the symplectic Euler limit of an
    /// oscillator) with `k` the law's stiffness at contact against a wall or (with half the mass)
    /// against a body of its own size, and the explicit dashpot's limit `c Δt / moved < 2`.
    ///
    /// The collision law's spring `k = m (π² + ln² e) / t_c²` scales with the pair's mass `m`, so
    /// its limit is `2 t_c √(moved/mass) / √(π² + ln² e)`, about `0.64 t_c` for a ball; its
    /// accuracy asks for smaller steps ([`Collision::accurate_step`]), which this step is.
    pub fn stable_time_step(&self, mass: f64, moved: f64, radius: f64) -> f64 {
        if let Some(c) = &self.collision {
            return c.accurate_step() * (moved / mass).sqrt();
        }
        let lever = 2.0 * radius;
        let wall = self.law.stiffness(self.range, self.wall_stiffness, lever);
        let pair = 2.0 * self.law.stiffness(self.range, self.stiffness, lever);
        let spring = 2.0 * (moved / wall.max(pair)).sqrt();
        // The explicit dashpot's own limit, `c Δt / m < 2` (pairs: twice the damping).
        spring.min(moved / self.damping.max(f64::MIN_POSITIVE))
    }
}

/// The film `l` if its viscosity and cut are positive, its roughness positive and below the
/// cut, and its share in [0, 1).
fn checked_film(l: Lubrication) -> Result<Lubrication, ContactError> {
    if !(0.0..1.0).contains(&l.share) {
        return Err(ContactError {
            field: "lubrication_share",
            message: format!(
                "must be in [0, 1), the share of the film the fluid mesh carries itself, got {}",
                l.share
            ),
        });
    }
    positive("lubrication_viscosity", l.viscosity)?;
    positive("lubrication_cut", l.cut)?;
    positive("lubrication_roughness", l.roughness)?;
    if l.roughness >= l.cut {
        return Err(ContactError {
            field: "lubrication_roughness",
            message: format!(
                "must be below the cut ({}), got {}: the film acts between the two",
                l.cut, l.roughness
            ),
        });
    }
    Ok(l)
}

/// `x` if positive and finite.
fn positive(field: &'static str, x: f64) -> Result<f64, ContactError> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(ContactError {
            field,
            message: format!("must be a positive number, got {x}"),
        })
    }
}

/// `x` if finite and ≥ 0.
fn non_negative(field: &'static str, x: f64) -> Result<f64, ContactError> {
    if x.is_finite() && x >= 0.0 {
        Ok(x)
    } else {
        Err(ContactError {
            field,
            message: format!("must be a number ≥ 0, got {x}"),
        })
    }
}

/// The value of a parameter `who` needs.
fn required(field: &'static str, x: Option<f64>, who: &str) -> Result<f64, ContactError> {
    x.ok_or_else(|| ContactError {
        field,
        message: format!("is missing: {who} needs it"),
    })
}
