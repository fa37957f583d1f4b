//! Bad input through the C ABI, called as C would call it: each is a status and a message that
//! names what is wrong, never a crash; and a good mesh built from arrays gives the exact distance.

use std::ffi::{CStr, CString};
use std::ptr::{null, null_mut};
use tumble_c::*;

fn last() -> String {
    unsafe { CStr::from_ptr(tumble_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// The unit square as two triangles, its four sides tagged 1 (bottom) and 2 (the others).
const POINTS: [f64; 8] = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
const CELLS: [u32; 6] = [0, 1, 2, 0, 2, 3];
const FACETS: [u32; 8] = [0, 1, 1, 2, 2, 3, 3, 0];
const TAGS: [i32; 4] = [1, 2, 2, 2];

unsafe fn square(cells: &[u32], points: &[f64]) -> (TumbleStatus, *mut TumbleMesh) {
    let mut mesh = null_mut();
    let status = tumble_mesh_new(
        2,
        points.as_ptr(),
        points.len() / 2,
        cells.as_ptr(),
        cells.len() / 3,
        null(),
        FACETS.as_ptr(),
        4,
        TAGS.as_ptr(),
        &mut mesh,
    );
    (status, mesh)
}

#[test]
fn a_mesh_from_arrays_gives_the_distance_to_its_bottom() {
    unsafe {
        let (status, mesh) = square(&CELLS, &POINTS);
        assert_eq!(status, TumbleStatus::Ok, "{}", last());
        let mut field = null_mut();
        let options = TumbleDistanceOptions {
            signed_distance: false,
            ..tumble_distance_options_default()
        };
        assert_eq!(
            tumble_distance_new(mesh, &1, 1, &options, &mut field),
            TumbleStatus::Ok,
            "{}",
            last()
        );
        let (mut values, mut count) = ([0.0; 4], 0);
        assert_eq!(
            tumble_distance_values(field, values.as_mut_ptr(), 4, &mut count),
            TumbleStatus::Ok
        );
        assert_eq!(count, 4);
        // The distance to the bottom side is y.
        assert_eq!(values, [0.0, 0.0, 1.0, 1.0]);
        let mut at = [f64::NAN];
        assert_eq!(
            tumble_distance_at(field, [0.3, 0.6].as_ptr(), 1, at.as_mut_ptr()),
            TumbleStatus::Ok
        );
        assert!((at[0] - 0.6).abs() < 1e-12, "{at:?}");
        assert_eq!(
            tumble_distance_at(field, [2.0, 0.5].as_ptr(), 1, at.as_mut_ptr()),
            TumbleStatus::Ok
        );
        assert!(at[0].is_nan(), "outside the mesh: {at:?}");
        assert_eq!(tumble_distance_free(field), TumbleStatus::Ok);
        assert_eq!(tumble_mesh_free(mesh), TumbleStatus::Ok);
    }
}

#[test]
fn bad_meshes_are_refused_with_the_item_at_fault() {
    unsafe {
        let inverted = [0, 2, 1, 0, 2, 3];
        let (status, mesh) = square(&inverted, &POINTS);
        assert_eq!((status, mesh), (TumbleStatus::Failed, null_mut()));
        assert!(last().contains("cell 0") && last().contains("inverted"), "{}", last());
        let out_of_range = [0, 1, 2, 0, 2, 7];
        assert_eq!(square(&out_of_range, &POINTS).0, TumbleStatus::Failed);
        assert!(last().contains("cell 1"), "{}", last());
        let mut nan = POINTS;
        nan[5] = f64::NAN;
        assert_eq!(square(&CELLS, &nan).0, TumbleStatus::Failed);
        assert!(last().contains("node 2"), "{}", last());
        let mut mesh = null_mut();
        let status = tumble_mesh_new(
            4,
            POINTS.as_ptr(),
            4,
            CELLS.as_ptr(),
            2,
            null(),
            null(),
            0,
            null(),
            &mut mesh,
        );
        assert_eq!(status, TumbleStatus::InvalidArgument);
        assert!(last().starts_with("dim: is 4"), "{}", last());
        let status = tumble_mesh_new(2, null(), 4, CELLS.as_ptr(), 2, null(), null(), 0, null(), &mut mesh);
        assert_eq!(status, TumbleStatus::NullPointer);
        assert!(last().contains("points is null"), "{}", last());
        let status = tumble_mesh_new(
            2,
            POINTS.as_ptr(),
            4,
            CELLS.as_ptr(),
            2,
            null(),
            null(),
            0,
            null(),
            null_mut(),
        );
        assert_eq!(status, TumbleStatus::NullPointer);
        assert!(last().contains("out is null"), "{}", last());
        assert_eq!(tumble_mesh_read_gmsh(null(), &mut mesh), TumbleStatus::NullPointer);
        let garbage = CString::new("../capi/Cargo.toml").unwrap();
        assert_eq!(tumble_mesh_read_gmsh(garbage.as_ptr(), &mut mesh), TumbleStatus::Failed);
        assert!(last().contains("Cargo.toml"), "{}", last());
    }
}

#[test]
fn bad_calls_on_good_handles_are_refused() {
    unsafe {
        let (_, mesh) = square(&CELLS, &POINTS);
        let mut field = null_mut();
        assert_eq!(
            tumble_distance_new(mesh, null(), 0, null(), &mut field),
            TumbleStatus::InvalidArgument
        );
        assert_eq!(
            tumble_distance_new(mesh, &9, 1, null(), &mut field),
            TumbleStatus::Failed
        );
        let own = CStr::from_ptr(tumble_mesh_error(mesh)).to_string_lossy().into_owned();
        assert_eq!(own, last(), "the handle keeps the message too");
        let options = TumbleDistanceOptions {
            max_distance: f64::NAN,
            ..tumble_distance_options_default()
        };
        assert_eq!(
            tumble_distance_new(mesh, &1, 1, &options, &mut field),
            TumbleStatus::InvalidArgument
        );
        assert!(last().starts_with("options.max_distance"), "{}", last());
        let unsigned = TumbleDistanceOptions {
            signed_distance: false,
            ..tumble_distance_options_default()
        };
        assert_eq!(
            tumble_distance_new(mesh, &1, 1, &unsigned, &mut field),
            TumbleStatus::Ok
        );
        // A buffer too small: nothing written, the room needed told.
        let (mut values, mut count) = ([-1.0; 2], 0);
        let status = tumble_distance_values(field, values.as_mut_ptr(), 2, &mut count);
        assert_eq!((status, count, values), (TumbleStatus::BufferTooSmall, 4, [-1.0; 2]));
        assert_eq!(
            tumble_distance_values(field, null_mut(), 0, &mut count),
            TumbleStatus::BufferTooSmall
        );
        assert_eq!(
            tumble_distance_values(field, null_mut(), 4, &mut count),
            TumbleStatus::NullPointer
        );
        // A mesh handle where a field is expected, and handles used after they were freed.
        let wrong = mesh as *const TumbleDistance;
        assert_eq!(
            tumble_distance_values(wrong, values.as_mut_ptr(), 2, &mut count),
            TumbleStatus::InvalidHandle
        );
        assert!(
            last().contains("is a mesh handle, expected a distance field"),
            "{}",
            last()
        );
        assert_eq!(tumble_mesh_free(mesh), TumbleStatus::Ok);
        assert_eq!(tumble_mesh_free(mesh), TumbleStatus::InvalidHandle);
        assert_eq!(
            tumble_mesh_sizes(mesh, null_mut(), null_mut(), null_mut(), null_mut()),
            TumbleStatus::InvalidHandle
        );
        assert!(CStr::from_ptr(tumble_mesh_error(mesh))
            .to_string_lossy()
            .contains("not a live mesh"));
        assert_eq!(tumble_distance_free(field), TumbleStatus::Ok);
        assert_eq!(tumble_distance_free(field), TumbleStatus::InvalidHandle);
        assert_eq!(
            tumble_mesh_free(null_mut()),
            TumbleStatus::Ok,
            "freeing null is a no-op"
        );
        assert_eq!(tumble_abi_version(), TUMBLE_ABI_VERSION);
    }
}

#[test]
fn bad_worlds_and_bodies_are_refused() {
    unsafe {
        let (_, square) = square(&CELLS, &POINTS);
        let mut world = null_mut();
        let mut options = tumble_world_options_default();
        assert_eq!(
            tumble_world_new(2, square, [1, 2].as_ptr(), 2, &options, &mut world),
            TumbleStatus::InvalidArgument
        );
        assert!(
            last().starts_with("options.range: must be a positive number, got NaN"),
            "{}",
            last()
        );
        options.range = 0.05;
        options.stiffness = 1e-4;
        assert_eq!(
            tumble_world_new(3, square, [1, 2].as_ptr(), 2, &options, &mut world),
            TumbleStatus::InvalidArgument
        );
        assert!(last().contains("the domain is a 2D mesh"), "{}", last());
        let status = tumble_world_new(2, square, [1, 7].as_ptr(), 2, &options, &mut world);
        assert_eq!(status, TumbleStatus::InvalidArgument);
        assert!(
            last().contains("the domain has no facet tagged 7; its facet tags are [1, 2]"),
            "{}",
            last()
        );
        assert_eq!(
            tumble_world_new(2, square, null(), 0, &options, &mut world),
            TumbleStatus::InvalidArgument
        );
        assert_eq!(
            tumble_world_new(2, square, [1, 2].as_ptr(), 2, null(), &mut world),
            TumbleStatus::NullPointer
        );
        assert_eq!(
            tumble_world_new(2, square, [1, 2].as_ptr(), 2, &options, &mut world),
            TumbleStatus::Ok,
            "{}",
            last()
        );
        assert_eq!(tumble_world_step(world, 1e-3, 1), TumbleStatus::Failed);
        assert!(last().contains("no body"), "{}", last());
        let mut index = 99;
        let axes = [0.1, 0.05];
        let add = |world, axes: &[f64], density, centre: &[f64], angle: f64, index: &mut usize| {
            tumble_world_add_ellipsoid(world, axes.as_ptr(), density, centre.as_ptr(), &angle, index)
        };
        assert_eq!(
            add(world, &[0.1, -0.05], 1.0, &[0.5, 0.5], 0.0, &mut index),
            TumbleStatus::InvalidArgument
        );
        assert!(last().starts_with("sizes: component 1 is -0.05"), "{}", last());
        assert_eq!(
            add(world, &axes, 0.0, &[0.5, 0.5], 0.0, &mut index),
            TumbleStatus::InvalidArgument
        );
        assert_eq!(
            add(world, &axes, 1.0, &[f64::NAN, 0.5], 0.0, &mut index),
            TumbleStatus::InvalidArgument
        );
        assert!(last().starts_with("position: component 0 is NaN"), "{}", last());
        assert_eq!(index, 99, "nothing added");
        assert_eq!(
            add(world, &axes, 1.0, &[0.5, 0.5], 0.0, &mut index),
            TumbleStatus::Ok,
            "{}",
            last()
        );
        assert_eq!(index, 0);
        let (mut position, mut count) = ([0.0; 2], 0);
        let status = tumble_world_get_body(world, 1, position.as_mut_ptr(), null_mut(), null_mut(), null_mut());
        assert_eq!(status, TumbleStatus::InvalidArgument);
        assert!(last().contains("is 1, the world has 1 bodies"), "{}", last());
        let status = tumble_world_set_body(
            world,
            0,
            [2.5, 0.5].as_ptr(),
            null(),
            [f64::INFINITY, 0.0].as_ptr(),
            null(),
        );
        assert_eq!(status, TumbleStatus::InvalidArgument, "an infinite velocity");
        let status = tumble_world_get_body(world, 0, position.as_mut_ptr(), null_mut(), null_mut(), null_mut());
        assert_eq!(
            (status, position),
            (TumbleStatus::Ok, [0.5, 0.5]),
            "a refused state changes nothing"
        );
        let mut force = [0.0; 2];
        let status = tumble_world_contact_forces(world, force.as_mut_ptr(), null_mut(), 0, &mut count);
        assert_eq!((status, count), (TumbleStatus::BufferTooSmall, 1));
        // A body moved out of the domain: its name and where.
        assert_eq!(
            tumble_world_set_body(world, 0, [2.5, 0.5].as_ptr(), null(), null(), null()),
            TumbleStatus::Ok
        );
        let status = tumble_world_contact_forces(world, force.as_mut_ptr(), null_mut(), 1, &mut count);
        assert_eq!(status, TumbleStatus::Failed);
        assert!(last().contains("body0"), "{}", last());
        assert_eq!(tumble_world_step(world, f64::NAN, 1), TumbleStatus::InvalidArgument);
        assert_eq!(tumble_world_free(world), TumbleStatus::Ok);
        assert_eq!(tumble_mesh_free(square), TumbleStatus::Ok);
    }
}

/// The collision law through the ABI: its keys checked with errors naming the option, and a
/// disk thrown at the floor rebounds at `e`.
#[test]
fn the_collision_law_through_the_abi() {
    unsafe {
        let box_cells = [20u32, 20];
        let mut square = null_mut();
        assert_eq!(
            tumble_mesh_box(
                2,
                [0.0, 0.0].as_ptr(),
                [2.0, 2.0].as_ptr(),
                box_cells.as_ptr(),
                &mut square
            ),
            TumbleStatus::Ok
        );
        let tags = [1, 2, 3, 4];
        let mut options = tumble_world_options_default();
        options.law = TumbleLaw::Collision;
        options.range = 0.005;
        options.duration = 1e-3;
        let mut world = null_mut();
        assert_eq!(
            tumble_world_new(2, square, tags.as_ptr(), 4, &options, &mut world),
            TumbleStatus::InvalidArgument
        );
        assert!(last().starts_with("options.restitution: is missing"), "{}", last());
        options.restitution = 0.8;
        options.stiffness = 1e-6;
        assert_eq!(
            tumble_world_new(2, square, tags.as_ptr(), 4, &options, &mut world),
            TumbleStatus::InvalidArgument
        );
        assert!(
            last().starts_with("options.stiffness: is not a parameter of the collision law"),
            "{}",
            last()
        );
        options.stiffness = f64::NAN;
        // A film's share of 1 or more leaves nothing of it: named.
        (options.lubrication_viscosity, options.lubrication_cut) = (0.01, 0.02);
        (options.lubrication_roughness, options.lubrication_share) = (1e-4, 1.0);
        assert_eq!(
            tumble_world_new(2, square, tags.as_ptr(), 4, &options, &mut world),
            TumbleStatus::InvalidArgument
        );
        assert!(
            last().starts_with("options.lubrication_share: must be in [0, 1)"),
            "{}",
            last()
        );
        (options.lubrication_viscosity, options.lubrication_cut) = (f64::NAN, f64::NAN);
        (options.lubrication_roughness, options.lubrication_share) = (f64::NAN, f64::NAN);
        assert_eq!(
            tumble_world_new(2, square, tags.as_ptr(), 4, &options, &mut world),
            TumbleStatus::Ok
        );
        let (sizes, position, angle, velocity, mut index) = ([0.1, 0.1], [1.0, 0.2], 0.0, [0.0, -0.5], 99);
        assert_eq!(
            tumble_world_add_ellipsoid(world, sizes.as_ptr(), 7.8, position.as_ptr(), &angle, &mut index),
            TumbleStatus::Ok
        );
        assert_eq!(
            tumble_world_set_body(world, 0, null(), null(), velocity.as_ptr(), null()),
            TumbleStatus::Ok
        );
        assert_eq!(tumble_world_step(world, 5e-5, 4000), TumbleStatus::Ok);
        let mut v = [0.0; 2];
        assert_eq!(
            tumble_world_get_body(world, 0, null_mut(), null_mut(), v.as_mut_ptr(), null_mut()),
            TumbleStatus::Ok
        );
        let rebound = v[1] / 0.5;
        assert!((rebound / 0.8 - 1.0).abs() < 0.01, "rebound {rebound}");
        assert_eq!(tumble_world_free(world), TumbleStatus::Ok);
        assert_eq!(tumble_mesh_free(square), TumbleStatus::Ok);
    }
}

/// The film's tangential part through the ABI: a steel disk sliding at 1 at the gap 0.002 over
/// the floor of a box through a film (μ = 0.05, cut 0.02) slows, by the square-root law's
/// `exp(−λt/m)` within 1 % (docs/theory.md); with `lubrication_tangential = 0` it keeps its speed.
#[test]
fn the_films_tangential_part_through_the_abi() {
    unsafe {
        let (mu, a, cut, gap) = (0.05f64, 0.1f64, 0.02f64, 0.002f64);
        let m = 7.8 * std::f64::consts::PI * a * a;
        let lambda = 2.0 * 2f64.sqrt() * std::f64::consts::PI * mu * ((a / gap).sqrt() - (a / cut).sqrt());
        let dt = 0.01 * m / lambda;
        let speed = |tangential: u32| {
            let mut square = null_mut();
            let box_cells = [40u32, 40];
            let status = tumble_mesh_box(
                2,
                [0.0, 0.0].as_ptr(),
                [2.0, 2.0].as_ptr(),
                box_cells.as_ptr(),
                &mut square,
            );
            assert_eq!(status, TumbleStatus::Ok);
            let tags = [1, 2, 3, 4];
            let mut options = tumble_world_options_default();
            options.law = TumbleLaw::Collision;
            (options.range, options.restitution, options.duration) = (1e-4, 0.9, 1e-3);
            (options.lubrication_viscosity, options.lubrication_cut) = (mu, cut);
            (options.lubrication_roughness, options.lubrication_tangential) = (1e-4, tangential);
            options.lattice_step = 1e-3;
            let mut world = null_mut();
            let status = tumble_world_new(2, square, tags.as_ptr(), 4, &options, &mut world);
            assert_eq!(status, TumbleStatus::Ok, "{}", last());
            let (sizes, position, angle, velocity, mut index) = ([a, a], [1.0, a + gap], 0.0, [1.0, 0.0], 99);
            let status = tumble_world_add_ellipsoid(world, sizes.as_ptr(), 7.8, position.as_ptr(), &angle, &mut index);
            assert_eq!(status, TumbleStatus::Ok);
            let status = tumble_world_set_body(world, 0, null(), null(), velocity.as_ptr(), null());
            assert_eq!(status, TumbleStatus::Ok);
            assert_eq!(tumble_world_step(world, dt, 70), TumbleStatus::Ok);
            let mut v = [0.0; 2];
            let status = tumble_world_get_body(world, 0, null_mut(), null_mut(), v.as_mut_ptr(), null_mut());
            assert_eq!(status, TumbleStatus::Ok);
            assert_eq!(tumble_world_free(world), TumbleStatus::Ok);
            assert_eq!(tumble_mesh_free(square), TumbleStatus::Ok);
            v[0]
        };
        let slowed = speed(1);
        let exact = (-lambda * 70.0 * dt / m).exp();
        assert!((slowed / exact - 1.0).abs() < 0.01, "{slowed} against {exact}");
        assert_eq!(speed(0), 1.0);
    }
}

#[test]
fn polygons_unions_and_mesh_bodies_through_the_abi() {
    unsafe {
        let mut options = tumble_world_options_default();
        options.range = 0.03;
        options.stiffness = 1e-6;
        let mut world = null_mut();
        assert_eq!(
            tumble_world_new(2, null(), null(), 0, &options, &mut world),
            TumbleStatus::Ok
        );
        let (centre, angle, mut index) = ([0.5, 0.5], 0.0, 99);
        let crossed = [0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0];
        let status = tumble_world_add_polygon(world, crossed.as_ptr(), 4, 1.0, centre.as_ptr(), &angle, &mut index);
        assert_eq!(status, TumbleStatus::InvalidArgument);
        assert!(last().contains("edges 0–1 and 2–3 meet"), "{}", last());
        let status = tumble_world_add_polygon(world, crossed.as_ptr(), 2, 1.0, centre.as_ptr(), &angle, &mut index);
        assert_eq!(status, TumbleStatus::InvalidArgument, "two corners");
        let square = [-0.1, -0.1, 0.1, -0.1, 0.1, 0.1, -0.1, 0.1];
        let status = tumble_world_add_polygon(world, square.as_ptr(), 4, 2.0, centre.as_ptr(), &angle, &mut index);
        assert_eq!((status, index), (TumbleStatus::Ok, 0), "{}", last());
        let mut mass = 0.0f64;
        assert_eq!(tumble_world_get_mass(world, 0, &mut mass), TumbleStatus::Ok);
        assert!(
            (mass - 0.08).abs() < 1e-12,
            "a square of side 0.2 and density 2: {mass}"
        );
        let (centres, radii) = ([0.0, 0.0, 0.2, 0.0], [0.1, 0.1]);
        let status = tumble_world_add_spheres(
            world,
            centres.as_ptr(),
            radii.as_ptr(),
            2,
            1.0,
            [1.5, 0.5].as_ptr(),
            &angle,
            &mut index,
        );
        assert_eq!((status, index), (TumbleStatus::Ok, 1), "{}", last());
        let status = tumble_world_add_spheres(
            world,
            centres.as_ptr(),
            null(),
            2,
            1.0,
            [1.5, 0.5].as_ptr(),
            &angle,
            &mut index,
        );
        assert_eq!(status, TumbleStatus::NullPointer);
        // A body of its own mesh: the square [0, 1]² of bad_input's `square`, in a 2D world; a
        // 3D mesh is refused.
        let (_, body) = square_mesh();
        let status = tumble_world_add_mesh_body(world, body, 1.0, [3.0, 0.5].as_ptr(), &angle, &mut index);
        assert_eq!((status, index), (TumbleStatus::Ok, 2), "{}", last());
        assert_eq!(tumble_world_get_mass(world, 2, &mut mass), TumbleStatus::Ok);
        assert!((mass - 1.0).abs() < 1e-12, "{mass}");
        let (lo, hi, n) = ([0.0; 3], [1.0; 3], [1u32; 3]);
        let mut cube = null_mut();
        assert_eq!(
            tumble_mesh_box(3, lo.as_ptr(), hi.as_ptr(), n.as_ptr(), &mut cube),
            TumbleStatus::Ok
        );
        let status = tumble_world_add_mesh_body(world, cube, 1.0, [3.0, 0.5].as_ptr(), &angle, &mut index);
        assert_eq!(status, TumbleStatus::InvalidArgument);
        assert!(last().contains("is a 3D mesh in a 2D world"), "{}", last());
        assert_eq!(
            tumble_world_add_mesh_body(world, null(), 1.0, [3.0, 0.5].as_ptr(), &angle, &mut index),
            TumbleStatus::NullPointer
        );
        for handle in [body, cube] {
            assert_eq!(tumble_mesh_free(handle), TumbleStatus::Ok);
        }
        assert_eq!(tumble_world_free(world), TumbleStatus::Ok);
    }
}

/// The unit square of [`square`] as a mesh.
unsafe fn square_mesh() -> (TumbleStatus, *mut TumbleMesh) {
    square(&CELLS, &POINTS)
}

#[test]
fn a_world_saved_through_the_abi_continues_bit_for_bit() {
    unsafe {
        let make = |threads: u32| {
            let mut options = tumble_world_options_default();
            options.range = 0.03;
            options.stiffness = 1e-6;
            options.gravity[1] = -981.0;
            options.threads = threads;
            let (_, domain) = square_mesh();
            let mut world = null_mut();
            assert_eq!(
                tumble_world_new(2, domain, [1, 2].as_ptr(), 2, &options, &mut world),
                TumbleStatus::Ok,
                "{}",
                last()
            );
            tumble_mesh_free(domain);
            let status = tumble_world_add_ellipsoid(
                world,
                [0.1, 0.05].as_ptr(),
                1.0,
                [0.5, 0.062].as_ptr(),
                &0.3,
                null_mut(),
            );
            assert_eq!(status, TumbleStatus::Ok, "{}", last());
            world
        };
        let first = make(0);
        assert_eq!(tumble_world_step(first, 1e-4, 500), TumbleStatus::Ok, "{}", last());
        let mut size = 0;
        assert_eq!(
            tumble_world_save(first, null_mut(), 0, &mut size),
            TumbleStatus::BufferTooSmall
        );
        let mut state = vec![0u8; size];
        assert_eq!(
            tumble_world_save(first, state.as_mut_ptr(), size, &mut size),
            TumbleStatus::Ok
        );
        let second = make(1);
        assert_eq!(
            tumble_world_restore(second, state.as_ptr(), size),
            TumbleStatus::Ok,
            "{}",
            last()
        );
        for world in [first, second] {
            assert_eq!(tumble_world_step(world, 1e-4, 500), TumbleStatus::Ok, "{}", last());
        }
        let (mut a, mut b) = ([0.0f64; 2], [0.0f64; 2]);
        tumble_world_get_body(first, 0, a.as_mut_ptr(), null_mut(), null_mut(), null_mut());
        tumble_world_get_body(second, 0, b.as_mut_ptr(), null_mut(), null_mut(), null_mut());
        assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits));
        assert_eq!(
            tumble_world_restore(second, b"junk".as_ptr(), 4),
            TumbleStatus::InvalidArgument
        );
        assert!(last().starts_with("state: is not a saved world state"), "{}", last());
        for world in [first, second] {
            assert_eq!(tumble_world_free(world), TumbleStatus::Ok);
        }
    }
}

#[test]
fn a_moved_mesh_through_the_abi() {
    unsafe {
        let (_, mesh) = square_mesh();
        let shifted: Vec<f64> = POINTS.chunks(2).flat_map(|p| [p[0] + 1.0, p[1] * 2.0]).collect();
        let mut moved = null_mut();
        assert_eq!(
            tumble_mesh_with_points(mesh, shifted.as_ptr(), 4, &mut moved),
            TumbleStatus::Ok,
            "{}",
            last()
        );
        let mut field = null_mut();
        let options = TumbleDistanceOptions {
            signed_distance: false,
            ..tumble_distance_options_default()
        };
        let first = moved;
        assert_eq!(
            tumble_distance_new(first, &1, 1, &options, &mut field),
            TumbleStatus::Ok
        );
        let mut at = [0.0];
        assert_eq!(
            tumble_distance_at(field, [1.5, 1.2].as_ptr(), 1, at.as_mut_ptr()),
            TumbleStatus::Ok
        );
        assert!(
            (at[0] - 1.2).abs() < 1e-12,
            "the bottom side is still tag 1, now from x = 1 to 2: {at:?}"
        );
        assert_eq!(
            tumble_mesh_with_points(mesh, shifted.as_ptr(), 3, &mut moved),
            TumbleStatus::InvalidArgument
        );
        assert!(last().contains("points: has 6 numbers, expected 8"), "{}", last());
        let flipped: Vec<f64> = POINTS.chunks(2).flat_map(|p| [-p[0], p[1]]).collect();
        assert_eq!(
            tumble_mesh_with_points(mesh, flipped.as_ptr(), 4, &mut moved),
            TumbleStatus::Failed
        );
        assert!(
            last().contains("cell 0") && last().contains("not positive"),
            "{}",
            last()
        );
        assert!(moved.is_null(), "a refused call hands out no handle");
        for status in [
            tumble_distance_free(field),
            tumble_mesh_free(first),
            tumble_mesh_free(mesh),
        ] {
            assert_eq!(status, TumbleStatus::Ok);
        }
    }
}

#[test]
fn bad_host_contacts_are_refused() {
    unsafe {
        // Two disks of radius 0.2 in the unit circle, 0.02 apart: tags 1, 2 and the wall 3.
        let centres = [-0.21, 0.0, 0.21, 0.0, 0.0, 0.0];
        let (radii, mut mesh) = ([0.2, 0.2, 1.0], null_mut());
        assert_eq!(
            tumble_mesh_balls(2, centres.as_ptr(), radii.as_ptr(), 3, 0.02, &mut mesh),
            TumbleStatus::Ok,
            "{}",
            last()
        );
        // Disks in a box: the specification's 4.2.3 pair, and one too near the floor.
        let (lower, upper, lattice) = ([0.0, 0.0], [2.0, 2.0], [200u32, 200]);
        let (pair, radius) = ([0.85, 0.14, 1.15, 0.14], [0.125, 0.125]);
        let mut boxed = null_mut();
        assert_eq!(
            tumble_mesh_box_with_balls(
                2,
                lower.as_ptr(),
                upper.as_ptr(),
                lattice.as_ptr(),
                pair.as_ptr(),
                radius.as_ptr(),
                2,
                1,
                &mut boxed
            ),
            TumbleStatus::Ok,
            "{}",
            last()
        );
        let mut tag = 0;
        let name = CString::new("ymin").unwrap();
        assert_eq!(tumble_mesh_facet_tag(boxed, name.as_ptr(), &mut tag), TumbleStatus::Ok);
        assert_eq!(tag, 5);
        tumble_mesh_free(boxed);
        let low = [1.0, 0.13];
        assert_eq!(
            tumble_mesh_box_with_balls(
                2,
                lower.as_ptr(),
                upper.as_ptr(),
                lattice.as_ptr(),
                low.as_ptr(),
                radius.as_ptr(),
                1,
                1,
                &mut boxed
            ),
            TumbleStatus::InvalidArgument
        );
        assert!(
            last().contains("radii: sphere 0 ('body0') must lie inside the box"),
            "{}",
            last()
        );
        // The facets: counted with null buffers, refused into a short one, copied into a long one.
        let mut facets = 0;
        assert_eq!(
            tumble_mesh_facets(mesh, null_mut(), null_mut(), 0, &mut facets),
            TumbleStatus::Ok
        );
        let (mut nodes, mut tags) = (vec![0u32; 2 * facets], vec![0i32; facets]);
        let mut count = 0;
        assert_eq!(
            tumble_mesh_facets(mesh, nodes.as_mut_ptr(), tags.as_mut_ptr(), facets - 1, &mut count),
            TumbleStatus::BufferTooSmall
        );
        assert_eq!(
            tumble_mesh_facets(mesh, nodes.as_mut_ptr(), tags.as_mut_ptr(), facets, &mut count),
            TumbleStatus::Ok
        );
        assert_eq!(count, facets);
        let mut distinct = tags.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct, [1, 2, 3]);
        let mut options = tumble_host_options_default();
        let (bodies, walls) = ([1, 2], [3]);
        let mut host = null_mut();
        // range and stiffness left NaN.
        assert_eq!(
            tumble_host_new(mesh, bodies.as_ptr(), 2, walls.as_ptr(), 1, &options, &mut host),
            TumbleStatus::InvalidArgument
        );
        assert!(last().contains("range"), "{}", last());
        assert!(host.is_null());
        options.range = 0.03;
        options.stiffness = 1e-4;
        for (tags, message) in [
            ([1, 7], "body_tags: the mesh has no facet tagged 7"),
            ([1, 1], "body 1: tag 1 is also body 0's"),
            ([1, 3], "body 1: tag 3 is also a wall tag"),
        ] {
            let status = tumble_host_new(mesh, tags.as_ptr(), 2, walls.as_ptr(), 1, &options, &mut host);
            assert_eq!(status, TumbleStatus::InvalidArgument, "{tags:?}");
            assert!(last().contains(message), "{}", last());
        }
        assert_eq!(
            tumble_host_new(mesh, null(), 2, walls.as_ptr(), 1, &options, &mut host),
            TumbleStatus::NullPointer
        );
        assert_eq!(
            tumble_host_new(mesh, bodies.as_ptr(), 2, walls.as_ptr(), 1, null(), &mut host),
            TumbleStatus::NullPointer
        );
        assert_eq!(
            tumble_host_new(mesh, bodies.as_ptr(), 2, walls.as_ptr(), 1, &options, &mut host),
            TumbleStatus::Ok,
            "{}",
            last()
        );
        // One centre for two bodies, a NaN, a null, a mesh of other sizes.
        assert_eq!(
            tumble_host_find_contacts(host, mesh, centres.as_ptr(), 1, &mut count),
            TumbleStatus::InvalidArgument
        );
        assert!(last().contains("centres: has 2 numbers, expected 4"), "{}", last());
        let nan = [-0.21, 0.0, f64::NAN, 0.0];
        assert_eq!(
            tumble_host_find_contacts(host, mesh, nan.as_ptr(), 2, &mut count),
            TumbleStatus::InvalidArgument
        );
        assert!(last().contains("centres: component 2 is NaN"), "{}", last());
        assert_eq!(
            tumble_host_find_contacts(host, mesh, null(), 2, &mut count),
            TumbleStatus::NullPointer
        );
        let (mut other, lower, upper, cells) = (null_mut(), [0.0, 0.0], [1.0, 1.0], [4u32, 4]);
        assert_eq!(
            tumble_mesh_box(2, lower.as_ptr(), upper.as_ptr(), cells.as_ptr(), &mut other),
            TumbleStatus::Ok
        );
        assert_eq!(
            tumble_host_find_contacts(host, other, centres.as_ptr(), 2, &mut count),
            TumbleStatus::InvalidArgument
        );
        assert!(last().contains("but the contact was made for"), "{}", last());
        let host_error = CStr::from_ptr(tumble_host_error(host)).to_string_lossy().into_owned();
        assert!(host_error.contains("contact was made for"), "{host_error}");
        // The good call: the pair at gap 0.02, and its contact in a buffer of the right size only.
        assert_eq!(
            tumble_host_find_contacts(host, mesh, centres.as_ptr(), 2, &mut count),
            TumbleStatus::Ok,
            "{}",
            last()
        );
        assert_eq!(count, 1);
        let mut contacts = [TumbleContact {
            i: 0,
            j: 0,
            gap: 0.0,
            point_i: [0.0; 3],
            point_j: [0.0; 3],
            normal: [0.0; 3],
        }; 1];
        assert_eq!(
            tumble_host_get_contacts(host, contacts.as_mut_ptr(), 0, &mut count),
            TumbleStatus::BufferTooSmall
        );
        assert_eq!(
            tumble_host_get_contacts(host, contacts.as_mut_ptr(), 1, &mut count),
            TumbleStatus::Ok
        );
        assert_eq!((contacts[0].i, contacts[0].j), (0, 1));
        // Measured from the nodes: within (s/2)² (1/r_i + 1/r_j)/2 = 4.4e-4 of the exact gap
        // (lattice step s = 0.0187).
        assert!((contacts[0].gap - 0.02).abs() < 5e-4, "{}", contacts[0].gap);
        let mut loads = vec![0.0; 4];
        assert_eq!(
            tumble_host_node_loads(host, loads.as_mut_ptr(), 2),
            TumbleStatus::InvalidArgument
        );
        assert!(last().contains("num_nodes: is 2, the mesh has"), "{}", last());
        let mut forces = [0.0; 2];
        assert_eq!(
            tumble_host_forces(host, forces.as_mut_ptr(), null_mut(), 1, &mut count),
            TumbleStatus::BufferTooSmall
        );
        // Freed: the handle is refused, not read.
        assert_eq!(tumble_host_free(host), TumbleStatus::Ok);
        assert_eq!(
            tumble_host_find_contacts(host, mesh, centres.as_ptr(), 2, &mut count),
            TumbleStatus::InvalidHandle
        );
        assert!(last().contains("not a live host contact handle"), "{}", last());
        assert_eq!(
            tumble_host_find_contacts(mesh.cast(), mesh, centres.as_ptr(), 2, &mut count),
            TumbleStatus::InvalidHandle
        );
        assert!(
            last().contains("is a mesh handle, expected a host contact"),
            "{}",
            last()
        );
        tumble_mesh_free(other);
        tumble_mesh_free(mesh);
    }
}
