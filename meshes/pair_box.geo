// A cube of side L periodic three ways (opposite faces meshed as images of each other, Periodic
// Surface) whose cells are h within a ball of radius r about its centre and grow by `grow` per
// unit length beyond it to at most H: the box for a few immersed spheres far from their periodic
// images (scripts/pair_mobility.py). No body is meshed: the spheres are tumble's fictitious domain.
// gmsh -3 pair_box.geo -setnumber L 16 -setnumber h 0.1667 -o pair_box.msh
SetFactory("OpenCASCADE");
DefineConstant[ L = 16, h = 0.1667, r = 2.2, grow = 0.25, H = 1.5 ];
Box(1) = {0, 0, 0, L, L, L};
e = 1e-6;
xmin() = Surface In BoundingBox{-e, -e, -e, e, L + e, L + e};
xmax() = Surface In BoundingBox{L - e, -e, -e, L + e, L + e, L + e};
ymin() = Surface In BoundingBox{-e, -e, -e, L + e, e, L + e};
ymax() = Surface In BoundingBox{-e, L - e, -e, L + e, L + e, L + e};
zmin() = Surface In BoundingBox{-e, -e, -e, L + e, L + e, e};
zmax() = Surface In BoundingBox{-e, -e, L - e, L + e, L + e, L + e};
Periodic Surface{xmax()} = {xmin()} Translate{L, 0, 0};
Periodic Surface{ymax()} = {ymin()} Translate{0, L, 0};
Periodic Surface{zmax()} = {zmin()} Translate{0, 0, L};
c = L / 2;
Field[1] = MathEval;
Field[1].F = Sprintf("Min(%g, %g + %g * Max(0, Sqrt((x - %g)^2 + (y - %g)^2 + (z - %g)^2) - %g))", H, h, grow, c, c, c, r);
Background Field = 1;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Physical Surface("xmin") = {xmin()};
Physical Surface("xmax") = {xmax()};
Physical Surface("ymin") = {ymin()};
Physical Surface("ymax") = {ymax()};
Physical Surface("zmin") = {zmin()};
Physical Surface("zmax") = {zmax()};
Physical Volume("fluid") = {1};
