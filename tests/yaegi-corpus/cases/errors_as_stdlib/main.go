package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

func main() {
	_, err := strconv.Atoi("abc")
	wrapped := fmt.Errorf("parsing config: %w", err)
	var numErr *strconv.NumError
	if errors.As(wrapped, &numErr) {
		fmt.Println("func:", numErr.Func, "num:", numErr.Num, "err:", numErr.Err)
	}
	_, err = os.Open("/nonexistent/file")
	var pathErr *fs.PathError
	fmt.Println(errors.As(err, &pathErr), pathErr.Op, errors.Is(err, fs.ErrNotExist))
}
