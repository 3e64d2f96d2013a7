module kode-gopher/sandbox/fastbuild

go 1.24
