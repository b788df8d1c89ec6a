package host

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Weakness: cache/modules.json holding "null" (or anything that is not
// the cache's JSON) panicked every run until deleted. A bad cache is
// treated as empty, and the next run rewrites it.
func TestBadDigestCacheIsEmpty(t *testing.T) {
	ctx := context.Background()
	for name, content := range map[string]string{
		"null":   "null",
		"array":  "[1,2,3]",
		"broken": `{"x": {"sha256": `,
		"wrong":  `{"x": 5}`,
	} {
		t.Run(name, func(t *testing.T) {
			agent := t.TempDir()
			if err := os.MkdirAll(filepath.Join(agent, "cache"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(agent, "cache", "modules.json"), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			rt, err := NewRuntime(ctx, Config{AgentDir: agent, Lazy: true})
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close(ctx)
			exts, diags := rt.Load(ctx, []string{pkg(t, "sdkguest", "name: cached\nabi: 1\nhooks: [input]\n")}, nil)
			if len(exts) != 1 {
				t.Fatalf("load with a bad cache: %v", diags)
			}
			if c := openDigestCache(filepath.Join(agent, "cache")); len(c.entries) != 1 {
				t.Fatalf("the cache was not rewritten: %d entries", len(c.entries))
			}
		})
	}
}
