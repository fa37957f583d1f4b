// A deal.II host that uses tumble for contact: the specification's case 4.2.3, two disks of radius
// 0.125 near the floor and near each other in the box [0, 2]², settling in a viscous fluid
// (ρ_b 1.01, ρ_f 1, μ 0.1, CGS, g = 981; contact range ρ = 0.03, ε = ε_W = 1e-4), run in parallel
// under MPI.
//
// The host, deal.II, owns the fluid, on a fixed mesh with the disks imposed on it (a fictitious
// domain), so that the distributed mesh (p4est) and its partition never change as the disks move:
// - the mesh: the box split into `cells × cells` squares, distributed over the ranks;
// - the fluid: unsteady Stokes flow, Taylor–Hood Q2–Q1, backward Euler, no-slip on the box. The
//   disks move at Reynolds numbers below 0.1, so convection is left out, as in tumble's own run
//   (`cases/two_disks_floor.toml`, `stokes = true`) and the Python host;
// - the disks in the fluid: a volume penalty (Brinkman) κ χ_b (u − U_b) that drives the fluid
//   inside disk b to its rigid velocity U_b(x) = U_b + ω_b × (x − X_b); χ_b is 1 inside the disk,
//   0 outside, read at quadrature points (a finer, iterated rule in the cells the circle cuts);
//   the fluid inside the disk is carried with it, so the disk's own equation holds only its
//   excess mass, (ρ_b − ρ_f) V dU/dt = F_κ + (ρ_b − ρ_f) V g + F_contact, with F_κ = κ ∫ χ_b (u −
//   U_b) the penalty's reaction (Glowinski's distributed-multiplier form);
// - the coupling: the step's flow is linear in the disks' new velocities U (u_x, u_y, ω per disk):
//   u = u_rest + Σ U_m u_m, u_rest the flow with the disks held still and u_m the flow of a unit
//   rigid velocity of one disk (seven solves, one factorisation by MUMPS). F_κ is then linear in
//   U, and the disks' equations are solved implicitly in U, stable whatever the density ratio
//   (1.01 here; an explicit coupling is unstable through the fluid's added mass);
// - the contact: tumble's body-frame mode (`TumbleWorld`: each disk's distance field in its own
//   frame, the box's walls from a triangle mesh of the box), given the disks' positions each
//   step; its forces and torques go into the disks' equations.
// - the ranks: every rank holds both disks and calls tumble for them (replicated bodies; the
//   contact is microseconds against the fluid's seconds); each rank integrates the penalty's
//   reactions over its own cells and an MPI sum gives every rank the same disk equations.
//
// Output: `bodies.csv` in `tumble run`'s columns (a row per disk and step), the flow as VTU files
// with a `flow.pvd` series, and `timing.json` (where the time of a step goes, per rank count).
//
//   mpirun -n 2 ./two_disks --out out/dealii_two_disks [--cells 200] [--steps 50] [--dt 0.001]
//                           [--every 10]

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/index_set.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/lapack_full_matrix.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/numerics/data_out.h>
#include <deal.II/numerics/vector_tools.h>

#include <petscksp.h>
#include <tumble.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace dealii;

namespace
{
  constexpr unsigned int dim = 2;
  constexpr unsigned int n_disks = 2;
  constexpr unsigned int n_modes = 3 * n_disks; // u_x, u_y, ω per disk
  constexpr double radius = 0.125;
  constexpr double body_density = 1.01, fluid_density = 1.0, viscosity = 0.1, gravity = 981.0;
  constexpr double contact_range = 0.03, stiffness = 1e-4;
  const char *const names[n_disks] = {"left", "right"};

  /// What the command line sets.
  struct Parameters
  {
    unsigned int cells = 200;   // squares per side: h = 2 / cells
    unsigned int refine = 2;    // halvings of h within `band` of the disks' circles
    double band = 0.04;
    unsigned int steps = 50;    // the specification's 50 steps
    double dt = 1e-3;           // the specification's Δt
    unsigned int every = 10;    // VTU output every this many steps (0: none)
    double floor_gap = 0.02;    // as in cases/two_disks_floor.toml
    double pair_gap = 0.015;
    std::string out = "out/dealii_two_disks";
  };

