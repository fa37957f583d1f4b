// A cylinder of radius R and height H (axis z, the bottom at z = 0) for a sphere of radius 1
// settling along the axis onto the bottom at Re << 1 (Brenner 1961; docs/validation.md, "A sphere
// approaching a wall"; two spheres approaching each other on its axis, "Two spheres approaching
// each other"): size hb within rb of the axis between the heights za and zb (all of it by
// default), growing linearly to h at rb + grow.
// Markers: "bottom" (z = 0), "top" (z = H), "side"; volume "fluid".
// Usage: gmsh -3 sphere_wall.geo -setnumber R 15 -setnumber hb 0.25 -format msh41 -o sphere_wall_r15.msh
If (!Exists(R))
  R = 15.0;
EndIf
If (!Exists(H))
  H = 20.0;
EndIf
If (!Exists(h))
  h = 3.0;
EndIf
If (!Exists(hb))
  hb = 0.25;
EndIf
If (!Exists(rb))
  rb = 2.0;
EndIf
If (!Exists(grow))
  grow = 6.0;
EndIf
If (!Exists(za))
  za = 0.0;
EndIf
If (!Exists(zb))
  zb = H;
EndIf
SetFactory("OpenCASCADE");
Cylinder(1) = {0, 0, 0, 0, 0, H, R};
Physical Surface("side") = {1};
Physical Surface("top") = {2};
Physical Surface("bottom") = {3};
Physical Volume("fluid") = {1};
Point(100) = {0, 0, za};
Point(101) = {0, 0, zb};
Line(100) = {100, 101};
Field[1] = Distance;
Field[1].CurvesList = {100};
Field[1].Sampling = 400;
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = hb;
Field[2].SizeMax = h;
Field[2].DistMin = rb;
Field[2].DistMax = rb + grow;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
