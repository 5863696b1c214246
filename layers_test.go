package main

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/rdmalab/rdmalab"

// layerRules say, for the packages under a prefix, what they may import
// of rdmalab: imports point down, never back up. The order of the floors,
// bottom first: proto (wire formats), engine/trace, engine/kernel and
// engine/snap (the events, the names of the kernel's functions and the
// picture), the engine, the capture analysis, lessons, the
// view, the REPL, the command. internal/ holds leaf utilities anyone may
// use.
var layerRules = []struct {
	prefix string // a package or a folder of them ("proto/")
	may    []string
	why    string
}{
	{"proto/", []string{"proto/"}, "wire formats import nothing of rdmalab above them"},
	{"engine/trace", nil, "events are a leaf"},
	{"engine/kernel", []string{"engine/trace"}, "the kernel's functions and trace points are declarations every layer names: a leaf"},
	{"engine/snap", []string{"engine/trace"}, "the picture is a leaf: no simulator in it"},
	{"engine/verbs", nil, "the provider interface and its pending operation are in libibverbs' words: no provider in them"},
	{"engine/ibv", []string{"engine/verbs"}, "the real provider implements engine/verbs and imports no simulator"},
	{"engine/sim", []string{"engine/verbs"}, "the sim implements engine/verbs and needs nothing else of the engine"},
	{"engine/", []string{"engine/", "proto/"}, "the engine reads wire formats, never the capture analysis, the view or the REPL"},
	{"engine", []string{"engine/", "proto/", "internal/"}, "the Lab joins the engine's parts"},
	{"captures/dfilter", nil, "the filter language knows no protocol"},
	{"captures/decode", []string{"captures/decode/", "captures/dfilter", "proto/", "internal/"}, "the decoder reads wire formats only (and compiles display filters)"},
	{"captures/decode/frame", []string{"captures/decode/netlayer", "captures/decode/appendtext", "proto/"}, "a frame is decoded from its bytes alone: no analysis, field or output in it"},
	{"captures/decode/analysis", []string{"captures/decode/frame", "captures/decode/appendtext", "proto/"}, "the transport analysis reads decoded frames: no field registry or output in it"},
	{"captures/decode/fields", []string{"captures/decode/frame", "captures/decode/analysis", "captures/decode/appendtext", "captures/dfilter", "proto/"}, "the field registry reads frames and their analysis: no output in it"},
	{"captures/decode/internal/craft", []string{"proto/", "internal/"}, "the tests' capture builder is made of wire formats"},
	{"captures/decode/netlayer", []string{"proto/"}, "the decoder's link and network layers are wire formats: no decoder in them"},
	{"captures/decode/appendtext", nil, "the outputs' text helpers are a leaf"},
	{"captures/columnar", []string{"captures/decode", "captures/decode/", "proto/", "internal/"}, "the Parquet tables are written from what the decoder found, beside its text outputs"},
	{"captures/annotate", []string{"captures/decode", "captures/decode/", "proto/", "internal/"}, "notes written back into a capture come from the decoder's analysis"},
	{"captures/replay", []string{"captures/decode", "captures/decode/", "engine/kernel", "engine/snap", "engine/trace", "proto/", "internal/"}, "a replay draws the picture, without the simulator"},
	{"captures/live", []string{"proto/"}, "a live capture is a source below the decoder: it writes a wire format (pcapng), and decodes nothing"},
	{"captures/bench/", []string{"engine", "engine/", "proto/", "captures/", "internal/"}, "the bench drives the simulator to make captures"},
	{"lessons", []string{"engine/kernel", "engine/trace", "internal/"}, "lessons know nothing of the REPL or the view: a Machine runs them"},
	{"viz", []string{"engine", "engine/kernel", "engine/snap", "engine/trace", "captures/", "proto/", "internal/"}, "the view adapts the engine and draws captures; it never reaches up to the REPL or lessons"},
	{"viz/web", []string{"engine/kernel", "engine/snap", "engine/trace", "proto/", "internal/"}, "the class page draws the picture alone: no simulator, no capture analysis, no terminal view"},
	{"repl", []string{"engine", "engine/kernel", "engine/snap", "engine/trace", "captures/", "proto/", "lessons", "viz", "viz/web", "internal/"}, "the REPL sits above everything but the command, and drives the engine through the Lab alone"},
	{"internal/", []string{"internal/", "proto/"}, "utilities stay near the floor"},
}