  Parameters
  parse(int argc, char **argv)
  {
    Parameters p;
    for (int a = 1; a < argc; ++a)
      {
        const std::string key = argv[a];
        if (key.rfind("--", 0) != 0)
          continue; // PETSc's own options (-pc_type cholesky, …), read by PETSc
        if (a + 1 >= argc)
          throw std::invalid_argument("option " + key + " needs a value");
        const std::string value = argv[++a];
        try
          {
            if (key == "--cells")
              p.cells = std::stoul(value);
            else if (key == "--refine")
              p.refine = std::stoul(value);
            else if (key == "--band")
              p.band = std::stod(value);
            else if (key == "--steps")
              p.steps = std::stoul(value);
            else if (key == "--dt")
              p.dt = std::stod(value);
            else if (key == "--every")
              p.every = std::stoul(value);
            else if (key == "--out")
              p.out = value;
            else
              throw std::domain_error("unknown option " + key +
                                      " (expected --cells, --refine, --band, --steps, --dt, --every, --out)");
          }
        catch (const std::invalid_argument &)
          {
            throw std::invalid_argument(key + " expects a number, not '" + value + "'");
          }
      }
    if (p.cells < 20 || p.dt <= 0)
      throw std::invalid_argument("--cells must be at least 20 and --dt positive");
    return p;
  }

  /// Stops with tumble's message when a call fails.
  void
  check(TumbleStatus status, const char *call)
  {
    if (status != TUMBLE_STATUS_OK)
      throw std::runtime_error(std::string(call) + ": " + tumble_last_error());
  }

  void
  check(PetscErrorCode code, const char *call)
  {
    if (code != 0)
      throw std::runtime_error(std::string(call) + " failed with PETSc error " +
                               std::to_string(code));
  }

  /// A disk's motion: centre, angle, velocity and angular velocity.
  struct Disk
  {
    Point<dim> centre;
    double angle = 0, omega = 0;
    Tensor<1, dim> velocity;

    bool
    contains(const Point<dim> &x) const
    {
      return (x - centre).norm_square() < radius * radius;
    }

    /// The rigid mode `k` (0: x, 1: y, 2: rotation about the centre) at `x`.
    Tensor<1, dim>
    mode(unsigned int k, const Point<dim> &x) const
    {
      Tensor<1, dim> phi;
      if (k < dim)
        phi[k] = 1;
      else
        {
          phi[0] = -(x[1] - centre[1]);
          phi[1] = x[0] - centre[0];
        }
      return phi;
    }
  };

  /// What a cell needs for the disks' integrals: nothing (no disk reaches it), its own quadrature
  /// (inside a disk), or the finer, iterated one (a circle cuts it).
  enum class Reach
  {
    none,
    inside,
    cut
  };
} // namespace

/// The fluid, the disks and the coupling; one object per run.
class TwoDisks
{
public:
  TwoDisks(const Parameters &parameters);
  ~TwoDisks();
  void
  run();

private:
  void
  setup();
  void
  assemble_constant();
  void
  assemble_step();
  void
  solve_flows();
  void
  advance_disks();
  void
  contact();
  void
  write_bodies(unsigned int step);
  void
  write_flow(unsigned int step);
  void
  write_timing();
  Reach
  reach(const typename DoFHandler<dim>::active_cell_iterator &cell) const;
  template <typename AtCell, typename AtPoint, typename Done>
  void
  over_disks(AtCell at_cell, AtPoint at_point, Done done);
  int
  disk_at(const Point<dim> &x) const;

  Parameters parameters;
  MPI_Comm comm = MPI_COMM_WORLD;
  ConditionalOStream pcout;
  TimerOutput timer;

  parallel::distributed::Triangulation<dim> triangulation;
  FESystem<dim> fe;
  DoFHandler<dim> dof_handler;
  QGauss<dim> quadrature;
  QIterated<dim> cut_quadrature;
  IndexSet owned, relevant;
  AffineConstraints<double> constraints;

