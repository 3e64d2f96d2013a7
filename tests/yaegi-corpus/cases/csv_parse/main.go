package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"strings"
)

func main() {
	r := csv.NewReader(strings.NewReader("name,qty\napple,3\n\"pear, green\",5\n"))
	records, err := r.ReadAll()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rec := range records[1:] {
		fmt.Printf("%s=%s\n", rec[0], rec[1])
	}
	w := csv.NewWriter(os.Stdout)
	w.Write([]string{"a,b", "c"})
	w.Flush()
}
