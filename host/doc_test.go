package host

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The package comment points readers at functions by name; a rename must
// not leave it pointing at nothing.
func TestDocNamesExistingFunctions(t *testing.T) {
	fset := token.NewFileSet()
	names := map[string]bool{}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				names[fd.Name.Name] = true
			}
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`\(see ([A-Za-z_][A-Za-z0-9_]*)\)`).FindAllSubmatch(doc, -1)
	if len(refs) == 0 {
		t.Fatal("doc.go names no function with (see …): update this test")
	}
	for _, m := range refs {
		if !names[string(m[1])] {
			t.Errorf("doc.go refers to %s, which host does not define", m[1])
		}
	}
}
