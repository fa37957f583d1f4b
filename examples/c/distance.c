/* tumble from C: read a Gmsh mesh, compute the narrow-band signed distance to a marked circle,
 * compare it with the exact distance, query it, and see what bad input gives.
 *
 *   cargo build --release -p tumble-capi
 *   cc -std=c99 -Wall -Iinclude examples/c/distance.c -Ltarget/release -ltumble_c \
 *      -Wl,-rpath,target/release -lm -o distance
 *   ./distance meshes/disk_r3_h0.1.msh
 *
 * The mesh is a disk of radius 3 with the circles r = 1 ("r1") and r = 2 ("r2") embedded; the
 * field is the distance to r = 1 within 1.2 of it, negative inside. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tumble.h"

/* Stops the program with the library's message if a call failed. */
static void check(TumbleStatus status, const char *what) {
    if (status != TUMBLE_STATUS_OK) {
        fprintf(stderr, "%s failed (status %d): %s\n", what, (int)status, tumble_last_error());
        exit(1);
    }
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "meshes/disk_r3_h0.1.msh";
    if (tumble_abi_version() != TUMBLE_ABI_VERSION) {
        fprintf(stderr, "built against ABI %d, loaded %u\n", TUMBLE_ABI_VERSION, tumble_abi_version());
        return 1;
    }

    TumbleMesh *mesh = NULL;
    check(tumble_mesh_read_gmsh(path, &mesh), "reading the mesh");
    uint32_t dim = 0;
    size_t num_points = 0, num_cells = 0;
    check(tumble_mesh_sizes(mesh, &dim, &num_points, &num_cells, NULL), "sizes");
    printf("mesh %s: %uD, %zu nodes, %zu cells\n", path, dim, num_points, num_cells);

    int32_t circle = 0;
    check(tumble_mesh_facet_tag(mesh, "r1", &circle), "the tag of r1");
    TumbleDistanceOptions options = tumble_distance_options_default();
    options.max_distance = 1.2;
    TumbleDistance *field = NULL;
    check(tumble_distance_new(mesh, &circle, 1, &options, &field), "the distance field");

    /* The values and coordinates into buffers of our own. */
    double *values = malloc(num_points * sizeof(double));
    unsigned char *reached = malloc(num_points);
    double *points = malloc(num_points * dim * sizeof(double));
    size_t count = 0;
    check(tumble_distance_values(field, values, num_points, &count), "values");
    check(tumble_distance_reached(field, reached, num_points, &count), "reached");
    check(tumble_mesh_points(mesh, points, num_points * dim, &count), "points");
    size_t in_band = 0;
    double worst = 0.0, widest = 0.0;
    for (size_t i = 0; i < num_points; ++i) {
        if (!reached[i]) {
            continue;
        }
        double exact = hypot(points[2 * i], points[2 * i + 1]) - 1.0;
        in_band += 1;
        worst = fmax(worst, fabs(values[i] - exact));
        widest = fmax(widest, fabs(values[i]));
    }
    printf("nodes in the band: %zu, largest |d| there: %.4f\n", in_band, widest);
    printf("max error against |x| - 1: %.3e\n", worst);

    /* Queries: the field at two points, and where it is smallest on the circle r = 2. */
    double at[4] = {0.0, 0.8, 1.2, 0.0}, found_values[2];
    check(tumble_distance_at(field, at, 2, found_values), "values at points");
    printf("d(0, 0.8) = %.4f, d(1.2, 0) = %.4f\n", found_values[0], found_values[1]);
    int32_t outer = 0, found = 0;
    double where[2], smallest = 0.0;
    check(tumble_mesh_facet_tag(mesh, "r2", &outer), "the tag of r2");
    check(tumble_distance_argmin(field, &outer, 1, where, &smallest, &found), "argmin");
    printf("argmin on r2: found %d, d = %.4f at (%.4f, %.4f)\n", found, smallest, where[0], where[1]);

    /* Bad input: each is a status and a message, never a crash. */
    double nan_point[2] = {NAN, 0.0};
    TumbleStatus status = tumble_distance_at(field, nan_point, 1, found_values);
    printf("NaN point: status %d: %s\n", (int)status, tumble_distance_error(field));
    status = tumble_distance_values(field, values, 10, &count);
    printf("small buffer: status %d, needs %zu\n", (int)status, count);
    TumbleMesh *missing = NULL;
    status = tumble_mesh_read_gmsh("no/such/file.msh", &missing);
    printf("missing file: status %d: %s\n", (int)status, tumble_last_error());
    status = tumble_mesh_facet_tag(mesh, "r9", &outer);
    printf("unknown name: status %d: %s\n", (int)status, tumble_mesh_error(mesh));

    check(tumble_mesh_free(mesh), "freeing the mesh");
    /* The field keeps its mesh alive: it still answers. */
    check(tumble_distance_at(field, at, 1, found_values), "a query after the mesh was freed");
    status = tumble_mesh_free(mesh);
    printf("mesh freed twice: status %d: %s\n", (int)status, tumble_last_error());
    check(tumble_distance_free(field), "freeing the field");
    free(values);
    free(reached);
    free(points);
    return 0;
}
