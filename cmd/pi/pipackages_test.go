package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// npmRegistry serves the registry JSON and tarballs of several packages,
// one version each: enough of the npm registry for npm pack and npm
// install.
type npmRegistry struct {
	mu       sync.Mutex
	url      string
	tarballs map[string][]byte // name → .tgz
	versions map[string]string
	fetched  map[string]int
}

func (r *npmRegistry) add(name, version string, tgz []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tarballs[name], r.versions[name] = tgz, version
}

func (r *npmRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := strings.TrimPrefix(req.URL.Path, "/")
	if name, _, ok := strings.Cut(p, "/-/"); ok {
		if b, ok := r.tarballs[name]; ok {
			r.fetched[name]++
			w.Write(b)
			return
		}
		http.NotFound(w, req)
		return
	}
	name := strings.ReplaceAll(p, "%2f", "/")
	b, ok := r.tarballs[name]
	if !ok {
		http.NotFound(w, req)
		return
	}
	v := r.versions[name]
	s1, s512 := sha1.Sum(b), sha512.Sum512(b)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"name": name, "dist-tags": map[string]string{"latest": v},
		"versions": map[string]any{v: map[string]any{"name": name, "version": v, "dist": map[string]any{
			"tarball":   r.url + "/" + name + "/-/" + filepath.Base(name) + "-" + v + ".tgz",
			"shasum":    hex.EncodeToString(s1[:]),
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
		}}}})
}

// tgzOf packs files as an npm tarball (under package/).
func tgzOf(files map[string]string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, s := range files {
		tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(s)), Typeflag: tar.TypeReg})
		tw.Write([]byte(s))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// fixturePackage is a package of the established format: a prompt, a
// skill, two extensions of which the manifest leaves one out, a runtime
// dependency, and install scripts that must never run.
func fixturePackage(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "pi-fixture-pack")
	writeFiles(t, dir, map[string]string{
		"package.json": `{"name":"pi-fixture-pack","version":"1.2.0","keywords":["pi-package"],
  "scripts":{"postinstall":"touch ROOT-SCRIPT-RAN"},
  "dependencies":{"fixture-dep":"1.0.0"},
  "pi":{"extensions":["./extensions/*.ts","!extensions/legacy.ts"],"skills":["./skills"],"prompts":["./prompts"]}}`,
		"prompts/fixture-greet.md":         "---\ndescription: greet from the fixture\n---\nGreet the user of the fixture package warmly.\n",
		"skills/fixture-skill/SKILL.md":    "---\nname: fixture-skill\ndescription: A skill that ships in the fixture package.\n---\nDo the fixture thing.\n",
		"extensions/hello.ts":              "export default function (pi: any) { pi.on('session_start', () => {}); }\n",
		"extensions/legacy.ts":             "export default function () {}\n",
		"README.md":                        "fixture\n",
		"unlisted/not-a-resource/SKILL.md": "---\nname: unlisted\ndescription: x\n---\nx\n",
	})
	return dir
}

