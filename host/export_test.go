package host

import (
	"os"
	"path/filepath"
)

// BuiltPackagesDir returns a directory holding the example packages with
// their modules built by TestMain (for the runnable examples).
func BuiltPackagesDir() string { return examplesRoot }

var examplesRoot string

// stageExamples copies each example's manifest next to its built module.
func stageExamples(tmp string) error {
	examplesRoot = filepath.Join(tmp, "examples")
	for name, src := range guests {
		if filepath.Dir(src) != "../plugins/examples" {
			continue
		}
		dir := filepath.Join(examplesRoot, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		m, err := os.ReadFile(filepath.Join(src, "extension.yaml"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "extension.yaml"), m, 0o644); err != nil {
			return err
		}
		if err := os.Link(filepath.Join(wasmDir, name+".wasm"), filepath.Join(dir, name+".wasm")); err != nil {
			return err
		}
	}
	return nil
}