  PETScWrappers::MPI::SparseMatrix constant_matrix, system_matrix, mass_matrix;
  PETScWrappers::MPI::Vector rest_rhs;
  std::array<PETScWrappers::MPI::Vector, n_modes> mode_rhs;
  PETScWrappers::MPI::Vector rest_flow;
  std::array<PETScWrappers::MPI::Vector, n_modes> mode_flows;
  PETScWrappers::MPI::Vector flow, flow_ghosted;
  std::array<PETScWrappers::MPI::Vector, n_modes + 1> ghosted; // the eight flows, with ghosts
  KSP ksp = nullptr;

  std::array<Disk, n_disks> disks;
  double penalty = 0;
  std::array<double, n_modes> contact_load{}, fluid_load{};
  TumbleWorld *world = nullptr;
  double time = 0;
  std::ofstream bodies;
  std::vector<std::pair<double, std::string>> flow_files;
  unsigned int steps_timed = 0;
};

TwoDisks::TwoDisks(const Parameters &parameters)
  : parameters(parameters)
  , pcout(std::cout, Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
  , timer(MPI_COMM_WORLD, pcout, TimerOutput::never, TimerOutput::wall_times)
  , triangulation(MPI_COMM_WORLD)
  , fe(FE_Q<dim>(2), dim, FE_Q<dim>(1), 1)
  , dof_handler(triangulation)
  , quadrature(3)
  , cut_quadrature(QGauss<1>(3), 6)
{
  const double x0 = 1.0 - radius - parameters.pair_gap / 2, x1 = 1.0 + radius + parameters.pair_gap / 2;
  const double y = radius + parameters.floor_gap;
  disks[0].centre = Point<dim>(x0, y);
  disks[1].centre = Point<dim>(x1, y);
  // The penalty outweighs the fluid's inertia ρ_f / Δt by 1e5: the velocity inside a disk is
  // rigid to about 1e-5 of the forces that drive it.
  penalty = 1e5 * fluid_density / parameters.dt;
}

TwoDisks::~TwoDisks()
{
  if (ksp != nullptr)
    KSPDestroy(&ksp);
  tumble_world_free(world);
}

void
TwoDisks::setup()
{
  TimerOutput::Scope scope(timer, "set-up");
  const unsigned int n = parameters.cells;
  GridGenerator::subdivided_hyper_rectangle(triangulation, {n, n}, Point<dim>(0, 0), Point<dim>(2, 2), true);
  // Finer where the disks go: the cells within `band` of a circle, halved `refine` times (the
  // gaps of 0.015–0.02 are 1.5–2 cells of the spec's h = 0.01).
  for (unsigned int level = 0; level < parameters.refine; ++level)
    {
      for (const auto &cell : triangulation.active_cell_iterators())
        if (cell->is_locally_owned())
          for (const Disk &disk : disks)
            if (std::abs((cell->center() - disk.centre).norm() - radius) < parameters.band + 0.5 * cell->diameter())
              cell->set_refine_flag();
      triangulation.execute_coarsening_and_refinement();
    }
  dof_handler.distribute_dofs(fe);
  owned = dof_handler.locally_owned_dofs();
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);

  // No-slip on the four sides (boundary ids 0–3 with `colorize`).
  const FEValuesExtractors::Vector velocities(0);
  constraints.reinit(relevant);
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  for (types::boundary_id side = 0; side < 4; ++side)
    VectorTools::interpolate_boundary_values(dof_handler, side, Functions::ZeroFunction<dim>(dim + 1), constraints,
                                             fe.component_mask(velocities));
  constraints.close();

  DynamicSparsityPattern pattern(relevant);
  DoFTools::make_sparsity_pattern(dof_handler, pattern, constraints, false);
  SparsityTools::distribute_sparsity_pattern(pattern, owned, comm, relevant);
  constant_matrix.reinit(owned, owned, pattern, comm);
  system_matrix.reinit(owned, owned, pattern, comm);
  mass_matrix.reinit(owned, owned, pattern, comm);
  rest_rhs.reinit(owned, comm);
  rest_flow.reinit(owned, comm);
  flow.reinit(owned, comm);
  flow_ghosted.reinit(owned, relevant, comm);
  for (auto &g : ghosted)
    g.reinit(owned, relevant, comm);
  for (unsigned int m = 0; m < n_modes; ++m)
    {
      mode_rhs[m].reinit(owned, comm);
      mode_flows[m].reinit(owned, comm);
    }

  check(KSPCreate(comm, &ksp), "KSPCreate");
  check(KSPSetType(ksp, KSPPREONLY), "KSPSetType");
  PC pc;
  check(KSPGetPC(ksp, &pc), "KSPGetPC");
  check(PCSetType(pc, PCCHOLESKY), "PCSetType"); // LDLᵀ: the matrix is symmetric
  check(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS), "PCFactorSetMatSolverType");
  check(KSPSetFromOptions(ksp), "KSPSetFromOptions");

  // tumble: the box's walls from a triangle mesh of it (sides tagged 1–4), the disks in their
  // own frames, replicated on every rank. One thread per rank: the ranks share the cores.
  const double lower[2] = {0, 0}, upper[2] = {2, 2};
  const uint32_t lattice[2] = {n, n};
  TumbleMesh *box = nullptr;
  check(tumble_mesh_box(2, lower, upper, lattice, &box), "tumble_mesh_box");
  TumbleWorldOptions options = tumble_world_options_default();
  options.range = contact_range;
  options.stiffness = stiffness;
  options.wall_stiffness = stiffness;
  options.threads = 1;
  const int32_t walls[4] = {1, 2, 3, 4};
  const TumbleStatus made = tumble_world_new(2, box, walls, 4, &options, &world);
  tumble_mesh_free(box);
  check(made, "tumble_world_new");
  for (const Disk &disk : disks)
    {
      const double semi_axes[2] = {radius, radius}, angle = 0;
      check(tumble_world_add_ellipsoid(world, semi_axes, body_density, &disk.centre[0], &angle, nullptr),
            "tumble_world_add_ellipsoid");
    }

 pcout << "mesh: " << triangulation.n_global_active_cells() << " cells (h = " << 2.0 / n << ", "
        << 2.0 / n / (1 << parameters.refine) << " near the disks), " << dof_handler.n_dofs() << " unknowns, on " << Utilities::MPI::n_mpi_processes(comm)
        << " ranks" << std::endl;
}

