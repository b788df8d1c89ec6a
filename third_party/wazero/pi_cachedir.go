package wazero

import (
	goruntime "runtime"

	"github.com/tetratelabs/wazero/internal/version"
)

// CompilationCacheDirName is the directory, under the one given to
// NewCompilationCacheWithDir, that this build's cache entries are kept in
// (PI-PATCH: exported so that pi can tell the directories of other wazero
// versions, which this build never reads, from its own and remove them).
func CompilationCacheDirName() string {
	return cacheDirName(version.GetWazeroVersion())
}

func cacheDirName(wazeroVersion string) string {
	return "wazero-" + wazeroVersion + "-" + goruntime.GOARCH + "-" + goruntime.GOOS
}