// testedFloors are the floors whose tests keep them too: the provider
// interface and the real provider are proved without the simulator.
var testedFloors = map[string]bool{"engine/verbs": true, "engine/ibv": true}

// goPackage is what go list -json says of a package.
type goPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// ours is an import path relative to the module, or "" for another module.
func ours(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

func matches(pkg, pattern string) bool {
	if strings.HasSuffix(pattern, "/") {
		return strings.HasPrefix(pkg, pattern)
	}
	return pkg == pattern
}

// Every import of every rdmalab package follows the floors, and no
// package but the command imports the REPL; nothing below the view
// imports a terminal library. The packages are listed as built by
// default and with the ibv tag (engine/ibv's cgo files).
func TestImportsPointDown(t *testing.T) {
	for _, tags := range []string{"", "ibv"} {
		t.Run("tags="+tags, func(t *testing.T) { checkImports(t, tags) })
	}
}

// checkImports checks the floors of the packages built with tags. The
// imports of the floors named in testedFloors' tests count too.
func checkImports(t *testing.T, tags string) {
	cmd := exec.Command("go", "list", "-json", "-tags", tags, "./...")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1") // the ibv files need cgo to be listed
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkg, _ := ours(p.ImportPath)
		if pkg == "." {
			continue // the command imports whatever it wires
		}
		// The most specific rule (a package before its folder) applies.
		var rule = -1
		for i, r := range layerRules {
			if matches(pkg, r.prefix) && (rule < 0 || len(r.prefix) > len(layerRules[rule].prefix)) {
				rule = i
			}
		}
		if rule < 0 {
			t.Errorf("%s has no floor in layerRules: add it", pkg)
			continue
		}
		r := layerRules[rule]
		checked++
		imports := p.Imports
		if testedFloors[r.prefix] {
			imports = append(append(imports, p.TestImports...), p.XTestImports...)
		}
		for _, imp := range imports {
			if !strings.Contains(imp, ".") && !strings.HasPrefix(imp, module) {
				continue // the standard library
			}
			dep, mine := ours(imp)
			if dep == pkg {
				continue // an external test imports its package
			}
			if !mine {
				if (strings.Contains(imp, "gdamore/tcell") || strings.Contains(imp, "c-bata/go-prompt")) && pkg != "viz" && pkg != "repl" {
					t.Errorf("%s imports %s: only the view and the REPL talk to the terminal", pkg, imp)
				}
				continue
			}
			ok := false
			for _, m := range r.may {
				if matches(dep, m) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s: %s", pkg, dep, r.why)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d packages checked", checked)
	}
}

// viewAdapters are the view's files that read a producer: the lab, a
// capture's index and its filters, a replay. Everything else in viz (the
// panes, the layout, the keys, the filter bar) draws what a Source and a
// PacketSource hand it, so a pane never reaches into a producer.
var viewAdapters = map[string]bool{"labsource.go": true, "capsource.go": true, "replaysource.go": true}

// Only the view's adapters import the engine or the capture analysis.
func TestViewPanesImportNoProducer(t *testing.T) {
	files, err := filepath.Glob("viz/*.go")
	if err != nil || len(files) < 20 {
		t.Fatalf("viz files: %v (%d)", err, len(files))
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			dep, mine := ours(strings.Trim(imp.Path.Value, `"`))
			if mine && (dep == "engine" || strings.HasPrefix(dep, "captures/")) && !viewAdapters[filepath.Base(path)] {
				t.Errorf("%s imports %s: only the view's source adapters (%v) read a producer", path, dep, slices.Sorted(maps.Keys(viewAdapters)))
			}
		}
	}
}
