! tumble from Fortran through iso_c_binding: the specification's check 4.1.3, an ellipse falling
! tilted on the floor of a 2 x 2 box (CGS), dry; the twin of examples/c/ellipse_floor.c, whose
! numbers it prints (capi/tests/c_examples.rs checks them against the Rust run, bit for bit).
! The interfaces below are those of include/tumble.h that it calls.
!
!   cargo build --release -p tumble-capi
!   gfortran -std=f2008 -Wall examples/fortran/ellipse_floor.f90 -Ltarget/release -ltumble_c
!      -Wl,-rpath,target/release -o ellipse_floor       (one line)
!   ./ellipse_floor
module tumble
    use, intrinsic :: iso_c_binding
    implicit none

    integer(c_int), parameter :: TUMBLE_STATUS_OK = 0
    integer(c_int), parameter :: TUMBLE_LAW_GLOWINSKI = 1

    ! TumbleWorldOptions, field for field.
    type, bind(c) :: tumble_world_options
        real(c_double) :: gravity(3)
        real(c_double) :: drag_linear, drag_angular
        integer(c_int) :: law
        real(c_double) :: range, stiffness, wall_stiffness, damping
        real(c_double) :: restitution, duration, friction, rolling
        real(c_double) :: lubrication_viscosity, lubrication_cut, lubrication_roughness, lubrication_share
        integer(c_int32_t) :: lubrication_tangential
        real(c_double) :: lattice_step
        integer(c_int32_t) :: threads
    end type

    interface
        function tumble_last_error() bind(c)
            import :: c_ptr
            type(c_ptr) :: tumble_last_error
        end function
        function tumble_mesh_box(dim, lower, upper, cells, out) bind(c)
            import :: c_int, c_int32_t, c_double, c_ptr
            integer(c_int32_t), value :: dim
            real(c_double), intent(in) :: lower(*), upper(*)
            integer(c_int32_t), intent(in) :: cells(*)
            type(c_ptr), intent(out) :: out
            integer(c_int) :: tumble_mesh_box
        end function
        function tumble_mesh_free(mesh) bind(c)
            import :: c_int, c_ptr
            type(c_ptr), value :: mesh
            integer(c_int) :: tumble_mesh_free
        end function
        function tumble_world_options_default() bind(c)
            import :: tumble_world_options
            type(tumble_world_options) :: tumble_world_options_default
        end function
        function tumble_world_new(dim, domain, wall_tags, num_wall_tags, options, out) bind(c)
            import :: c_int, c_int32_t, c_size_t, c_ptr, tumble_world_options
            integer(c_int32_t), value :: dim
            type(c_ptr), value :: domain
            integer(c_int32_t), intent(in) :: wall_tags(*)
            integer(c_size_t), value :: num_wall_tags
            type(tumble_world_options), intent(in) :: options
            type(c_ptr), intent(out) :: out
            integer(c_int) :: tumble_world_new
        end function
        function tumble_world_free(world) bind(c)
            import :: c_int, c_ptr
            type(c_ptr), value :: world
            integer(c_int) :: tumble_world_free
        end function
        function tumble_world_add_ellipsoid(world, semi_axes, density, position, orientation, index) bind(c)
            import :: c_int, c_double, c_size_t, c_ptr
            type(c_ptr), value :: world
            real(c_double), intent(in) :: semi_axes(*)
            real(c_double), value :: density
            real(c_double), intent(in) :: position(*), orientation(*)
            integer(c_size_t), intent(out) :: index
            integer(c_int) :: tumble_world_add_ellipsoid
        end function
        function tumble_world_step(world, dt, steps) bind(c)
            import :: c_int, c_double, c_size_t, c_ptr
            type(c_ptr), value :: world
            real(c_double), value :: dt
            integer(c_size_t), value :: steps
            integer(c_int) :: tumble_world_step
        end function
        function tumble_world_contact_forces(world, forces, torques, capacity, count) bind(c)
            import :: c_int, c_double, c_size_t, c_ptr
            type(c_ptr), value :: world
            real(c_double), intent(out) :: forces(*), torques(*)
            integer(c_size_t), value :: capacity
            integer(c_size_t), intent(out) :: count
            integer(c_int) :: tumble_world_contact_forces
        end function
        function tumble_world_get_body(world, index, position, orientation, velocity, angular_velocity) bind(c)
            import :: c_int, c_double, c_size_t, c_ptr
            type(c_ptr), value :: world
            integer(c_size_t), value :: index
            real(c_double), intent(out) :: position(*), orientation(*), velocity(*), angular_velocity(*)
            integer(c_int) :: tumble_world_get_body
        end function
    end interface

