package main

// Loops, labels, defer and go statements: the checks of where the interpreter's control flow and
// evaluation order differ from Go's (docs/runtimes.md).

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// checkLabeledBranches: break or continue with a label from inside a select or switch (the
// interpreter left only the select, and the program deadlocked).
func (c *constructCheck) checkLabeledBranches(body *ast.BlockStmt, what string) string {
	var problem string
	ast.Inspect(body, func(n ast.Node) bool {
		if problem != "" {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if b, ok := n.(*ast.BranchStmt); ok && b.Label != nil && (b.Tok == token.BREAK || b.Tok == token.CONTINUE) {
			problem = b.Tok.String() + " " + b.Label.Name + " inside a " + what + " at " + c.at(b) + " (the interpreter does not leave the labeled statement)"
		}
		return true
	})
	return problem
}

// checkDefer: a deferred call's arguments must be evaluated when the defer statement runs; the
// interpreter evaluates them when the call runs, so it is only trusted with constants and names
// of variables nothing changes (autocheck_stable.go).
func (c *constructCheck) checkDefer(d *ast.DeferStmt) string {
	for _, arg := range d.Call.Args {
		if !c.isStable(arg) {
			return "deferred call with argument " + exprString(arg) + " at " + c.at(d) + " (the interpreter evaluates deferred arguments at another time)"
		}
	}
	return ""
}

// checkGo: the interpreter evaluates a go statement's arguments when the statement runs, as Go
// does, for constants and plain names (loop variables included); other expressions are not
// trusted.
func (c *constructCheck) checkGo(g *ast.GoStmt) string {
	for _, arg := range g.Call.Args {
		if _, name := ast.Unparen(arg).(*ast.Ident); !name && !c.isStable(arg) {
			return "goroutine started with argument " + exprString(arg) + " at " + c.at(g) + " (the interpreter evaluates its arguments at another time)"
		}
	}
	return ""
}

// isStable: a constant, or a name whose value cannot change between the statement and the call
// (autocheck_stable.go).
func (c *constructCheck) isStable(e ast.Expr) bool {
	if tv, ok := c.info.Types[e]; ok && tv.Value != nil {
		return true
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && c.stableName(id)
}

func (c *constructCheck) checkRange(r *ast.RangeStmt) string {
	if t := c.info.TypeOf(r.X); t != nil {
		switch u := t.Underlying().(type) {
		case *types.Basic:
			if u.Info()&types.IsInteger != 0 {
				return "range over an integer at " + c.at(r) + " (the interpreter lacks Go 1.22's range over int)"
			}
		case *types.Signature:
			return "range over a function at " + c.at(r) + " (the interpreter lacks Go 1.23's range over functions)"
		}
	}
	if problem := c.rangeOverIterator(r); problem != "" {
		return problem
	}
	return c.checkLoopCapture(r.Body, c.loopVariables(r), r)
}

// rangeOverIterator: a range over a call into the standard library's iterator functions, whose
// types the check does not see (maps.Keys, slices.Values, strings.SplitSeq, ...).
func (c *constructCheck) rangeOverIterator(r *ast.RangeStmt) string {
	call, ok := ast.Unparen(r.X).(*ast.CallExpr)
	if !ok {
		return ""
	}
	pkg, name := c.packageFunc(call.Fun)
	if pkg == "" || c.userPkgPath(pkg) {
		return ""
	}
	if pkg == "maps" || pkg == "iter" || strings.HasSuffix(name, "Seq") || name == "Lines" ||
		(pkg == "slices" && (name == "All" || name == "Values" || name == "Backward" || name == "Chunk")) {
		return "range over " + pkg + "." + name + " at " + c.at(r) + " (the interpreter lacks Go 1.23's iterators)"
	}
	return ""
}

// checkLoopCapture: the interpreter has one variable per loop, as Go had before 1.22, so a
// closure or a pointer that keeps a loop variable sees its last value.
func (c *constructCheck) checkLoopCapture(body ast.Node, loopVars map[types.Object]bool, loopPos ast.Node) string {
	var problem string
	ast.Inspect(body, func(n ast.Node) bool {
		if problem != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && loopVars[c.info.Uses[id]] && problem == "" {
					problem = "closure at " + c.at(n) + " uses loop variable " + id.Name + " of the loop at " + c.at(loopPos) + " (the interpreter shares one variable across iterations, as Go did before 1.22)"
				}
				return problem == ""
			})
			return false
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND && loopVars[c.info.Uses[id]] {
				problem = "address of loop variable " + id.Name + " at " + c.at(n) + " (the interpreter shares one variable across iterations, as Go did before 1.22)"
			}
		}
		return true
	})
	return problem
}

// loopVariables are the variables a for or range statement declares.
func (c *constructCheck) loopVariables(n ast.Node) map[types.Object]bool {
	vars := map[types.Object]bool{}
	add := func(e ast.Expr) {
		if id, ok := e.(*ast.Ident); ok && c.info.Defs[id] != nil {
			vars[c.info.Defs[id]] = true
		}
	}
	switch n := n.(type) {
	case *ast.RangeStmt:
		if n.Tok == token.DEFINE {
			add(n.Key)
			if n.Value != nil {
				add(n.Value)
			}
		}
	case *ast.ForStmt:
		if init, ok := n.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
			for _, lhs := range init.Lhs {
				add(lhs)
			}
		}
	}
	return vars
}

// checkFor: loop variable capture (see checkLoopCapture).
func (c *constructCheck) checkFor(f *ast.ForStmt) string {
	return c.checkLoopCapture(f.Body, c.loopVariables(f), f)
}
