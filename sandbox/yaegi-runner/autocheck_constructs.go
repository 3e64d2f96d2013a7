package main

import (
	"go/ast"
	"go/constant"
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
		return c.checkRange(n)
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

// checkCall: fmt verbs that print types or Go syntax, and what reaches fmt and encoding/json.
func (c *constructCheck) checkCall(call *ast.CallExpr) string {
	for _, fun := range []ast.Expr{call.Fun} {
		if sel, ok := ast.Unparen(fun).(*ast.SelectorExpr); ok {
			c.calledSelectors[sel] = true
		}
	}
	if problem := c.checkDecodeTarget(call); problem != "" {
		return problem
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := c.info.Uses[id].(*types.Builtin); ok && unsupportedBuiltins[b.Name()] {
			return "builtin " + b.Name() + " at " + c.at(call) + " (the interpreter does not have it)"
		}
		if b, ok := c.info.Uses[id].(*types.Builtin); ok && (b.Name() == "print" || b.Name() == "println") {
			return "builtin " + b.Name() + " at " + c.at(call) +
				" (compiled Go writes it to stderr, the interpreter to stdout)"
		}
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && (sel.Sel.Name == "Marshal" || sel.Sel.Name == "MarshalIndent" || sel.Sel.Name == "Encode" || sel.Sel.Name == "Execute") {
		for _, arg := range call.Args {
			if problem := c.interfaceHolder(arg, "encoded by "+sel.Sel.Name); problem != "" {
				return problem
			}
		}
	}
	pkg, name := c.packageFunc(call.Fun)
	switch pkg {
	case "fmt":
		return c.checkFmtCall(call, name)
	case "log":
		if strings.HasSuffix(name, "f") {
			return c.checkFormat(call, name, 0)
		}
	}
	return ""
}

// packageFunc returns ("fmt", "Printf") for a call of fmt.Printf.
func (c *constructCheck) packageFunc(fun ast.Expr) (string, string) {
	sel, ok := ast.Unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", ""
	}
	if pn, ok := c.info.Uses[id].(*types.PkgName); ok {
		return pn.Imported().Path(), sel.Sel.Name
	}
	return "", ""
}

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

// A slice, map, array, pointer or struct holding values of the program's interface types keeps
// them as the interpreter's wrappers: fmt and encoding/json print the wrappers. (A single
// interface value is unwrapped and prints right.)
func (c *constructCheck) holdsUserInterface(t types.Type, depth int, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.(type) {
	case *types.Named:
		if iface, ok := u.Underlying().(*types.Interface); ok && c.isUser(u.Obj()) && iface.NumMethods() > 0 {
			return depth > 0
		}
		if c.isUser(u.Obj()) {
			return c.holdsUserInterface(u.Underlying(), depth, seen)
		}
		return false
	case *types.Pointer:
		return c.holdsUserInterface(u.Elem(), depth+1, seen)
	case *types.Slice:
		return c.holdsUserInterface(u.Elem(), depth+1, seen)
	case *types.Array:
		return c.holdsUserInterface(u.Elem(), depth+1, seen)
	case *types.Map:
		return c.holdsUserInterface(u.Key(), depth+1, seen) || c.holdsUserInterface(u.Elem(), depth+1, seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if c.holdsUserInterface(u.Field(i).Type(), depth+1, seen) {
				return true
			}
		}
	}
	return false
}

func (c *constructCheck) interfaceHolder(e ast.Expr, where string) string {
	if t := c.info.TypeOf(e); c.holdsUserInterface(t, 0, map[types.Type]bool{}) {
		return "a " + types.TypeString(t, types.RelativeTo(nil)) + " " + where + " at " + c.at(e) + " (containers of the program's interface values hold the interpreter's wrappers, which fmt and encoding/json print)"
	}
	return ""
}

// checkCompositeElements: such containers stored into any-typed slots.
func (c *constructCheck) checkCompositeElements(lit *ast.CompositeLit) string {
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			elt = kv.Value
		}
		if problem := c.interfaceHolder(elt, "stored in a composite literal"); problem != "" {
			return problem
		}
	}
	return ""
}

// checkReturn: such containers returned (a snippet's run result is JSON-encoded).
func (c *constructCheck) checkReturn(r *ast.ReturnStmt) string {
	for _, e := range r.Results {
		if problem := c.interfaceHolder(e, "returned"); problem != "" {
			return problem
		}
	}
	return ""
}

func (c *constructCheck) checkFmtCall(call *ast.CallExpr, name string) string {
	formatArg := -1
	switch name {
	case "Printf", "Sprintf", "Errorf", "Appendf":
		formatArg = 0
	case "Fprintf":
		formatArg = 1
	}
	if name == "Appendf" {
		formatArg = 1
	}
	if formatArg >= 0 {
		if problem := c.checkFormat(call, name, formatArg); problem != "" {
			return problem
		}
	}
	first := formatArg + 1
	if strings.HasPrefix(name, "Fprint") && formatArg < 0 {
		first = 1
	}
	for _, arg := range call.Args[min(first, len(call.Args)):] {
		if problem := c.interfaceHolder(arg, "printed by fmt."+name); problem != "" {
			return problem
		}
	}
	return ""
}

