//! The TOML case file, as serde reads it. Every table rejects unknown keys, so a misspelt key is an
//! error naming it rather than a silently ignored line. Units are the case's own, used consistently
//! (the committed cases are in CGS: cm, g, s).

use serde::Deserialize;

/// A whole case file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// A name for the output; default: the file's stem.
    pub name: Option<String>,
    /// 2 or 3.
    pub dimension: usize,
    /// Gravity, a vector of `dimension` components (length/time²); default zero.
    pub gravity: Option<Vec<f64>>,
    /// The domain and its walls; default: no walls.
    pub domain: Option<DomainSpec>,
    /// The bodies; default none (a fluid-only case).
    #[serde(default)]
    pub bodies: Vec<BodySpec>,
    /// Bodies released during the run ([`InflowSpec`]); default none.
    #[serde(default)]
    pub inflow: Vec<InflowSpec>,
    /// A frame that follows a body (a channel of any length on a short mesh); default: the
    /// lab's frame.
    pub frame: Option<FrameSpec>,
    /// Contact parameters; required with bodies.
    pub contact: Option<ContactSpec>,
    /// Time stepping; required unless the case is a steady flow.
    pub time: Option<TimeSpec>,
    /// The fluid filling the domain; default none (a dry run).
    pub fluid: Option<FluidSpec>,
    /// Drag rates standing in for viscous damping in a dry run; default none.
    pub drag: Option<DragSpec>,
    /// What to write; default: see [`OutputSpec`].
    pub output: Option<OutputSpec>,
    /// Intervals the results must fall in, by key of `summary.json` (see [`super::check`]);
    /// `tumble check` evaluates them.
    pub check: Option<std::collections::BTreeMap<String, [f64; 2]>>,
}

/// The domain: a box meshed by `tumble` or a Gmsh mesh.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainSpec {
    /// `[[x0, y0(, z0)], [x1, y1(, z1)]]`: the box's lower and upper corners.
    #[serde(rename = "box")]
    pub bounds: Option<[Vec<f64>; 2]>,
    /// Intervals per axis of the box's mesh; default: the box's extent over `h`.
    pub cells: Option<Vec<usize>>,
    /// Mesh size of the box's mesh (length); default `2 range`, capped at 256 (2D) or 48 (3D)
    /// intervals per axis (a given `h` is not capped).
    pub h: Option<f64>,
    /// A Gmsh mesh file instead of a box (path relative to the case file).
    pub mesh: Option<String>,
    /// The wall markers (facet physical names); default for a box: all six (four) faces `xmin`,
    /// `xmax`, `ymin`, `ymax` (`zmin`, `zmax`); required with `mesh`.
    pub walls: Option<Vec<String>>,
    /// Periodic directions: `["x", "z"]` (the faces `xmin` and `xmax`, `zmin` and `zmax`) or
    /// `{ x = ["left", "right"] }` (the lower and upper faces' markers of a Gmsh mesh meshed
    /// with `Periodic`); read by the case builder, which names what it expected.
    pub periodic: Option<toml::Value>,
}

/// One body, or a row of identical bodies.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// A name for messages and output; default `body<k>`.
    pub name: Option<String>,
    /// The shape.
    pub shape: ShapeSpec,
    /// Density (mass/length^dimension).
    pub density: f64,
    /// The centre of mass at t = 0.
    pub position: Vec<f64>,
    /// 2D: the initial angle (radians, counter-clockwise); default 0.
    pub angle: Option<f64>,
    /// 3D: the initial rotation as a rotation vector (axis × angle in radians); default none.
    pub rotation: Option<Vec<f64>>,
    /// Initial velocity; default zero.
    pub velocity: Option<Vec<f64>>,
    /// Initial angular velocity (rad/time): a number in 2D, a vector in 3D; default zero.
    pub angular_velocity: Option<AngularSpec>,
    /// Copies of the body on a grid, for many bodies from one entry; default: the body alone.
    pub grid: Option<GridSpec>,
    /// Copies of the body at random places, for a suspension; default: the body alone.
    pub scatter: Option<ScatterSpec>,
}

