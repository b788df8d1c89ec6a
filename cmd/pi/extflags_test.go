package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unrulyBuild builds testdata/guests/unruly once for this package.
var unrulyBuild = guestOnce(filepath.Join("testdata", "guests", "unruly"))

// unrulyPackage writes a package running the unruly guest under dir/name
// with the given manifest.
func unrulyPackage(t *testing.T, dir, name, manifest string) string {
	t.Helper()
	wasm, err := unrulyBuild()
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, name)
	writeFiles(t, pkg, map[string]string{"extension.yaml": manifest})
	data, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	mod := name + ".wasm"
	for _, l := range strings.Split(manifest, "\n") {
		if m, ok := strings.CutPrefix(l, "module: "); ok {
			mod = m
		}
	}
	if err := os.WriteFile(filepath.Join(pkg, mod), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return pkg
}

// An extension's manifest flags: listed by pi --help under their own
// group, taken on the command line as --<ext>-<flag> (--<ext> for the flag
// named like its extension), and read by the guest; an unknown flag is
// still refused.
func TestExtensionFlags(t *testing.T) {
	c := newCLI(t)
	ext := examplePlugin(t, "preset")
	proj := t.TempDir()

	out, errs, code := c.run("--help", "-e", ext, "--cwd", proj)
	group := out[strings.Index(out, "Extension flags:")+1:]
	if code != 0 || !strings.Contains(out, "Extension flags:") || !strings.Contains(group, "--preset STRING") ||
		!strings.Contains(group, "start in this preset [preset]") || !strings.Contains(group, "--preset-quiet ") {
		t.Fatalf("help (exit %d):\n%s\nstderr: %s", code, out, errs)
	}
	if text, _, _ := c.run("ext", "inspect", ext); !strings.Contains(text, "--preset VALUE, --preset-quiet") || !strings.Contains(text, "ctrl+x /preset next") {
		t.Fatalf("inspect does not show the flags and keys:\n%s", text)
	}
	if plain, _, _ := c.run("--help"); strings.Contains(plain, "Extension flags") {
		t.Fatalf("help without extensions has an extension group")
	}

	body := func(args ...string) string {
		t.Helper()
		out, errs, code := c.run(append([]string{"-p", "--dry-run", "--no-session", "--cwd", proj, "-e", ext}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return out
	}
	if b := body("--preset", "plan", "hi"); !strings.Contains(b, "Preset plan: Plan only") {
		t.Fatalf("--preset plan did not reach the guest:\n%s", b)
	}
	if b := body("--preset=review", "--preset-quiet", "hi"); !strings.Contains(b, "Preset review:") {
		t.Fatalf("--preset=review did not reach the guest:\n%s", b)
	}
	if b := body("hi"); strings.Contains(b, "Preset ") {
		t.Fatalf("a preset without the flag:\n%s", b)
	}

	_, errs, code = c.run("-p", "--dry-run", "--cwd", proj, "-e", ext, "--preset-nope", "hi")
	if code != exitUsage || !strings.Contains(errs, "unknown flag: --preset-nope") {
		t.Fatalf("unknown flag: exit %d, %s", code, errs)
	}
}

// An extension's string flag followed by an argument beginning with - or @
// has no value, as in the established harness: the argument is not taken
// as the value (nor is a -na after it rewritten into the value), and the
// run stops with a usage error naming the flag; --flag=VALUE gives such a
// value.
func TestExtensionFlagDashValue(t *testing.T) {
	c := newCLI(t)
	ext := examplePlugin(t, "preset")
	proj := t.TempDir()
	for _, next := range []string{"-na", "-x", "--approve", "-", "@notes.md"} {
		_, errs, code := c.run("-p", "--dry-run", "--no-session", "--cwd", proj, "-e", ext, "--preset", next, "hi")
		if code != exitUsage || !strings.Contains(errs, "--preset requires a value") {
			t.Errorf("--preset %s: exit %d, stderr %q; want a usage error that --preset requires a value", next, code, errs)
		}
	}
	// The value given with "=", and -na after it still meaning --no-approve.
	out, errs, code := c.run("-p", "--dry-run", "--no-session", "--cwd", proj, "-e", ext, "--preset=plan", "-na", "hi")
	if code != 0 || !strings.Contains(out, "Preset plan: Plan only") {
		t.Fatalf("--preset=plan -na: exit %d, stderr %s\n%s", code, errs, out)
	}
	// Another flag's value that happens to be spelled like the extension's
	// flag is not checked as one.
	if _, errs, code := c.run("-p", "--dry-run", "--no-session", "--cwd", proj, "-e", ext, "--append-system-prompt", "--preset", "-na", "hi"); strings.Contains(errs, "requires a value") {
		t.Fatalf("--append-system-prompt --preset: exit %d, %s", code, errs)
	}
}

// A flag whose command-line name is one of pi's own is a diagnostic naming
// the manifest, at every load and in --help; pi's flag keeps its meaning
// and nothing crashes (pflag panics on a flag defined twice).
func TestExtensionFlagClash(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	dir := t.TempDir()
	ext := unrulyPackage(t, dir, "no", "name: no\nabi: 1\nhooks: [command]\ncommands:\n  - name: spin\nflags:\n  - name: session\n    type: string\n  - name: thing\n    type: boolean\n")
	manifest := filepath.Join(ext, "extension.yaml")

	out, errs, code := c.run("--help", "-e", ext, "--cwd", proj)
	if code != 0 || !strings.Contains(errs, manifest) || !strings.Contains(errs, "--no-session, one of pi's own flags") || !strings.Contains(out, "--no-thing") {
		t.Fatalf("help: exit %d\nstderr: %s", code, errs)
	}
	out, errs, code = c.run("-p", "--dry-run", "--no-session", "--no-thing", "--cwd", proj, "-e", ext, "hi")
	if code != 0 || !strings.Contains(errs, manifest) || !strings.Contains(errs, "--no-session") || !strings.Contains(out, "hi") {
		t.Fatalf("run: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	// Without an extension flag on the command line the clash is still
	// said.
	_, errs, _ = c.run("-p", "--dry-run", "--cwd", proj, "-e", ext, "hi")
	if !strings.Contains(errs, "--no-session, one of pi's own flags") {
		t.Fatalf("clash not reported: %s", errs)
	}
}
