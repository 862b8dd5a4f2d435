#include <stdio.h>
#include "shapes.h"

int main(void)
{
	struct square big = {10};
	double a = square_area(&big);
	printf("%f\n", a);
	return 0;
}