// TestInstallEstablishedFormatPackages installs one package of the
// established format from a local npm registry (a tarball made by npm
// pack), from a git repository and from a directory; each time its
// prompt template and skill reach the model in pi -p, its listed
// extension (and not the excluded one) is among the extensions to load,
// its dependency is fetched into its own node_modules without any
// install script running, and pi list, update and remove know it.
func TestInstallEstablishedFormatPackages(t *testing.T) {
	for _, tool := range []string{"npm", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	fixture := fixturePackage(t)
	reg := &npmRegistry{tarballs: map[string][]byte{}, versions: map[string]string{}, fetched: map[string]int{}}
	srv := httptest.NewServer(reg)
	t.Cleanup(srv.Close)
	reg.url = srv.URL
	reg.add("fixture-dep", "1.0.0", tgzOf(map[string]string{
		"package.json": `{"name":"fixture-dep","version":"1.0.0","main":"index.js","scripts":{"install":"touch DEP-SCRIPT-RAN"}}`,
		"index.js":     "module.exports = 42;\n",
	}))
	npmCache := t.TempDir()
	t.Setenv("npm_config_registry", srv.URL)
	t.Setenv("npm_config_cache", npmCache)
	t.Setenv("npm_config_update_notifier", "false")
	packDir := t.TempDir()
	pack := exec.Command("npm", "pack", "--ignore-scripts", "--pack-destination", packDir, fixture)
	if b, err := pack.CombinedOutput(); err != nil {
		t.Fatalf("npm pack: %v\n%s", err, b)
	}
	tgz, err := os.ReadFile(filepath.Join(packDir, "pi-fixture-pack-1.2.0.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	reg.add("pi-fixture-pack", "1.2.0", tgz)

	repo := filepath.Join(t.TempDir(), "fixture-repo")
	os.CopyFS(repo, os.DirFS(fixture))
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "v1"}} {
		if b, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}

	for _, tc := range []struct {
		name, source string
		dir          func(c *cli) string
		deps         bool
	}{
		{"npm", "npm:pi-fixture-pack", func(c *cli) string { return filepath.Join(c.agentDir, "npm", "node_modules", "pi-fixture-pack") }, true},
		{"git", "file://" + repo, func(c *cli) string {
			return filepath.Join(c.agentDir, "git", "local", filepath.FromSlash(strings.TrimPrefix(repo, "/")))
		}, true},
		{"dir", fixture, func(*cli) string { return fixture }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			out, errs, code := c.run("install", tc.source)
			if code != 0 || !strings.Contains(out, "pi-fixture-pack 1.2.0") || !strings.Contains(out, "1 extension, 1 skill, 1 prompt") {
				t.Fatalf("install: exit %d\n%s%s", code, out, errs)
			}
			dir := tc.dir(c)
			settings := readFile(t, filepath.Join(c.agentDir, "settings.json"))
			if !strings.Contains(settings, `"packages"`) {
				t.Fatalf("not declared in settings.json:\n%s", settings)
			}
			if tc.deps {
				if b, err := os.ReadFile(filepath.Join(dir, "node_modules", "fixture-dep", "index.js")); err != nil || !strings.Contains(string(b), "42") {
					t.Errorf("the dependency is not in the package's node_modules: %v", err)
				}
			}
			for _, marker := range []string{"ROOT-SCRIPT-RAN", filepath.Join("node_modules", "fixture-dep", "DEP-SCRIPT-RAN")} {
				if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
					t.Errorf("an install script ran: %s exists", marker)
				}
			}

			var res struct {
				Packages []struct {
					Source, Dir string
					Resources   struct{ Extensions []string }
				}
			}
			if err := json.Unmarshal([]byte(c.must("resources", "--json", "--cwd", c.home)), &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Packages) != 1 {
				t.Fatalf("packages: %+v", res.Packages)
			}
			exts := strings.Join(res.Packages[0].Resources.Extensions, "\n")
			if !strings.Contains(exts, filepath.Join(dir, "extensions", "hello.ts")) || strings.Contains(exts, "legacy.ts") {
				t.Errorf("extensions to load:\n%s", exts)
			}
			if len(res.Packages) != 1 || res.Packages[0].Dir != dir {
				t.Errorf("packages: %+v", res.Packages)
			}

			s := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "hello"}})
			if out, errs, code := c.run("-p", "--no-session", "--model", "mock/mock-1", "--cwd", c.home, "/fixture-greet"); code != 0 {
				t.Fatalf("pi -p: exit %d\n%s%s", code, out, errs)
			}
			body := string(s.Requests()[0])
			if !strings.Contains(body, "Greet the user of the fixture package warmly") || !strings.Contains(body, "fixture-skill") || strings.Contains(body, "unlisted") {
				t.Errorf("the package's template and skill did not reach the model:\n%.3000s", body)
			}

			if out := c.must("list"); !strings.Contains(out, "pi-fixture-pack") || !strings.Contains(out, "1.2.0") {
				t.Errorf("pi list:\n%s", out)
			}
			if out, errs, code := c.run("update", "pi-fixture-pack"); code != 0 {
				t.Errorf("pi update: exit %d\n%s%s", code, out, errs)
			}
			out, errs, code = c.run("remove", "pi-fixture-pack")
			if code != 0 || !strings.Contains(out, "removed pi-fixture-pack") {
				t.Fatalf("pi remove: exit %d\n%s%s", code, out, errs)
			}
			if settings := readFile(t, filepath.Join(c.agentDir, "settings.json")); strings.Contains(settings, "fixture") {
				t.Errorf("still declared:\n%s", settings)
			}
			_, err := os.Stat(dir)
			if tc.name == "dir" && err != nil {
				t.Error("pi remove deleted a local package's own directory")
			}
			if tc.name != "dir" && err == nil {
				t.Error("the installed copy was not deleted")
			}
		})
	}
	// -e npm:NAME: fetched once into the cache, used for that run, declared
	// nowhere; the next run needs no network.
	t.Run("one-off", func(t *testing.T) {
		c := newCLI(t)
		s := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "one"}, {Text: "two"}})
		fetched := func() int { reg.mu.Lock(); defer reg.mu.Unlock(); return reg.fetched["pi-fixture-pack"] }
		before := fetched()
		for i, env := range []map[string]string{nil, {"PI_OFFLINE": "1"}} {
			c.env = env
			if out, errs, code := c.run("-p", "--no-session", "--model", "mock/mock-1", "--cwd", c.home, "-e", "npm:pi-fixture-pack", "/fixture-greet"); code != 0 {
				t.Fatalf("run %d: exit %d\n%s%s", i, code, out, errs)
			}
			if body := string(s.Requests()[i]); !strings.Contains(body, "Greet the user of the fixture package warmly") {
				t.Errorf("run %d: the one-off package's template did not reach the model", i)
			}
		}
		if n := fetched() - before; n != 1 {
			t.Errorf("the tarball was fetched %d times, want once", n)
		}
		if _, err := os.Stat(filepath.Join(c.agentDir, "settings.json")); err == nil && strings.Contains(readFile(t, filepath.Join(c.agentDir, "settings.json")), "fixture") {
			t.Error("a one-off package was declared in settings.json")
		}
		c.env = map[string]string{"PI_OFFLINE": "1"}
		if _, errs, code := c.run("-p", "--no-session", "--model", "mock/mock-1", "-e", "npm:never-fetched", "hi"); code == 0 || !strings.Contains(errs, "has not been fetched before") {
			t.Errorf("an uncached one-off offline: exit %d, %s", code, errs)
		}
	})
}
