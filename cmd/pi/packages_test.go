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

	"github.com/piwasm/pi/core/packages"
	"github.com/piwasm/pi/host"
)

// extPackage copies an example's manifest and module into a fresh
// directory; extra bytes appended to the module (a custom section) make
// another module of the same extension.
func extPackage(t *testing.T, name string, extra []byte) (dir string, files map[string][]byte) {
	t.Helper()
	src := examplePlugin(t, name)
	files = map[string][]byte{}
	for _, f := range []string{"extension.yaml", name + ".wasm"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".wasm") {
			b = append(b, extra...)
		}
		files[f] = b
	}
	dir = t.TempDir()
	for f, b := range files {
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	return dir, files
}

// customSection is a valid WebAssembly custom section named "pi-test"
// holding payload: appended to a module it changes the module's hash and
// nothing else.
func customSection(payload string) []byte {
	body := append([]byte{7}, "pi-test"+payload...)
	return append([]byte{0, byte(len(body))}, body...)
}

func lockOf(t *testing.T, agentDir string) []packages.Entry {
	t.Helper()
	l, err := packages.ReadLock(agentDir)
	if err != nil {
		t.Fatal(err)
	}
	return l.Entries
}

func TestInstallLocalAndGitPackages(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	c := newCLI(t)
	pkg, files := extPackage(t, "git-branch", nil)

	// A local directory.
	out, errs, code := c.run("install", pkg, "--yes")
	if code != 0 || !strings.Contains(out, "installed git-branch 0.1.0 from "+pkg) || !strings.Contains(out, "granted") {
		t.Fatalf("local install: exit %d\n%s%s", code, out, errs)
	}
	e := lockOf(t, c.agentDir)
	if len(e) != 1 || e[0].Kind != packages.Local || e[0].SHA256 == "" || e[0].Dir != filepath.Join(c.agentDir, "extensions", "git-branch") {
		t.Fatalf("lock: %+v", e)
	}
	if fi, _ := os.Stat(filepath.Join(c.agentDir, packages.LockName)); fi.Mode().Perm() != 0o600 {
		t.Errorf("lock mode %v", fi.Mode().Perm())
	}

	// A git repository, pinned to a commit.
	repo := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	git("init", "-q")
	for f, b := range files {
		os.WriteFile(filepath.Join(repo, f), b, 0o644)
	}
	git("add", ".")
	git("commit", "-qm", "v1")
	first := git("rev-parse", "HEAD")
	os.WriteFile(filepath.Join(repo, "git-branch.wasm"), append(files["git-branch.wasm"], customSection("v2")...), 0o644)
	git("commit", "-qam", "v2")

	out, errs, code = c.run("install", "file://"+repo+"@"+first)
	if code != 0 || !strings.Contains(out, "at commit "+first[:12]) || !strings.Contains(out, "now comes from file://") {
		t.Fatalf("git install: exit %d\n%s%s", code, out, errs)
	}
	e = lockOf(t, c.agentDir)
	if len(e) != 1 || e[0].Commit != first || e[0].Kind != packages.Git {
		t.Fatalf("lock after git install: %+v", e)
	}
	// The commit pins the module: the same bytes as the local install, so
	// the grant given then still holds.
	if !strings.Contains(out, "already granted") {
		t.Errorf("the same module lost its grant:\n%s", out)
	}

	// Without the pin: the newest commit, another module, not granted
	// until the user says so.
	out, _, code = c.run("install", "file://"+repo)
	if code != 0 || strings.Contains(out, "already granted") || !strings.Contains(out, "not granted") {
		t.Fatalf("a changed module kept its grant: exit %d\n%s", code, out)
	}
	store, _ := host.OpenGrantStore(c.agentDir)
	g, _ := store.Get("git-branch")
	if g.SHA256 == lockOf(t, c.agentDir)[0].SHA256 {
		t.Error("the stored grant is pinned to the new module without a yes")
	}

	out, _, _ = c.run("list")
	if !strings.Contains(out, "git-branch") || !strings.Contains(out, "file://"+repo) || !strings.Contains(out, "ok") {
		t.Errorf("pi list:\n%s", out)
	}
	// A module changed on disk after the install is reported.
	os.WriteFile(filepath.Join(c.agentDir, "extensions", "git-branch", "git-branch.wasm"), append(files["git-branch.wasm"], customSection("tampered")...), 0o644)
	if out, _, _ = c.run("list"); !strings.Contains(out, "CHANGED on disk") {
		t.Errorf("a tampered module is not reported:\n%s", out)
	}

	out, errs, code = c.run("remove", "git-branch")
	if code != 0 || !strings.Contains(out, "removed git-branch") {
		t.Fatalf("remove: exit %d %s%s", code, out, errs)
	}
	if len(lockOf(t, c.agentDir)) != 0 {
		t.Error("the lock still lists it")
	}
	if _, err := os.Stat(filepath.Join(c.agentDir, "extensions", "git-branch")); !os.IsNotExist(err) {
		t.Error("the package is still installed")
	}
	// Not an extension package: refused with a reason.
	os.Remove(filepath.Join(pkg, "extension.yaml"))
	if _, errs, code := c.run("install", pkg); code == 0 || !strings.Contains(errs, "is neither a pi extension package") {
		t.Errorf("a directory without extension.yaml: exit %d %s", code, errs)
	}
}

