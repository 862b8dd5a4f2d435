package shapes

// Big returns a large square.
func Big() Square {
	sq := Square{Side: 10}
	return sq
}

// Sum totals two squares.
func Sum() float64 {
	return Total([]Shape{Big(), Square{Side: 1}})
}