/// Copies of a body at random places: `count` centres drawn uniformly in the box
/// `position ± spread`, each kept if its bounding sphere stays `gap` clear of those kept before
/// (through the images across periodic faces), until `count` are kept (random sequential
/// addition); copy `n` is named `<name>_<n>`. The same `seed` gives the same places everywhere.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterSpec {
    /// How many copies.
    pub count: usize,
    /// Half the box's side along each axis.
    pub spread: Vec<f64>,
    /// The least clearance between two copies' bounding spheres; default the contact range.
    pub gap: Option<f64>,
    /// The random generator's seed; default 1.
    pub seed: Option<u64>,
}

/// Bodies released during the run, one at each of the times `times` or `rate` per unit time
/// from `start`: body `n` (from 0) is called `<name>_<n>` and starts at
/// `position + spread ⊙ (2 r_n − 1)`, with `r_n` the `n`-th point of the additive recurrence of
/// the generalised golden ratio (Roberts' `R_d` sequence, `r_n = frac(0.5 + (n + 1) α)`): evenly
/// spread over the box `position ± spread`, the same in every run. A body whose place is taken
/// (its bounding sphere comes within the contact range of another body's, or it is not wholly
/// inside the domain) waits for the next step, and those after it wait behind it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InflowSpec {
    /// The released bodies' name before `_<n>`; default `inflow<k>`.
    pub name: Option<String>,
    /// The shape.
    pub shape: ShapeSpec,
    /// Density.
    pub density: f64,
    /// The centre of the release box (on the mesh: with `[frame]`, it moves with it).
    pub position: Vec<f64>,
    /// Half the release box's extent along each axis; default zero (every body at `position`).
    pub spread: Option<Vec<f64>>,
    /// 2D: the bodies' angle (radians); default 0.
    pub angle: Option<f64>,
    /// 3D: the bodies' rotation vector; default none.
    pub rotation: Option<Vec<f64>>,
    /// The bodies' velocity at release (in the lab); default zero.
    pub velocity: Option<Vec<f64>>,
    /// The release times, ascending; or `rate`.
    pub times: Option<Vec<f64>>,
    /// Bodies per unit time, from `start` to the end of the run (or `count` bodies); or `times`.
    pub rate: Option<f64>,
    /// With `rate`, the time of the first release; default 0.
    pub start: Option<f64>,
    /// With `rate`, the most bodies to release; default: as many as the run's time allows.
    pub count: Option<usize>,
}

/// Copies of a body on a regular grid: copy `(i, j(, k))` is at `position + (i sx, j sy(, k sz))`,
/// copy number `n` (in the order `i` fastest) is named `<name>_<n>` and turned by `n · turn` more
/// than `angle` / `rotation` (so that a pile of equal bodies does not start aligned).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Copies along each axis.
    pub count: Vec<usize>,
    /// The spacing along each axis.
    pub spacing: Vec<f64>,
    /// The extra turn of each copy over the one before: radians (2D) or a rotation vector (3D);
    /// default none.
    pub turn: Option<AngularSpec>,
}

/// A scalar (2D) or vector (3D) angular quantity.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum AngularSpec {
    /// 2D.
    Scalar(f64),
    /// 3D.
    Vector(Vec<f64>),
}

