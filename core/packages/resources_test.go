package packages

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func rels(root string, l []string) []string {
	out := []string{}
	for _, p := range l {
		r, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

func TestReadResources(t *testing.T) {
	tree := map[string]string{
		"extensions/a.ts":                "",
		"extensions/b.js":                "",
		"extensions/notes.md":            "",
		"extensions/dir/index.ts":        "",
		"extensions/dir/helper.ts":       "",
		"extensions/.hidden.ts":          "",
		"skills/one/SKILL.md":            "",
		"skills/one/ref/SKILL.md":        "",
		"skills/loose.md":                "",
		"skills/group/two/SKILL.md":      "",
		"skills/group/stray.md":          "",
		"prompts/p.md":                   "",
		"prompts/sub/q.md":               "",
		"themes/t.json":                  "",
		"node_modules/x/extensions/z.ts": "",
		"src/main.ts":                    "",
		"src/old.ts":                     "",
	}
	for _, c := range []struct {
		name, pkg string
		want      Resources
		err       string
	}{
		{name: "conventional folders", want: Resources{
			Extensions: []string{"extensions/a.ts", "extensions/b.js", "extensions/dir/index.ts"},
			Skills:     []string{"skills/group/two/SKILL.md", "skills/loose.md", "skills/one/SKILL.md"},
			Prompts:    []string{"prompts/p.md", "prompts/sub/q.md"},
			Themes:     []string{"themes/t.json"},
		}},
		{name: "metadata only", pkg: `{"name":"x","pi":{"image":"a.png"}}`, want: Resources{
			Extensions: []string{"extensions/a.ts", "extensions/b.js", "extensions/dir/index.ts"},
			Skills:     []string{"skills/group/two/SKILL.md", "skills/loose.md", "skills/one/SKILL.md"},
			Prompts:    []string{"prompts/p.md", "prompts/sub/q.md"},
			Themes:     []string{"themes/t.json"},
		}},
		{name: "manifest with a glob and an exclusion", pkg: `{"pi":{"extensions":["./src/*.ts","!src/old.ts"],"prompts":["prompts/p.md"]}}`, want: Resources{
			Extensions: []string{"src/main.ts"},
			Prompts:    []string{"prompts/p.md"},
		}},
		{name: "force include and exclude", pkg: `{"pi":{"extensions":["src","!*.ts","+src/old.ts"],"skills":["skills","-skills/loose.md"]}}`, want: Resources{
			Extensions: []string{"src/old.ts"},
			Skills:     []string{"skills/group/two/SKILL.md", "skills/one/SKILL.md"},
		}},
		{name: "outside the package", pkg: `{"pi":{"skills":["../elsewhere"]}}`, err: "outside the package"},
		{name: "not a list", pkg: `{"pi":{"skills":"skills"}}`, err: "pi.skills must be a list"},
		{name: "not JSON", pkg: `{`, err: "package.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range tree {
				files[k] = v
			}
			if c.pkg != "" {
				files["package.json"] = c.pkg
			}
			root := writeTree(t, files)
			got, err := ReadResources(root)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range ResourceKinds {
				g, w := rels(root, *got.Of(k)), *c.want.Of(k)
				if w == nil {
					w = []string{}
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("%s: %v, want %v", k, g, w)
				}
			}
		})
	}
}

func TestInstallDirAndIdentity(t *testing.T) {
	for _, c := range []struct{ spec, dir, id, err string }{
		{spec: "npm:@scope/tools@1.0.0", dir: "/a/npm/node_modules/@scope/tools", id: "npm:@scope/tools"},
		{spec: "git:github.com/o/r@v1", dir: "/a/git/github.com/o/r", id: "git:https://github.com/o/r"},
		{spec: "https://github.com/o/r.git", dir: "/a/git/github.com/o/r", id: "git:https://github.com/o/r"},
		{spec: "file:///srv/repos/x", dir: "/a/git/local/srv/repos/x", id: "git:file:///srv/repos/x"},
		{spec: "./pkg", dir: "/base/pkg", id: "local:/base/pkg"},
	} {
		src, err := Parse(c.spec, "/base", "/home")
		if err != nil {
			t.Fatal(err)
		}
		dir, err := InstallDir("/a", src)
		if err != nil || filepath.ToSlash(dir) != c.dir || Identity(src) != c.id {
			t.Errorf("%s: %s %s %v", c.spec, dir, Identity(src), err)
		}
	}
}

func TestRecordKeepsOneEntryPerPackage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(file, []byte(`{"theme":"dark","packages":[{"source":"npm:tools@1.0.0","skills":[]}]}`), 0o644)
	src, _ := Parse("npm:tools@2.0.0", "/", "/home")
	if changed, err := Record(file, src, "/home"); !changed || err != nil {
		t.Fatal(changed, err)
	}
	local, _ := Parse(filepath.Join(filepath.Dir(file), "mine"), "/", "/home")
	if _, err := Record(file, local, "/home"); err != nil {
		t.Fatal(err)
	}
	d, err := DeclaredIn(file)
	if err != nil || len(d) != 2 || d[0].Source != "npm:tools@2.0.0" || d[0].Filters["skills"] == nil || d[1].Source != "mine" {
		t.Fatalf("%+v %v", d, err)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), `"theme": "dark"`) && !strings.Contains(string(b), `"theme":"dark"`) {
		t.Errorf("other keys lost:\n%s", b)
	}
	if removed, err := Unrecord(file, src, "/home"); !removed || err != nil {
		t.Fatal(removed, err)
	}
	if d, _ := DeclaredIn(file); len(d) != 1 || d[0].Source != "mine" {
		t.Fatalf("%+v", d)
	}
}
