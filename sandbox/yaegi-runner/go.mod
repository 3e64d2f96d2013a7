module kode-gopher/sandbox/yaegi-runner

go 1.26.0

require github.com/traefik/yaegi v0.16.1
