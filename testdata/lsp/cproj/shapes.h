#ifndef SHAPES_H
#define SHAPES_H

/* A square with equal sides. */
struct square {
	double side;
};

/* square_area returns the area of sq. */
double square_area(const struct square *sq);

#endif
