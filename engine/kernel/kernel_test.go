package kernel

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/nearest"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// declared maps each variable the package declares with declare or
// mention to the kernel name it gives.
func declared(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range pkgs["kernel"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Values) != 1 {
				return true
			}
			call, ok := vs.Values[0].(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || (id.Name != "declare" && id.Name != "mention") {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: a name that is not a literal", fset.Position(call.Pos()))
				return true
			}
			name, _ := strconv.Unquote(lit.Value)
			out[vs.Names[0].Name] = name
			return true
		})
	}
	return out
}

// Every function and trace point the model traces is named by the model
// (engine/svcrdma, engine/nfsd, ...), and every name is declared once:
// a declaration nothing emits, or a name declared twice, fails here. The
// model cannot name an undeclared one: Call and Point take a *trace.Func.
func TestEveryTracedFuncIsUsedByTheModel(t *testing.T) {
	vars := declared(t)
	if len(vars) != len(all) {
		t.Fatalf("%d declarations parsed, %d in the catalogue", len(vars), len(all))
	}
	used := map[string]bool{}
	root := filepath.Join(testutil.ModuleRoot(t), "engine")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == filepath.Join(root, "kernel") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "kernel" {
					used[sel.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used["Nfsd3Proc"] {
		for _, f := range nfsd3Procs { // nfsd names its procedure by number
			used[f.Name()] = true
		}
	}
	names := map[string]string{}
	for v, name := range vars {
		if prev, ok := names[name]; ok {
			t.Errorf("%s is declared twice: %s and %s", name, prev, v)
		}
		names[name] = v
		f, _ := Lookup(name)
		if f.Traced() && !used[v] && !used[name] {
			t.Errorf("%s (%s) is declared traced, but the model never names it", v, name)
		}
	}
	if len(Traced()) < 140 {
		t.Errorf("only %d traced functions", len(Traced()))
	}
}

// A misspelt name gets the name it most likely meant, and a word far
// from every name gets none.
func TestNearest(t *testing.T) {
	for in, want := range map[string]string{
		"svc_rdma_sendot":         "svc_rdma_sendto",
		"svc_rdma_post_chunk_ctx": "svc_rdma_post_chunk_ctxt",
		"svcrdma_sq_ful":          "svcrdma_sq_full",
		"nosuch_function":         "",
		"pcl_alloc_cal":           "", // mentioned, not traced: until cannot stop there
	} {
		if got := nearest.Word(in, Names(Traced())); got != want {
			t.Errorf("nearest of %q = %q, want %q", in, got, want)
		}
	}
	if f, ok := Lookup("svc_rdma_sendto"); !ok || f != SvcRdmaSendto || !f.HasArg("xid") {
		t.Errorf("Lookup(svc_rdma_sendto) = %v, %v", f, ok)
	}
	if _, ok := Lookup("svc_rdma_sendot"); ok {
		t.Error("Lookup found a misspelt name")
	}
}
