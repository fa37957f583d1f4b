/* tumble from C: the specification's check 4.1.3, an ellipse falling tilted on the floor of a
 * 2 x 2 box (CGS), dry. The wall force acts at the lowest point, off the vertical through the
 * centre of mass, so its torque turns the ellipse until its long axis lies flat. The same case
 * is cases/dry_ellipse_wall.toml; capi/tests/c_examples.rs checks that this program's numbers
 * are the Rust run's, bit for bit.
 *
 *   cargo build --release -p tumble-capi
 *   cc -std=c99 -Wall -Iinclude examples/c/ellipse_floor.c -Ltarget/release -ltumble_c
 *      -Wl,-rpath,target/release -lm -o ellipse_floor      (one line)
 *   ./ellipse_floor */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tumble.h"

static const double PI = 3.14159265358979323846;

static void check(TumbleStatus status, const char *what) {
    if (status != TUMBLE_STATUS_OK) {
        fprintf(stderr, "%s failed (status %d): %s\n", what, (int)status, tumble_last_error());
        exit(1);
    }
}

/* One line of the body's state and the contact force on it, every number to the last bit. */
static void report(TumbleWorld *world, double t) {
    double position[2], angle, velocity[2], spin, force[2], torque;
    size_t count = 0;
    check(tumble_world_contact_forces(world, force, &torque, 1, &count), "contact forces");
    check(tumble_world_get_body(world, 0, position, &angle, velocity, &spin), "the body's state");
    printf("t %.4f position %.17g %.17g angle %.17g velocity %.17g %.17g force %.17g %.17g torque %.17g\n", t,
           position[0], position[1], angle, velocity[0], velocity[1], force[0], force[1], torque);
}

int main(void) {
    /* The domain: [0, 2]^2 in 32 x 32 squares, its four sides (tags 1 to 4) the walls. */
    double lower[2] = {0.0, 0.0}, upper[2] = {2.0, 2.0};
    uint32_t cells[2] = {32, 32};
    TumbleMesh *box = NULL;
    check(tumble_mesh_box(2, lower, upper, cells, &box), "the box");
    int32_t walls[4] = {1, 2, 3, 4};

    TumbleWorldOptions options = tumble_world_options_default();
    options.gravity[1] = -981.0;
    options.drag_linear = 20.0;
    options.drag_angular = 20.0;
    options.law = TUMBLE_LAW_GLOWINSKI;
    options.range = 0.03;
    options.stiffness = 1e-6;
    options.wall_stiffness = 1e-6;
    TumbleWorld *world = NULL;
    check(tumble_world_new(2, box, walls, 4, &options, &world), "the world");
    check(tumble_mesh_free(box), "freeing the box");

    /* The ellipse: semi-axes 0.25 x 0.125, density 1.25, at 45 degrees, its lowest point
     * 0.9 rho above the floor. */
    double semi_axes[2] = {0.25, 0.125}, centre[2] = {1.0, 0.2246}, angle = PI / 4.0;
    size_t index = 0;
    check(tumble_world_add_ellipsoid(world, semi_axes, 1.25, centre, &angle, &index), "the ellipse");

    double dt = 1e-4;
    report(world, 0.0);
    for (int k = 1; k <= 4; ++k) {
        check(tumble_world_step(world, dt, 5000), "stepping");
        report(world, 0.5 * k);
    }
    double position[2], velocity[2];
    check(tumble_world_get_body(world, 0, position, &angle, velocity, NULL), "the final state");
    double tilt = fmod(fabs(angle), PI);
    tilt = fmin(tilt, PI - tilt) * 180.0 / PI;
    printf("at rest: tilt %.3f degrees, speed %.3e, gap %.5f\n", tilt, hypot(velocity[0], velocity[1]),
           position[1] - 0.125);
    check(tumble_world_free(world), "freeing the world");
    return 0;
}