Reach
TwoDisks::reach(const typename DoFHandler<dim>::active_cell_iterator &cell) const
{
  const double half_diagonal = 0.5 * cell->diameter();
  Reach r = Reach::none;
  for (const Disk &disk : disks)
    {
      const double d = (cell->center() - disk.centre).norm() - radius;
      if (std::abs(d) <= half_diagonal)
        return Reach::cut;
      if (d < 0)
        r = Reach::inside;
    }
  return r;
}

/// The disk that holds `x`, or −1.
int
TwoDisks::disk_at(const Point<dim> &x) const
{
  for (unsigned int b = 0; b < n_disks; ++b)
    if (disks[b].contains(x))
      return b;
  return -1;
}

/// The walk of the disks' integrals over this rank's cells that a disk reaches: `at_cell(values)`
/// with `values` on the cell (its own quadrature, or the iterated one where a circle cuts it),
/// then `at_point(q, b, x, w)` at each quadrature point `x` inside disk `b` with the weight
/// `w = κ JxW`, then `done(cell)`.
template <typename AtCell, typename AtPoint, typename Done>
void
TwoDisks::over_disks(AtCell at_cell, AtPoint at_point, Done done)
{
  const UpdateFlags flags = update_values | update_quadrature_points | update_JxW_values;
  FEValues<dim> inside(fe, quadrature, flags), cut(fe, cut_quadrature, flags);
  for (const auto &cell : dof_handler.active_cell_iterators())
    if (cell->is_locally_owned())
      {
        const Reach r = reach(cell);
        if (r == Reach::none)
          continue;
        FEValues<dim> &values = r == Reach::inside ? inside : cut;
        values.reinit(cell);
        at_cell(values);
        for (unsigned int q = 0; q < values.n_quadrature_points; ++q)
          {
            const Point<dim> &x = values.quadrature_point(q);
            const int b = disk_at(x);
            if (b >= 0)
              at_point(q, b, x, penalty * values.JxW(q));
          }
        done(cell);
      }
}

