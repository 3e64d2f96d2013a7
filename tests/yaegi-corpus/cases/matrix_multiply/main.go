package main

import (
	"fmt"
)

func mul(a, b [][]float64) [][]float64 {
	n, m, p := len(a), len(b), len(b[0])
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, p)
		for j := 0; j < p; j++ {
			for k := 0; k < m; k++ {
				out[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return out
}

func main() {
	a := [][]float64{{1, 2}, {3, 4}}
	b := [][]float64{{5, 6}, {7, 8}}
	fmt.Println(mul(a, b))
	var grid [3][3]int
	grid[1][1] = 5
	g2 := grid
	g2[0][0] = 1
	fmt.Println(grid, g2)
}
