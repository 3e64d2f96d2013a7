package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// constructCheck walks the type-checked program looking for the constructs the corpus and
// yaegi's known issues show to differ (docs/runtimes.md). run returns "" or the first problem,
// a sentence naming the construct, where it is, and why.
type constructCheck struct {
	p               *program
	info            *types.Info
	userPkgs        map[*types.Package]bool
	calledSelectors map[*ast.SelectorExpr]bool // selectors in call position: not method values
	rejections      []diagnostic               // errors the compiler reports and the interpreter does not
	written         map[*types.Var]bool        // variables changed after their declaration (autocheck_stable.go)
}

// emptyImporter resolves every import to an empty, complete package: the check needs only the
// program's own declarations, and go/types keeps going past the unresolved uses.
type emptyImporter struct{ pkgs map[string]*types.Package }

func (e emptyImporter) Import(path string) (*types.Package, error) {
	if pkg, ok := e.pkgs[path]; ok {
		return pkg, nil
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	if strings.HasPrefix(name, "v") && len(name) > 1 && name[1] >= '0' && name[1] <= '9' {
		parts := strings.Split(path, "/") // "…/apiv3/v2", "math/rand/v2"
		if len(parts) > 1 {
			name = parts[len(parts)-2]
		}
	}
	pkg := types.NewPackage(path, strings.NewReplacer("-", "_", ".", "_").Replace(name))
	pkg.MarkComplete()
	e.pkgs[path] = pkg
	return pkg, nil
}

func newConstructCheck(p *program) *constructCheck {
	c := &constructCheck{
		p: p,
		info: &types.Info{
			Types:      map[ast.Expr]types.TypeAndValue{},
			Defs:       map[*ast.Ident]types.Object{},
			Uses:       map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
		},
		userPkgs:        map[*types.Package]bool{},
		calledSelectors: map[*ast.SelectorExpr]bool{},
	}
	imp := &userImporter{check: c, empty: emptyImporter{pkgs: map[string]*types.Package{}}, done: map[string]*types.Package{}}
	conf := types.Config{Importer: imp, Error: c.noteError, FakeImportC: true}
	// Helper packages first (imports are resolved on demand by userImporter), then the entry.
	pkg, _ := conf.Check("main", p.fset, p.root, c.info)
	c.userPkgs[pkg] = true
	return c
}

// userImporter type-checks the program's helper packages into the same Info.
type userImporter struct {
	check *constructCheck
	empty emptyImporter
	done  map[string]*types.Package
}

func (u *userImporter) Import(path string) (*types.Package, error) {
	files, ok := u.check.p.helpers[path]
	if !ok {
		return u.empty.Import(path)
	}
	if pkg, ok := u.done[path]; ok {
		return pkg, nil
	}
	conf := types.Config{Importer: u, Error: u.check.noteError, FakeImportC: true}
	pkg, _ := conf.Check(path, u.check.p.fset, files, u.check.info)
	u.done[path] = pkg
	u.check.userPkgs[pkg] = true
	return pkg, nil
}

// noteError keeps the type errors that go build reports but the interpreter lets through
// (unused variables and imports, a missing return). Other errors are mostly the check's own
// (imports resolve to empty packages) and left to the interpreter and the compiler.
func (c *constructCheck) noteError(err error) {
	te, ok := err.(types.Error)
	if !ok {
		return
	}
	if strings.HasPrefix(te.Msg, "declared and not used") || strings.HasSuffix(te.Msg, "imported and not used") ||
		te.Msg == "missing return" || (strings.HasPrefix(te.Msg, "label ") && strings.HasSuffix(te.Msg, "declared and not used")) {
		at := te.Fset.Position(te.Pos)
		c.rejections = append(c.rejections, diagnostic{File: at.Filename, Line: at.Line, Col: at.Column, Message: te.Msg})
	}
}

func (c *constructCheck) isUser(obj types.Object) bool {
	return obj != nil && obj.Pkg() != nil && c.userPkgs[obj.Pkg()]
}

func (c *constructCheck) run() string {
	for _, f := range c.p.allFiles() {
		if problem := c.checkDirectives(f); problem != "" {
			return problem
		}
	}
	for _, f := range c.p.allFiles() {
		var problem string
		ast.Inspect(f, func(n ast.Node) bool {
			if problem != "" {
				return false
			}
			problem = c.checkNode(n)
			return problem == ""
		})
		if problem != "" {
			return problem
		}
	}
	return ""
}

func (c *constructCheck) at(n ast.Node) string { return c.p.position(n.Pos()) }

// checkDirectives: //go:embed, //go:linkname and friends need the compiler.
func (c *constructCheck) checkDirectives(f *ast.File) string {
	for _, group := range f.Comments {
		for _, comment := range group.List {
			if strings.HasPrefix(comment.Text, "//go:") && !strings.HasPrefix(comment.Text, "//go:build") && !strings.HasPrefix(comment.Text, "//go:generate") {
				return "compiler directive " + strings.Fields(comment.Text)[0] + " at " + c.at(comment) + " (the interpreter ignores directives)"
			}
		}
	}
	return ""
}

func (c *constructCheck) checkNode(n ast.Node) string {
	switch n := n.(type) {
	case *ast.FuncDecl:
		return c.checkFuncDecl(n)
	case *ast.TypeSpec:
		return c.checkTypeSpec(n)
	case *ast.SelectorExpr:
		return c.checkSelector(n)
	case *ast.CallExpr:
		return c.checkCall(n)
	case *ast.DeferStmt:
		return c.checkDefer(n)
	case *ast.GoStmt:
		return c.checkGo(n)
	case *ast.RangeStmt:
		if problem := c.checkRangeAssign(n); problem != "" {
			return problem
		}
		return c.checkRange(n)
	case *ast.CommClause:
		return c.checkCommAssign(n)
	case *ast.AssignStmt:
		if problem := c.checkParallelAssign(n); problem != "" {
			return problem
		}
		return c.checkCommaOkAssign(n)
	case *ast.ForStmt:
		return c.checkFor(n)
	case *ast.BranchStmt:
		if n.Tok == token.GOTO {
			return "goto at " + c.at(n) + " (the interpreter's control flow for goto is not trusted)"
		}
	case *ast.SelectStmt:
		return c.checkLabeledBranches(n.Body, "select")
	case *ast.SwitchStmt:
		return c.checkLabeledBranches(n.Body, "switch")
	case *ast.TypeSwitchStmt:
		return c.checkLabeledBranches(n.Body, "type switch")
	case *ast.CompositeLit:
		return c.checkCompositeElements(n)
	case *ast.ReturnStmt:
		return c.checkReturn(n)
	}
	return ""
}

// Methods that the standard library finds through reflection or interface conversion of values
// it holds as any: the interpreter's values do not carry interpreted methods there.
var reflectedMethods = map[string]string{
	"String":        "fmt calls it through reflection",
	"Error":         "fmt and errors reach it through reflection",
	"Format":        "fmt calls it through reflection",
	"GoString":      "fmt calls it through reflection",
	"MarshalJSON":   "encoding/json calls it through reflection",
	"UnmarshalJSON": "encoding/json calls it through reflection",
	"MarshalText":   "encoding/json and others call it through reflection",
	"UnmarshalText": "encoding/json and others call it through reflection",
	"MarshalYAML":   "YAML encoders call it through reflection",
	"Is":            "errors.Is calls it through reflection",
	"As":            "errors.As calls it through reflection",
	"Unwrap":        "errors.Unwrap reaches it through reflection",
}

func (c *constructCheck) checkFuncDecl(fn *ast.FuncDecl) string {
	if fn.Type.TypeParams != nil && fn.Type.TypeParams.NumFields() > 1 {
		return "generic function " + fn.Name.Name + " with more than one type parameter at " + c.at(fn) + " (the interpreter's generics handle one)"
	}
	if fn.Recv != nil {
		if why, ok := reflectedMethods[fn.Name.Name]; ok {
			return "method " + fn.Name.Name + " at " + c.at(fn) + " (" + why + ", which does not see interpreted methods)"
		}
		if c.p.importsAny("text/template", "html/template") {
			return "method " + fn.Name.Name + " at " + c.at(fn) + " in a program using templates (templates call methods through reflection, which does not see interpreted methods)"
		}
	}
	return ""
}

func (c *constructCheck) checkTypeSpec(spec *ast.TypeSpec) string {
	if spec.TypeParams != nil && spec.TypeParams.NumFields() > 1 {
		return "generic type " + spec.Name.Name + " with more than one type parameter at " + c.at(spec) + " (the interpreter's generics handle one)"
	}
	var problem string
	ast.Inspect(spec.Type, func(n ast.Node) bool {
		if problem != "" {
			return false
		}
		switch t := n.(type) {
		case *ast.StructType:
			for _, field := range t.Fields.List {
				if len(field.Names) == 0 {
					problem = "embedded field in struct " + spec.Name.Name + " at " + c.at(field) + " (the interpreter neither promotes embedded fields for encoding/json and fmt nor their methods reliably)"
				}
			}
		case *ast.InterfaceType:
			for _, m := range t.Methods.List {
				if len(m.Names) == 0 {
					problem = "embedded interface or type set in " + spec.Name.Name + " at " + c.at(m) + " (the interpreter fails on interface embedding and constraint type sets)"
				}
			}
		}
		return true
	})
	return problem
}

// checkSelector finds method values and method expressions of the program's own types:
// x.M or T.M not immediately called.
func (c *constructCheck) checkSelector(sel *ast.SelectorExpr) string {
	s, ok := c.info.Selections[sel]
	if !ok || (s.Kind() != types.MethodVal && s.Kind() != types.MethodExpr) {
		return ""
	}
	if c.calledSelectors[sel] {
		return ""
	}
	kind := "method value"
	if s.Kind() == types.MethodExpr {
		kind = "method expression"
	}
	return kind + " " + exprString(sel) + " at " + c.at(sel) + " (the interpreter binds methods taken as values wrongly)"
}

func (c *constructCheck) userPkgPath(path string) bool {
	_, ok := c.p.helpers[path]
	return ok
}

func (p *program) importsAny(paths ...string) bool {
	for _, f := range p.allFiles() {
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			for _, want := range paths {
				if path == want {
					return true
				}
			}
		}
	}
	return false
}

func (p *program) declaresStructs() bool {
	found := false
	for _, f := range p.allFiles() {
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.StructType); ok {
				found = true
			}
			return !found
		})
	}
	return found
}

func exprString(e ast.Expr) string { return types.ExprString(e) }

// unsupportedBuiltins are Go 1.21's builtins the interpreter lacks.
var unsupportedBuiltins = map[string]bool{"min": true, "max": true, "clear": true}
