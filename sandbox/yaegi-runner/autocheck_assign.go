package main

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Assignments to variables that already exist, in the forms where the interpreter writes them
// differently from Go (found by the differential corpus, tests/yaegi-corpus, cases assign_*):
//
//	for k = range m {}            k and v stay unassigned
//	select { case v = <-ch: }     reflect.Select fails ("invalid Dir")
//	v, ok = m[k]  (key missing)   v keeps its old value instead of the zero value; likewise a
//	v, ok = x.(T) (assertion fails) failed assertion, and `v, ok := …` that reuses v (ok is
//	                              right, and `_, ok = …` is fine)
//	a, b = f(), "k"               b keeps its old value: with =, a call among two or more
//	                              values leaves the targets of the other values unassigned
//
// The same forms with := and fresh variables are fine.

// checkRangeAssign: a range clause with = instead of :=.
func (c *constructCheck) checkRangeAssign(r *ast.RangeStmt) string {
	if r.Tok == token.ASSIGN && (r.Key != nil || r.Value != nil) {
		return "range assigning to existing variables (for k = range) at " + c.at(r) + " (the interpreter leaves them unassigned)"
	}
	return ""
}

// checkCommAssign: a select case that receives into existing variables.
func (c *constructCheck) checkCommAssign(cc *ast.CommClause) string {
	if a, ok := cc.Comm.(*ast.AssignStmt); ok && a.Tok == token.ASSIGN {
		return "select case receiving into existing variables (case v = <-ch) at " + c.at(cc) + " (the interpreter fails on it)"
	}
	return ""
}

// checkCommaOkAssign: v, ok = m[k], x.(T) or <-ch, when v already exists.
func (c *constructCheck) checkCommaOkAssign(a *ast.AssignStmt) string {
	if len(a.Lhs) != 2 || len(a.Rhs) != 1 || (a.Tok != token.ASSIGN && a.Tok != token.DEFINE) {
		return ""
	}
	what := ""
	switch rhs := ast.Unparen(a.Rhs[0]).(type) {
	case *ast.TypeAssertExpr:
		what = "type assertion"
	case *ast.UnaryExpr:
		if rhs.Op == token.ARROW {
			what = "channel receive"
		}
	case *ast.IndexExpr:
		if t := c.info.TypeOf(rhs.X); t != nil {
			if _, isMap := t.Underlying().(*types.Map); isMap {
				what = "map index"
			}
		}
	}
	if what == "" {
		return ""
	}
	// The value is what goes wrong; ok is always stored.
	id, isIdent := ast.Unparen(a.Lhs[0]).(*ast.Ident)
	if isIdent && (id.Name == "_" || (a.Tok == token.DEFINE && c.info.Defs[id] != nil)) {
		return "" // blank, or a fresh variable of :=
	}
	return "two-value " + what + " assigned to an existing variable (" + exprString(a.Lhs[0]) + ") at " + c.at(a) + " (the interpreter keeps its old value where Go stores the zero value)"
}

// checkParallelAssign: a, b = f(), x — a call among the values of a parallel assignment.
func (c *constructCheck) checkParallelAssign(a *ast.AssignStmt) string {
	if a.Tok != token.ASSIGN || len(a.Rhs) < 2 {
		return ""
	}
	for _, rhs := range a.Rhs {
		if call, ok := ast.Unparen(rhs).(*ast.CallExpr); ok && c.info.Types[rhs].Value == nil {
			return "parallel assignment with the call " + exprString(call) + " at " + c.at(a) + " (the interpreter leaves the other targets unassigned)"
		}
	}
	return ""
}
