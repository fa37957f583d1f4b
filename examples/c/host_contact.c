/* Contact on a host code's own mesh (the host-mesh mode), as a finite-element code whose mesh
 * follows the bodies (ALE) would call it: three disks of radius 0.125 in a circular container of
 * radius 1, two of them 0.01 apart and one 0.012 above the wall, meshed conformingly at h = 0.01
 * (each disk's facets tagged 1, 2, 3, the container's 4). At each step the host gives the mesh as
 * it is and the bodies' centres; tumble gives the contacts, each body's force and torque, and the
 * same forces as loads on the mesh's nodes. The host then moves its mesh (here a translation of
 * everything, which changes nothing physical) and asks again. Last, a bad tag: a status and a
 * message, no crash.
 *
 * Build (from the repository's top directory, after `cargo build --release -p tumble-capi`):
 *   cc -std=c99 -Iinclude examples/c/host_contact.c -Ltarget/release -ltumble_c \
 *      -Wl,-rpath,target/release -lm -o host_contact && ./host_contact
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tumble.h"

#define CHECK(call)                                                        \
    do {                                                                   \
        TumbleStatus status_ = (call);                                     \
        if (status_ != TUMBLE_STATUS_OK) {                                 \
            fprintf(stderr, "%s: %s\n", #call, tumble_last_error());       \
            return 1;                                                      \
        }                                                                  \
    } while (0)

/* Finds the contacts on `mesh` with the centres `centres` and prints them, the forces, torques and
 * the sum and moment of the node loads (which balance: the walls take the reactions). */
static int report(TumbleHost *host, const TumbleMesh *mesh, const double *centres, const char *label) {
    size_t found = 0, count = 0, nodes = 0, cells = 0, facets = 0;
    CHECK(tumble_host_find_contacts(host, mesh, centres, 3, &found));
    TumbleContact contacts[16];
    CHECK(tumble_host_get_contacts(host, contacts, 16, &count));
    for (size_t k = 0; k < count; ++k) {
        char other[32];
        if (contacts[k].j == TUMBLE_WALL) {
            snprintf(other, sizeof other, "wall");
        } else {
            snprintf(other, sizeof other, "body %u", contacts[k].j);
        }
        printf("%s contact body %u - %s: gap %.6f normal %.6f %.6f\n", label, contacts[k].i, other,
               contacts[k].gap, contacts[k].normal[0], contacts[k].normal[1]);
    }
    double forces[6], torques[3];
    CHECK(tumble_host_forces(host, forces, torques, 3, &count));
    for (size_t k = 0; k < count; ++k) {
        printf("%s force %zu: %.17g %.17g torque %.17g\n", label, k, forces[2 * k], forces[2 * k + 1],
               torques[k]);
    }
    CHECK(tumble_mesh_sizes(mesh, NULL, &nodes, &cells, &facets));
    double *loads = malloc(2 * nodes * sizeof *loads);
    if (!loads) return 1;
    CHECK(tumble_host_node_loads(host, loads, nodes));
    double sum[2] = {0.0, 0.0}, largest = 0.0;
    size_t loaded = 0;
    for (size_t v = 0; v < nodes; ++v) {
        sum[0] += loads[2 * v];
        sum[1] += loads[2 * v + 1];
        double norm = hypot(loads[2 * v], loads[2 * v + 1]);
        if (norm > 0.0) ++loaded;
        if (norm > largest) largest = norm;
    }
    printf("%s loads: %zu nodes, largest %.6g, sum %.3g %.3g\n", label, loaded, largest, sum[0], sum[1]);
    free(loads);
    return 0;
}

int main(void) {
    const double r = 0.125;
    double centres[6] = {-0.3, 0.1, -0.3 + 2.0 * r + 0.01, 0.1, 0.0, -(1.0 - r - 0.012)};
    double spheres[8] = {centres[0], centres[1], centres[2], centres[3], centres[4], centres[5], 0.0, 0.0};
    const double radii[4] = {r, r, r, 1.0};
    TumbleMesh *mesh = NULL;
    CHECK(tumble_mesh_balls(2, spheres, radii, 4, 0.01, &mesh));
    size_t nodes = 0, cells = 0, facets = 0;
    CHECK(tumble_mesh_sizes(mesh, NULL, &nodes, &cells, &facets));
    printf("host mesh: %zu nodes, %zu triangles\n", nodes, cells);

    TumbleHostOptions options = tumble_host_options_default();
    options.range = 0.03;
    options.stiffness = 1e-6;
    const int32_t bodies[3] = {1, 2, 3}, walls[1] = {4};
    TumbleHost *host = NULL;
    CHECK(tumble_host_new(mesh, bodies, 3, walls, 1, &options, &host));
    if (report(host, mesh, centres, "step 0")) return 1;

    /* The host moves its mesh: same cells, new points (here all shifted by (0.5, 0.25)). */
    double *points = malloc(2 * nodes * sizeof *points);
    if (!points) return 1;
    size_t copied = 0;
    CHECK(tumble_mesh_points(mesh, points, 2 * nodes, &copied));
    for (size_t v = 0; v < nodes; ++v) {
        points[2 * v] += 0.5;
        points[2 * v + 1] += 0.25;
    }
    TumbleMesh *moved = NULL;
    CHECK(tumble_mesh_with_points(mesh, points, nodes, &moved));
    for (int k = 0; k < 3; ++k) {
        centres[2 * k] += 0.5;
        centres[2 * k + 1] += 0.25;
    }
    if (report(host, moved, centres, "step 1")) return 1;

    /* A tag the mesh does not have. */
    const int32_t wrong[3] = {1, 2, 9};
    TumbleHost *bad = NULL;
    TumbleStatus status = tumble_host_new(mesh, wrong, 3, walls, 1, &options, &bad);
    printf("bad tag: status %d, %s\n", (int)status, tumble_last_error());

    free(points);
    tumble_host_free(host);
    tumble_mesh_free(moved);
    tumble_mesh_free(mesh);
    return 0;
}