/// The parts of the matrix that never change: (ρ_f/Δt)(u, v) + μ(∇u, ∇v) − (p, ∇·v) − (q, ∇·u)
/// − δ(p, q), δ = 1e-10/μ fixing the pressure's constant in the closed box; and the velocity
/// mass matrix (ρ_f/Δt)(u, v) that carries the last step's flow into the right-hand side.
void
TwoDisks::assemble_constant()
{
  TimerOutput::Scope scope(timer, "set-up");
  const FEValuesExtractors::Vector velocities(0);
  const FEValuesExtractors::Scalar pressure(dim);
  FEValues<dim> values(fe, quadrature, update_values | update_gradients | update_JxW_values);
  const unsigned int n = fe.n_dofs_per_cell();
  FullMatrix<double> local(n, n), local_mass(n, n);
  std::vector<types::global_dof_index> dofs(n);
  std::vector<Tensor<1, dim>> phi_u(n);
  std::vector<Tensor<2, dim>> grad_u(n);
  std::vector<double> div_u(n), phi_p(n);
  const double inertia = fluid_density / parameters.dt, delta = 1e-10 / viscosity;
  for (const auto &cell : dof_handler.active_cell_iterators())
    if (cell->is_locally_owned())
      {
        values.reinit(cell);
        local = 0;
        local_mass = 0;
        for (unsigned int q = 0; q < quadrature.size(); ++q)
          {
            for (unsigned int i = 0; i < n; ++i)
              {
                phi_u[i] = values[velocities].value(i, q);
                grad_u[i] = values[velocities].gradient(i, q);
                div_u[i] = values[velocities].divergence(i, q);
                phi_p[i] = values[pressure].value(i, q);
              }
            const double w = values.JxW(q);
            for (unsigned int i = 0; i < n; ++i)
              for (unsigned int j = 0; j < n; ++j)
                {
                  const double mass = inertia * phi_u[i] * phi_u[j];
                  local(i, j) += (mass + viscosity * scalar_product(grad_u[i], grad_u[j]) - div_u[i] * phi_p[j] -
                                  phi_p[i] * div_u[j] - delta * phi_p[i] * phi_p[j]) *
                                 w;
                  local_mass(i, j) += mass * w;
                }
          }
        cell->get_dof_indices(dofs);
        constraints.distribute_local_to_global(local, dofs, constant_matrix);
        constraints.distribute_local_to_global(local_mass, dofs, mass_matrix);
      }
  constant_matrix.compress(VectorOperation::add);
  mass_matrix.compress(VectorOperation::add);
}

