package main

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The interpreter evaluates a deferred call's arguments when the call runs, not when the defer
// statement does (found by $GOROOT/test/defer.go, TestGoRootRunPrograms):
//
//	for i := 0; i < 3; i++ { defer show(i) }   // Go: 2 1 0   yaegi: 3 3 3
//	x := 1; defer show(x); x = 2               // Go: 1       yaegi: 2
//
// So a name is a stable argument only when its variable is never written after its declaration:
// not assigned, incremented, ranged into, declared by a loop, or reached through & or a method
// with a pointer receiver anywhere in the program.

// stableName: an identifier naming anything but a variable, or a variable nothing writes.
func (c *constructCheck) stableName(id *ast.Ident) bool {
	v, isVar := c.info.Uses[id].(*types.Var)
	if !isVar {
		return true
	}
	if c.written == nil {
		c.written = c.writtenVariables()
	}
	return !c.written[v]
}

// writtenVariables: every variable of the program that some statement changes after its
// declaration (conservatively: the root variable of x.f = …, x[i] = …, &x.f, x.M() with a
// pointer receiver).
func (c *constructCheck) writtenVariables() map[*types.Var]bool {
	written := map[*types.Var]bool{}
	mark := func(e ast.Expr) {
		if id := rootIdent(e); id != nil {
			if v, ok := c.info.ObjectOf(id).(*types.Var); ok {
				written[v] = true
			}
		}
	}
	for _, f := range c.p.allFiles() {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && n.Tok == token.DEFINE && c.info.Defs[id] != nil {
						continue // declared here
					}
					mark(lhs)
				}
			case *ast.ForStmt:
				if init, ok := n.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
					for _, lhs := range init.Lhs {
						if id, ok := lhs.(*ast.Ident); ok && c.info.Defs[id] != nil {
							written[c.info.Defs[id].(*types.Var)] = true // a new value each iteration
						}
					}
				}
			case *ast.IncDecStmt:
				mark(n.X)
			case *ast.RangeStmt:
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if e != nil {
						if id, ok := e.(*ast.Ident); ok && c.info.Defs[id] != nil {
							written[c.info.Defs[id].(*types.Var)] = true // a new value each iteration
						} else {
							mark(e)
						}
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					mark(n.X)
				}
			case *ast.SelectorExpr:
				if sel, ok := c.info.Selections[n]; ok && sel.Kind() == types.MethodVal {
					if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
						if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
							mark(n.X)
						}
					}
				}
			}
			return true
		})
	}
	return written
}

// rootIdent: the variable an lvalue or operand is part of (x for x, x.f, x[i], (*x).f), or nil.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return nil
		}
	}
}