// checkFormat declines %T and %#v (type names and Go syntax of interpreted values differ) and
// %+v of the program's structs (field names of unexported fields differ); a format that is not
// a constant is declined, its verbs being unknown.
func (c *constructCheck) checkFormat(call *ast.CallExpr, name string, formatArg int) string {
	if formatArg >= len(call.Args) {
		return ""
	}
	tv := c.info.Types[call.Args[formatArg]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		// The format is a variable: its verbs are unknown, but fmt.Errorf(msg) style calls with
		// no further arguments print no values.
		if len(call.Args) == formatArg+1 {
			return ""
		}
		return "a format for " + name + " that is not a constant at " + c.at(call) + " (its verbs cannot be checked)"
	}
	format := constant.StringVal(tv.Value)
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			break
		}
		flags, verb := format[i+1:j], format[j]
		switch {
		case verb == 'T':
			return "%T in " + name + " at " + c.at(call) + " (interpreted types have other names)"
		case strings.Contains(flags, "#") && verb == 'v':
			return "%#v in " + name + " at " + c.at(call) + " (interpreted types print as other Go syntax)"
		case strings.Contains(flags, "+") && verb == 'v' && c.p.declaresStructs():
			return "%+v in " + name + " at " + c.at(call) + " with the program's own structs around (interpreted structs print other field names)"
		}
		i = j
	}
	return ""
}

// involvesUserType: t is or contains a named type of the program that is not a plain basic
// type.
func (c *constructCheck) involvesUserType(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Named:
		if c.isUser(t.Obj()) {
			if _, basic := t.Underlying().(*types.Basic); !basic || t.NumMethods() > 0 {
				return true
			}
		}
		return false
	case *types.Pointer:
		return c.involvesUserType(t.Elem(), seen)
	case *types.Slice:
		return c.involvesUserType(t.Elem(), seen)
	case *types.Array:
		return c.involvesUserType(t.Elem(), seen)
	case *types.Map:
		return c.involvesUserType(t.Key(), seen) || c.involvesUserType(t.Elem(), seen)
	case *types.Struct:
		return true // an anonymous struct: field names print alike, but stay conservative
	}
	return false
}

// checkDefer: a deferred call's arguments must be evaluated when the defer runs; the
// interpreter is only trusted with calls whose arguments are constants or plain names.
func (c *constructCheck) checkDefer(d *ast.DeferStmt) string {
	for _, arg := range d.Call.Args {
		if !c.isStable(arg) {
			return "deferred call with argument " + exprString(arg) + " at " + c.at(d) + " (the interpreter evaluates deferred arguments at another time)"
		}
	}
	return ""
}

func (c *constructCheck) checkGo(g *ast.GoStmt) string {
	for _, arg := range g.Call.Args {
		if !c.isStable(arg) {
			return "goroutine started with argument " + exprString(arg) + " at " + c.at(g) + " (the interpreter evaluates its arguments at another time)"
		}
	}
	return ""
}

// isStable: a constant, or a name (its value is copied at the call).
func (c *constructCheck) isStable(e ast.Expr) bool {
	if tv, ok := c.info.Types[e]; ok && tv.Value != nil {
		return true
	}
	_, ok := ast.Unparen(e).(*ast.Ident)
	return ok
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

// checkDecodeTarget: json.Unmarshal, (*json.Decoder).Decode and the like into the program's own
// struct types. Their errors name the struct type ("Go struct field Config.port"), which an
// interpreted struct type does not have.
func (c *constructCheck) checkDecodeTarget(call *ast.CallExpr) string {
	var name string
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		name = fun.Sel.Name
	default:
		return ""
	}
	if name != "Unmarshal" && name != "Decode" && name != "UnmarshalJSON" {
		return ""
	}
	for _, arg := range call.Args {
		if t := c.info.TypeOf(arg); t != nil && c.involvesUserStruct(t, map[types.Type]bool{}) {
			return name + " into the program's type " + types.TypeString(t, types.RelativeTo(nil)) + " at " + c.at(call) + " (decoding errors name interpreted struct types differently)"
		}
	}
	return ""
}

// involvesUserStruct: t is or holds a struct type declared by the program.
func (c *constructCheck) involvesUserStruct(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Named:
		if c.isUser(t.Obj()) {
			if _, ok := t.Underlying().(*types.Struct); ok {
				return true
			}
		}
		return c.involvesUserStruct(t.Underlying(), seen)
	case *types.Pointer:
		return c.involvesUserStruct(t.Elem(), seen)
	case *types.Slice:
		return c.involvesUserStruct(t.Elem(), seen)
	case *types.Array:
		return c.involvesUserStruct(t.Elem(), seen)
	case *types.Map:
		return c.involvesUserStruct(t.Elem(), seen)
	case *types.Struct:
		return true
	}
	return false
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