/// This step's matrix, the constant part plus the penalty κ(χ_b u, v) of the disks where they are
/// now, and the right-hand sides: the last flow's inertia for the rest flow, κ(χ_b φ_m, v) for
/// the unit rigid velocity of mode m.
void
TwoDisks::assemble_step()
{
  TimerOutput::Scope scope(timer, "assemble");
  system_matrix.copy_from(constant_matrix);
  mass_matrix.vmult(rest_rhs, flow);
  for (auto &rhs : mode_rhs)
    rhs = 0;
  const FEValuesExtractors::Vector velocities(0);
  const unsigned int n = fe.n_dofs_per_cell();
  FullMatrix<double> local(n, n);
  std::array<Vector<double>, n_modes> local_rhs;
  for (auto &r : local_rhs)
    r.reinit(n);
  std::vector<types::global_dof_index> dofs(n);
  std::vector<Tensor<1, dim>> phi(n);
  const FEValues<dim> *on_cell = nullptr;
  over_disks(
    [&](const FEValues<dim> &values) {
      on_cell = &values;
      local = 0;
      for (auto &v : local_rhs)
        v = 0;
    },
    [&](unsigned int q, int b, const Point<dim> &x, double w) {
      for (unsigned int i = 0; i < n; ++i)
        phi[i] = (*on_cell)[velocities].value(i, q);
      for (unsigned int i = 0; i < n; ++i)
        {
          for (unsigned int j = 0; j < n; ++j)
            local(i, j) += phi[i] * phi[j] * w;
          for (unsigned int k = 0; k < 3; ++k)
            local_rhs[3 * b + k](i) += phi[i] * disks[b].mode(k, x) * w;
        }
    },
    [&](const auto &cell) {
      cell->get_dof_indices(dofs);
      constraints.distribute_local_to_global(local, dofs, system_matrix);
      for (unsigned int m = 0; m < n_modes; ++m)
        constraints.distribute_local_to_global(local_rhs[m], dofs, mode_rhs[m]);
    });
  system_matrix.compress(VectorOperation::add);
  check(MatSetOption(system_matrix, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
  for (auto &rhs : mode_rhs)
    rhs.compress(VectorOperation::add);
}

/// One factorisation (MUMPS's LDLᵀ through PETSc; `-pc_type lu` for LU; its analysis kept from
/// step to step, since the pattern never changes) and seven solves: the rest flow and one per
/// rigid mode.
void
TwoDisks::solve_flows()
{
  {
    TimerOutput::Scope scope(timer, "factorise");
    check(KSPSetOperators(ksp, system_matrix, system_matrix), "KSPSetOperators");
    check(KSPSetUp(ksp), "KSPSetUp");
  }
  TimerOutput::Scope scope(timer, "solve");
  check(KSPSolve(ksp, rest_rhs, rest_flow), "KSPSolve");
  constraints.distribute(rest_flow); // the hanging nodes' values
  for (unsigned int m = 0; m < n_modes; ++m)
    {
      check(KSPSolve(ksp, mode_rhs[m], mode_flows[m]), "KSPSolve");
      constraints.distribute(mode_flows[m]);
    }
}

/// The disks' new velocities, implicitly: with F_κ = f + (S − G) U the penalty's reaction on the
/// modes (f_k = κ∫χ u_rest·φ_k, S_kl = κ∫χ u_l·φ_k, G_kl = κ∫χ φ_l·φ_k, over the disk of mode
/// k), (M_e/Δt + G − S) U = M_e U_old/Δt + f + F_weight + F_contact, M_e the disks' excess mass
/// and inertia (ρ_b − ρ_f)(V, V, J). Then the flow u = u_rest + Σ U_m u_m and the disks' new
/// positions.
void
TwoDisks::advance_disks()
{
  {
    TimerOutput::Scope scope(timer, "communicate");
    for (unsigned int m = 0; m <= n_modes; ++m)
      ghosted[m] = m == 0 ? rest_flow : mode_flows[m - 1];
  }
  // Integrals over this rank's cells: row k of S (columns 0..n_modes−1), f (column n_modes) and
  // G (columns n_modes+1..).
  std::vector<double> sums(n_modes * (2 * n_modes + 1), 0.0);
  {
    TimerOutput::Scope scope(timer, "disk integrals");
    const FEValuesExtractors::Vector velocities(0);
    std::vector<std::vector<Tensor<1, dim>>> u(n_modes + 1, std::vector<Tensor<1, dim>>(cut_quadrature.size()));
    over_disks(
      [&](const FEValues<dim> &values) {
        for (unsigned int m = 0; m <= n_modes; ++m)
          {
            u[m].resize(values.n_quadrature_points);
            values[velocities].get_function_values(ghosted[m], u[m]);
          }
      },
      [&](unsigned int q, int d, const Point<dim> &x, double w) {
        const Disk &disk = disks[d];
        for (unsigned int a = 0; a < 3; ++a)
          {
            const unsigned int k = 3 * d + a;
            const Tensor<1, dim> phi_k = disk.mode(a, x);
            double *row = &sums[k * (2 * n_modes + 1)];
            for (unsigned int l = 0; l < n_modes; ++l)
              row[l] += u[l + 1][q] * phi_k * w;
            row[n_modes] += u[0][q] * phi_k * w;
            for (unsigned int b = 0; b < 3; ++b)
              row[n_modes + 1 + 3 * d + b] += disk.mode(b, x) * phi_k * w;
          }
      },
      [](const auto &) {});
  }
  {
    TimerOutput::Scope scope(timer, "communicate");
    Utilities::MPI::sum(sums, comm, sums);
  }
  TimerOutput::Scope scope(timer, "disks");
  const double area = M_PI * radius * radius, excess = (body_density - fluid_density) * area;
  const std::array<double, 3> inertia = {{excess, excess, 0.5 * excess * radius * radius}};
  const double weight = -excess * gravity;
  LAPACKFullMatrix<double> a(n_modes, n_modes);
  Vector<double> velocity(n_modes);
  std::array<double, n_modes> old{};
  for (unsigned int b = 0; b < n_disks; ++b)
    {
      old[3 * b] = disks[b].velocity[0];
      old[3 * b + 1] = disks[b].velocity[1];
      old[3 * b + 2] = disks[b].omega;
    }
  std::array<double, n_modes> penalty_rest{};
  for (unsigned int k = 0; k < n_modes; ++k)
    {
      const double *row = &sums[k * (2 * n_modes + 1)];
      const double m = inertia[k % 3] / parameters.dt;
      for (unsigned int l = 0; l < n_modes; ++l)
        a(k, l) = (k == l ? m : 0.0) + row[n_modes + 1 + l] - row[l];
      penalty_rest[k] = row[n_modes];
      velocity(k) = m * old[k] + row[n_modes] + (k % 3 == 1 ? weight : 0.0) + contact_load[k];
    }
  a.compute_lu_factorization();
  a.solve(velocity);
  // The fluid's force on each disk, as the Python host reports it: the penalty's reaction plus
  // the inertia of the fluid the disk carries, F = F_κ + ρ_f (V, V, J)(U − U_old)/Δt.
  for (unsigned int k = 0; k < n_modes; ++k)
    {
      const double *row = &sums[k * (2 * n_modes + 1)];
      double reaction = penalty_rest[k];
      for (unsigned int l = 0; l < n_modes; ++l)
        reaction += (row[l] - row[n_modes + 1 + l]) * velocity(l);
      const double carried = fluid_density / (body_density - fluid_density) * inertia[k % 3];
      fluid_load[k] = reaction + carried * (velocity(k) - old[k]) / parameters.dt;
    }
  flow = rest_flow;
  for (unsigned int m = 0; m < n_modes; ++m)
    flow.add(velocity(m), mode_flows[m]);
  for (unsigned int b = 0; b < n_disks; ++b)
    {
      Disk &disk = disks[b];
      disk.velocity[0] = velocity(3 * b);
      disk.velocity[1] = velocity(3 * b + 1);
      disk.omega = velocity(3 * b + 2);
      disk.centre += parameters.dt * disk.velocity;
      disk.angle += parameters.dt * disk.omega;
    }
}

/// tumble's contact forces and torques on the disks where they are now.
void
TwoDisks::contact()
{
  TimerOutput::Scope scope(timer, "contact (tumble)");
  for (unsigned int b = 0; b < n_disks; ++b)
    {
      const Disk &disk = disks[b];
      check(tumble_world_set_body(world, b, &disk.centre[0], &disk.angle, &disk.velocity[0], &disk.omega),
            "tumble_world_set_body");
    }
  double forces[2 * n_disks], torques[n_disks];
  size_t count = 0;
  check(tumble_world_contact_forces(world, forces, torques, n_disks, &count), "tumble_world_contact_forces");
  for (unsigned int b = 0; b < n_disks; ++b)
    {
      contact_load[3 * b] = forces[2 * b];
      contact_load[3 * b + 1] = forces[2 * b + 1];
      contact_load[3 * b + 2] = torques[b];
    }
}

void
TwoDisks::write_bodies(unsigned int step)
{
  if (Utilities::MPI::this_mpi_process(comm) != 0)
    return;
  if (step == 0)
    bodies << "time,body,x,y,angle,vx,vy,omega,fx,fy,torque,hx,hy,htorque\n";
  char line[512];
  for (unsigned int b = 0; b < n_disks; ++b)
    {
      const Disk &d = disks[b];
      const double *c = &contact_load[3 * b], *h = &fluid_load[3 * b];
      std::snprintf(line, sizeof line,
                    "%g,%s,%.16e,%.16e,%.16e,%.16e,%.16e,%.16e,%.16e,%.16e,%.16e,%.16e,%.16e,%.16e\n", time, names[b],
                    d.centre[0], d.centre[1], d.angle, d.velocity[0], d.velocity[1], d.omega, c[0], c[1], c[2], h[0],
                    h[1], h[2]);
      bodies << line;
    }
  bodies.flush();
}

void
TwoDisks::write_flow(unsigned int step)
{
  TimerOutput::Scope scope(timer, "output");
  flow_ghosted = flow;
  std::vector<std::string> field(dim, "velocity");
  field.push_back("pressure");
  std::vector<DataComponentInterpretation::DataComponentInterpretation> kinds(
    dim, DataComponentInterpretation::component_is_part_of_vector);
  kinds.push_back(DataComponentInterpretation::component_is_scalar);
  DataOut<dim> out;
  out.attach_dof_handler(dof_handler);
  out.add_data_vector(flow_ghosted, field, DataOut<dim>::type_dof_data, kinds);
  Vector<float> disk(triangulation.n_active_cells());
  for (const auto &cell : dof_handler.active_cell_iterators())
    if (cell->is_locally_owned())
      disk(cell->active_cell_index()) = disk_at(cell->center()) < 0 ? 0.0f : 1.0f;
  out.add_data_vector(disk, "disk");
  out.build_patches(2);
  const std::string name =
    out.write_vtu_with_pvtu_record(parameters.out + "/", "flow", step / std::max(1u, parameters.every), comm, 4);
  flow_files.emplace_back(time, name);
  if (Utilities::MPI::this_mpi_process(comm) == 0)
    {
      std::ofstream pvd(parameters.out + "/flow.pvd.tmp");
      DataOutBase::write_pvd_record(pvd, flow_files);
      pvd.close();
      std::filesystem::rename(parameters.out + "/flow.pvd.tmp", parameters.out + "/flow.pvd");
    }
}

/// `timing.json`: the wall time of a step and its parts (the slowest rank's), per step.
void
TwoDisks::write_timing()
{
  std::vector<std::pair<std::string, double>> slowest;
  for (const auto &[section, seconds] : timer.get_summary_data(TimerOutput::total_wall_time))
    slowest.emplace_back(section, Utilities::MPI::max(seconds, comm));
  if (Utilities::MPI::this_mpi_process(comm) != 0)
    return;
  std::ofstream json(parameters.out + "/timing.json");
  json << "{\n  \"ranks\": " << Utilities::MPI::n_mpi_processes(comm)
       << ",\n  \"cells\": " << triangulation.n_global_active_cells() << ",\n  \"unknowns\": " << dof_handler.n_dofs()
       << ",\n  \"steps\": " << steps_timed << ",\n  \"seconds_per_step\": {";
  bool first = true;
  for (const auto &[section, max] : slowest)
    {
      json << (first ? "\n" : ",\n") << "    \"" << section << "\": "
           << (section == "set-up" ? max : max / std::max(1u, steps_timed));
      first = false;
    }
  json << "\n  }\n}\n";
}

void
TwoDisks::run()
{
  setup();
  assemble_constant();
  std::filesystem::create_directories(parameters.out);
  if (Utilities::MPI::this_mpi_process(comm) == 0)
    bodies.open(parameters.out + "/bodies.csv");
  flow = 0;
  if (parameters.every > 0)
    write_flow(0);
  for (unsigned int step = 0;; ++step)
    {
      write_bodies(step);
      if (step == parameters.steps)
        break;
      contact();
      assemble_step();
      solve_flows();
      advance_disks();
      time += parameters.dt;
      ++steps_timed;
      if (parameters.every > 0 && (step + 1) % parameters.every == 0)
        write_flow(step + 1);
      if ((step + 1) % 10 == 0 || step + 1 == parameters.steps)
        pcout << "t = " << std::setprecision(4) << time << ": left disk at (" << std::setprecision(7)
              << disks[0].centre[0] << ", " << disks[0].centre[1] << "), velocity (" << std::setprecision(4)
              << disks[0].velocity[0] << ", " << disks[0].velocity[1] << ")" << std::endl;
    }
  timer.print_wall_time_statistics(comm);
  write_timing();
}

int
main(int argc, char **argv)
{
  try
    {
      Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
      if (tumble_abi_version() != TUMBLE_ABI_VERSION)
        throw std::runtime_error("tumble's library does not match include/tumble.h");
      TwoDisks(parse(argc, argv)).run();
    }
  catch (const std::exception &e)
    {
      std::cerr << "two_disks: " << e.what() << std::endl;
      return 1;
    }
  return 0;
}
