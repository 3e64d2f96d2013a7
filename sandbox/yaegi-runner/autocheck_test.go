package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func checkSource(t *testing.T, files map[string]string) verdict {
	t.Helper()
	p, err := loadProgram(writeProgram(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return checkProgram(p)
}

func TestAutoAcceptsOrdinaryCode(t *testing.T) {
	v := checkSource(t, map[string]string{"main.go": `package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

type Row struct {
	Name string ` + "`json:\"name\"`" + `
	N    int
}

func main() {
	rows := []Row{{"b", 2}, {"a", 1}}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
	b, _ := json.Marshal(rows)
	fmt.Println(string(b), strings.ToUpper(rows[0].Name))
	defer fmt.Println("done")
	fmt.Println(rows[0], First(rows))
	for i := 0; i < 2; i++ {
		go func(n int) { _ = n }(i)
	}
	seen := map[string]int{"a": 1}
	if n, ok := seen["a"]; ok {
		fmt.Println(n)
	}
	var found bool
	_, found = seen["b"]
	x, y := 1, 2
	x, y = y, x+y
	fmt.Println(found, new(int), x, y)
	ch := make(chan int, 1)
	ch <- 1
	select {
	case got := <-ch:
		fmt.Println(got)
	}
}

func First[T any](xs []T) T { return xs[0] }
`})
	if !v.accepted || !strings.Contains(v.reason, "encoding/json, fmt, sort, strings") {
		t.Fatalf("want accepted with its imports named, got %+v", v)
	}
}

func TestAutoDeclines(t *testing.T) {
	for name, c := range map[string]struct{ src, want string }{
		"import without symbols": {`import "k8s.io/api/apps/v1"
var _ = v1.Deployment{}
func main() {}`, "imports k8s.io/api/apps/v1 at main.go:3, which the interpreter has no symbols for"},
		"unsafe": {`import "unsafe"
var _ = unsafe.Sizeof(1)
func main() {}`, "imports unsafe at main.go:3"},
		"method value": {`type C struct{ n int }
func (c *C) Inc() { c.n++ }
func main() { c := &C{}; f := c.Inc; f() }`, "method value c.Inc at main.go:5"},
		"method expression": {`type C struct{ n int }
func (c C) Get() int { return c.n }
func main() { _ = C.Get }`, "method expression C.Get at main.go:5"},
		"embedding": {`type A struct{ X int }
type B struct{ A }
func main() {}`, "embedded field in struct B at main.go:4"},
		"stringer": {`type P struct{}
func (P) String() string { return "p" }
func main() {}`, "method String at main.go:4"},
		"percent T": {`import "fmt"
func main() { fmt.Printf("%T\n", 1) }`, "%T in Printf at main.go:4"},
		"deferred argument": {`import "fmt"
func main() { x := 1; defer fmt.Println(x + 1) }`, "deferred call with argument x + 1 at main.go:4"},
		"embed directive": {`import _ "embed"
//go:embed main.go
var src string
func main() {}`, "imports embed at main.go:3"},
		"decode into own struct": {`import ("encoding/json"; "os")
type C struct{ Port int }
func main() { var c C; _ = json.NewDecoder(os.Stdin).Decode(&c) }`, "Decode into the program's type *main.C at main.go:5"},
		"unmarshal into own interface": {`import "encoding/json"
type S interface{ Area() float64 }
type D struct{ Shapes []S }
func main() { var d D; _ = json.Unmarshal(nil, &d) }`, "Unmarshal into *main.D at main.go:6 (the program's interface type S"},
		"loop variable in closure": {`func main() {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
}`, "closure at main.go:6 uses loop variable i of the loop at main.go:5"},
		"range variable address": {`func main() {
	var ps []*string
	for _, s := range []string{"a"} {
		ps = append(ps, &s)
	}
}`, "address of loop variable s at main.go:6"},
		"range with =": {`func main() {
	var k string
	for k = range map[string]int{} {}
	_ = k
}`, "range assigning to existing variables (for k = range) at main.go:5"},
		"select case with =": {`func main() {
	ch := make(chan int)
	var v int
	select { case v = <-ch: }
	_ = v
}`, "select case receiving into existing variables (case v = <-ch) at main.go:6"},
		"comma-ok map index into existing": {`func main() {
	m := map[string]int{}
	v, ok := 1, false
	v, ok = m["x"]
	_, _ = v, ok
}`, "two-value map index assigned to an existing variable (v) at main.go:6"},
		"comma-ok assertion redeclaring": {`func main() {
	var x any = 1
	s := "q"
	s, ok := x.(string)
	_, _ = s, ok
}`, "two-value type assertion assigned to an existing variable (s) at main.go:6"},
		"deferred loop variable": {`func show(int) {}
func main() { for i := 0; i < 3; i++ { defer show(i) } }`, "deferred call with argument i at main.go:4"},
		"deferred variable changed later": {`func show(int) {}
func main() { x := 1; defer show(x); x = 2 }`, "deferred call with argument x at main.go:4"},
		"parallel assignment with a call": {`func f() int { return 1 }
func main() { a, b := 0, 0; a, b = f(), 2; _, _ = a, b }`, "parallel assignment with the call f() at main.go:4"},
		"new of a value":  {`func main() { p := new(1); _ = p }`, "new(1) of a value at main.go:3"},
		"range over int":  {`func main() { for range 3 {} }`, "range over an integer at main.go:3"},
		"range over func": {`func main() { for range func(func() bool) {} {} }`, "range over a function at main.go:3"},
		"unused variable": {`func main() { x := 1 }`, "the compiler would reject it (main.go:3: declared and not used: x)"},
		"unused import": {`import "os"
func main() {}`, "the compiler would reject it (main.go:3: \"os\" imported and not used)"},
		"min builtin": {`func main() { _ = min(1, 2) }`, "builtin min at main.go:3"},
		"two type parameters": {`func Map[T, U any](xs []T, f func(T) U) []U { return nil }
func main() {}`, "generic function Map with more than one type parameter at main.go:3"},
	} {
		t.Run(name, func(t *testing.T) {
			v := checkSource(t, map[string]string{"main.go": "package main\n\n" + c.src + "\n"})
			if v.accepted || !strings.Contains(v.reason, c.want) {
				t.Fatalf("want declined with %q, got %+v", c.want, v)
			}
		})
	}
}

func TestAutoChecksHelperPackages(t *testing.T) {
	v := checkSource(t, map[string]string{
		"main.go":   "package main\n\nimport \"kode_gopher_user/util\"\n\nfunc main() { util.Do() }\n",
		"util/u.go": "package util\n\ntype T struct{}\n\nfunc (T) Error() string { return \"\" }\n\nfunc Do() {}\n",
	})
	if v.accepted || !strings.Contains(v.reason, "method Error at util/u.go:5") {
		t.Fatalf("a helper package's constructs count too: %+v", v)
	}
}

// BenchmarkCheckProgram: what --auto adds to a call (parse, type-check, walk) for the corpus's
// largest snippet. go test -bench CheckProgram -run ^$
func BenchmarkCheckProgram(b *testing.B) {
	corpus := os.Getenv("KG_YAEGI_CORPUS")
	if corpus == "" {
		b.Skip("KG_YAEGI_CORPUS is set by `meson test yaegi-runner`")
	}
	dir := filepath.Join(corpus, "cases", "snippet_group_aggregate")
	for i := 0; i < b.N; i++ {
		p, err := loadProgram(dir)
		if err != nil {
			b.Fatal(err)
		}
		checkProgram(p)
	}
}

func TestAutoSendsCPUBoundLoopsToTheCompiler(t *testing.T) {
	for name, c := range map[string]struct {
		src  string
		want string // "" = accepted
	}{
		"prime sieve over 2e6": {`import "fmt"
const n = 2_000_000
func main() {
	composite := make([]bool, n+1)
	count := 0
	for i := 2; i <= n; i++ {
		if composite[i] { continue }
		count++
		for j := i * i; j <= n; j += i { composite[j] = true }
	}
	fmt.Println(count)
}`, "CPU-bound: the loops at main.go:8 can run about 4e+12 iterations"},
		"nested loops 2000 x 1000": {`import "fmt"
func main() {
	s := 0
	for i := 0; i < 2000; i++ {
		for j := 0; j < 1000; j++ { s += i ^ j }
	}
	fmt.Println(s)
}`, "CPU-bound: the loops at main.go:6 can run about 2e+06 iterations"},
		"a loop inside a function literal": {`import "fmt"
func main() {
	f := func() int { s := 0; for i := 0; i < 5e6; i++ { s += i }; return s }
	fmt.Println(f())
}`, "CPU-bound: the loops at main.go:5"},
		"2000 records built and ranged over": {`import "fmt"
func main() {
	var rows []int
	for i := 0; i < 2000; i++ { rows = append(rows, i*7%13) }
	sum := 0
	for _, r := range rows { for k := 0; k < 10; k++ { sum += r } }
	fmt.Println(sum)
}`, ""},
		"a loop without a constant bound": {`import "fmt"
func main() {
	n, s, limit := 0, 0, 3_000_000
	for n < limit { n++; s += n }
	for { break }
	fmt.Println(s)
}`, ""},
		"doubling steps count logarithmically": {`import "fmt"
func main() {
	s := 0
	for i := 1; i < 1<<40; i *= 2 { s++ }
	fmt.Println(s)
}`, ""},
	} {
		t.Run(name, func(t *testing.T) {
			v := checkSource(t, map[string]string{"main.go": "package main\n\n" + c.src + "\n"})
			if c.want == "" {
				if !v.accepted {
					t.Fatalf("want accepted, got declined: %s", v.reason)
				}
				return
			}
			if v.accepted || !strings.Contains(v.reason, c.want) {
				t.Fatalf("want declined with %q, got accepted=%v %q", c.want, v.accepted, v.reason)
			}
		})
	}
}
