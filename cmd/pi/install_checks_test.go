package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyModule is the smallest pi module: it exports pi_abi_version (1).
func tinyModule() []byte {
	name := "pi_abi_version"
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, 1, 5, 1, 0x60, 0, 1, 0x7f) // type () -> i32
	m = append(m, 3, 2, 1, 0)                // one function of type 0
	m = append(m, 7, byte(4+len(name)), 1, byte(len(name)))
	m = append(append(m, name...), 0, 0) // export function 0
	return append(m, 10, 6, 1, 4, 0, 0x41, 1, 0x0b)
}

// Weakness: `pi ext install` followed a symbolic link as the module, did
// not check that it was WebAssembly, and copied a 0600 file as 0644.
func TestExtInstallChecksItsSources(t *testing.T) {
	const manifest = "name: tiny\nabi: 1\nversion: 0.1.0\nhooks: [input]\n"
	newPkg := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "tiny")
		writeFiles(t, dir, map[string]string{"extension.yaml": manifest})
		return dir
	}
	installed := func(c *cli) string { return filepath.Join(c.agentDir, "extensions", "tiny") }

	t.Run("symlinked module", func(t *testing.T) {
		c := newCLI(t)
		dir := newPkg(t)
		elsewhere := filepath.Join(t.TempDir(), "private.wasm")
		if err := os.WriteFile(elsewhere, tinyModule(), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, filepath.Join(dir, "tiny.wasm")); err != nil {
			t.Fatal(err)
		}
		_, errs, code := c.run("ext", "install", dir)
		if code != 1 || !strings.Contains(errs, "symbolic link") {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if _, err := os.Lstat(installed(c)); err == nil {
			t.Fatal("installed anyway")
		}
	})

	t.Run("not WebAssembly", func(t *testing.T) {
		c := newCLI(t)
		dir := newPkg(t)
		writeFiles(t, dir, map[string]string{"tiny.wasm": "#!/bin/sh\necho hi\n"})
		_, errs, code := c.run("ext", "install", dir)
		if code != 1 || !strings.Contains(errs, "not a WebAssembly module") {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if _, err := os.Lstat(installed(c)); err == nil {
			t.Fatal("installed anyway")
		}
	})

	t.Run("modes are kept, never widened", func(t *testing.T) {
		c := newCLI(t)
		dir := newPkg(t)
		if err := os.WriteFile(filepath.Join(dir, "tiny.wasm"), tinyModule(), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "extension.yaml"), 0o666); err != nil {
			t.Fatal(err)
		}
		if _, errs, code := c.run("ext", "install", dir); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		for name, want := range map[string]os.FileMode{"tiny.wasm": 0o600, "extension.yaml": 0o644} {
			st, err := os.Stat(filepath.Join(installed(c), name))
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != want {
				t.Errorf("%s installed as %v, want %v", name, got, want)
			}
		}
	})
}
