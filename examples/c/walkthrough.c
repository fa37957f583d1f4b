/* The library guide's walkthrough (docs/library.md, "Walkthrough"), in C: the steps of
 * examples/walkthrough.rs, printing the same text (examples/walkthrough.out).
 *
 *   cargo build --release -p tumble-capi
 *   cc -std=c99 -Iinclude examples/c/walkthrough.c -Ltarget/release -ltumble_c
 *      -Wl,-rpath,target/release -lm -o walkthrough       (one line)
 *   ./walkthrough                                         (from the repository's top directory) */
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

int main(void) {
    /* 1. The distance to the circle r = 1 (facets named "r1") within 1.2 of it. */
    TumbleMesh *mesh = NULL;
    check(tumble_mesh_read_gmsh("meshes/disk_r3_h0.1.msh", &mesh), "reading the mesh");
    size_t nodes = 0, cells = 0, facets = 0;
    check(tumble_mesh_sizes(mesh, NULL, &nodes, &cells, &facets), "the mesh's sizes");
    printf("mesh: %zu nodes, %zu triangles\n", nodes, cells);
    int32_t r1 = 0;
    check(tumble_mesh_facet_tag(mesh, "r1", &r1), "the tag r1");
    TumbleDistanceOptions options = tumble_distance_options_default();
    options.max_distance = 1.2;
    TumbleDistance *field = NULL;
    check(tumble_distance_new(mesh, &r1, 1, &options, &field), "the distance");
    uint8_t *reached = malloc(nodes);
    size_t count = 0, in_band = 0;
    check(tumble_distance_reached(field, reached, nodes, &count), "the band");
    for (size_t v = 0; v < count; ++v) in_band += reached[v];
    double points[4] = {0.0, 0.8, 1.2, 0.0}, d[2];
    check(tumble_distance_at(field, points, 2, d), "the distance at two points");
    printf("distance: %zu nodes in the band; d(0, 0.8) = %.6f, d(1.2, 0) = %.6f\n", in_band, d[0], d[1]);
    free(reached);
    tumble_distance_free(field);
    tumble_mesh_free(mesh);

    /* 2. The ellipse (semi-axes 0.25, 0.125, density 1.25) at 45 degrees, 0.9 rho above the floor
     *    of the box [0, 2]^2, its four sides (tags 1 to 4) the walls; 2 s in steps of 1e-4. */
    double lower[2] = {0.0, 0.0}, upper[2] = {2.0, 2.0};
    uint32_t lattice[2] = {32, 32};
    TumbleMesh *floor_box = NULL;
    check(tumble_mesh_box(2, lower, upper, lattice, &floor_box), "the box");
    TumbleWorldOptions world_options = tumble_world_options_default();
    world_options.gravity[1] = -981.0;
    world_options.drag_linear = 20.0;
    world_options.drag_angular = 20.0;
    world_options.range = 0.03;
    world_options.stiffness = 1e-6;
    const int32_t walls[4] = {1, 2, 3, 4};
    TumbleWorld *world = NULL;
    check(tumble_world_new(2, floor_box, walls, 4, &world_options, &world), "the world");
    double semi_axes[2] = {0.25, 0.125}, centre[2] = {1.0, 0.2246}, angle = PI / 4.0;
    size_t index = 0;
    check(tumble_world_add_ellipsoid(world, semi_axes, 1.25, centre, &angle, &index), "the ellipse");
    check(tumble_world_step(world, 1e-4, 20000), "stepping");
    double force[2], torque, position[2], mass;
    check(tumble_world_contact_forces(world, force, &torque, 1, &count), "the contact force");
    check(tumble_world_get_body(world, 0, position, &angle, NULL, NULL), "the body");
    check(tumble_world_get_mass(world, 0, &mass), "the mass");
    printf("ellipse at t = 2: y = %.6f, angle = %.6f, wall force %.4f, weight %.4f\n", position[1], angle, force[1],
           mass * 981.0);
    tumble_world_free(world);
    tumble_mesh_free(floor_box);

    /* 3. Three disks of radius 0.125 in the unit circle (tags 1, 2, 3; the circle 4), two 0.01
     *    apart and one 0.012 above the wall, on a mesh that conforms to them (h = 0.01). */
    double spheres[8] = {-0.3, 0.1, -0.04, 0.1, 0.0, -0.863, 0.0, 0.0};
    const double radii[4] = {0.125, 0.125, 0.125, 1.0};
    TumbleMesh *host_mesh = NULL;
    check(tumble_mesh_balls(2, spheres, radii, 4, 0.01, &host_mesh), "the host mesh");
    TumbleHostOptions host_options = tumble_host_options_default();
    host_options.range = 0.03;
    host_options.stiffness = 1e-6;
    const int32_t bodies[3] = {1, 2, 3}, wall[1] = {4};
    TumbleHost *host = NULL;
    check(tumble_host_new(host_mesh, bodies, 3, wall, 1, &host_options, &host), "the host contact");
    size_t found = 0;
    check(tumble_host_find_contacts(host, host_mesh, spheres, 3, &found), "the contacts");
    TumbleContact contacts[8];
    check(tumble_host_get_contacts(host, contacts, 8, &found), "the contact list");
    for (size_t k = 0; k < found; ++k) {
        if (contacts[k].j == TUMBLE_WALL) {
            printf("contact: disk %u and the wall, gap %.6f\n", contacts[k].i, contacts[k].gap);
        } else {
            printf("contact: disk %u and disk %u, gap %.6f\n", contacts[k].i, contacts[k].j, contacts[k].gap);
        }
    }
    double forces[6], torques[3];
    check(tumble_host_forces(host, forces, torques, 3, &count), "the forces");
    for (size_t k = 0; k < count; ++k) {
        printf("force on disk %zu: (%.4f, %.4f)\n", k, forces[2 * k], forces[2 * k + 1]);
    }
    check(tumble_mesh_sizes(host_mesh, NULL, &nodes, &cells, &facets), "the host mesh's sizes");
    double *loads = malloc(2 * nodes * sizeof *loads);
    check(tumble_host_node_loads(host, loads, nodes), "the node loads");
    size_t loaded = 0;
    for (size_t v = 0; v < nodes; ++v) loaded += loads[2 * v] != 0.0 || loads[2 * v + 1] != 0.0;
    printf("node loads: %zu nodes\n", loaded);
    free(loads);
    tumble_host_free(host);
    tumble_mesh_free(host_mesh);
    return 0;
}
