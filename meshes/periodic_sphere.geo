// A sphere of radius a at the centre of the unit cube, the cube periodic three ways (the cell of
// a simple cubic array of spheres): each pair of opposite faces meshed as images of each other
// (Periodic Surface), so that tumble's [domain] periodic can identify their nodes.
// gmsh -3 periodic_sphere.geo -o periodic_sphere.msh (meshes/make.sh); a = (3 0.027 / (4 pi))^(1/3)
// = 0.18610, the volume fraction 0.027 (Zick and Homsy's first).
SetFactory("OpenCASCADE");
DefineConstant[ a = 0.18610, h = 0.1 ];
Box(1) = {0, 0, 0, 1, 1, 1};
Sphere(2) = {0.5, 0.5, 0.5, a};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
e = 1e-6;
xmin() = Surface In BoundingBox{-e, -e, -e, e, 1 + e, 1 + e};
xmax() = Surface In BoundingBox{1 - e, -e, -e, 1 + e, 1 + e, 1 + e};
ymin() = Surface In BoundingBox{-e, -e, -e, 1 + e, e, 1 + e};
ymax() = Surface In BoundingBox{-e, 1 - e, -e, 1 + e, 1 + e, 1 + e};
zmin() = Surface In BoundingBox{-e, -e, -e, 1 + e, 1 + e, e};
zmax() = Surface In BoundingBox{-e, -e, 1 - e, 1 + e, 1 + e, 1 + e};
sphere() = Surface In BoundingBox{0.5 - a - e, 0.5 - a - e, 0.5 - a - e, 0.5 + a + e, 0.5 + a + e, 0.5 + a + e};
Periodic Surface{xmax()} = {xmin()} Translate{1, 0, 0};
Periodic Surface{ymax()} = {ymin()} Translate{0, 1, 0};
Periodic Surface{zmax()} = {zmin()} Translate{0, 0, 1};
MeshSize{ PointsOf{ Volume{3}; } } = h;
MeshSize{ PointsOf{ Surface{sphere()}; } } = h / 3;
Physical Surface("xmin") = {xmin()};
Physical Surface("xmax") = {xmax()};
Physical Surface("ymin") = {ymin()};
Physical Surface("ymax") = {ymax()};
Physical Surface("zmin") = {zmin()};
Physical Surface("zmax") = {zmax()};
Physical Surface("sphere") = {sphere()};
Physical Volume("fluid") = {3};
