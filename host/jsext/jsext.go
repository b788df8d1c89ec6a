package jsext

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/host"
)

// Config configures a Runtime.
type Config struct {
	// AgentDir holds the bundle cache (<AgentDir>/cache/jsext) and the
	// engine's compilation cache (<AgentDir>/cache/wazero). Empty: no
	// on-disk caches.
	AgentDir string
	// ProjectRoot is the directory whose files an extension may read
	// without a grant. Empty: none.
	ProjectRoot string
	// UI answers the extensions' dialogs (nil: default answers at once).
	UI host.UI
	// Log receives console output of extensions, tagged with the name.
	Log func(ext, level, msg string)
}

// Options configure one extension's load.
type Options struct {
	// Name overrides the name (default: the file's base name without
	// its extension, or the directory's name).
	Name string
	// Grant is the stored or per-run grant of the extension (HasGrant:
	// one exists); a grant pinned to another bundle SHA-256 is stale.
	Grant    host.Grant
	HasGrant bool
	// Failure is the failure policy, "skip" (default) or "abort".
	Failure string
}

// Runtime loads and runs JavaScript extensions; it owns the compiled
// engine shared by all of them. It is safe for concurrent use.
type Runtime struct {
	cfg Config
}

// NewRuntime prepares the engine.
func NewRuntime(ctx context.Context, cfg Config) (*Runtime, error) {
	return &Runtime{cfg: cfg}, nil
}

// Close releases every extension and the engine.
func (r *Runtime) Close(ctx context.Context) error { return nil }

// Extension is one loaded JavaScript extension.
type Extension struct {
	name, path, sha string
}

// Load bundles and starts the extension at path (see IsExtension).
func (r *Runtime) Load(ctx context.Context, path string, opts Options) (*Extension, []diag.Diagnostic, error) {
	return nil, nil, errors.New("TypeScript extensions: not yet")
}

// IsExtension reports whether path is a JavaScript extension: a .ts, .mts,
// .js or .mjs file, or a directory without extension.yaml that holds
// index.ts or index.js.
func IsExtension(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return isScript(path)
	}
	if _, err := os.Stat(filepath.Join(path, "extension.yaml")); err == nil {
		return false
	}
	_, err = Entry(path)
	return err == nil
}

func isScript(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".js", ".mjs":
		return true
	}
	return false
}

// Entry returns the file to bundle for path: path itself for a file, the
// directory's index.ts or index.js otherwise.
func Entry(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return path, nil
	}
	for _, n := range []string{"index.ts", "index.mts", "index.js", "index.mjs"} {
		p := filepath.Join(path, n)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", errors.New(path + ": no index.ts or index.js")
}
