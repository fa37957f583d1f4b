// A cylinder of radius a at the centre of the unit square, the square periodic both ways (the
// cell of a square array of cylinders): left/right and bottom/top meshed as images of each
// other (Periodic Curve), so that tumble's [domain] periodic can identify their nodes.
// gmsh -2 periodic_cylinder.geo -o periodic_cylinder.msh (meshes/make.sh); a = sqrt(0.1/pi), the volume fraction 0.1
DefineConstant[ a = 0.17841241161527712, h = 0.04 ];
hc = h / 3;
Point(1) = {0, 0, 0, h}; Point(2) = {1, 0, 0, h}; Point(3) = {1, 1, 0, h}; Point(4) = {0, 1, 0, h};
Line(1) = {1, 2}; // bottom
Line(2) = {2, 3}; // right
Line(3) = {4, 3}; // top, along the bottom's direction
Line(4) = {1, 4}; // left, along the right's direction
Point(5) = {0.5, 0.5, 0, hc};
Point(6) = {0.5 + a, 0.5, 0, hc}; Point(7) = {0.5, 0.5 + a, 0, hc};
Point(8) = {0.5 - a, 0.5, 0, hc}; Point(9) = {0.5, 0.5 - a, 0, hc};
Circle(5) = {6, 5, 7}; Circle(6) = {7, 5, 8}; Circle(7) = {8, 5, 9}; Circle(8) = {9, 5, 6};
Curve Loop(1) = {1, 2, -3, -4};
Curve Loop(2) = {5, 6, 7, 8};
Plane Surface(1) = {1, 2};
Periodic Curve {2} = {4} Translate {1, 0, 0};
Periodic Curve {3} = {1} Translate {0, 1, 0};
Physical Curve("left") = {4};
Physical Curve("right") = {2};
Physical Curve("bottom") = {1};
Physical Curve("top") = {3};
Physical Curve("cylinder") = {5, 6, 7, 8};
Physical Surface("fluid") = {1};
