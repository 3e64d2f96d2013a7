package main

// The --auto speed rule: the interpreter runs a loop body tens of times slower than compiled
// code, and a build costs about 0.15-0.2 s, so a CPU-bound program (a prime sieve over a few
// million numbers) answers sooner compiled. The rule estimates, from the source alone, how many
// loop iterations the program can run: each for loop whose condition compares with a constant
// counts that many iterations from its constant start (or the constant itself, as an upper
// bound, when the start is not constant, e.g. `for j := i * i; j < n; j += i`), divided by a
// constant step; loops nest by multiplying. A range over an array or a constant string counts
// its length; loops without a constant bound (ranges over slices and maps, `for cond {}`,
// `for {}`) count once, since the data they walk is not known here. Above
// interpretedLoopLimit the program goes to the compiler. An estimate, not a proof: the bench
// (bench/RESULTS.md, the auto rows) is what calibrates the limit, and docs/runtimes.md says so.

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
)

// interpretedLoopLimit: iterations above which the interpreter is expected to take longer than
// a build and a compiled run (measured: a sieve of 2e6 runs ~0.3 s interpreted, against ~0.2 s
// built and run; the data-shaping snippets of the corpus stay below 1e4).
const interpretedLoopLimit = 1_000_000

// checkLoopWork returns why the program goes to the compiler, or "".
func (c *constructCheck) checkLoopWork() string {
	for _, f := range c.p.allFiles() {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if work, at := c.blockWork(fn.Body); work > interpretedLoopLimit {
				return fmt.Sprintf("CPU-bound: the loops at %s can run about %s iterations, which compiled Go runs faster than the interpreter even with its build", c.at(at), roughCount(work))
			}
		}
	}
	return ""
}

// blockWork: the estimated iterations of the loops under n (function literals included, as
// if called once), and the outermost loop of the largest nest.
func (c *constructCheck) blockWork(n ast.Node) (float64, ast.Node) {
	var total, largest float64
	var biggest ast.Node
	ast.Inspect(n, func(child ast.Node) bool {
		if child == n {
			return true
		}
		var trips float64
		var body *ast.BlockStmt
		switch loop := child.(type) {
		case *ast.ForStmt:
			trips, body = c.forTrips(loop), loop.Body
		case *ast.RangeStmt:
			trips, body = c.rangeTrips(loop), loop.Body
		default:
			return true
		}
		inner, _ := c.blockWork(body)
		work := trips * math.Max(1, inner)
		total += work
		if work > largest {
			largest, biggest = work, child
		}
		return false
	})
	return total, biggest
}

// forTrips: iterations of `for init; x < K; post` (and <=, >, >=, !=) with a constant K.
func (c *constructCheck) forTrips(loop *ast.ForStmt) float64 {
	cond, ok := loop.Cond.(*ast.BinaryExpr)
	if !ok {
		return 1
	}
	switch cond.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.NEQ:
	default:
		return 1
	}
	bound, boundOK := c.constantNumber(cond.Y)
	if !boundOK {
		if bound, boundOK = c.constantNumber(cond.X); !boundOK {
			return 1
		}
	}
	start := 0.0
	if assign, ok := loop.Init.(*ast.AssignStmt); ok && len(assign.Rhs) == 1 {
		if value, ok := c.constantNumber(assign.Rhs[0]); ok {
			start = value
		}
	}
	step := 1.0
	if post, ok := loop.Post.(*ast.AssignStmt); ok && len(post.Rhs) == 1 {
		if value, ok := c.constantNumber(post.Rhs[0]); ok && value != 0 {
			switch post.Tok {
			case token.ADD_ASSIGN, token.SUB_ASSIGN:
				step = math.Abs(value)
			case token.MUL_ASSIGN, token.SHL_ASSIGN:
				return math.Max(1, math.Log2(math.Abs(bound)+1)) // geometric: logarithmic
			}
		}
	}
	return math.Max(1, math.Abs(bound-start)/step)
}

// rangeTrips: the length of a ranged array (or pointer to one) or constant string, else 1.
func (c *constructCheck) rangeTrips(loop *ast.RangeStmt) float64 {
	tv, ok := c.info.Types[loop.X]
	if !ok || tv.Type == nil {
		return 1
	}
	if tv.Value != nil && tv.Value.Kind() == constant.String {
		return math.Max(1, float64(len(constant.StringVal(tv.Value))))
	}
	if length, ok := arrayLength(tv.Type); ok {
		return math.Max(1, float64(length))
	}
	return 1
}

// arrayLength: the length of an array type or of the array a pointer points to.
func arrayLength(t types.Type) (int64, bool) {
	if pointer, ok := t.Underlying().(*types.Pointer); ok {
		t = pointer.Elem()
	}
	if array, ok := t.Underlying().(*types.Array); ok {
		return array.Len(), true
	}
	return 0, false
}

// constantNumber: the value of a constant numeric expression.
func (c *constructCheck) constantNumber(e ast.Expr) (float64, bool) {
	tv, ok := c.info.Types[e]
	if !ok || tv.Value == nil {
		return 0, false
	}
	switch tv.Value.Kind() {
	case constant.Int, constant.Float:
		value, _ := constant.Float64Val(constant.ToFloat(tv.Value))
		return value, !math.IsInf(value, 0) && !math.IsNaN(value)
	}
	return 0, false
}

// roughCount renders an estimate as "2e+06".
func roughCount(n float64) string {
	if n >= 1e15 {
		return "more than 1e+15"
	}
	return fmt.Sprintf("%.0e", n)
}
