package shapes

// Shape is anything with an area.
type Shape interface {
	Area() float64
}

// Square is a Shape with equal sides.
type Square struct {
	Side float64
}

// Area returns the square's area.
func (s Square) Area() float64 { return s.Side * s.Side }

// Total sums the areas of shapes.
func Total(shapes []Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}