contains

    ! Stops with the library's message if `status` is not TUMBLE_STATUS_OK.
    subroutine check(status, what)
        integer(c_int), intent(in) :: status
        character(*), intent(in) :: what
        character(kind=c_char), pointer :: message(:)
        integer :: n
        if (status == TUMBLE_STATUS_OK) return
        call c_f_pointer(tumble_last_error(), message, [4096])
        n = 0
        do while (message(n + 1) /= c_null_char)
            n = n + 1
        end do
        write (*, '(a, " failed (status ", i0, "): ", 4096a)') what, status, message(1:n)
        error stop 1
    end subroutine
end module

program ellipse_floor
    use tumble
    implicit none
    real(c_double), parameter :: pi = 3.14159265358979323846_c_double
    type(c_ptr) :: box, world
    type(tumble_world_options) :: options
    real(c_double) :: angle(1), position(2), velocity(2), spin(1), tilt
    integer(c_size_t) :: index
    integer :: k

    ! The domain: [0, 2]^2 in 32 x 32 squares, its four sides (tags 1 to 4) the walls.
    call check(tumble_mesh_box(2, [0.0_c_double, 0.0_c_double], [2.0_c_double, 2.0_c_double], [32, 32], box), &
               "the box")
    options = tumble_world_options_default()
    options%gravity(2) = -981.0_c_double
    options%drag_linear = 20.0_c_double
    options%drag_angular = 20.0_c_double
    options%law = TUMBLE_LAW_GLOWINSKI
    options%range = 0.03_c_double
    options%stiffness = 1e-6_c_double
    options%wall_stiffness = 1e-6_c_double
    call check(tumble_world_new(2, box, [1, 2, 3, 4], 4_c_size_t, options, world), "the world")
    call check(tumble_mesh_free(box), "freeing the box")

    ! The ellipse: semi-axes 0.25 x 0.125, density 1.25, at 45 degrees, its lowest point 0.9 rho
    ! above the floor.
    angle(1) = pi / 4
    call check(tumble_world_add_ellipsoid(world, [0.25_c_double, 0.125_c_double], 1.25_c_double, &
                                          [1.0_c_double, 0.2246_c_double], angle, index), "the ellipse")
    call report(0.0_c_double)
    do k = 1, 4
        call check(tumble_world_step(world, 1e-4_c_double, 5000_c_size_t), "stepping")
        call report(0.5_c_double * k)
    end do
    call check(tumble_world_get_body(world, 0_c_size_t, position, angle, velocity, spin), "the final state")
    tilt = mod(abs(angle(1)), pi)
    tilt = min(tilt, pi - tilt) * 180 / pi
    write (*, '("at rest: tilt ", f5.3, " degrees, speed ", es10.3, ", gap ", f7.5)') &
        tilt, hypot(velocity(1), velocity(2)), position(2) - 0.125_c_double
    call check(tumble_world_free(world), "freeing the world")

contains

    ! One line of the body's state and the contact force on it, every number to the last bit.
    subroutine report(t)
        real(c_double), intent(in) :: t
        real(c_double) :: p(2), a(1), v(2), w(1), force(2), torque(1)
        integer(c_size_t) :: count
        call check(tumble_world_contact_forces(world, force, torque, 1_c_size_t, count), "contact forces")
        call check(tumble_world_get_body(world, 0_c_size_t, p, a, v, w), "the body's state")
        write (*, '("t ", f6.4, " position", 2(1x, es24.17), " angle ", es24.17, " velocity", 2(1x, es24.17), &
                  &" force", 2(1x, es24.17), " torque ", es24.17)') t, p, a, v, force, torque
    end subroutine
end program
