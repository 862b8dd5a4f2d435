#include "shapes.h"

double square_area(const struct square *sq)
{
	return sq->side * sq->side;
}