/// A body's shape, in its own frame (centred on its origin; the body frame is then moved to the
/// centre of mass).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum ShapeSpec {
    /// A disk (2D) or ball (3D); `sphere` is another name for it.
    #[serde(alias = "sphere")]
    Circle {
        /// Radius.
        radius: f64,
    },
    /// An ellipse (2D) or ellipsoid (3D) with the given semi-axes along the frame's axes.
    Ellipse {
        /// Semi-axes.
        semi_axes: Vec<f64>,
    },
    /// A rectangle (2D) or box (3D) with the given side lengths.
    Rectangle {
        /// Side lengths.
        sides: Vec<f64>,
    },
    /// A polygon (2D), vertices `[[x, y], …]` in either orientation.
    Polygon {
        /// Vertices.
        vertices: Vec<[f64; 2]>,
    },
    /// The tripole (2D): three disks of diameter `diameter` whose centres are `arm` from the
    /// origin at 90°, 210° and 330°, joined to the origin by bars of width `bar` (section 4.6 of
    /// the specification).
    Tripole {
        /// The lobes' diameter.
        diameter: f64,
        /// Distance of the lobes' centres from the origin.
        arm: f64,
        /// The bars' width; default `diameter / 2`.
        bar: Option<f64>,
    },
    /// The union of disks (2D) or balls (3D) centred at `centres`, of radius `radius` (all) or
    /// `radii` (one each): clusters, dumbbells, the 3D sister of the tripole.
    Spheres {
        /// Their centres, `[x, y(, z)]` each.
        centres: Vec<Vec<f64>>,
        /// One radius for all.
        radius: Option<f64>,
        /// A radius for each centre.
        radii: Option<Vec<f64>>,
    },
    /// A Gmsh mesh of the body (path relative to the case file); all its cells are the body.
    Mesh {
        /// The file.
        file: String,
    },
}

/// Contact parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactSpec {
    /// `spec`, `glowinski`, `patches` or `collision` (see [`crate::contact::Law`]); default
    /// `glowinski`.
    pub law: Option<String>,
    /// `ρ`, the range of a repulsive force (length); where the collision law's contact begins.
    pub range: f64,
    /// `ε`, the body–body stiffness parameter of a repulsive law (force ∝ 1/ε).
    pub stiffness: Option<f64>,
    /// `ε_W`, the body–wall stiffness parameter; default `stiffness`.
    pub wall_stiffness: Option<f64>,
    /// `c`, a repulsive law's normal damping (force per unit approach speed, see
    /// [`crate::contact::ContactModel::damping`]); default 0.
    pub damping: Option<f64>,
    /// The collision law's restitution coefficient `e` in (0, 1].
    pub restitution: Option<f64>,
    /// The collision law's duration `t_c` (time).
    pub duration: Option<f64>,
    /// The collision law's friction coefficient `μ`; default 0.
    pub friction: Option<f64>,
    /// The collision law's rolling resistance coefficient `μ_r`; default 0.
    pub rolling: Option<f64>,
    /// The lubrication film below the fluid mesh, beside the law; default none.
    pub lubrication: Option<LubricationSpec>,
    /// The spacing of the bodies' distance-field lattices (length); default `range / 4`, and at
    /// most a twentieth of the smallest body's radius.
    pub resolution: Option<f64>,
    /// The broad-phase method (`brute`, `linked-cell`, `sweep`, `sorted-distance`, `hgrid`,
    /// `kdtree`, `auto`); default `auto`.
    pub broad_phase: Option<String>,
}

/// The lubrication film ([`crate::contact::lubrication`]): `lubrication = { cut = …, roughness = … }`
/// (and `share`, `tangential`, `viscosity`).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LubricationSpec {
    /// `h_c`, the gap below which the film's force is added (length): where the fluid mesh
    /// stops resolving it, about two cells.
    pub cut: f64,
    /// `h_r`, the surfaces' roughness (length): below it the film's force stays the one at `h_r`.
    pub roughness: f64,
    /// `μ`, the film's viscosity: the `[fluid]`'s, and required only without a `[fluid]` (a dry
    /// case's bodies in a liquid the mesh does not carry).
    pub viscosity: Option<f64>,
    /// `s` in [0, 1), the share of the film below the cut that the fluid mesh carries itself
    /// (the film adds the rest); 0 by default.
    pub share: Option<f64>,
    /// Whether the film also resists the surfaces' sliding and turning past each other; true
    /// by default.
    pub tangential: Option<bool>,
}