// registry is a minimal npm registry: one package, its versions served
// as tarballs made by the test.
type registry struct {
	mu       sync.Mutex
	name     string
	versions map[string][]byte // version → tarball
	url      string
}

func (r *registry) publish(t *testing.T, version string, files map[string][]byte) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	files["package.json"] = []byte(`{"name":"` + r.name + `","version":"` + version + `"}`)
	for name, b := range files {
		tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	r.mu.Lock()
	r.versions[version] = buf.Bytes()
	r.mu.Unlock()
}

func (r *registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if strings.HasSuffix(req.URL.Path, ".tgz") {
		v := strings.TrimSuffix(req.URL.Path[strings.LastIndex(req.URL.Path, "-")+1:], ".tgz")
		if b, ok := r.versions[v]; ok {
			w.Write(b)
			return
		}
		http.NotFound(w, req)
		return
	}
	if strings.Trim(req.URL.Path, "/") != r.name {
		http.NotFound(w, req)
		return
	}
	versions := map[string]any{}
	latest := ""
	for v, b := range r.versions {
		s1 := sha1.Sum(b)
		s512 := sha512.Sum512(b)
		versions[v] = map[string]any{"name": r.name, "version": v, "dist": map[string]any{
			"tarball":   r.url + "/" + r.name + "/-/" + r.name + "-" + v + ".tgz",
			"shasum":    hex.EncodeToString(s1[:]),
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
		}}
		if v > latest {
			latest = v
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"name": r.name, "versions": versions, "dist-tags": map[string]string{"latest": latest}})
}

func TestInstallNpmPackageAndUpdate(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	c := newCLI(t)
	_, files := extPackage(t, "git-branch", nil)
	reg := &registry{name: "pi-ext-git-branch", versions: map[string][]byte{}}
	srv := httptest.NewServer(reg)
	t.Cleanup(srv.Close)
	reg.url = srv.URL
	reg.publish(t, "1.0.0", map[string][]byte{"extension.yaml": files["extension.yaml"], "git-branch.wasm": files["git-branch.wasm"]})
	t.Setenv("npm_config_registry", srv.URL)
	t.Setenv("npm_config_cache", t.TempDir())
	t.Setenv("npm_config_update_notifier", "false")

	out, errs, code := c.run("install", "npm:pi-ext-git-branch", "--yes")
	if code != 0 || !strings.Contains(out, "installed git-branch 1.0.0 from npm:pi-ext-git-branch") {
		t.Fatalf("npm install: exit %d\n%s%s", code, out, errs)
	}
	first := lockOf(t, c.agentDir)[0]
	if first.Kind != packages.Npm || first.Version != "1.0.0" {
		t.Fatalf("lock: %+v", first)
	}

	// Nothing new: update keeps the module and its grant.
	if out, _, code = c.run("update"); code != 0 || strings.Contains(out, "changed") || !strings.Contains(out, "already granted") {
		t.Fatalf("update without a new version: exit %d\n%s", code, out)
	}
	// A new version with another module: installed, the grant not carried over.
	reg.publish(t, "1.1.0", map[string][]byte{"extension.yaml": files["extension.yaml"], "git-branch.wasm": append(files["git-branch.wasm"], customSection("1.1")...)})
	out, errs, code = c.run("update")
	if code != 0 || !strings.Contains(out, "git-branch changed: module") || !strings.Contains(out, "not granted") {
		t.Fatalf("update to a new module: exit %d\n%s%s", code, out, errs)
	}
	if now := lockOf(t, c.agentDir)[0]; now.Version != "1.1.0" || now.SHA256 == first.SHA256 {
		t.Errorf("lock after update: %+v", now)
	}
	// A pinned version stays.
	if out, _, code = c.run("install", "npm:pi-ext-git-branch@1.0.0"); code != 0 || !strings.Contains(out, "git-branch 1.0.0") {
		t.Errorf("pinned install: exit %d\n%s", code, out)
	}
}
