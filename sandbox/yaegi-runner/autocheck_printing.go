package main

// What the program hands to fmt, log and encoding/json: the checks of what interpreted values
// print or encode differently (docs/runtimes.md).

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

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
		if b, ok := c.info.Uses[id].(*types.Builtin); ok && b.Name() == "new" && len(call.Args) == 1 && c.info.Types[call.Args[0]].IsValue() {
			return "new(" + exprString(call.Args[0]) + ") of a value at " + c.at(call) + " (the interpreter lacks Go 1.26's new(expr))"
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

// checkDecodeTarget: json.Unmarshal, (*json.Decoder).Decode and the like into the program's own
// struct types. Their errors name the struct type ("Go struct field Config.port"), which an
// interpreted struct type does not have. encoding/json's Unmarshal is guarded at run time
// instead (decode_guard.go: a failed decoding becomes a limitation, so auto runs the call
// compiled), unless even a decoding that succeeds differs (decodeDiffers); the rest, which the
// guard cannot reach (Decode is a method of a compiled type, other packages' Unmarshal), is
// declined.
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
	pkg, _ := c.packageFunc(call.Fun)
	guarded := pkg == "encoding/json" && name == "Unmarshal"
	for _, arg := range call.Args {
		t := c.info.TypeOf(arg)
		if t == nil {
			continue
		}
		if guarded {
			if why := c.decodeDiffers(t, map[types.Type]bool{}); why != "" {
				return "Unmarshal into " + types.TypeString(t, types.RelativeTo(nil)) + " at " + c.at(call) + " (" + why + ")"
			}
			continue
		}
		if c.involvesUserStruct(t, map[types.Type]bool{}) {
			return name + " into the program's type " + types.TypeString(t, types.RelativeTo(nil)) + " at " + c.at(call) + " (decoding errors name interpreted struct types differently)"
		}
	}
	return ""
}

// decodeDiffers: what makes even a successful json.Unmarshal into t differ from compiled Go's,
// or "". The interpreter stands the program's interface types in with its own wrappers, which
// encoding/json fills where compiled Go fails (tests/yaegi-corpus: json_decode_interface_field).
// Types that hold themselves decode alike (json_decode_recursive).
func (c *constructCheck) decodeDiffers(t types.Type, seen map[types.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	switch u := t.(type) {
	case *types.Named:
		if !c.isUser(u.Obj()) {
			return ""
		}
		if iface, ok := u.Underlying().(*types.Interface); ok && !iface.Empty() {
			return "the program's interface type " + u.Obj().Name() + ", which the interpreter represents with its own wrapper"
		}
		return c.decodeDiffers(u.Underlying(), seen)
	case *types.Pointer:
		return c.decodeDiffers(u.Elem(), seen)
	case *types.Slice:
		return c.decodeDiffers(u.Elem(), seen)
	case *types.Array:
		return c.decodeDiffers(u.Elem(), seen)
	case *types.Map:
		if why := c.decodeDiffers(u.Key(), seen); why != "" {
			return why
		}
		return c.decodeDiffers(u.Elem(), seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if why := c.decodeDiffers(u.Field(i).Type(), seen); why != "" {
				return why
			}
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
