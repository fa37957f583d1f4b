//! Narrow-band distance fields on a mesh: the signed distance to its facets of given tags, within
//! `max_distance` of them, and queries of it.

use crate::handle::{self, Handle};
use crate::mesh::TumbleMesh;
use crate::status::{copy_out, count, guard, put, slice, slice_mut, ErrorSlot, Failure, TumbleStatus};
use crate::world::given_number;
use std::ffi::c_char;
use tumble::dynamic::{Distance, DistanceOptions};

/// How [`tumble_distance_new`] computes a field; start from
/// [`tumble_distance_options_default`] and change what you need.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TumbleDistanceOptions {
    /// `d_max`: nodes farther than this from the front are not computed. Infinity (the default)
    /// marches over the whole mesh.
    pub max_distance: f64,
    /// The value of the nodes beyond the band (on either side); NaN (the default) means
    /// `max_distance`.
    pub default_value: f64,
    /// Negative inside the front, which must then be closed (default true).
    pub signed_distance: bool,
    /// Exact distances to the closest front facet at each node (default true); false is the plain
    /// fast-marching update, a little faster and first-order accurate.
    pub closest_point: bool,
    /// Read the facets as the discretisation of a smooth body and measure distances to it rather
    /// than to the polygon (default false).
    pub curved_front: bool,
}

/// The default options: the whole mesh, signed, exact at each node.
#[no_mangle]
pub extern "C" fn tumble_distance_options_default() -> TumbleDistanceOptions {
    TumbleDistanceOptions {
        max_distance: f64::INFINITY,
        default_value: f64::NAN,
        signed_distance: true,
        closest_point: true,
        curved_front: false,
    }
}

/// A distance field on the nodes of a mesh, made by [`tumble_distance_new`] and freed by
/// [`tumble_distance_free`]; it keeps its mesh alive.
pub struct TumbleDistance {
    field: Distance,
    error: ErrorSlot,
}

impl Handle for TumbleDistance {
    const KIND: &'static str = "distance field";
    fn error(&self) -> &ErrorSlot {
        &self.error
    }
}

/// Computes the distance to the facets of `mesh` tagged with any of `tags` (`num_tags` of them)
/// into a new field `*out`. `options` may be null for the defaults.
///
/// # Safety
/// `mesh` must be a pointer this library returned, `tags` hold `num_tags` tags, `options` be
/// null or readable, `out` writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_distance_new(
    mesh: *const TumbleMesh,
    tags: *const i32,
    num_tags: usize,
    options: *const TumbleDistanceOptions,
    out: *mut *mut TumbleDistance,
) -> TumbleStatus {
    handle::guard_on(mesh, "mesh", |m| {
        put(out, std::ptr::null_mut(), "out")?;
        let tags = slice(tags, num_tags, "tags")?;
        let given = if options.is_null() {
            tumble_distance_options_default()
        } else {
            options.read()
        };
        let options = DistanceOptions {
            max_distance: given.max_distance,
            default_value: given_number(given.default_value),
            signed: given.signed_distance,
            closest_point: given.closest_point,
            curved_front: given.curved_front,
        };
        let field = Distance::new(&m.mesh, tags, &options)
            .map_err(|e| Failure::naming_options(e, &["max_distance", "default_value"]))?;
        out.write(handle::make(TumbleDistance {
            field,
            error: ErrorSlot::default(),
        }));
        Ok(())
    })
}

/// Frees a field (null is a no-op).
///
/// # Safety
/// `field` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_distance_free(field: *mut TumbleDistance) -> TumbleStatus {
    guard(None, || handle::free(field, "field"))
}

/// Copies one value per mesh node into `values` (room for `capacity`); `*count` is the number
/// of nodes. With too small a buffer nothing is copied, `*count` says how much room is needed
/// and the status is `TUMBLE_STATUS_BUFFER_TOO_SMALL` (a null `values` with capacity 0 asks for
/// the count alone that way).
///
/// # Safety
/// `field` must be a pointer this library returned, `values` hold `capacity` writable doubles,
/// `count` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_distance_values(
    field: *const TumbleDistance,
    values: *mut f64,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on(field, "field", |h| {
        copy_out(h.field.values(), values, capacity, count, "values")
    })
}

/// Like [`tumble_distance_values`], one byte per node: 1 where the march reached the node (its
/// value is a distance), 0 beyond the band (its value is the default).
///
/// # Safety
/// As [`tumble_distance_values`].
#[no_mangle]
pub unsafe extern "C" fn tumble_distance_reached(
    field: *const TumbleDistance,
    reached: *mut u8,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on(field, "field", |h| {
        let source: Vec<u8> = h.field.reached().iter().map(|&r| r as u8).collect();
        copy_out(&source, reached, capacity, count, "reached")
    })
}

/// The field's linear interpolant at `num_points` points (`points` holds `num_points × dim`
/// coordinates) into `values`; NaN at a point outside the mesh. A non-finite coordinate is
/// `TUMBLE_STATUS_INVALID_ARGUMENT` naming the point.
///
/// # Safety
/// `field` must be a pointer this library returned, `points` hold `num_points × dim` doubles and
/// `values` `num_points` writable ones.
#[no_mangle]
pub unsafe extern "C" fn tumble_distance_at(
    field: *const TumbleDistance,
    points: *const f64,
    num_points: usize,
    values: *mut f64,
) -> TumbleStatus {
    handle::guard_on(field, "field", |h| {
        let d = h.field.mesh().dim();
        let n = count(num_points, d, "num_points")?;
        let points = slice(points, n, "points")?;
        let values = slice_mut(values, num_points, "values")?;
        Ok(h.field.at(points, values)?)
    })
}

/// Where the field is smallest on the facets tagged with any of `tags`: the point into `point`
/// (`dim` doubles) and the value into `*value`; `*found` is 0 (and nothing else written) when no
/// node of those facets lies in the band.
///
/// # Safety
/// `field` must be a pointer this library returned, `tags` hold `num_tags` tags, `point` room for
/// `dim` doubles, `value` and `found` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_distance_argmin(
    field: *const TumbleDistance,
    tags: *const i32,
    num_tags: usize,
    point: *mut f64,
    value: *mut f64,
    found: *mut i32,
) -> TumbleStatus {
    handle::guard_on(field, "field", |h| {
        let tags = slice(tags, num_tags, "tags")?;
        put(found, 0, "found")?;
        let point = slice_mut(point, h.field.mesh().dim(), "point")?;
        if value.is_null() {
            return Err(Failure::new(TumbleStatus::NullPointer, "value is null"));
        }
        if let Some((x, v)) = h.field.argmin(tags) {
            point.copy_from_slice(&x);
            value.write(v);
            found.write(1);
        }
        Ok(())
    })
}

/// The message of the last failed call on `field` (empty if none), valid until the next; never
/// null.
///
/// # Safety
/// `field` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_distance_error(field: *const TumbleDistance) -> *const c_char {
    handle::error_of(field, "field")
}