/// Time stepping.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSpec {
    /// `Δt`.
    pub step: f64,
    /// The final time.
    pub end: f64,
}

/// The frame of reference of a case with bodies in a fluid: `follow` names a body whose motion
/// along `axis` the mesh follows ([`crate::sim::Following`]): the body stays near its start on
/// the mesh while it settles through a channel as long as it needs. The mesh's prescribed
/// velocities are the lab's (walls at rest, the fluid at rest where it enters); `bodies.csv`,
/// `exits.csv` and `summary.json` are in the lab, the `.vtu` files in the frame.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameSpec {
    /// The body followed.
    pub follow: String,
    /// The direction the frame moves along; default: gravity's.
    pub axis: Option<Vec<f64>>,
}

/// The fluid: an incompressible Newtonian fluid filling the domain mesh.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FluidSpec {
    /// Density ρ (mass/length^dimension); default 1.
    pub density: Option<f64>,
    /// Dynamic viscosity μ (mass/(length·time) in 3D); the solver uses ν = μ/ρ.
    pub viscosity: f64,
    /// Solve for the steady flow by Newton's method (no `[time]`); default false.
    pub steady: Option<bool>,
    /// Drop the convection term (Stokes flow); default false.
    pub stokes: Option<bool>,
    /// How unsteady runs treat convection: `"extrapolated"` (explicit, CFL-limited; the default)
    /// or `"characteristics"` (semi-Lagrangian: no CFL limit, robust where the mesh does not
    /// resolve the boundary layers, as around bodies moving fast through a fixed mesh).
    pub convection: Option<ConvectionSpec>,
    /// How unsteady runs couple velocity and pressure: `"pressure-correction"` (BDF2 incremental
    /// pressure correction in rotational form; the default without bodies), `"monolithic"` (BDF2
    /// with velocity and pressure solved together: no splitting error, stable at larger steps,
    /// about 2.4x the time per step in 2D, not with bodies; `"coupled"`, its former name, is read
    /// as the same) or `"projected-correction"` (the pressure correction with the step's velocity
    /// projected onto the divergence-free fields, `D` more solves with the velocity mass matrix a
    /// step: with bodies it holds where they move more than half a cell a step; the default with
    /// bodies).
    pub scheme: Option<SchemeSpec>,
    /// Passes of the pressure correction a step, at the step's pose (default 1): in creeping
    /// flow (`ν Δt/h² ≫ 1`) one pass leaves the pressure about 1.5 steps behind the bodies'
    /// geometry, 3 bring it within a few hundredths of a step, each pass costing about a step.
    pub pressure_passes: Option<usize>,
    /// How the fluid sees the bodies' boundaries: `"nodes"` (the velocity nodes inside a body
    /// move with it; first order in h, robust at any Reynolds number; the default) or
    /// `"surface"` (the nodes within a cell of the surface hold the rigid motion at the surface
    /// itself, by extrapolation from the fluid; second order in Stokes flow).
    pub body_boundary: Option<BodyBoundarySpec>,
    /// Carry the bodies' buoyant weight by a uniform body force on the fluid, the mean pressure
    /// gradient of a suspension settling in a domain periodic along gravity (which no wall
    /// holds); `summary.json`'s `settling_velocity` is then the bodies' mean speed along
    /// gravity relative to the mixture's mean velocity; default false.
    pub balance: Option<bool>,
    /// How the constant systems of a step are solved: `"auto"` (the default: Cholesky factors
    /// where they fit and are fast, conjugate gradients preconditioned by algebraic multigrid
    /// where a factor would not fit or would fill too much, large 3D meshes), `"direct"` or
    /// `"iterative"`.
    pub solver: Option<SolverSpec>,
    /// A condition for every boundary marker of the mesh: `"no-slip"`, `"outflow"` (pressure 0),
    /// `{ velocity = [ux, uy(, uz)] }` (numbers or expressions of x, y, z, t) or
    /// `{ pressure = p0 }`; none in a box periodic along every axis.
    #[serde(default)]
    pub boundary: std::collections::BTreeMap<String, ConditionSpec>,
    /// Boundaries that are circles (spheres): their cells become curved (isoparametric P2),
    /// which removes the error of a polygonal boundary; default none.
    #[serde(default)]
    pub curved: Vec<CurvedSpec>,
    /// Forces and pressure difference to report; default none.
    pub report: Option<ReportSpec>,
}

