package main

func main() {
	var out []int
	for i := 0; i < 3; i++ {
		out = append(out, i)
	}
	out = append(out, 9)
	println(len(out))
}
