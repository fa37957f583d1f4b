// A planar channel with a symmetric stenosis (Li et al. 2004; Wu and Shu 2009; the
// specification's section 4.7): length 32 d, width 8 d, a semicircular protuberance of radius
// (8 d - b)/2 on each wall at mid-length, so that the throat is b = 1.75 d wide; d the particles'
// diameter. Uniform size h.
// Markers: inlet (x = 0), outlet (x = 32 d), walls (both walls with their protuberances);
// surface "fluid".
// Usage: gmsh -2 stenotic_artery.geo -setnumber h 8.5e-5 -format msh41 -bin -o out.msh
If (!Exists(d))
  d = 8.5e-4;
EndIf
If (!Exists(b))
  b = 1.75 * d;
EndIf
If (!Exists(h))
  h = d / 10;
EndIf
L = 32 * d;
W = 8 * d;
R = (W - b) / 2;
X = L / 2;
Point(1) = {0, 0, 0, h};
Point(2) = {X - R, 0, 0, h};
Point(3) = {X, 0, 0, h};
Point(4) = {X, R, 0, h};
Point(5) = {X + R, 0, 0, h};
Point(6) = {L, 0, 0, h};
Point(7) = {L, W, 0, h};
Point(8) = {X + R, W, 0, h};
Point(9) = {X, W, 0, h};
Point(10) = {X, W - R, 0, h};
Point(11) = {X - R, W, 0, h};
Point(12) = {0, W, 0, h};
Line(1) = {1, 2};
Circle(2) = {2, 3, 4};
Circle(3) = {4, 3, 5};
Line(4) = {5, 6};
Line(5) = {6, 7};
Line(6) = {7, 8};
Circle(7) = {8, 9, 10};
Circle(8) = {10, 9, 11};
Line(9) = {11, 12};
Line(10) = {12, 1};
Curve Loop(1) = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
Plane Surface(1) = {1};
Physical Curve("inlet") = {10};
Physical Curve("outlet") = {5};
Physical Curve("walls") = {1, 2, 3, 4, 6, 7, 8, 9};
Physical Surface("fluid") = {1};
Mesh.MeshSizeFromCurvature = 0;