/// How the constant systems are solved (`[fluid] solver`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverSpec {
    /// `"auto"`.
    Auto,
    /// `"direct"`.
    Direct,
    /// `"iterative"`.
    Iterative,
}

/// How the fluid sees the bodies' boundaries (`[fluid] body_boundary`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BodyBoundarySpec {
    /// `"nodes"`.
    Nodes,
    /// `"surface"`.
    Surface,
}

/// The treatment of convection in unsteady runs (`[fluid] convection`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConvectionSpec {
    /// `"extrapolated"`.
    Extrapolated,
    /// `"characteristics"`.
    Characteristics,
}

/// How unsteady runs couple velocity and pressure (`[fluid] scheme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchemeSpec {
    /// `"pressure-correction"`.
    PressureCorrection,
    /// `"monolithic"` (also read from its former name, `"coupled"`).
    #[serde(alias = "coupled")]
    Monolithic,
    /// `"projected-correction"`.
    ProjectedCorrection,
}

/// A boundary lying on a circle (2D) or sphere (3D).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurvedSpec {
    /// The facet marker.
    pub marker: String,
    /// The centre.
    pub centre: Vec<f64>,
    /// The radius.
    pub radius: f64,
}

/// A boundary condition.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ConditionSpec {
    /// `"no-slip"` or `"outflow"`.
    Keyword(String),
    /// A table with `velocity` or `pressure`.
    Table(ConditionTable),
}

/// A boundary condition written as a table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionTable {
    /// The velocity, per component a number or an expression of `x`, `y`, `z`, `t`.
    pub velocity: Option<Vec<NumberOrExpr>>,
    /// The pressure (traction `μ ∂u/∂n − p n = −p0 n`).
    pub pressure: Option<f64>,
}

/// A number or an expression (see [`crate::expr`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum NumberOrExpr {
    /// A constant.
    Number(f64),
    /// An expression such as `"4*0.3*y*(0.41-y)/0.41^2"`.
    Expr(String),
}

/// What to measure on the flow: the force on a marked boundary and its coefficients, and a
/// pressure difference between two points.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportSpec {
    /// The boundary marker (e.g. the obstacle) whose force is reported: `drag` along x, `lift`
    /// along y.
    pub marker: Option<String>,
    /// `U` in the coefficients `c = 2F/(ρ U² L)`.
    pub reference_velocity: Option<f64>,
    /// `L` in the coefficients (a length in 2D, an area in 3D).
    pub reference_length: Option<f64>,
    /// Two points `a`, `b`: reports `p(a) − p(b)`.
    pub pressure_points: Option<[Vec<f64>; 2]>,
}

/// Drag rates (1/time).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DragSpec {
    /// `c_v` in `dv/dt = … − c_v v`; default 0.
    pub linear: Option<f64>,
    /// `c_ω` in `dω/dt = … − c_ω ω`; default 0.
    pub angular: Option<f64>,
}

/// Output.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Steps between `.vtu` files (0: none); default: 100 files over the run.
    pub every: Option<usize>,
    /// Steps between rows of `bodies.csv` (`fluid.csv`); default 1 (every step).
    pub csv_every: Option<usize>,
    /// Also write each body's distance-field lattice (moved with the body) into the `.vtu` files;
    /// default false.
    pub fields: Option<bool>,
    /// Steps between checkpoints (`checkpoint.cbor`, the whole state, from which `tumble run
    /// --restart` continues); default: none, except when the run is stopped by a signal.
    pub checkpoint_every: Option<usize>,
}
