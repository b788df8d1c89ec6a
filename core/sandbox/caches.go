package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// Build caches. A cache that later unconfined builds trust (Go's build
// cache above all: its entries are used without being checked again) must
// not be writable by a confined command, or the command could plant a
// poisoned object that the user's next ordinary build links in. So the
// shared caches stay read-only to commands, and in workspace mode each
// project gets caches of its own under the user's cache directory
// (~/.cache/pi/sandbox/<hash of the working tree>), which only that
// project's commands write and nothing outside pi reads:
//
//   - GOCACHE and GOMODCACHE point there; GOPROXY reads modules already in
//     the shared module cache first (file://…/cache/download, checked
//     against go.sum as any download), so nothing is fetched again;
//   - npm_config_cache and PIP_CACHE_DIR point there;
//   - cargo's registry (~/.cargo) stays read-only: crates already fetched
//     build, fetching new ones needs ~/.cargo in writableRoots.
//
// The cost is a cold Go build cache per project: the first build compiles
// the standard library again.

// cacheSetup is the per-project cache root and the variables that point
// the tools at it.
type cacheSetup struct {
	root string
	env  []string
}

// projectCachesAt returns the per-project caches of the working tree
// in.Cwd, whose resolved path (what resolve returns for it) names them.
func projectCachesAt(in Inputs, resolvedCwd string, getenv func(string) string) cacheSetup {
	cacheHome := getenv("XDG_CACHE_HOME")
	if cacheHome == "" && in.Home != "" {
		cacheHome = filepath.Join(in.Home, ".cache")
	}
	if cacheHome == "" || !filepath.IsAbs(cacheHome) || in.Cwd == "" {
		return cacheSetup{}
	}
	sum := sha256.Sum256([]byte(resolvedCwd))
	root := filepath.Join(cacheHome, "pi", "sandbox", filepath.Base(in.Cwd)+"-"+hex.EncodeToString(sum[:6]))
	env := []string{
		"GOCACHE=" + filepath.Join(root, "go-build"),
		"GOMODCACHE=" + filepath.Join(root, "go-mod"),
		"npm_config_cache=" + filepath.Join(root, "npm"),
		"PIP_CACHE_DIR=" + filepath.Join(root, "pip"),
	}
	// Modules the shared cache holds are read from it as from a proxy.
	shared := getenv("GOMODCACHE")
	if shared == "" {
		if gp := getenv("GOPATH"); gp != "" {
			shared = filepath.Join(filepath.SplitList(gp)[0], "pkg", "mod")
		} else if in.Home != "" {
			shared = filepath.Join(in.Home, "go", "pkg", "mod")
		}
	}
	proxy := getenv("GOPROXY")
	if proxy == "" {
		proxy = "https://proxy.golang.org,direct"
	}
	if shared != "" && proxy != "off" {
		env = append(env, "GOPROXY=file://"+filepath.ToSlash(filepath.Join(shared, "cache", "download"))+","+proxy)
	}
	// Module files are written read-only by default, which would keep the
	// user from deleting the per-project cache.
	env = append(env, "GOFLAGS="+strings.TrimSpace(getenv("GOFLAGS")+" -modcacherw"))
	return cacheSetup{root: root, env: env}
}
