package jsext

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/piwasm/pi/internal/atomicfile"
)

// Bundled is an extension bundled into one script.
type Bundled struct {
	// Script is an IIFE that leaves the module's exports in the global
	// __pi_ext.
	Script []byte
	// SHA256 is the hex SHA-256 of Script: grants pin to it.
	SHA256 string
	// Shims lists the pi shim modules the bundle imports (node:fs,
	// node:child_process, …), sorted: what it may ask to be granted.
	Shims []string
}

// shimmed matches the imports pi serves itself instead of resolving them.
var shimmed = lazyre.New(`^(?:@earendil-works/pi-(?:coding-agent|ai|tui|agent-core)|@mariozechner/pi-(?:coding-agent|ai|tui|agent-core)|typebox|@sinclair/typebox|node:[a-z_/]+|fs|fs/promises|path|os|url|util|events|buffer|child_process|crypto|process|timers|timers/promises|readline|stream|string_decoder|assert|querystring|zlib|net|http|https|tty|worker_threads|module)(?:/.*)?$`)

// shimName is the module a shimmed import stands for: node:fs and fs are
// one module, subpaths of the harness's packages are their package, and the
// older @mariozechner names are the newer ones.
func shimName(path string) string {
	p := strings.TrimPrefix(path, "node:")
	switch {
	case strings.HasPrefix(p, "@mariozechner/"):
		p = "@earendil-works/" + strings.TrimPrefix(p, "@mariozechner/")
	case strings.HasPrefix(p, "@sinclair/typebox"):
		p = "typebox"
	}
	if strings.HasPrefix(p, "@") {
		parts := strings.SplitN(p, "/", 3)
		if len(parts) >= 2 {
			p = parts[0] + "/" + parts[1]
		}
	} else if strings.HasPrefix(p, "typebox/") {
		p = "typebox"
	}
	return p
}

// Bundle bundles the extension whose entry file is entry into one script.
// cacheDir, when not empty, keeps bundles by the hash of their inputs (the
// files esbuild read, by path and content), so an unchanged extension is
// not bundled again.
func Bundle(ctx context.Context, entry, cacheDir string) (*Bundled, error) {
	entry, err := filepath.Abs(entry)
	if err != nil {
		return nil, err
	}
	if cacheDir != "" {
		if b := readCached(cacheDir, entry); b != nil {
			return b, nil
		}
	}
	shims := map[string]bool{}
	plugin := api.Plugin{
		Name: "pi-shims",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: shimmed().String()}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				return api.OnResolveResult{Path: shimName(a.Path), Namespace: "pi-shim"}, nil
			})
			b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "pi-shim"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				shims[a.Path] = true
				src := fmt.Sprintf("module.exports = globalThis.__pi_require(%q);\n", a.Path)
				return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS}, nil
			})
		},
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:       []string{entry},
		Bundle:            true,
		Write:             false,
		Format:            api.FormatIIFE,
		GlobalName:        "__pi_ext",
		Platform:          api.PlatformNeutral,
		MainFields:        []string{"module", "main"},
		Conditions:        []string{"import", "default"},
		Target:            api.ES2022,
		Charset:           api.CharsetUTF8,
		LogLevel:          api.LogLevelSilent,
		Plugins:           []api.Plugin{plugin},
		Metafile:          true,
		AbsWorkingDir:     filepath.Dir(entry),
		ResolveExtensions: []string{".ts", ".tsx", ".mts", ".js", ".mjs", ".cjs", ".json"},
		Loader:            map[string]api.Loader{".node": api.LoaderEmpty},
	})
	if len(res.Errors) > 0 {
		var msgs []string
		for i, m := range res.Errors {
			if i == 5 {
				msgs = append(msgs, fmt.Sprintf("and %d more", len(res.Errors)-5))
				break
			}
			where := ""
			if m.Location != nil {
				where = fmt.Sprintf("%s:%d:%d: ", m.Location.File, m.Location.Line, m.Location.Column)
			}
			msgs = append(msgs, where+m.Text)
		}
		return nil, fmt.Errorf("bundling %s: %s", entry, strings.Join(msgs, "; "))
	}
	if len(res.OutputFiles) != 1 {
		return nil, fmt.Errorf("bundling %s: esbuild gave %d outputs, want 1", entry, len(res.OutputFiles))
	}
	script := res.OutputFiles[0].Contents
	sum := sha256.Sum256(script)
	b := &Bundled{Script: script, SHA256: hex.EncodeToString(sum[:])}
	for s := range shims {
		b.Shims = append(b.Shims, s)
	}
	sort.Strings(b.Shims)
	if cacheDir != "" {
		writeCached(cacheDir, entry, res.Metafile, b)
	}
	return b, nil
}

// The cache: <dir>/<key>.js holds the bundle and <dir>/<key>.in the list
// of inputs it was made from (path and SHA-256 per line) and its shims;
// key hashes the entry path. A hit needs every input unchanged.

func cacheKey(entry string) string {
	s := sha256.Sum256([]byte(entry))
	return hex.EncodeToString(s[:16])
}

func fileSum(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func readCached(dir, entry string) *Bundled {
	key := cacheKey(entry)
	in, err := os.ReadFile(filepath.Join(dir, key+".in"))
	if err != nil {
		return nil
	}
	var shims []string
	for _, line := range strings.Split(strings.TrimSpace(string(in)), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "input":
			sum, path, ok := strings.Cut(rest, " ")
			if !ok || fileSum(path) != sum {
				return nil
			}
		case "shim":
			shims = append(shims, rest)
		case "engine":
			if rest != shimVersion {
				return nil
			}
		}
	}
	script, err := os.ReadFile(filepath.Join(dir, key+".js"))
	if err != nil {
		return nil
	}
	sum := sha256.Sum256(script)
	return &Bundled{Script: script, SHA256: hex.EncodeToString(sum[:]), Shims: shims}
}

// shimVersion changes when the way pi bundles changes, so that old cached
// bundles are not used.
const shimVersion = "1"

func writeCached(dir, entry, metafile string, b *Bundled) {
	inputs, err := metaInputs(metafile, filepath.Dir(entry))
	if err != nil {
		return
	}
	var sb strings.Builder
	sb.WriteString("engine " + shimVersion + "\n")
	for _, p := range inputs {
		sum := fileSum(p)
		if sum == "" {
			return
		}
		sb.WriteString("input " + sum + " " + p + "\n")
	}
	for _, s := range b.Shims {
		sb.WriteString("shim " + s + "\n")
	}
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	key := cacheKey(entry)
	if atomicfile.Write(filepath.Join(dir, key+".js"), b.Script, 0o644) == nil {
		atomicfile.Write(filepath.Join(dir, key+".in"), []byte(sb.String()), 0o644)
	}
}

// metaInputs lists the files of esbuild's metafile, as absolute paths.
func metaInputs(metafile, base string) ([]string, error) {
	// The metafile's "inputs" keys are paths relative to the working
	// directory, or namespace:path for plugin modules.
	var m struct {
		Inputs map[string]any `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(metafile), &m); err != nil {
		return nil, err
	}
	var out []string
	for k := range m.Inputs {
		if strings.HasPrefix(k, "pi-shim:") {
			continue
		}
		if strings.Contains(k, ":") && !filepath.IsAbs(k) && len(k) > 1 && k[1] != ':' {
			return nil, errors.New("an input from another namespace")
		}
		p := k
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		out = append(out, filepath.Clean(p))
	}
	slices.Sort(out)
	return out, nil
}
