// Schäfer–Turek 2D benchmark channel: [0, 2.2] × [0, 0.41] with a cylinder of diameter 0.1 centred
// at (0.2, 0.2), cut out. Markers: inlet (x = 0), outlet (x = 2.2), walls (y = 0, y = 0.41),
// cylinder. Mesh size h far away, hc on the cylinder, growing with the distance from it up to
// `reach` (default 0.4).
// Usage: gmsh -2 schafer_turek_2d.geo -setnumber h 0.04 -setnumber hc 0.004 -format msh41 -bin -o out.msh
If (!Exists(h))
  h = 0.04;
EndIf
If (!Exists(hc))
  hc = 0.004;
EndIf
If (!Exists(reach))
  reach = 0.4;
EndIf
Point(1) = {0, 0, 0, h};
Point(2) = {2.2, 0, 0, h};
Point(3) = {2.2, 0.41, 0, h};
Point(4) = {0, 0.41, 0, h};
Point(5) = {0.2, 0.2, 0, hc};
Point(6) = {0.25, 0.2, 0, hc};
Point(7) = {0.2, 0.25, 0, hc};
Point(8) = {0.15, 0.2, 0, hc};
Point(9) = {0.2, 0.15, 0, hc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Circle(5) = {6, 5, 7};
Circle(6) = {7, 5, 8};
Circle(7) = {8, 5, 9};
Circle(8) = {9, 5, 6};
Curve Loop(1) = {1, 2, 3, 4};
Curve Loop(2) = {5, 6, 7, 8};
Plane Surface(1) = {1, 2};
Physical Curve("inlet") = {4};
Physical Curve("outlet") = {2};
Physical Curve("walls") = {1, 3};
Physical Curve("cylinder") = {5, 6, 7, 8};
Physical Surface("fluid") = {1};
Field[1] = Distance;
Field[1].CurvesList = {5, 6, 7, 8};
Field[1].Sampling = 200;
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = hc;
Field[2].SizeMax = h;
Field[2].DistMin = 0.0;
Field[2].DistMax = reach;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
