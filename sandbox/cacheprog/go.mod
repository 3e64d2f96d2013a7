module kode-gopher/sandbox/cacheprog

go 1.24
